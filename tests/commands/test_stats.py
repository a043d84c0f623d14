"""`callbank stats`: text and JSON, and a clear refusal outside a repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.fixture_repos import REPOS
from validator.cli import cli


def test_json_holds_the_difficulty_figures_and_targets() -> None:
    result = CliRunner().invoke(cli, ["stats", "--format", "json", "--repo", str(REPOS / "hub")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["totals"] == {"en": 10, "zh": 10}
    assert figures["difficulty"]["scenarios"]["per_sandbox"] == {"phone": 2}
    assert {t["target"] for t in figures["targets"]} >= {"agent scenarios", "scenarios spanning 2+ sandboxes", "sandboxes with scenarios"}


def test_text_lists_every_goal() -> None:
    result = CliRunner().invoke(cli, ["stats", "--repo", str(REPOS / "hub")], catch_exceptions=False)
    assert result.exit_code == 0
    assert "difficulty (per case; 8 cases)" in result.output
    assert "NOT MET  agent scenarios" in result.output


def test_outside_a_repository_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["stats"], catch_exceptions=False)
    assert result.exit_code == 2
    assert "no callbank repository at or above" in result.output and "--repo" in result.output and "Traceback" not in result.output
    named = CliRunner().invoke(cli, ["stats", "--repo", str(tmp_path)], catch_exceptions=False)
    assert named.exit_code == 2 and f"--repo {tmp_path}" in named.output
