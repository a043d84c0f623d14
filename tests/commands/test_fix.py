"""`callbank fix`: stale recorded tool results (EXE017) rewritten with a minimal diff, so a
contributor whose sandbox change staled cases nobody touched runs one command, not a script."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tests.fixture_repos import materialise
from validator import engine
from validator.cli import cli

CASE = "dialogues/normal/multi_turn/adjust/adjust-0001.yaml"


def test_fix_writes_what_the_call_returns_and_nothing_else(tmp_path: Path) -> None:
    root = materialise("EXE017", "fail", tmp_path)
    before = (root / CASE).read_text(encoding="utf-8")
    assert [d.code for d in engine.validate(root)] == ["EXE017"]

    shown = CliRunner().invoke(cli, ["fix", "--diff", "--repo", str(root)])
    assert shown.exit_code == 1 and (root / CASE).read_text(encoding="utf-8") == before  # --diff writes nothing
    assert [line for line in shown.stdout.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))] == [
        "-        - {api: get_weather, result: {city: Hangzhou, forecast: [{day: 1, high: 30}]}}",
        "+        - {api: get_weather, result: {city: Hangzhou, forecast: [{day: 1, high: 24}]}}",
    ]

    result = CliRunner().invoke(cli, ["fix", "--repo", str(root)])
    assert result.exit_code == 0 and result.stdout.splitlines() == [CASE] and "fixed 1 recorded tool result(s) in 1 file(s)" in result.stderr
    after = (root / CASE).read_text(encoding="utf-8")
    assert sum(a != b for a, b in zip(before.splitlines(), after.splitlines(), strict=True)) == 1  # one line of the file
    assert engine.validate(root) == []
    again = CliRunner().invoke(cli, ["fix", "--repo", str(root)])
    assert again.exit_code == 0 and "nothing to fix" in again.stderr


def test_fix_outside_a_repository_and_on_paths_without_cases(tmp_path: Path) -> None:
    root = materialise("EXE017", "fail", tmp_path)
    outside = CliRunner().invoke(cli, ["fix", "--repo", str(tmp_path)])
    assert outside.exit_code == 2 and "is not a callbank repository" in outside.stderr
    nothing = CliRunner().invoke(cli, ["fix", "--repo", str(root), str(root / "specs")])
    assert nothing.exit_code == 2 and "no case under" in nothing.stderr
