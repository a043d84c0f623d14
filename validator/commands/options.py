"""Options shared by every command that reports findings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

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
    function = click.option("--repo", "repo_root", type=click.Path(file_okay=False, exists=True), default=None, help="Repository root (default: found from the current folder).")(function)
    return function
