"""`callbank fix`: stale recorded tool results (EXE017) and relative dates a moved clock left
behind (DLG052) rewritten with a minimal diff, so a contributor whose sandbox change or clock move
staled a case runs one command, not a script."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from tests.fixture_repos import REPOS, RULE_FIXTURES, materialise
from validator import engine
from validator.cli import cli

CASE = "dialogues/normal/multi_turn/adjust/adjust-0001.yaml"
CLOCK_CASE = CASE  # in the `clock` fixture repository


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
    assert result.exit_code == 0 and result.stdout.splitlines() == [CASE] and "fixed 1 recorded tool result(s) (EXE017) in 1 file(s)" in result.stderr
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


def test_a_moved_clock_moves_the_relative_dates_and_the_results_that_follow(tmp_path: Path) -> None:
    """A contributor moves a case's clock from Wednesday 17 to Monday 22 July: "tomorrow" / "明晚"
    and "this Saturday" / "这周六" now name other days, "19 July" does not; `fix` rewrites exactly
    those four dates and the two recorded results that echo the booking's date."""
    root = tmp_path / "repo"
    shutil.copytree(REPOS / "clock", root)
    original = (root / CLOCK_CASE).read_text(encoding="utf-8")
    moved = original.replace('time: "2024-07-17T16:00:00+08:00"', 'time: "2024-07-22T10:00:00+08:00"')
    assert moved != original
    (root / CLOCK_CASE).write_text(moved, encoding="utf-8")

    found = engine.validate(root)
    assert [(d.code, d.location.line) for d in found] == [("DLG052", 12), ("DLG052", 20), ("DLG052", 27), ("DLG052", 35)]
    assert "'tomorrow' gives 2024-07-23" in found[0].message and "'这周六' gives 2024-07-27" in found[3].message

    shown = CliRunner().invoke(cli, ["fix", "--diff", "--repo", str(root)])
    assert shown.exit_code == 1 and (root / CLOCK_CASE).read_text(encoding="utf-8") == moved
    removed = [line for line in shown.stdout.splitlines() if line.startswith("-") and not line.startswith("---")]
    assert len(removed) == 6 and all("2024-07-18T19:00" in line or "2024-07-20" in line for line in removed)

    result = CliRunner().invoke(cli, ["fix", "--repo", str(root)])
    assert result.exit_code == 0 and result.stdout.splitlines() == [CLOCK_CASE]
    assert "fixed 4 relative date(s) (DLG052), 2 recorded tool result(s) (EXE017) in 1 file(s)" in result.stderr
    after = (root / CLOCK_CASE).read_text(encoding="utf-8")
    changed = [n for n, (a, b) in enumerate(zip(moved.splitlines(), after.splitlines(), strict=True), 1) if a != b]
    assert changed == [12, 14, 20, 27, 29, 35]  # the four dates and the two echoed results; comments and quoting kept
    assert after.count('"2024-07-23T19:00"') == 4 and after.count('date: "2024-07-27"') == 2 and after.count('date: "2024-07-19"') == 2
    assert "# the evening the user named" in after and "# 用户说的那天晚上" in after
    assert after.replace("  # a Wednesday", "") == (RULE_FIXTURES / "DLG052" / "pass" / CLOCK_CASE).read_text(encoding="utf-8").replace(
        "  # moved from Wednesday 17 July, and its relative dates with it", ""
    )
    assert engine.validate(root) == []
    again = CliRunner().invoke(cli, ["fix", "--repo", str(root)])
    assert again.exit_code == 0 and "nothing to fix" in again.stderr
