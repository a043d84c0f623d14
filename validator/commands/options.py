"""Options shared by the commands: the repository (``--repo``), and what findings to report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from validator.errors import UserError

REPO_HELP = "Repository root (default: found from the current folder)."
# what makes a folder a callbank repository (validator.loading.CORPUS_ROOTS and the settings file)
_MARKERS = ("callbank.yaml", "specs", "dialogues", "sandboxes")


def repo_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--repo DIR``; the command resolves it with :func:`resolve_root`."""
    return click.option("--repo", "repo_root", type=click.Path(), default=None, metavar="DIR", help=REPO_HELP)(function)


def resolve_root(repo_root: str | Path | None) -> Path:
    """The repository a command works on: ``--repo DIR`` when given (refused with a clear
    message when it is no callbank repository), else the one holding the current folder."""
    from validator.loading import find_repo_root

    if repo_root is None:
        found = find_repo_root(Path.cwd())
        if not any((found / marker).exists() for marker in _MARKERS):  # not "no findings" outside a clone
            raise UserError(f"no callbank repository at or above {Path.cwd()} (no callbank.yaml, specs/, dialogues/ or sandboxes/): run inside a clone, or pass --repo")
        return found
    root = Path(repo_root)
    if not root.exists():
        raise UserError(f"--repo {repo_root}: no such folder")
    if not root.is_dir():
        raise UserError(f"--repo {repo_root} is a file; pass the folder of a callbank repository")
    if any((root / marker).exists() for marker in _MARKERS):
        return root
    inner = sorted(p.name for p in root.iterdir() if p.is_dir() and any((p / marker).exists() for marker in _MARKERS))
    if inner:
        shown = ", ".join(f"{name}/" for name in inner)
        raise UserError(f"--repo {repo_root} is not a callbank repository, but {shown} {'are' if len(inner) > 1 else 'is'} (an ACEBench import writes one per language); pass --repo {root / inner[0]}")
    raise UserError(f"--repo {repo_root} is not a callbank repository: it has no callbank.yaml, specs/, dialogues/ or sandboxes/")

FORMATS = ("text", "json", "github")


def _codes(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    from validator.rules.registry import known_prefix

    codes = tuple(c.strip().upper() for v in value for c in v.split(",") if c.strip())
    for code in codes:
        if not known_prefix(code):
            raise click.BadParameter(f"{code!r} matches no rule code (see `callbank rules`)")
    return codes


def report_options(function: Callable[..., Any]) -> Callable[..., Any]:
    function = click.option("--ignore", multiple=True, callback=_codes, help="Skip rules whose code starts with this (repeatable, comma-separated).")(function)
    function = click.option("--select", multiple=True, callback=_codes, help="Only rules whose code starts with this (repeatable, comma-separated).")(function)
    function = click.option("--format", "output_format", type=click.Choice(FORMATS), default="text", show_default=True, help="Output format.")(function)
    return repo_option(function)
