"""The optimal assignment equals brute force on every small matrix."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from validator.scoring.assign import max_weight_assignment

weights = st.integers(min_value=1, max_value=6).flatmap(
    lambda rows: st.integers(min_value=1, max_value=6).flatmap(
        lambda cols: st.lists(
            st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.25, 2.0, 3.0]), min_size=cols, max_size=cols), min_size=rows, max_size=rows
        )
    )
)


def brute_force(matrix: list[list[float]]) -> float:
    rows, cols = len(matrix), len(matrix[0])
    if rows <= cols:
        return max(sum(matrix[i][j] for i, j in enumerate(perm)) for perm in itertools.permutations(range(cols), rows))
    return max(sum(matrix[i][j] for j, i in enumerate(perm)) for perm in itertools.permutations(range(rows), cols))


@settings(max_examples=300, deadline=None)
@given(weights)
def test_assignment_is_optimal(matrix: list[list[float]]) -> None:
    pairs = max_weight_assignment(matrix)
    assert len(pairs) == min(len(matrix), len(matrix[0]))
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
    assert abs(sum(matrix[i][j] for i, j in pairs) - brute_force(matrix)) < 1e-9


def test_deterministic_and_empty() -> None:
    matrix = [[1.0, 1.0], [1.0, 1.0]]
    assert max_weight_assignment(matrix) == max_weight_assignment(matrix)
    assert max_weight_assignment([]) == []
    assert max_weight_assignment([[]]) == []
