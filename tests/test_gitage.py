"""A duplicate id (or API name) is blamed on the file that brought it, not on whichever sorts
first: the old file passed before, and the hook, which checks only the changed file, must fail."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from click.testing import CliRunner

from tests.fixture_repos import REPOS
from validator.cli import cli
from validator.gitage import oldest_first

OLD = "dialogues/normal/single_turn/single/single-0001.yaml"
NEW = "dialogues/normal/atom/bool/single-0001.yaml"  # sorts before the old file


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root, check=True, capture_output=True)


def repo_with_a_copied_case(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REPOS / "minimal", root)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "corpus")
    new = root / NEW
    new.parent.mkdir(parents=True, exist_ok=True)
    new.write_text((root / OLD).read_text(encoding="utf-8").replace("normal/single_turn/single", "normal/atom/bool"), encoding="utf-8")
    return root


def check_json(root: Path, *paths: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["check", "--repo", str(root), "--format", "json", "--select", "REF005", *(str(root / p) for p in paths)])
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_the_new_file_is_blamed_staged_or_not(tmp_path: Path) -> None:
    root = repo_with_a_copied_case(tmp_path)
    assert oldest_first(root, [NEW, OLD]) == [OLD, NEW]
    for staged in (False, True):
        if staged:
            git(root, "add", NEW)  # what pre-commit sees
        findings = check_json(root)
        assert [(f["path"], f["code"]) for f in findings] == [(NEW, "REF005")], findings
        assert f"already used by {OLD}" in str(findings[0]["message"])
        assert [f["path"] for f in check_json(root, NEW)] == [NEW]  # the hook checks the changed file alone, and fails


def test_once_committed_the_older_commit_keeps_the_id(tmp_path: Path) -> None:
    root = repo_with_a_copied_case(tmp_path)
    git(root, "add", NEW)
    later = {**os.environ, "GIT_COMMITTER_DATE": "2030-01-01T00:00:00+00:00"}  # the copy's commit is the later one
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "copy"], cwd=root, check=True, capture_output=True, env=later)
    assert [f["path"] for f in check_json(root)] == [NEW]


def test_outside_git_the_order_is_by_path(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    assert oldest_first(root, ["b.yaml", "a.yaml"]) == ["a.yaml", "b.yaml"]
