"""Aggregation: family weights, per-language figures, F1 and the report's shape."""

from __future__ import annotations

import math
from typing import Any

import pytest

from validator.corpus.categories import family
from validator.corpus.index import Corpus
from validator.scoring.metrics import REPORT_VERSION, family_weights, prefixes

from .conftest import score_records


def test_weights_are_square_roots_of_unit_counts() -> None:
    weights = family_weights({"normal": 400, "special": 100, "agent": 0})
    assert weights == pytest.approx({"normal": 20 / 30, "special": 10 / 30})
    assert math.isclose(sum(family_weights({"normal": 7, "special": 3, "agent": 11}).values()), 1.0)


def test_retrieval_counts_with_normal() -> None:
    assert family("retrieval/plan") == "normal"
    assert family("normal/atom/bool") == "normal"
    assert family("special/irrelevant") == "special"
    assert family("agent/multi_turn") == "agent"
    assert prefixes("normal/atom/bool") == ["normal", "normal/atom", "normal/atom/bool"]


def answers_for(repo: Corpus, right: set[str]) -> list[dict[str, Any]]:
    """Oracle-like answers: right for the given case ids, a wrong call elsewhere."""
    from validator.models.render import python_calls
    from validator.models.request import first_alternative
    from validator.scoring.special import render_special
    from validator.toolsearch import SEARCH_API, is_retrieval, reference_query

    records = []
    for case_id, case in repo.cases.items():
        for lang, dialogue in case.dialogues.items():
            for checkpoint in dialogue.checkpoints:
                step = checkpoint.step
                if case_id not in right:
                    output = "[list_notes()]"
                elif checkpoint.special is not None:
                    output = render_special(dict(checkpoint.answer), lang)
                elif is_retrieval(case.category):  # an episode: search for each API, then call it
                    calls = first_alternative(checkpoint, lang)
                    searches = [{"api": SEARCH_API, "args": {"query": reference_query(repo.specs[c["api"]].document.data, lang)}} for c in calls]
                    records.append({"id": case_id, "lang": lang, "step": step, "calls": searches + calls})
                    continue
                else:
                    output = python_calls(first_alternative(checkpoint, lang))
                records.append({"id": case_id, "lang": lang, "step": step, "output": output})
    return records


def test_overall_is_the_weighted_sum_of_family_accuracies(repo: Corpus) -> None:
    right = {"single-0001", "bool-0001", "incomplete-0001", "retrieval-call-0001"}
    report = score_records(repo, answers_for(repo, right), categories=["normal", "special", "retrieval"])
    families = report["overall"]["families"]
    assert families["normal"]["n"] == 30 and families["normal"]["correct"] == 6
    assert families["special"]["n"] == 6 and families["special"]["correct"] == 2
    assert "agent" not in families
    w_normal, w_special = math.sqrt(30) / (math.sqrt(30) + math.sqrt(6)), math.sqrt(6) / (math.sqrt(30) + math.sqrt(6))
    assert report["overall"]["score"] == pytest.approx(w_normal * 6 / 30 + w_special * 2 / 6, abs=1e-6)
    low, high = report["overall"]["ci"]
    assert low <= report["overall"]["score"] <= high
    assert report["languages"]["en"]["n"] == report["languages"]["zh"]["n"] == 18
    assert report["categories"]["retrieval/call"] == {
        "n": 2, "correct": 2, "accuracy": 1.0, "ci": [1.0, 1.0],
        "en": {"n": 1, "correct": 1, "accuracy": 1.0, "ci": [1.0, 1.0]},
        "zh": {"n": 1, "correct": 1, "accuracy": 1.0, "ci": [1.0, 1.0]},
    }  # fmt: skip
    assert report["special"]["detection"]["correct"] == 2 and report["special"]["kinds"]["incomplete"]["correction"]["accuracy"] == 1.0
    assert report["errors"]["special_not_detected"] == 4


def test_f1_gives_partial_credit(repo: Corpus) -> None:
    records = [
        {"id": "parallel-0001", "lang": "en", "output": "[get_weather(city='Beijing'), get_weather(city='Shenzhen')]"},
    ]
    report = score_records(repo, records, langs=["en"], categories=["normal/single_turn/parallel"])
    api, parameter = report["f1"]["api"], report["f1"]["parameter"]
    assert (api["tp"], api["fp"], api["fn"]) == (2, 0, 1)
    assert (parameter["tp"], parameter["fp"], parameter["fn"]) == (1, 1, 1 + 3)
    assert api["precision"] == 1.0 and api["recall"] == pytest.approx(2 / 3, abs=1e-6)


def test_report_is_deterministic_and_versioned(repo: Corpus) -> None:
    records = answers_for(repo, {"single-0001"})
    first = score_records(repo, records)
    assert first == score_records(repo, records)
    assert first["version"] == REPORT_VERSION


def test_process_is_averaged_over_scenarios_with_milestones() -> None:
    from validator.scoring.agent import AgentVerdict
    from validator.scoring.metrics import agent
    from validator.scoring.scorer import UnitResult

    def unit(id_: str, correct: bool, matched: int, total: int) -> UnitResult:
        verdict = AgentVerdict(correct, None if correct else "end_state", "", matched, total)
        return UnitResult(id_, "en", "agent/multi_step", correct, verdict.error, "", None, False, agent=verdict)

    # an idle agent: right on the scenario whose right course is to change nothing, nowhere else
    figures = agent([unit("a", False, 0, 4), unit("b", False, 0, 2), unit("c", True, 0, 0)])
    assert figures is not None
    assert figures["process"]["n"] == 2 and figures["process"]["accuracy"] == 0.0
    assert figures["end_to_end"]["n"] == 3
    assert figures["modes"]["agent/multi_step"]["process"]["accuracy"] == 0.0
