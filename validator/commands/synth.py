"""`callbank synth cases`: grow the corpus with a generator and a simulator model (docs/synth.md).

Exit status: 0 when the run finished (whatever it accepted), 1 when it stopped because a model's
endpoint failed (what was answered is cached: run again to resume), 2 for a usage error.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from validator.errors import UserError

if TYPE_CHECKING:
    from validator.synth.config import SynthConfig

DEFAULT_CONFIG = "synth.yaml"


def _fail(error: UserError) -> None:
    click.echo(f"callbank synth: {error}", err=True)
    sys.exit(2)


def _with_search(config: SynthConfig, width: int | None, budget: int | None) -> SynthConfig:
    """The config with --width / --budget over its `search` block."""
    if width is None and budget is None:
        return config
    return replace(config, search=replace(config.search, width=width or config.search.width, budget=budget or config.search.budget))


def _missing_extra(error: ImportError) -> UserError:
    return UserError(f"{error.name} is not installed; install the `run` extra: pip install 'callbank[run]'")


def _finish(report: dict[str, Any], out: Path) -> None:
    """The funnel summary, where the files are, and exit status 1 when a model's endpoint stopped the run."""
    from validator.synth.report import render_summary

    click.echo(render_summary(report), nl=False)
    click.echo(f"report: {out / 'report.json'}; per-candidate log: {out / 'candidates.jsonl'}")
    if report.get("stopped"):
        click.echo(f"stopped: {report['stopped']}; run the same command again to resume (answers so far are cached)", err=True)
        sys.exit(1)


@click.group("synth")
def synth() -> None:
    """Synthesise cases with language models, verified by execution and cycle consistency."""


@synth.command("cases")
@click.option("--category", required=True, help="The category of the cases to grow, e.g. special/incomplete.")
@click.option("--apis", "apis", multiple=True, metavar="NAMES", help="Draw from these APIs (comma-separated, repeatable).")
@click.option("--sandbox", default=None, help="Draw from every API of this sandbox.")
@click.option("--n", "n", type=click.IntRange(1, 100_000), default=10, show_default=True, help="How many candidates to plan.")
@click.option("--config", "config_file", type=click.Path(path_type=Path), default=None, help=f"The models (default: {DEFAULT_CONFIG} at the repository root).")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), required=True, help="Folder for the cases, their review records, the cache and the report.")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True, help="Seed of the plan: same seed, same recipes.")
@click.option("--keep-disputed", is_flag=True, help="Keep candidates the simulator disagrees with, marked for review with its answers.")
@click.option("--search", is_flag=True, help="Best-first search over the simulator's steps in multi-step cases (see --width, --budget).")
@click.option("--width", type=click.IntRange(1, 16), default=None, help="Sampled next steps per expanded search node (default: config, else 3).")
@click.option("--budget", type=click.IntRange(1), default=None, help="Simulator requests per candidate in the search (default: config, else 24).")
@click.option("--repo", "root", type=click.Path(path_type=Path, file_okay=False), default=None, help="Repository root (default: found from the current folder).")
def cases(
    category: str,
    apis: tuple[str, ...],
    sandbox: str | None,
    n: int,
    config_file: Path | None,
    out: Path,
    seed: int,
    keep_disputed: bool,
    search: bool,
    width: int | None,
    budget: int | None,
    root: Path | None,
) -> None:
    """Plan, generate, execute, cross-check, check, deduplicate and write N candidate cases to --out."""
    from validator.loading import find_repo_root
    from validator.synth.config import load_config

    try:
        repo = root or find_repo_root(Path.cwd())
        config = _with_search(load_config(config_file or repo / DEFAULT_CONFIG), width, budget)
        names = tuple(name.strip() for value in apis for name in value.split(",") if name.strip())
        if names and sandbox:
            raise UserError("give --apis or --sandbox, not both")
        try:
            from validator.synth.pipeline import SynthOptions, run_synth
        except ImportError as error:
            raise _missing_extra(error) from None
        options = SynthOptions(repo, out, category, n, seed, config, names, sandbox, keep_disputed, search)
        report = asyncio.run(run_synth(options))
    except UserError as error:
        _fail(error)
        return
    _finish(report, out)


@synth.command("scenarios")
@click.option("--sandbox", required=True, help="The sandbox whose state and policy the scenarios are drawn from.")
@click.option("--n", "n", type=click.IntRange(1, 100_000), default=10, show_default=True, help="How many candidates to plan.")
@click.option("--mode", type=click.Choice(["multi_step", "multi_turn"]), default=None, help="Only this mode (default: alternating).")
@click.option("--config", "config_file", type=click.Path(path_type=Path), default=None, help=f"The models (default: {DEFAULT_CONFIG} at the repository root).")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), required=True, help="Folder for the scenarios, their review records, the cache and the report.")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True, help="Seed of the plan: same seed, same recipes.")
@click.option("--keep-disputed", is_flag=True, help="Keep scenarios the simulator fails, marked for review with its episodes.")
@click.option("--search", is_flag=True, help="Best-first search over the simulator's turns as the agent (see --width, --budget).")
@click.option("--width", type=click.IntRange(1, 16), default=None, help="Sampled next turns per expanded search node (default: config, else 3).")
@click.option("--budget", type=click.IntRange(1), default=None, help="Simulator requests per language of a candidate in the search (default: config, else 24).")
@click.option("--repo", "root", type=click.Path(path_type=Path, file_okay=False), default=None, help="Repository root (default: found from the current folder).")
def scenarios(
    sandbox: str,
    n: int,
    mode: str | None,
    config_file: Path | None,
    out: Path,
    seed: int,
    keep_disputed: bool,
    search: bool,
    width: int | None,
    budget: int | None,
    root: Path | None,
) -> None:
    """Agent scenarios from a sandbox: reference calls replayed, milestones and outputs derived, the simulator as the agent."""
    from validator.loading import find_repo_root
    from validator.synth.config import load_config

    try:
        repo = root or find_repo_root(Path.cwd())
        config = _with_search(load_config(config_file or repo / DEFAULT_CONFIG), width, budget)
        try:
            from validator.synth.scenarios import ScenarioOptions, run_scenarios
        except ImportError as error:
            raise _missing_extra(error) from None
        report = asyncio.run(run_scenarios(ScenarioOptions(repo, out, sandbox, n, seed, config, mode, keep_disputed, search)))
    except UserError as error:
        _fail(error)
        return
    _finish(report, out)
