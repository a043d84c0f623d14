"""`callbank validate`: `check`, then `exec` when the rule checks are clean — the one CI command."""

from __future__ import annotations

import click

from validator.commands.options import report_options, resolve_root
from validator.errors import UserError


def run_validate(output_format: str, select: tuple[str, ...], ignore: tuple[str, ...], repo_root: str | None) -> int:
    from validator import engine
    from validator.reporters import REPORTERS

    root = resolve_root(repo_root)
    try:
        diagnostics = engine.validate(root, select, ignore)
    except UserError as error:
        click.echo(f"callbank validate: {error}", err=True)
        return 2
    click.echo(REPORTERS[output_format](diagnostics), nl=False)
    return 1 if diagnostics else 0


@click.command()
@report_options
def validate(output_format: str, select: tuple[str, ...], ignore: tuple[str, ...], repo_root: str | None) -> None:
    """Check every file, then execute the corpus when the checks are clean (what CI runs)."""
    raise SystemExit(run_validate(output_format, select, ignore, repo_root))
