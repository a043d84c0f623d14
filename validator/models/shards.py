"""Deterministic slices of a run (``callbank run --shard I/N``), for spreading it over machines.

The selection's items (cases and scenarios, by id, in plan order) are dealt round-robin: shard
I of N takes the items at positions I−1, I−1+N, I−1+2N … Every checkpoint, language and repeat
of one item stays in one shard, each shard gets an even share of every category (plan order
runs category by category), and the N shards of one selection cover it exactly once. The
slicing depends only on the corpus and the selection (languages, categories, limit), so every
job of a cluster array computes its own shard alone; the manifest records the shard and the
selection, and ``score`` / ``report`` / ``compare`` refuse shards whose manifests disagree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from validator.errors import UserError

T = TypeVar("T")
_FORM = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def take(self, jobs: Sequence[T], item: Callable[[T], str]) -> list[T]:
        """The jobs of this shard: those whose item's position (by first appearance) is index−1 mod count."""
        positions: dict[str, int] = {}
        chosen: list[T] = []
        for job in jobs:
            position = positions.setdefault(item(job), len(positions))
            if position % self.count == self.index - 1:
                chosen.append(job)
        return chosen

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "count": self.count}


def parse_shard(text: str, option: str = "--shard") -> Shard:
    """``I/N`` with 1 ≤ I ≤ N (UserError otherwise)."""
    match = _FORM.fullmatch(text)
    if match is None:
        raise UserError(f"{option} {text!r} is not I/N (this machine's slice I of N, counted from 1), e.g. {option} 2/8")
    index, count = int(match[1]), int(match[2])
    if count < 1 or not 1 <= index <= count:
        raise UserError(f"{option} {text}: I must be between 1 and N (N ≥ 1), e.g. {option} 1/{max(count, 2)}")
    return Shard(index, count)

