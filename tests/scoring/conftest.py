"""Shared fixtures: the scoring fixture repository and helpers that score predictions in memory."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from validator.corpus.index import Corpus
from validator.scoring.agent import load_replayer
from validator.scoring.metrics import build_report
from validator.scoring.predictions import parse_predictions
from validator.scoring.retrieval import load_searcher
from validator.scoring.scorer import score_units
from validator.scoring.units import collect_units

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"


@pytest.fixture(scope="session")
def repo() -> Corpus:
    return Corpus.load(FIXTURE)


@pytest.fixture(scope="session")
def replayer(repo: Corpus) -> Any:
    return load_replayer(repo)


def jsonl(records: Iterable[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


@pytest.fixture(scope="session")
def searcher(repo: Corpus) -> Any:
    return load_searcher(repo)


_SEARCHERS: dict[int, Any] = {}


def score_records(
    repo: Corpus,
    records: Iterable[dict[str, Any]],
    replayer: Any = None,
    *,
    langs: Sequence[str] = ("en", "zh"),
    categories: Sequence[str] = (),
    searcher: Any = "default",
) -> dict[str, Any]:
    """The report for prediction records against the fixture corpus (no file involved); retrieval
    searches are re-run against the repository's catalog unless a searcher (or None) is given."""
    if searcher == "default":
        searcher = _SEARCHERS.setdefault(id(repo), load_searcher(repo))
    units = collect_units(repo, langs=langs, categories=categories)
    scored = score_units(units, parse_predictions(jsonl(records)), repo.specs, replayer, searcher)
    return build_report(scored, units)
