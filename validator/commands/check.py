"""`callbank check [PATHS]`: the rule checks, with no execution."""

from __future__ import annotations

import click

from validator.commands.options import report_options, resolve_root
from validator.errors import UserError


def run_check(paths: tuple[str, ...], output_format: str, select: tuple[str, ...], ignore: tuple[str, ...], repo_root: str | None, execute: bool = False) -> int:
    from validator import engine
    from validator.reporters import REPORTERS

    root = resolve_root(repo_root)
    try:
        if execute and paths:
            diagnostics = engine.check_changed(root, paths, select, ignore)
        elif execute:
            diagnostics = engine.validate(root, select, ignore)
        else:
            diagnostics = engine.check(root, paths or None, select, ignore)
    except UserError as error:
        click.echo(f"callbank check: {error}", err=True)
        return 2
    click.echo(REPORTERS[output_format](diagnostics), nl=False)
    return 1 if diagnostics else 0


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--exec",
    "execute",
    is_flag=True,
    help="Then, when the rule checks are clean, run the execution checks of what PATHS touch: their cases and scenarios, "
    "and for a changed spec or sandbox file (sandbox.py, state.yaml) every case and scenario using it (the pre-commit hook).",
)
@report_options
def check(paths: tuple[str, ...], execute: bool, output_format: str, select: tuple[str, ...], ignore: tuple[str, ...], repo_root: str | None) -> None:
    """Check corpus files against every rule (the whole repository when no PATHS are given)."""
    raise SystemExit(run_check(paths, output_format, select, ignore, repo_root, execute))
