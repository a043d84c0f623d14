"""`callbank exec`: execute every ground truth and scenario in its sandbox (rule codes EXE…)."""

from __future__ import annotations

import click

from validator.commands.options import report_options, resolve_root


def run_exec(output_format: str, select: tuple[str, ...], ignore: tuple[str, ...], repo_root: str | None) -> int:
    from validator import engine
    from validator.corpus.index import Corpus
    from validator.reporters import REPORTERS

    root = resolve_root(repo_root)
    diagnostics = engine.execute(Corpus.load(root), select, ignore)
    click.echo(REPORTERS[output_format](diagnostics), nl=False)
    return 1 if diagnostics else 0


@click.command("exec")
@report_options
def exec_(output_format: str, select: tuple[str, ...], ignore: tuple[str, ...], repo_root: str | None) -> None:
    """Execute the corpus: spec/sandbox parity, every ground-truth call, every scenario replay."""
    raise SystemExit(run_exec(output_format, select, ignore, repo_root))
