"""`validator.stats`: the difficulty figures and the goals of issue 13, on corpora whose answers are known."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fixture_repos import REPOS, materialise
from validator.corpus.index import BENCHMARK_KINDS, Corpus
from validator.stats import corpus_stats, render_text


@pytest.fixture(scope="module")
def features(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The DLG040 pass fixture: thirteen cases, each claiming the one feature it is built to show."""
    return corpus_stats(Corpus.load(materialise("DLG040", "pass", tmp_path_factory.mktemp("repo")), BENCHMARK_KINDS))


def test_candidates_rivals_and_calls(features: dict) -> None:
    d = features["difficulty"]
    assert d["cases"] == 13
    assert d["candidates"]["mean"] == round((8 + 4 + 3 * 11) / 13, 2)
    # only many-candidates.yaml offers 8+ candidates from 4 domains with get_air_quality beside get_weather
    assert d["candidates"]["many_cross_domain_with_rival"] == {"count": 1, "of": 13, "share": round(1 / 13, 4)}
    # multi-call: get_weather three times; repeated-api: track_order twice
    assert d["parallel"]["calls_per_checkpoint"] == {"count": 2, "min": 2, "mean": 2.5, "max": 3}
    assert d["parallel"]["repeated_api"]["count"] == 2
    assert d["multi_turn"]["with_3_or_more_checkpoints"] == {"count": 0, "of": 2, "share": 0.0}


def test_features_declared_and_found(features: dict) -> None:
    arguments = features["difficulty"]["arguments"]
    assert arguments["relative_date"]["declared"]["count"] == 1 and arguments["relative_date"]["found"]["count"] == 1
    # a list of objects in nested-args, optional-set and code-switch (the products of an order)
    assert arguments["nested_args"]["declared"]["count"] == 1 and arguments["nested_args"]["found"]["count"] == 3
    # gift_wrap in optional-set, days: 3 (default 1) in many-candidates
    assert arguments["optional_set"]["found"]["count"] == 2
    # what no rule can check is only declared
    assert "found" not in arguments["doc_constraint"] and arguments["doc_constraint"]["checked"] is False
    language = features["difficulty"]["language"]
    assert language["features"]["long_message"]["found"]["count"] == 1
    assert language["message_tokens"]["en"]["max"] == 51 and language["message_tokens"]["zh"]["max"] == 75


def test_targets_are_marked_met_or_not(features: dict) -> None:
    by_name = {t["target"]: t for t in features["targets"]}
    assert by_name["cases in normal/single_turn/single"] == {"target": "cases in normal/single_turn/single", "value": 9, "goal": ">= 150", "met": False}
    assert by_name["cases in retrieval/plan"]["value"] == 0
    assert by_name["mean calls per parallel checkpoint"]["met"] is False  # 2.5 < 3
    assert by_name["most calls in a parallel checkpoint"]["met"] is True  # 3 <= 6
    assert by_name["parallel checkpoints repeating an API"]["met"] is True
    assert len(features["targets"]) == 16 + 8  # every case subcategory, then the corpus-wide goals
    text = render_text(features)
    assert "targets (issue 13): 2 of 24 met" in text  # the two above
    assert "NOT MET  cases in normal/single_turn/single" in text


def test_scenarios_per_sandbox_and_spanning(tmp_path: Path) -> None:
    repo = tmp_path / "hub"
    shutil.copytree(REPOS / "hub", repo)
    (repo / "sandboxes" / "weather").mkdir()
    scenario = repo / "sandboxes" / "phone" / "scenarios" / "phone-0002.yaml"
    scenario.write_text(scenario.read_text(encoding="utf-8").replace("sandboxes: [phone]", "sandboxes: [phone, weather]"), encoding="utf-8")
    figures = corpus_stats(Corpus.load(repo, BENCHMARK_KINDS))["difficulty"]["scenarios"]
    assert figures == {"total": 2, "per_sandbox": {"phone": 2, "weather": 1}, "sandboxes_used": 2, "spanning_2_or_more": 1, "per_mode": figures["per_mode"]}
    assert sum(figures["per_mode"].values()) == 2
