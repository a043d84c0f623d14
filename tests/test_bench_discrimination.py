"""The discrimination benchmark's simulated models: exact shares of wrong units, and corruptions the scorer counts wrong."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path
from types import ModuleType

from click.testing import CliRunner

from tests.fixture_repos import REPOS
from validator.cli import cli
from validator.corpus.index import BENCHMARK_KINDS, Corpus
from validator.scoring.evaluate import score_predictions

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_discrimination.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_discrimination", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_model_b_is_better_by_the_gap_in_every_category() -> None:
    bench = load_bench()
    units = {"normal/x": [(f"n-{i:03}", "en") for i in range(200)], "special/y": [(f"s-{i:03}", "zh") for i in range(60)]}
    wrong_a, wrong_b = bench.wrong_units(units, 0.70, 0.05, 0.5, random.Random(3))
    for members in units.values():
        assert sum(u in wrong_a for u in members) == round(0.30 * len(members))
        assert sum(u in wrong_b for u in members) == round(0.25 * len(members))
    # the two share some of the items they miss, and neither's misses contain the other's
    assert wrong_a & wrong_b and wrong_b - wrong_a and wrong_a - wrong_b


def test_every_corruption_is_scored_wrong(tmp_path: Path) -> None:
    bench = load_bench()
    repo = REPOS / "hub"
    oracle = tmp_path / "oracle.jsonl"
    result = CliRunner().invoke(cli, ["run", "--model", "oracle", "--repo", str(repo), "--out", str(oracle)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in oracle.read_text(encoding="utf-8").splitlines()]
    corpus = Corpus.load(repo, BENCHMARK_KINDS)
    units = {(r["id"], r["lang"]) for r in records}
    for seed in range(3):
        corrupter = bench.Corrupter(corpus, random.Random(seed))
        wrong = tmp_path / f"wrong-{seed}.jsonl"
        bench.write_model(wrong, records, units, corpus, corrupter, random.Random(seed))
        assert set(corrupter.made) == units
        report_path = tmp_path / f"report-{seed}.json"
        score_predictions(wrong, root=repo, output_format="json", out=report_path)
        results = json.loads(report_path.read_text(encoding="utf-8"))["results"]
        still_right = [(r["id"], r["lang"], corrupter.made[(r["id"], r["lang"])]) for r in results if r["correct"]]
        assert still_right == [] and len(results) == len(units)
