"""The two tests of a paired comparison: an exact McNemar test and a paired bootstrap interval.

Each unit both runs answered is a pair of outcomes (A right?, B right?). Only the discordant
pairs carry information about a difference: b = units A got right and B wrong, c = the reverse.

- **McNemar, exact**: under "no difference" each discordant pair is equally likely to go either
  way, so min(b, c) is Binomial(b + c, ½)'s lower tail; the two-sided p-value is twice that tail
  (at most 1), computed with exact integers — no normal approximation, right for the small
  counts of a single category.
- **Paired bootstrap**: resampling n units with replacement, the difference B − A of their mean
  is (gains − losses)/n, where (gains, losses, ties) is Multinomial(n; c/n, b/n, rest) — drawn
  exactly as two binomials. 95% percentile interval over ``RESAMPLES`` draws from a generator
  seeded with ``SEED``, so the same runs always give the same interval. The √n-weighted overall
  score resamples each family independently with its weight fixed, as ``callbank score`` does.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import NamedTuple

from validator.scoring.bootstrap import LEVEL, RESAMPLES, SEED, Binomial

_LOW = (1 - LEVEL) / 2


class Paired(NamedTuple):
    """Counts of one group of paired units."""

    n: int
    a_right: int
    b_right: int
    a_only: int  # b: A right, B wrong
    b_only: int  # c: A wrong, B right

    @property
    def difference(self) -> float:
        return (self.b_right - self.a_right) / self.n if self.n else 0.0


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value for b = a_only, c = b_only discordant pairs."""
    discordant = a_only + b_only
    if discordant == 0:
        return 1.0
    tail = sum(math.comb(discordant, i) for i in range(min(a_only, b_only) + 1))
    return min(1.0, 2 * tail / (1 << discordant))


class _Sampler:
    """Draws of one group's difference of means under resampling of its n units."""

    def __init__(self, group: Paired) -> None:
        self.n = group.n
        self.p_gain = group.b_only / group.n
        self.p_loss = group.a_only / group.n
        self.gains = Binomial(group.n, self.p_gain) if self.p_gain > 0.0 else None
        self.losses: dict[int, Binomial] = {}

    def draw(self, rng: random.Random) -> float:
        """(gains − losses)/n: gains ~ Binomial(n, c/n), then losses ~ Binomial(n − gains, (b/n)/(1 − c/n))."""
        gained = self.gains.sample(rng) if self.gains is not None else 0
        rest = self.n - gained
        if rest == 0 or self.p_loss == 0.0:
            return gained / self.n
        conditional = self.losses.get(rest)
        if conditional is None:
            conditional = self.losses[rest] = Binomial(rest, min(1.0, self.p_loss / (1.0 - self.p_gain)))
        return (gained - conditional.sample(rng)) / self.n


def bootstrap_interval(groups: Sequence[tuple[Paired, float]], seed: int = SEED, resamples: int = RESAMPLES) -> tuple[float, float] | None:
    """95% interval of Σ weight · (B − A) over independent groups, each resampled within itself."""
    chosen = [(group, weight) for group, weight in groups if group.n > 0]
    if not chosen:
        return None
    if all(group.a_only == group.b_only == 0 for group, _ in chosen):
        return (0.0, 0.0)
    rng = random.Random(seed)
    samplers = [(_Sampler(group), weight) for group, weight in chosen]
    draws = sorted(sum(weight * sampler.draw(rng) for sampler, weight in samplers) for _ in range(resamples))
    last = len(draws) - 1
    return (draws[math.floor(_LOW * last)], draws[math.ceil((1 - _LOW) * last)])
