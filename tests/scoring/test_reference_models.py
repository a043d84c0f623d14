"""The built-in reference models: the oracle scores exactly 1.0 everywhere, null 0 where it must."""

from __future__ import annotations

from typing import Any

import pytest

from validator.corpus.index import Corpus
from validator.models import create_model
from validator.models.base import ModelContext
from validator.models.episode import environments
from validator.models.runner import predictions

from .conftest import score_records

SYNTAXES = ("python", "json", "tool_calls")


def run(repo: Corpus, model: str, syntax: str) -> list[dict[str, Any]]:
    context = ModelContext(repo)
    return list(
        predictions(create_model(model, context), repo, syntax=syntax, environment=environments(repo))
    )


def every_accuracy(report: dict[str, Any]) -> dict[str, float | None]:
    """Every accuracy-like figure in a report, by a readable name."""
    figures: dict[str, float | None] = {"overall": report["overall"]["score"]}
    for lang, entry in report["languages"].items():
        figures[f"overall/{lang}"] = entry["score"]
        for family, f in entry["families"].items():
            figures[f"{family}/{lang}"] = f["accuracy"]
    for category, entry in report["categories"].items():
        figures[category] = entry["accuracy"]
        for lang in ("en", "zh"):
            figures[f"{category} ({lang})"] = entry[lang]["accuracy"]
    figures["multi_turn/dialogues"] = report["multi_turn"]["dialogues"]["accuracy"]
    figures["multi_turn/checkpoints"] = report["multi_turn"]["checkpoints"]["accuracy"]
    figures["special/detection"] = report["special"]["detection"]["accuracy"]
    figures["special/correction"] = report["special"]["correction"]["accuracy"]
    figures["agent/end_to_end"] = report["agent"]["end_to_end"]["accuracy"]
    figures["agent/process"] = report["agent"]["process"]["accuracy"]
    figures["api_f1"] = report["f1"]["api"]["f1"]
    figures["parameter_f1"] = report["f1"]["parameter"]["f1"]
    return figures


def test_fixture_covers_every_category_in_both_languages(repo: Corpus) -> None:
    from validator.scoring.units import collect_units

    categories = {u.category for u in collect_units(repo).cases}
    categories |= {s.category for s in repo.scenarios.values()}
    assert categories == {
        "normal/single_turn/single", "normal/single_turn/parallel", "normal/multi_turn/adjust", "normal/multi_turn/switch",
        "normal/similar_api", "normal/preference", "normal/atom/bool", "normal/atom/enum", "normal/atom/number",
        "normal/atom/list", "normal/atom/object", "special/incomplete", "special/error_param", "special/irrelevant",
        "retrieval/call", "retrieval/plan", "agent/multi_turn", "agent/multi_step",
    }  # fmt: skip


@pytest.mark.parametrize("syntax", SYNTAXES)
def test_oracle_scores_exactly_one_everywhere(repo: Corpus, replayer: Any, syntax: str) -> None:
    assert replayer is not None, "the sandbox runtime is needed to score agent scenarios"
    report = score_records(repo, run(repo, "oracle", syntax), replayer)
    not_one = {name: value for name, value in every_accuracy(report).items() if value != 1.0}
    assert not_one == {}
    assert report["errors"] == dict.fromkeys(report["errors"], 0)
    assert report["missing"] == [] and report["problems"] == []
    assert all(r["correct"] for r in report["results"])


@pytest.mark.parametrize("syntax", SYNTAXES)
def test_null_scores_zero_everywhere(repo: Corpus, replayer: Any, syntax: str) -> None:
    # Doing nothing is right nowhere in a valid corpus: `callbank exec` (EXE008) requires every
    # scenario to change the state, or, for a refusal (`no_change`), to have outputs to tell.
    report = score_records(repo, run(repo, "null", syntax), replayer)
    assert [r for r in report["results"] if r["correct"]] == []
    zero = {name: value for name, value in every_accuracy(report).items() if value != 0.0}
    assert zero == {}
    refusal = [r for r in report["results"] if r["id"] == "office-0003"]
    assert repo.scenarios["office-0003"].no_change is True
    assert [r["error"] for r in refusal] == ["agent_untold"] * 2 and all("never told" in r["detail"] for r in refusal)
    assert report["missing"] == [] and report["problems"] == []


def test_doing_nothing_passes_where_nothing_is_asked(repo: Corpus, replayer: Any) -> None:
    """If a scenario required nothing at all (exec forbids it), null would rightly pass it."""
    from validator.scoring.agent import ReferenceCache, score_scenario

    scenario = {key: value for key, value in repo.scenarios["office-0003"].data.items() if key != "outputs"}
    verdict = score_scenario(scenario, {"calls": [], "messages": []}, "en", replayer, ReferenceCache(replayer))
    assert verdict.correct


def test_oracle_zh_uses_chinese_markers_and_en_english(repo: Corpus) -> None:
    records = {(r["id"], r["lang"]): r for r in run(repo, "oracle", "python") if "output" in r}
    assert records[("incomplete-0001", "zh")]["output"].startswith("【缺少参数】")
    assert records[("incomplete-0001", "en")]["output"].startswith("[MISSING]")
