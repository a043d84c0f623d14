"""The command line: parse options, dispatch to validator.commands.*, exit with their status.

Commands are imported only when invoked, so `callbank check` on one file starts fast.
"""

from __future__ import annotations

import importlib
import sys

import click

from validator import __version__
from validator.errors import UserError

# name -> "module:attribute" of a click command; modules are imported on first use
COMMANDS: dict[str, str] = {
    "check": "validator.commands.check:check",
    "exec": "validator.commands.exec:exec_",
    "export": "validator.commands.export:export",
    "rules": "validator.commands.rules:rules",
    "validate": "validator.commands.validate:validate",
    "build": "validator.commands.build:build",
    "publish": "validator.commands.publish:publish",
    "score": "validator.commands.score:score",
    "compare": "validator.commands.compare:compare",
    "leaderboard": "validator.commands.leaderboard:leaderboard",
    "report": "validator.commands.report:report",
    "run": "validator.commands.run:run",
    "review": "validator.commands.review:review",
    "stats": "validator.commands.stats:stats",
    "fix": "validator.commands.fix:fix",
    "new": "validator.commands.new:new",
    "import": "validator.commands.import_:import_",
    "synth": "validator.commands.synth:synth",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def invoke(self, ctx: click.Context) -> object:
        # a mistake the user can fix that a command let through (a malformed callbank.yaml, a
        # --repo that is no repository): one line, exit status 2, never a traceback
        try:
            return super().invoke(ctx)
        except UserError as error:
            click.echo(f"callbank {ctx.invoked_subcommand or ''}: {error}".replace("callbank : ", "callbank: "), err=True)
            ctx.exit(2)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="callbank")
def cli() -> None:
    """callbank: a bilingual benchmark of tool use, and the validator that proves it right."""


def main() -> None:
    sys.exit(cli.main(standalone_mode=True))
