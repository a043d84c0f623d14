"""Scoring a predictions file against a corpus: what `callbank score` and a built dataset's
``score.py`` both run.

Exit status: 0 when the predictions file is clean, 1 when it has problems (malformed lines,
unknown ids or steps, duplicates — the report is still written). Missing predictions are
counted wrong and listed; they do not change the status. A corpus with unreadable or
schema-breaking files is refused (UserError): its records do not exist, so nothing about it
could be scored truthfully — unless its ``callbank.yaml`` says ``broken_files: skip`` (an
imported repository): then what those files hold, and every item that needs a broken spec, is
left out, and a note says how many.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.corpus.selection import Selection
from validator.errors import UserError
from validator.scoring.agent import Replayer, load_replayer
from validator.scoring.metrics import build_report
from validator.scoring.predictions import Predictions, read_predictions
from validator.scoring.repeats import repeat_report
from validator.scoring.report import REPORTERS
from validator.scoring.retrieval import load_searcher
from validator.scoring.scorer import Scored, score_units
from validator.scoring.units import Units, collect_units
from validator.toolsearch import is_retrieval

DEFAULT_REPLAYER = "default"


class Evaluation(NamedTuple):
    """One run scored: the units, every verdict, and the report built from them."""

    units: Units
    scored: Scored
    report: dict[str, Any]


def evaluate(
    predictions: Predictions,
    corpus: Corpus,
    *,
    langs: Sequence[str] = LANGS,
    categories: Sequence[str] = (),
    replayer: Replayer | str | None = DEFAULT_REPLAYER,
    notes: Sequence[str] = (),
    limit: int | None = None,
    selections: Sequence[Selection] | None = None,
    about: Mapping[str, Any] | None = None,
) -> Evaluation:
    """Score predictions (already read, possibly merged from several shard files) against corpus.

    ``notes`` are added to the report's notes (for instance shards that were not given). The
    units are those of ``langs``/``categories``/``limit``, or of any of ``selections`` (a run's
    sessions); ``about`` goes into the report: the run and how the units were chosen (``callbank
    score`` fills it from the run's manifest; ``selection`` gains the count of units).
    """
    chosen_langs = sorted({lang for selection in selections for lang in selection.langs} if selections is not None else set(langs))
    if not set(chosen_langs) & set(corpus.langs):
        raise UserError(f"the repository {corpus.root} holds {', '.join(corpus.langs)} only (callbank.yaml); --lang {chosen_langs[0]} selects nothing")
    units = collect_units(corpus, langs=langs, categories=categories, limit=limit, selections=selections)
    if not units.cases and not units.scenarios:
        raise UserError(f"no case or scenario under {corpus.root} matches the selection")
    if replayer == DEFAULT_REPLAYER:
        replayer = load_replayer(corpus) if units.scenarios else None
    chosen = replayer if not isinstance(replayer, str) else None
    searcher = load_searcher(corpus) if any(is_retrieval(unit.category) for unit in units.cases) else None
    scored = score_units(units, predictions, corpus.specs, chosen, searcher)
    report = build_report(scored, units)
    for key, value in (about or {}).items():
        report[key] = {**value, "units": len(units.cases) + len(units.scenarios)} if key == "selection" else value
    report["notes"] = [*notes, *report["notes"]]
    skipped = corpus.skipped_note()
    if skipped:
        report["notes"].append(skipped)
    if predictions.trials:
        report["repeats"] = repeat_report(units, predictions, corpus.specs, chosen, searcher)
    return Evaluation(units, scored, report)


def write_report(report: dict[str, Any], output_format: str, out: Path | None) -> int:
    """Render report in output_format to out (standard output when None); the exit status."""
    text = REPORTERS[output_format](report)
    if out is None:
        sys.stdout.write(text)
    else:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as error:
            raise UserError(f"cannot write {out}: {error.strerror}") from None
    return 1 if report["problems"] else 0


def score_predictions(
    predictions: Path,
    *,
    root: Path,
    output_format: str = "text",
    out: Path | None = None,
    langs: Sequence[str] = LANGS,
    categories: Sequence[str] = (),
    limit: int | None = None,
    selections: Sequence[Selection] | None = None,
    about: Mapping[str, Any] | None = None,
    notes: Sequence[str] = (),
    replayer: Replayer | str | None = DEFAULT_REPLAYER,
) -> int:
    """Score one predictions file against the corpus under root; write the report; the exit status."""
    read = read_predictions(predictions)
    corpus = Corpus.load_benchmark(root, "score")
    evaluation = evaluate(read, corpus, langs=langs, categories=categories, replayer=replayer)
    return write_report(evaluation.report, output_format, out)
