"""The dataset folder's score.py: the package's scorer run on the corpus written back from the folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import click
import pytest

from tests.hub.helpers import FIXTURE, ROOT
from validator import cli as cli_module
from validator.hub.build import build
from validator.hub.score import main


def test_score_runs_the_package_scorer_on_the_rebuilt_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    @click.command()
    @click.argument("predictions")
    @click.option("--repo")
    def fake_score(predictions: str, repo: str) -> None:
        from validator.repo import Repo

        corpus = Repo.load(Path(repo))
        seen.update(predictions=predictions, cases=sorted(corpus.cases), scenarios=sorted(corpus.scenarios))
        raise SystemExit(0)

    module = types.ModuleType("fake_score_module")
    module.fake_score = fake_score  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_score_module", module)
    monkeypatch.setitem(cli_module.COMMANDS, "score", "fake_score_module:fake_score")
    out = tmp_path / "dataset"
    build(FIXTURE, out)
    (tmp_path / "preds.jsonl").write_text("")
    monkeypatch.chdir(tmp_path)
    assert main(out, ["preds.jsonl"]) == 0
    from validator.repo import Repo

    source = Repo.load(FIXTURE)
    assert seen == {"predictions": "preds.jsonl", "cases": sorted(source.cases), "scenarios": sorted(source.scenarios)}


def test_score_without_a_scorer_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delitem(cli_module.COMMANDS, "score", raising=False)
    assert main(tmp_path, ["x.jsonl"]) == 2
    assert "no `score` command" in capsys.readouterr().err


def test_oracle_predictions_score_1_through_the_dataset_folder(tmp_path: Path) -> None:
    """The real scorer through the folder's score.py, on the corpus written back from the build."""
    out = tmp_path / "dataset"
    build(FIXTURE, out)
    predictions = tmp_path / "oracle.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "validator", "run", "--model", "oracle", "--repo", str(FIXTURE), "--out", str(predictions)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    result = subprocess.run(
        [sys.executable, str(out / "score.py"), str(predictions), "--format", "json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["overall"]["score"] == 1.0
    assert set(report["overall"]["families"]) == {"normal", "special", "agent"}
