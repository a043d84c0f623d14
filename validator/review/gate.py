"""The review gate: what in review/queue/ forbids building or publishing, and what it accepted.

The rules are REV001–REV005 (``validator.rules.review``); this module runs them over a corpus
and counts who accepted what, for the dataset card.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from validator.corpus.canonical import content_hash
from validator.corpus.index import Corpus
from validator.diagnostics import Diagnostic
from validator.engine import review


def blocking(root: Path, corpus: Corpus | None = None, *, publishing: bool = False, allow_unreviewed: bool = False) -> list[Diagnostic]:
    """Every review finding that forbids building (``publishing=False``) or publishing, sorted by
    place; empty when the gate is open. Publishing also needs every case and scenario reviewed
    (REV005), unless ``allow_unreviewed`` (a preview)."""
    stages = ("review", "publish") if publishing and not allow_unreviewed else ("review",)
    return review(corpus if corpus is not None else Corpus.load(Path(root)), stages=stages)


class ReviewSummary(NamedTuple):
    """Who accepted the cases and scenarios of a corpus, as its review queue records it."""

    items: int  # cases and scenarios
    by_judges: int  # accepted because every judge model voted valid
    by_reviewers: int  # accepted by human reviewers
    accepted_unattributed: int  # accepted; the record does not say by whom
    unreviewed: int  # no record at all
    not_accepted: int  # a record that is pending or rejected, or accepted for other content

    @property
    def accepted(self) -> int:
        return self.by_judges + self.by_reviewers + self.accepted_unattributed

    @property
    def complete(self) -> bool:
        return self.accepted == self.items


def review_summary(corpus: Corpus) -> ReviewSummary:
    """The true counts of the queue: an item counts as accepted only when its record is accepted
    for exactly its current content."""
    judges = reviewers = unattributed = unreviewed = other = 0
    items = list(corpus.items())
    for item in items:
        record = corpus.review_records.get(item.id)
        if record is None:
            unreviewed += 1
        elif record.status != "accepted" or record.accepted_content != content_hash(item.data):
            other += 1
        elif record.decided_by == "judges":
            judges += 1
        elif record.decided_by == "reviewers":
            reviewers += 1
        else:
            unattributed += 1
    return ReviewSummary(len(items), judges, reviewers, unattributed, unreviewed, other)
