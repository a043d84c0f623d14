"""Scoring runs: each run's merged predictions against one corpus, with what the reader must know."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from validator.corpus.index import Corpus
from validator.corpus.selection import Selection
from validator.models.resume import corpus_version
from validator.runs.load import Run
from validator.scoring.evaluate import Evaluation, evaluate


def corpus_notes(runs: Sequence[Run], corpus: Corpus) -> dict[str, list[str]]:
    """Per run label: a note when the run was made on another version of the corpus."""
    current = corpus_version(corpus.root)
    notes: dict[str, list[str]] = {}
    for run in runs:
        made = (run.manifest or {}).get("corpus_version")
        if isinstance(made, str) and made != current:
            notes.setdefault(run.label, []).append(
                f"{run.label} was run on corpus {made[:19]}… and is scored against {current[:19]}…: cases added or changed since count as they are now"
            )
    return notes


def evaluate_runs(
    runs: Sequence[Run],
    corpus: Corpus,
    *,
    langs: Sequence[str],
    categories: Sequence[str],
    limit: int | None = None,
    selections: Sequence[Selection] | None = None,
    about: Mapping[str, Any] | None = None,
    notes: Sequence[str] = (),
) -> list[Evaluation]:
    """Every run scored against corpus, in order, with its shard and corpus notes (and, from
    `callbank score`, the units its manifest says it covered: ``selections``, ``about``)."""
    extra = corpus_notes(runs, corpus)
    return [
        evaluate(
            run.predictions, corpus, langs=langs, categories=categories, limit=limit, selections=selections, about=about, notes=[*notes, *run.notes, *extra.get(run.label, [])]
        )
        for run in runs
    ]
