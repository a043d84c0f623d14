"""The hook manifest is valid, and pre-commit really runs the hook on a changed file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from pre_commit.clientlib import load_config, load_manifest

ROOT = Path(__file__).parents[1]
MINIMAL = Path(__file__).parent / "fixtures" / "repos" / "minimal"


def test_manifest_and_config_are_valid() -> None:
    hooks = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    assert [h["id"] for h in hooks] == ["callbank-check"]
    assert hooks[0]["language"] == "python"
    config = load_config(str(ROOT / ".pre-commit-config.yaml"))
    assert [h["id"] for r in config["repos"] for h in r["hooks"]] == ["callbank-check", "ruff", "mypy"]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_hook_runs_on_a_changed_file(tmp_path: Path) -> None:
    """`pre-commit try-repo` installs this repository's hook in its own environment and runs it."""
    work = tmp_path / "corpus"
    shutil.copytree(MINIMAL, work)
    _git(work, "init", "-q")
    _git(work, "-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    case = work / "dialogues" / "normal" / "single_turn" / "single" / "single-0001.yaml"
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "SKIP": ""}

    def hook(*files: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "callbank-check", "--files", *map(str, files)],
            cwd=work, env=env, capture_output=True, text=True, timeout=600,
        )

    clean = hook(case)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    case.write_text(case.read_text(encoding="utf-8").replace("days: 3}", "days: 30}", 1), encoding="utf-8")
    broken = hook(case)
    assert broken.returncode == 1
    assert "DLG010" in broken.stdout and "single-0001.yaml:11" in broken.stdout
