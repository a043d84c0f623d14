"""The lint and type checks, inside the suite: `ruff check` and `mypy` (both configured in
pyproject.toml; mypy strict for the corpus layer, scoring and the matchers) report nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *arguments], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    result = run("ruff", "check", "validator", "tests", "benchmarks", "hatch_build.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing() -> None:
    result = run("mypy")  # which files, and how strictly, is pyproject.toml's [tool.mypy]
    assert result.returncode == 0, result.stdout + result.stderr
