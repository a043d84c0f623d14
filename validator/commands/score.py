"""``callbank score``: score a predictions file — or the shards of one run — against the corpus.

Several files are read as one run (``validator.runs.load``): the shards of a run
(``callbank run --shard I/N``) or parts written by another harness. Files whose manifests
disagree, shards given twice and files that share records are refused before anything is scored.

Exit status: 0 when the file is clean, 1 when it has problems (malformed lines, unknown ids or
steps, duplicates — the report is still written), 2 for a usage error (no such file, no corpus).
Missing predictions are counted wrong and listed; they do not change the exit status.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from validator.corpus.langs import LANGS
from validator.errors import UserError

LANG_CHOICES = ("all", *LANGS)


def default_root() -> Path:
    from validator.loading import find_repo_root

    return find_repo_root(Path.cwd())


def repo_root_of(root: Path | None) -> Path:
    """The repository of --repo (checked: UserError for a folder that is none), else the default."""
    from validator.commands.options import resolve_root

    return resolve_root(root) if root is not None else default_root()


def selected_langs(lang: str) -> tuple[str, ...]:
    return LANGS if lang == "all" else (lang,)


def fail(error: UserError) -> None:
    click.echo(f"error: {error}", err=True)
    sys.exit(2)


@click.command("score")
@click.argument("predictions", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "output_format", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True, help="Report format.")
@click.option("--out", type=click.Path(path_type=Path), help="Write the report to this file instead of standard output.")
@click.option("--repo", "root", type=click.Path(path_type=Path), metavar="DIR", help="Repository root (default: found from the current folder).")
@click.option("--lang", type=click.Choice(LANG_CHOICES), default="all", show_default=True, help="Languages to score.")
@click.option("--category", "categories", multiple=True, metavar="PREFIX", help="Score only these categories (prefixes such as normal/atom; repeatable).")
def score(predictions: tuple[Path, ...], output_format: str, out: Path | None, root: Path | None, lang: str, categories: tuple[str, ...]) -> None:
    """Score PREDICTIONS (JSON Lines, see docs/predictions.md): per case, category, language, overall.

    Several files are the shards of one run, scored together."""
    from validator.corpus.index import Corpus
    from validator.runs.load import load_run
    from validator.runs.scoring import evaluate_runs
    from validator.scoring.evaluate import write_report

    try:
        repo = repo_root_of(root)  # a --repo that is no repository is the first thing to say
        run = load_run(predictions)
        corpus = Corpus.load_benchmark(repo, "score")
        [evaluation] = evaluate_runs([run], corpus, langs=selected_langs(lang), categories=categories)
        status = write_report(evaluation.report, output_format, out)
    except UserError as error:
        fail(error)
    sys.exit(status)
