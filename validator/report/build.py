"""From runs to the report: score each run, gather the browser's data, draw the charts.

``build`` returns everything the HTML page and the PNG export need; ``write_html`` and
``write_png`` (``validator.report.png``) write it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from validator.corpus.index import Corpus
from validator.errors import UserError
from validator.leaderboard.table import leaderboard
from validator.report.charts import run_figures, runs_figure
from validator.report.data import run_entry, shared
from validator.report.page import page
from validator.runs.load import Run
from validator.runs.prices import PriceTable
from validator.runs.usage import summarise
from validator.scoring.agent import load_replayer
from validator.scoring.evaluate import Evaluation


class Report(NamedTuple):
    runs: list[dict[str, Any]]  # per run: label, files, settings, score report, usage, rows, details
    shared: dict[str, Any]  # dialogues, scenarios, error titles
    figures: dict[str, Any]  # name -> plotly figure
    board: dict[str, Any] | None  # the leaderboard, with several runs


def build(runs: Sequence[Run], evaluations: Sequence[Evaluation], corpus: Corpus, prices: PriceTable | None = None) -> Report:
    replayer = load_replayer(corpus) if any(e.units.scenarios for e in evaluations) else None
    entries = []
    figures: dict[str, Any] = {}
    for index, (run, evaluation) in enumerate(zip(runs, evaluations, strict=True)):
        usage = summarise(list(run.paths), [file.manifest for file in run.files if file.manifest], prices)
        entry = run_entry(run, evaluation, corpus, replayer, usage)
        entries.append(entry)
        for name, figure in run_figures(entry["report"], entry["rows"]).items():
            figures[f"run-{index}-{name}"] = figure
    board = None
    if len(runs) > 1:
        board = leaderboard(runs, evaluations, prices)
        figures["runs-categories"] = runs_figure([run.label for run in runs], [e.report for e in evaluations])
    return Report(entries, shared(corpus, evaluations), figures, board)


def write_html(report: Report, out: Path, title: str) -> None:
    figures = {name: json.loads(figure.to_json()) for name, figure in report.figures.items()}
    text = page(report.runs, report.shared, figures, report.board, title)
    temporary = out.with_name(out.name + ".tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(out)  # never a half-written report
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise UserError(f"cannot write {out}: {error.strerror}") from None
