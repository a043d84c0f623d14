"""Shared pieces of the synth tests: the minimal repository, drafts, scripted models, a config."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from tests.fixture_repos import REPOS
from tests.support.openai_server import ChatRequest, Reply, tool_call
from validator.cli import cli

GENERATOR = "gen-model"
SIMULATOR = "sim-model"
MODELS = [GENERATOR, SIMULATOR]


def repository(tmp_path: Path) -> Path:
    """A copy of tests/fixtures/repos/minimal (two APIs in the `mini` sandbox, one case)."""
    root = tmp_path / "repo"
    shutil.copytree(REPOS / "minimal", root)
    return root


def config_file(path: Path, base_url: str, **extra: Any) -> Path:
    lines = [
        "generator:",
        f"  base_url: {base_url}",
        f"  model: {GENERATOR}",
        "simulator:",
        f"  base_url: {base_url}",
        f"  model: {SIMULATOR}",
        *(f"{key}: {json.dumps(value)}" for key, value in extra.items()),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def weather_draft(en: str, zh: str, city_en: str = "Hangzhou", city_zh: str = "杭州", days: int = 2) -> str:
    """A generator reply: one weather request in both languages and its one call."""
    return json.dumps(
        {
            "en": {"turns": [{"user": en}, {"calls": [{"api": "get_weather", "args": {"city": city_en, "days": days}}]}]},
            "zh": {"turns": [{"user": zh}, {"calls": [{"api": "get_weather", "args": {"city": city_zh, "days": days}}]}]},
        },
        ensure_ascii=False,
    )


def weather_call(city: str, days: int) -> Reply:
    return Reply(tool_calls=[tool_call("get_weather", {"city": city, "days": days})])


def simulator_by_request(answers: Mapping[str, Reply], default: Reply | None = None) -> Callable[[ChatRequest], Reply]:
    """The simulator's answer chosen by the last user message (its exact text)."""

    def respond(request: ChatRequest) -> Reply:
        found = answers.get(request.last_user_message)
        if found is None:
            if default is None:
                return Reply(status=500, error=f"no scripted simulator answer for {request.last_user_message!r}")
            return default
        return found

    return respond


def export(root: Path, *args: str) -> tuple[int, str]:
    """`callbank export` through the command line: (exit code, output)."""
    result = CliRunner().invoke(cli, ["export", "--repo", str(root), *args])
    return result.exit_code, result.output


def lines(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON Lines file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
