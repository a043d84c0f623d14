"""The command line: parse options, dispatch to validator.commands.*, exit with their status.

Commands are imported only when invoked, so `callbank check` on one file starts fast.
"""

from __future__ import annotations

import importlib
import sys

import click

from validator import __version__

# name -> "module:attribute" of a click command; modules are imported on first use
COMMANDS: dict[str, str] = {
    "check": "validator.commands.check:check",
    "exec": "validator.commands.exec:exec_",
    "rules": "validator.commands.rules:rules",
    "validate": "validator.commands.validate:validate",
    "build": "validator.commands.build:build",
    "publish": "validator.commands.publish:publish",
    "score": "validator.commands.score:score",
    "run": "validator.commands.run:run",
    "review": "validator.commands.review:review",
    "stats": "validator.commands.stats:stats",
    "fix": "validator.commands.fix:fix",
    "new": "validator.commands.new:new",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

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
