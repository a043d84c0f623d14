"""The dataset folder's score.py: the package's scorer run on the corpus written back from the folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from tests.hub.helpers import FIXTURE, ROOT
from validator.corpus.index import Corpus
from validator.corpus.selection import Selection
from validator.hub import score as score_module
from validator.hub.build import build
from validator.hub.score import main, parser


def test_score_runs_the_package_scorer_on_the_rebuilt_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    def fake_score(predictions: Path, *, root: Path, **options: object) -> int:
        corpus = Corpus.load(root)
        seen.update(predictions=str(predictions), cases=sorted(corpus.cases), scenarios=sorted(corpus.scenarios), options=options)
        return 0

    monkeypatch.setattr(score_module, "score_predictions", fake_score)
    out = tmp_path / "dataset"
    build(FIXTURE, out)
    assert main(out, ["preds.jsonl", "--lang", "zh", "--category", "normal", "--format", "json"]) == 0
    source = Corpus.load(FIXTURE)
    options = {"output_format": "json", "out": None, "selections": [Selection(("zh",), ("normal",), None)], "about": {"selection": {"source": "options", "options": "--lang zh --category normal"}}, "notes": []}
    assert seen == {"predictions": "preds.jsonl", "cases": sorted(source.cases), "scenarios": sorted(source.scenarios), "options": options}


def test_score_py_takes_the_options_of_callbank_score(capsys: pytest.CaptureFixture[str]) -> None:
    from validator.commands.score import score

    ours = {action.option_strings[0] for action in parser()._actions if action.option_strings and action.dest != "help"}
    theirs = {param.opts[0] for param in score.params if isinstance(param, click.Option) and param.name not in ("root", "dataset", "help")}  # score.py is in the dataset
    assert ours == theirs
    with pytest.raises(SystemExit) as exit_:
        main(Path("."), ["x.jsonl", "--format", "yaml"])
    assert exit_.value.code == 2 and "invalid choice" in capsys.readouterr().err


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
