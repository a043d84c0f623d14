"""``callbank leaderboard RUN…``: several runs in one table (Markdown, CSV or JSON).

Each argument is a predictions file; the shards of one run are grouped by their manifests.
Exit status: 0 when the table was written, 2 for a usage error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from validator.commands.score import LANG_CHOICES, fail, repo_root_of, selected_langs
from validator.errors import UserError


def write_text(text: str, out: Path | None) -> None:
    """text to out, or to standard output (UserError when out cannot be written)."""
    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {out}: {error.strerror}") from None


@click.command("leaderboard")
@click.argument("predictions", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "output_format", type=click.Choice(["markdown", "csv", "json"]), default="markdown", show_default=True, help="Table format.")
@click.option("--out", type=click.Path(path_type=Path), help="Write the table to this file instead of standard output.")
@click.option("--prices", type=click.Path(path_type=Path), help="Price table (YAML or JSON, docs/evaluating.md) for a cost column.")
@click.option("--repo", "root", type=click.Path(path_type=Path), metavar="DIR", help="Repository root (default: found from the current folder).")
@click.option("--lang", type=click.Choice(LANG_CHOICES), default="all", show_default=True, help="Languages to score.")
@click.option("--category", "categories", multiple=True, metavar="PREFIX", help="Score only these categories (prefixes; repeatable).")
def leaderboard(predictions: tuple[Path, ...], output_format: str, out: Path | None, prices: Path | None, root: Path | None, lang: str, categories: tuple[str, ...]) -> None:
    """One row per run: model, mode and style from its manifest; overall with its 95% interval,
    Normal / Special / Agent, en and zh with their gap; tokens, latency and (with --prices) cost."""
    from validator.corpus.index import Corpus
    from validator.leaderboard.render import REPORTERS
    from validator.leaderboard.table import leaderboard as build
    from validator.runs.load import load_runs
    from validator.runs.prices import read_prices
    from validator.runs.scoring import evaluate_runs

    try:
        table = read_prices(prices) if prices is not None else None
        repo = repo_root_of(root)  # a --repo that is no repository is the first thing to say
        runs = load_runs(predictions)
        corpus = Corpus.load_benchmark(repo, "leaderboard")
        evaluations = evaluate_runs(runs, corpus, langs=selected_langs(lang), categories=categories)
        write_text(REPORTERS[output_format](build(runs, evaluations, table)), out)
    except UserError as error:
        fail(error)
