"""The CI workflow caches what is slow to build and runs the linters (issue 17: it compiled
llama-cpp-python on every pull request and ran no linter)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

WORKFLOW = Path(__file__).resolve().parents[1] / ".github" / "workflows" / "validate.yml"


def jobs() -> dict[str, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    result: dict[str, Any] = data["jobs"]
    return result


def test_every_job_restores_pips_cache_keyed_by_the_dependencies() -> None:
    for name, job in jobs().items():
        [setup] = [step for step in job["steps"] if str(step.get("uses", "")).startswith("actions/setup-python")]
        assert setup["with"]["cache"] == "pip" and setup["with"]["cache-dependency-path"] == "pyproject.toml", name


def test_the_linters_run_as_their_own_job() -> None:
    commands = [step.get("run", "") for step in jobs()["lint"]["steps"]]
    assert any(command.startswith("ruff check") and "validator tests benchmarks" in command for command in commands)
    assert "mypy" in commands


def test_the_test_job_runs_the_readmes_command() -> None:
    assert [step.get("run") for step in jobs()["test"]["steps"] if "run" in step] == ["bash .ci/run"]
