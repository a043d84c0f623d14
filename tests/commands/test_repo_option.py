"""`--repo DIR` on every command: an imported repository is used like callbank's own, and a
folder that is no repository gets one clear line and exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.importers.support import import_peer
from validator.cli import cli

COMMANDS = (
    ["check"], ["exec"], ["validate"], ["stats"], ["build", "OUT"], ["run", "--model", "oracle", "--out", "OUT"], ["score", "PREDICTIONS"],
    ["report", "PREDICTIONS", "--out", "OUT"], ["compare", "PREDICTIONS", "PREDICTIONS"], ["leaderboard", "PREDICTIONS"],
)  # fmt: skip


def invoke(arguments: list[str], tmp_path: Path, repo: Path) -> tuple[int, str]:
    filled = [str(tmp_path / "out.jsonl") if a in ("OUT", "PREDICTIONS") else a for a in arguments]
    result = CliRunner().invoke(cli, [*filled, "--repo", str(repo)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.mark.parametrize("arguments", COMMANDS, ids=lambda a: a[0])
def test_bad_repo_is_one_clear_line(arguments: list[str], tmp_path: Path) -> None:
    code, output = invoke(arguments, tmp_path, tmp_path / "missing")
    assert code == 2 and "--repo" in output and "no such folder" in output
    (tmp_path / "empty").mkdir()
    code, output = invoke(arguments, tmp_path, tmp_path / "empty")
    assert code == 2 and "is not a callbank repository" in output


def test_folder_of_language_repositories_points_at_them(tmp_path: Path) -> None:
    import_peer("acebench", tmp_path / "ace")
    code, output = invoke(["check"], tmp_path, tmp_path / "ace")
    assert code == 2 and "en/, zh/ are" in output and f"--repo {tmp_path / 'ace' / 'en'}" in output


def test_imported_repository_checks_and_stats(tmp_path: Path) -> None:
    import_peer("apibank", tmp_path / "ab")
    code, output = invoke(["stats"], tmp_path, tmp_path / "ab")
    assert code == 0 and "retrieval/call" in output
    code, output = invoke(["check"], tmp_path, tmp_path / "ab")
    assert code == 1 and "DLG010" in output  # the planted defect, found in the imported repository
