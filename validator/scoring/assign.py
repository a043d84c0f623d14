"""Optimal one-to-one assignment (maximum total weight), for pairing expected with actual calls.

The Hungarian algorithm (Kuhn–Munkres with potentials, O(n²·m)) on a rectangular matrix.
Greedy first-fit pairing is what lets a peer pass a real answer in only 12 of its 24 call
orders; an optimal assignment is order-independent by construction.
"""

from __future__ import annotations

from collections.abc import Sequence


def max_weight_assignment(weights: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Pairs (row, column) covering min(rows, columns) items with the largest total weight.

    Deterministic: the same matrix always gives the same pairs (sorted by row).
    """
    n_rows = len(weights)
    n_cols = len(weights[0]) if n_rows else 0
    if n_rows == 0 or n_cols == 0:
        return []
    if n_rows == 1:
        row = weights[0]
        return [(0, max(range(n_cols), key=lambda j: (row[j], -j)))]
    transposed = n_rows > n_cols
    if transposed:
        weights = [[weights[i][j] for i in range(n_rows)] for j in range(n_cols)]
        n_rows, n_cols = n_cols, n_rows
    pairs = _hungarian_min([[-w for w in row] for row in weights], n_rows, n_cols)
    if transposed:
        pairs = [(j, i) for i, j in pairs]
    return sorted(pairs)


def _hungarian_min(cost: list[list[float]], n: int, m: int) -> list[tuple[int, int]]:
    """Minimum-cost assignment of every row (n ≤ m) to a distinct column; 1-based internally."""
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    match = [0] * (m + 1)  # match[j] = row assigned to column j (0: none)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        match[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = match[j0]
            delta = inf
            j1 = 0
            row = cost[i0 - 1]
            for j in range(1, m + 1):
                if not used[j]:
                    current = row[j - 1] - u[i0] - v[j]
                    if current < minv[j]:
                        minv[j] = current
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[match[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if match[j0] == 0:
                break
        while True:
            j1 = way[j0]
            match[j0] = match[j1]
            j0 = j1
            if j0 == 0:
                break
    return [(match[j] - 1, j - 1) for j in range(1, m + 1) if match[j] != 0]
