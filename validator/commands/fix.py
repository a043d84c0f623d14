"""``callbank fix [PATHS]``: write the findings that have one mechanical fix.

- DLG052: a date the user gave relative to the clock ("tomorrow", "下周三") that is not what those
  words give against the case's ``time`` (the clock was moved, or a neighbour case copied): the
  right value is the date the words give, with the time of day and offset it had;
- EXE017: a case's recorded tool result that differs from what its call returns now (a sandbox's
  data or code changed under a case nobody touched, or a call's date was just fixed): the right
  value is what the call returns, computed by the same execution `callbank exec` runs.

Both are applied until nothing changes (``validator.regenerate.fix_repository``); only the
changed values are rewritten (``validator.fixer``: comments and layout stay). ``--diff`` prints
the changes instead of writing them (the fixes run on a scratch copy); exit status 1 then means
"there is something to fix" (for CI), 0 nothing; 2 a usage error.
"""

from __future__ import annotations

import difflib
import shutil
import sys
import tempfile
from pathlib import Path

import click

from validator.commands.options import repo_option
from validator.corpus.index import Corpus
from validator.errors import UserError

_COPIED = ("specs", "dialogues", "sandboxes", "review", "schemas")  # what a corpus is made of
_WHAT = {"DLG052": "relative date(s)", "EXE017": "recorded tool result(s)"}


@click.command("fix")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--diff", "show_diff", is_flag=True, help="Print the changes as a unified diff instead of writing them (exit 1 when there are some).")
@repo_option
def fix(paths: tuple[str, ...], show_diff: bool, repo_root: str | None) -> None:
    """Rewrite stale relative dates (DLG052) and the tool results that follow from them or from a
    sandbox change (EXE017) in the cases under PATHS (default: every case)."""
    from validator.commands.options import resolve_root
    from validator.regenerate import fix_repository

    try:
        root = resolve_root(repo_root)
        wanted = _case_paths(root, paths, Corpus(root)) if paths else None
        if show_diff:
            with tempfile.TemporaryDirectory() as scratch:  # fixed in a copy, shown, thrown away
                copy = Path(scratch) / "repo"
                _copy_corpus(root, copy)
                report = fix_repository(copy, wanted)
        else:
            report = fix_repository(root, wanted)
    except UserError as error:
        click.echo(f"callbank fix: {error}", err=True)
        sys.exit(2)
    if not report.changed:
        click.echo("nothing to fix: every relative date is what its words give and every recorded tool result is what its call returns", err=True)
        sys.exit(0)
    if show_diff:
        for path, (old, new) in report.changed.items():
            click.echo("".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}")), nl=False)
        sys.exit(1)
    done = ", ".join(f"{n} {_WHAT[code]} ({code})" for code, n in sorted(report.counts.items()))
    click.echo(f"fixed {done} in {len(report.changed)} file(s)", err=True)
    for path in report.changed:
        click.echo(path)


def _copy_corpus(root: Path, copy: Path) -> None:
    copy.mkdir()
    for name in _COPIED:
        if (root / name).is_dir():
            shutil.copytree(root / name, copy / name, ignore=shutil.ignore_patterns(".*", "__pycache__"))
    from validator.corpus.config import CONFIG_FILE

    if (root / CONFIG_FILE).is_file():
        shutil.copyfile(root / CONFIG_FILE, copy / CONFIG_FILE)


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
