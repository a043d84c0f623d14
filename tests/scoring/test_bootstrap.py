"""Bootstrap intervals: exact for accuracies, seeded and repeatable for the rest."""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from validator.scoring.bootstrap import Binomial, accuracy_interval, mean_interval, weighted_interval


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=60), st.floats(min_value=0.01, max_value=0.99))
def test_binomial_cdf_matches_the_formula(n: int, p: float) -> None:
    distribution = Binomial(n, p)
    running = 0.0
    for k in range(n + 1):
        running += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        index = k - distribution.first
        if 0 <= index < len(distribution.cdf):
            assert abs(distribution.cdf[index] - running) < 1e-9


def test_accuracy_interval_matches_resampling() -> None:
    outcomes = [1] * 70 + [0] * 30
    rng = random.Random(1)
    means = sorted(sum(rng.choice(outcomes) for _ in outcomes) / 100 for _ in range(4000))
    low, high = accuracy_interval(70, 100)
    assert abs(low - means[100]) <= 0.02 and abs(high - means[3899]) <= 0.02
    assert low < 0.7 < high


def test_degenerate_and_empty() -> None:
    assert accuracy_interval(0, 0) is None
    assert accuracy_interval(5, 5) == (1.0, 1.0)
    assert accuracy_interval(0, 5) == (0.0, 0.0)
    assert mean_interval([]) is None
    assert mean_interval([0.5, 0.5]) == (0.5, 0.5)
    assert weighted_interval([]) is None


def test_seeded_intervals_are_deterministic_and_sensible() -> None:
    groups = [(30, 100, 0.6), (5, 10, 0.4)]
    first = weighted_interval(groups)
    assert first == weighted_interval(groups)
    point = 0.6 * 0.3 + 0.4 * 0.5
    assert first is not None and first[0] < point < first[1]
    values = [0.0, 0.5, 1.0, 1.0, 0.25]
    assert mean_interval(values) == mean_interval(values)


def test_large_n_is_fast_and_tight() -> None:
    low, high = accuracy_interval(750_000, 1_000_000)  # type: ignore[misc]
    assert 0.749 < low < 0.75 < high < 0.751
