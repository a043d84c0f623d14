"""``callbank new case|api|scenario``: a new corpus file with the next free id, both language
sides and the schema line, its blanks marked ``~  # fill in:`` (``validator.scaffold``). Prints
the path; ``callbank check PATH`` then lists what is left to fill."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from validator.commands.options import repo_option
from validator.errors import UserError

if TYPE_CHECKING:
    from validator.corpus.index import Corpus
    from validator.scaffold import Skeleton


def _write(repo_root: str | None, make: Callable[[Corpus], Skeleton]) -> None:
    from validator.commands.options import resolve_root
    from validator.corpus.index import Corpus
    from validator.scaffold import write_skeleton

    try:
        root = resolve_root(repo_root)
        skeleton = make(Corpus.load(root, ("api", "case", "scenario", "state")))
        write_skeleton(root, skeleton)
    except UserError as error:
        click.echo(f"callbank new: {error}", err=True)
        sys.exit(2)
    click.echo(skeleton.path)
    click.echo(f"fill in every '~', then: callbank check {skeleton.path}", err=True)


_REPO = repo_option


@click.group("new")
def new() -> None:
    """Start a new case, API spec or agent scenario from a skeleton."""


@new.command("case")
@click.argument("category")
@click.option("--api", "apis", multiple=True, help="A candidate API (repeatable); the first is the one the expected call uses.")
@_REPO
def new_case(category: str, apis: tuple[str, ...], repo_root: str | None) -> None:
    """A case of CATEGORY (e.g. normal/atom/enum) in dialogues/CATEGORY/."""
    from validator.scaffold import case_skeleton

    _write(repo_root, lambda corpus: case_skeleton(corpus, category, apis))


@new.command("api")
@click.argument("name")
@click.option("--domain", required=True, help="Dotted domain, e.g. phone.messages; the file goes in specs/<first part>/.")
@click.option("--sandbox", default=None, help="The sandbox that implements it (none: a spec-only distractor).")
@_REPO
def new_api(name: str, domain: str, sandbox: str | None, repo_root: str | None) -> None:
    """An API spec NAME in specs/<domain>/."""
    from validator.scaffold import api_skeleton

    _write(repo_root, lambda corpus: api_skeleton(corpus, name, domain, sandbox))


@new.command("scenario")
@click.argument("sandbox")
@click.option("--mode", type=click.Choice(["multi_turn", "multi_step"]), default="multi_step", show_default=True)
@_REPO
def new_scenario(sandbox: str, mode: str, repo_root: str | None) -> None:
    """An agent scenario in sandboxes/SANDBOX/scenarios/."""
    from validator.scaffold import scenario_skeleton

    _write(repo_root, lambda corpus: scenario_skeleton(corpus, sandbox, mode))
