"""`callbank stats`: how much the corpus holds and how hard it is, against the goals of issue 13."""

from __future__ import annotations

import json

import click

from validator.commands.options import repo_option, resolve_root
from validator.errors import UserError


@click.command()
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@repo_option
def stats(output_format: str, repo_root: str | None) -> None:
    """Counts per category and language, difficulty figures, and the corpus goals met or not."""
    from validator.corpus.index import BENCHMARK_KINDS, Corpus
    from validator.stats import corpus_stats, render_text

    root = resolve_root(repo_root)  # --repo DIR that is no repository is refused there
    if not any((root / name).is_dir() for name in ("specs", "dialogues", "sandboxes")):
        # no repository above the current folder (or a --repo with only its settings): counting nothing would print zeros
        where = f"--repo {repo_root}" if repo_root else f"{root} (or any folder above it)"
        raise UserError(f"no callbank corpus in {where}: no specs/, dialogues/ or sandboxes/; run it inside a repository or pass --repo")
    corpus = Corpus.load(root, BENCHMARK_KINDS)
    broken = corpus.broken()
    if broken:
        click.echo(f"warning: {len(broken)} file(s) cannot be read or break their schema and are not counted; run `callbank check`", err=True)
    figures = corpus_stats(corpus)
    click.echo(json.dumps(figures, ensure_ascii=False, indent=2) if output_format == "json" else render_text(figures), nl=output_format == "json")
