"""95% percentile-bootstrap confidence intervals, deterministic.

For an accuracy (the mean of n right/wrong outcomes) the bootstrap distribution is exactly
Binomial(n, p̂)/n, so its percentiles are computed from the binomial distribution directly —
the limit of infinitely many resamples, with no randomness at all. The overall score (a
weighted sum of family accuracies) and process accuracy (a mean of fractions) are resampled
``RESAMPLES`` times from a generator seeded with ``SEED`` (families resampled independently,
stratified, so their weights stay fixed).
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence

SEED = 20240611
RESAMPLES = 2000
LEVEL = 0.95
_LOW = (1 - LEVEL) / 2
_HIGH = 1 - _LOW

Interval = tuple[float, float]


class Binomial:
    """Binomial(n, p) over the support that carries any probability (so large n stays fast).

    ``cdf[i]`` is P(X ≤ first + i); the pmf is built outward from the mode by the ratio
    recurrence in log space and cut where it falls below 1e-18 of the mode.
    """

    def __init__(self, n: int, p: float) -> None:
        self.n = n
        if p <= 0.0 or p >= 1.0:
            self.first = 0 if p <= 0.0 else n
            self.cdf = [1.0]
            return
        mode = min(n, int((n + 1) * p))
        log_ratio = math.log(p) - math.log1p(-p)
        weights = {mode: 1.0}
        log_w = 0.0
        for k in range(mode, n):  # upward: w(k+1) = w(k)·(n−k)/(k+1)·p/q
            log_w += math.log((n - k) / (k + 1)) + log_ratio
            if log_w < -41.4:  # e^-41.4 ≈ 1e-18
                break
            weights[k + 1] = math.exp(log_w)
        log_w = 0.0
        for k in range(mode, 0, -1):  # downward: w(k−1) = w(k)·k/(n−k+1)·q/p
            log_w += math.log(k / (n - k + 1)) - log_ratio
            if log_w < -41.4:
                break
            weights[k - 1] = math.exp(log_w)
        self.first = min(weights)
        total = sum(weights.values())
        running = 0.0
        self.cdf = []
        for k in range(self.first, max(weights) + 1):
            running += weights[k] / total
            self.cdf.append(running)
        self.cdf[-1] = 1.0

    def quantile(self, q: float) -> int:
        """Smallest k with P(X ≤ k) ≥ q."""
        return self.first + min(bisect.bisect_left(self.cdf, q - 1e-12), len(self.cdf) - 1)

    def sample(self, rng: random.Random) -> int:
        return self.first + min(bisect.bisect_left(self.cdf, rng.random()), len(self.cdf) - 1)


def accuracy_interval(correct: int, n: int) -> Interval | None:
    """Bootstrap interval of an accuracy: percentiles of Binomial(n, correct/n)/n."""
    if n <= 0:
        return None
    p = correct / n
    if correct in (0, n):
        return (p, p)
    distribution = Binomial(n, p)
    return (distribution.quantile(_LOW) / n, distribution.quantile(_HIGH) / n)


def weighted_interval(groups: Sequence[tuple[int, int, float]], seed: int = SEED, resamples: int = RESAMPLES) -> Interval | None:
    """Interval of Σ w·accuracy over independent groups given as (correct, n, weight)."""
    groups = [g for g in groups if g[1] > 0]
    if not groups:
        return None
    rng = random.Random(seed)
    tables = [(Binomial(n, correct / n), n, weight) for correct, n, weight in groups]
    draws: list[float] = []
    for _ in range(resamples):
        draws.append(sum(weight * distribution.sample(rng) / n for distribution, n, weight in tables))
    return _percentiles(draws)


def mean_interval(values: Sequence[float], seed: int = SEED, resamples: int = RESAMPLES) -> Interval | None:
    """Interval of the mean of values, by resampling them with replacement."""
    n = len(values)
    if n == 0:
        return None
    if min(values) == max(values):
        return (values[0], values[0])
    rng = random.Random(seed)
    draws = [sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples)]
    return _percentiles(draws)


def _percentiles(draws: list[float]) -> Interval:
    draws.sort()
    last = len(draws) - 1
    return (draws[math.floor(_LOW * last)], draws[math.ceil(_HIGH * last)])
