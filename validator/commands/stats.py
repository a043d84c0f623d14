"""`callbank stats`: how much of what the corpus holds, per category and language."""

from __future__ import annotations

import json

import click

from validator.commands.options import repo_option, resolve_root


@click.command()
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@repo_option
def stats(output_format: str, repo_root: str | None) -> None:
    """Counts per category × language, APIs per domain, calls, arguments and turns."""
    from validator.corpus.index import BENCHMARK_KINDS, Corpus
    from validator.stats import corpus_stats, render_text

    root = resolve_root(repo_root)
    corpus = Corpus.load(root, BENCHMARK_KINDS)
    broken = corpus.broken()
    if broken:
        click.echo(f"warning: {len(broken)} file(s) cannot be read or break their schema and are not counted; run `callbank check`", err=True)
    figures = corpus_stats(corpus)
    click.echo(json.dumps(figures, ensure_ascii=False, indent=2) if output_format == "json" else render_text(figures), nl=output_format == "json")
