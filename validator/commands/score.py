"""``callbank score``: score a predictions file against the corpus.

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
@click.argument("predictions", type=click.Path(path_type=Path))
@click.option("--format", "output_format", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True, help="Report format.")
@click.option("--out", type=click.Path(path_type=Path), help="Write the report to this file instead of standard output.")
@click.option("--repo", "root", type=click.Path(path_type=Path), metavar="DIR", help="Repository root (default: found from the current folder).")
@click.option("--lang", type=click.Choice(LANG_CHOICES), default="all", show_default=True, help="Languages to score.")
@click.option("--category", "categories", multiple=True, metavar="PREFIX", help="Score only these categories (prefixes such as normal/atom; repeatable).")
def score(predictions: Path, output_format: str, out: Path | None, root: Path | None, lang: str, categories: tuple[str, ...]) -> None:
    """Score PREDICTIONS (JSON Lines, see docs/predictions.md): per case, category, language, overall."""
    from validator.scoring.evaluate import score_predictions

    try:
        status = score_predictions(
            predictions, root=repo_root_of(root), output_format=output_format, out=out, langs=selected_langs(lang), categories=categories
        )
    except UserError as error:
        fail(error)
    sys.exit(status)
