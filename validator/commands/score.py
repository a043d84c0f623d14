"""``callbank score``: score a predictions file against the corpus.

Exit status: 0 when the file is clean, 1 when it has problems (malformed lines, unknown ids or
steps, duplicates — the report is still written), 2 for a usage error (no such file, no corpus).
Missing predictions are counted wrong and listed; they do not change the exit status.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from validator.errors import UserError

LANG_CHOICES = ("all", "en", "zh")


def score_predictions(
    predictions: Path,
    *,
    root: Path,
    output_format: str = "text",
    out: Path | None = None,
    langs: Sequence[str] = ("en", "zh"),
    categories: Sequence[str] = (),
    replayer: Any = "default",
) -> int:
    """Score predictions against the corpus under root; write the report; the exit status."""
    from validator.scoring.agent import load_replayer
    from validator.scoring.metrics import build_report
    from validator.scoring.predictions import read_predictions
    from validator.scoring.report import REPORTERS
    from validator.scoring.retrieval import load_searcher
    from validator.scoring.scorer import score_units
    from validator.scoring.units import collect_units
    from validator.toolsearch import is_retrieval

    read = read_predictions(predictions)
    repo = load_corpus(root)
    units = collect_units(repo.cases, repo.scenarios, repo.specs, langs=langs, categories=categories)
    if not units.cases and not units.scenarios:
        raise UserError(f"no case or scenario under {root} matches the selection")
    if replayer == "default":
        replayer = load_replayer(repo) if units.scenarios else None
    searcher = load_searcher(repo) if any(is_retrieval(unit.category) for unit in units.cases) else None
    scored = score_units(units, read, replayer, searcher)
    report = build_report(scored, units)
    if repo.load_problems:
        report["notes"].append(f"{len(repo.load_problems)} corpus file(s) could not be read; run `callbank check`")
    text = REPORTERS[output_format](report)
    if out is None:
        sys.stdout.write(text)
    else:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as error:
            raise UserError(f"cannot write {out}: {error.strerror}") from None
    return 1 if report["problems"] else 0


def load_corpus(root: Path) -> Any:
    from validator.repo import Repo

    root = Path(root)
    if not root.is_dir():
        raise UserError(f"{root} is not a directory")
    if not any((root / name).is_dir() for name in ("specs", "dialogues", "sandboxes")):
        raise UserError(f"no callbank corpus under {root} (no specs/, dialogues/ or sandboxes/); pass --repo")
    return Repo.load(root)


def default_root() -> Path:
    from validator.loading import find_repo_root

    return find_repo_root(Path.cwd())


def selected_langs(lang: str) -> tuple[str, ...]:
    return ("en", "zh") if lang == "all" else (lang,)


def fail(error: UserError) -> None:
    click.echo(f"error: {error}", err=True)
    sys.exit(2)


@click.command("score")
@click.argument("predictions", type=click.Path(path_type=Path))
@click.option("--format", "output_format", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True, help="Report format.")
@click.option("--out", type=click.Path(path_type=Path), help="Write the report to this file instead of standard output.")
@click.option("--repo", "root", type=click.Path(path_type=Path), help="Corpus root (default: the repository containing the current folder).")
@click.option("--lang", type=click.Choice(LANG_CHOICES), default="all", show_default=True, help="Languages to score.")
@click.option("--category", "categories", multiple=True, metavar="PREFIX", help="Score only these categories (prefixes such as normal/atom; repeatable).")
def score(predictions: Path, output_format: str, out: Path | None, root: Path | None, lang: str, categories: tuple[str, ...]) -> None:
    """Score PREDICTIONS (JSON Lines, see docs/predictions.md): per case, category, language, overall."""
    try:
        status = score_predictions(
            predictions, root=root or default_root(), output_format=output_format, out=out, langs=selected_langs(lang), categories=categories
        )
    except UserError as error:
        fail(error)
    sys.exit(status)
