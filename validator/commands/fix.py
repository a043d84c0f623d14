"""``callbank fix [PATHS]``: write the findings that have one mechanical fix.

Today that is EXE017 — a case's recorded tool result that differs from what its call returns now
(a sandbox's data or code changed under a case nobody touched): the one right value is what the
call returns, computed by the same execution `callbank exec` runs (``validator.regenerate``). Only
the changed values are rewritten (``validator.fixer``: comments and layout stay). ``--diff``
prints the changes instead of writing them; exit status 1 then means "there is something to fix"
(for CI), 0 nothing; 2 a usage error.
"""

from __future__ import annotations

import difflib
import sys
import tempfile
from pathlib import Path

import click

from validator.commands.options import repo_option
from validator.corpus.index import Corpus
from validator.errors import UserError


@click.command("fix")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--diff", "show_diff", is_flag=True, help="Print the changes as a unified diff instead of writing them (exit 1 when there are some).")
@repo_option
def fix(paths: tuple[str, ...], show_diff: bool, repo_root: str | None) -> None:
    """Rewrite stale recorded tool results (EXE017) in the cases under PATHS (default: every case)."""
    from validator.commands.options import resolve_root
    from validator.fixer import Fix, write_fixes
    from validator.regenerate import stale_tool_results

    try:
        root = resolve_root(repo_root)
        corpus = Corpus.load(root)
        corpus.require_intact("fix")
        wanted = _case_paths(root, paths, corpus) if paths else None
        fixes = [Fix(s.path, s.pointer, s.actual) for s in stale_tool_results(corpus, wanted)]
        if not fixes:
            click.echo("nothing to fix: every recorded tool result is what its call returns", err=True)
            sys.exit(0)
        if show_diff:
            with tempfile.TemporaryDirectory() as scratch:  # written to a copy, shown, thrown away
                copy = Path(scratch)
                for path in {f.path for f in fixes}:
                    (copy / path).parent.mkdir(parents=True, exist_ok=True)
                    (copy / path).write_text((root / path).read_text(encoding="utf-8"), encoding="utf-8")
                changed = write_fixes(copy, fixes)
            for path, (old, new) in changed.items():
                click.echo("".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}")), nl=False)
            sys.exit(1)
        changed = write_fixes(root, fixes)
    except UserError as error:
        click.echo(f"callbank fix: {error}", err=True)
        sys.exit(2)
    click.echo(f"fixed {len(fixes)} recorded tool result(s) in {len(changed)} file(s) (EXE017)", err=True)
    for path in changed:
        click.echo(path)


def _case_paths(root: Path, paths: tuple[str, ...], corpus: Corpus) -> list[str]:
    """The cases named by paths (files or folders, relative to the current folder)."""
    base = root.resolve()
    chosen: list[str] = []
    for raw in paths:
        full = Path(raw).resolve()
        try:
            rel = full.relative_to(base).as_posix()
        except ValueError:
            raise UserError(f"{raw} is outside the repository {base}") from None
        prefix = "" if rel == "." else rel
        chosen += [p for p, kind in corpus.discovered if kind == "case" and (p == prefix or p.startswith(prefix.rstrip("/") + "/") or not prefix)]
    if not chosen:
        raise UserError(f"no case under {', '.join(paths)}")
    return chosen
