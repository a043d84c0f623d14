"""`callbank stats`: how much of what the corpus holds, per category and language."""

from __future__ import annotations

import json

import click

from validator.errors import UserError


@click.command()
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--repo", "repo_root", type=click.Path(file_okay=False, exists=True), default=None, help="Repository root (default: found from the current folder).")
def stats(output_format: str, repo_root: str | None) -> None:
    """Counts per category × language, APIs per domain, calls, arguments and turns."""
    from validator.corpus.index import BENCHMARK_KINDS, Corpus
    from validator.loading import corpus_root
    from validator.stats import corpus_stats, render_text

    try:
        root = corpus_root(repo_root)
    except UserError as error:
        click.echo(f"callbank stats: {error}", err=True)
        raise SystemExit(2) from None
    corpus = Corpus.load(root, BENCHMARK_KINDS)
    broken = corpus.broken()
    if broken:
        click.echo(f"warning: {len(broken)} file(s) cannot be read or break their schema and are not counted; run `callbank check`", err=True)
    figures = corpus_stats(corpus)
    click.echo(json.dumps(figures, ensure_ascii=False, indent=2) if output_format == "json" else render_text(figures), nl=output_format == "json")
