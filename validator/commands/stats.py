"""`callbank stats`: how much the corpus holds and how hard it is, against the goals of issue 13."""

from __future__ import annotations

import json
from pathlib import Path

import click

from validator.errors import UserError


def run_stats(output_format: str, repo_root: str | None) -> int:
    from validator.corpus.index import BENCHMARK_KINDS, Corpus
    from validator.loading import find_repo_root
    from validator.stats import corpus_stats, render_text

    root = Path(repo_root) if repo_root else find_repo_root(Path.cwd())
    try:
        if not any((root / name).is_dir() for name in ("specs", "dialogues", "sandboxes")):
            where = f"--repo {repo_root}" if repo_root else f"{root} (or any folder above it)"
            raise UserError(f"no callbank corpus in {where}: no specs/, dialogues/ or sandboxes/; run it inside a repository or pass --repo")
        corpus = Corpus.load(root, BENCHMARK_KINDS)
    except UserError as error:
        click.echo(f"callbank stats: {error}", err=True)
        return 2
    broken = corpus.broken()
    if broken:
        click.echo(f"warning: {len(broken)} file(s) cannot be read or break their schema and are not counted; run `callbank check`", err=True)
    figures = corpus_stats(corpus)
    click.echo(json.dumps(figures, ensure_ascii=False, indent=2) if output_format == "json" else render_text(figures), nl=output_format == "json")
    return 0


@click.command()
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--repo", "repo_root", type=click.Path(file_okay=False, exists=True), default=None, help="Repository root (default: found from the current folder).")
def stats(output_format: str, repo_root: str | None) -> None:
    """Counts per category and language, difficulty figures, and the corpus goals met or not."""
    raise SystemExit(run_stats(output_format, repo_root))
