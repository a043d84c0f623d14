"""Pairing records with checkpoints: missing, unknown, out-of-selection and partial predictions."""

from __future__ import annotations

from typing import Any

from validator.corpus.index import Corpus

from .conftest import score_records

RIGHT = {
    ("adjust-0001", "en", 0): "[get_weather(city='Beijing')]",
    ("adjust-0001", "en", 1): "[get_weather(city='Beijing', units='fahrenheit', days=3)]",
    ("enum-0001", "en", 0): "[convert_currency(amount=50, from_currency='EUR', to_currency='JPY')]",
}


def records(answers: dict[tuple[str, str, int], str]) -> list[dict[str, Any]]:
    return [{"id": i, "lang": lang, "step": step, "output": output} for (i, lang, step), output in answers.items()]


def result(report: dict[str, Any], case_id: str, lang: str = "en") -> dict[str, Any]:
    return next(r for r in report["results"] if r["id"] == case_id and r["lang"] == lang)


def test_missing_predictions_count_wrong_and_are_listed(repo: Corpus) -> None:
    report = score_records(repo, records(RIGHT), categories=["normal"])
    assert result(report, "enum-0001")["correct"]
    missing = result(report, "bool-0001")
    assert not missing["correct"] and missing["missing"] and missing["error"] is None
    assert {"id": "bool-0001", "lang": "zh", "step": 0} in report["missing"]
    assert report["categories"]["normal"]["n"] == 26
    assert report["categories"]["normal"]["correct"] == 2


def test_a_dialogue_is_right_only_when_every_checkpoint_is(repo: Corpus) -> None:
    answers = dict(RIGHT)
    answers[("adjust-0001", "en", 1)] = "[get_weather(city='Beijing', units='fahrenheit', days=4)]"
    report = score_records(repo, records(answers), langs=["en"], categories=["normal/multi_turn"])
    adjust = result(report, "adjust-0001")
    assert not adjust["correct"] and adjust["step"] == 1 and adjust["error"] == "wrong_value"
    assert report["multi_turn"]["dialogues"] == {"n": 2, "correct": 0, "accuracy": 0.0, "ci": [0.0, 0.0]}
    assert report["multi_turn"]["checkpoints"]["correct"] == 1 and report["multi_turn"]["checkpoints"]["n"] == 4


def test_partly_missing_dialogue(repo: Corpus) -> None:
    answers = {("adjust-0001", "en", 1): RIGHT[("adjust-0001", "en", 1)]}
    report = score_records(repo, records(answers), langs=["en"], categories=["normal/multi_turn/adjust"])
    adjust = result(report, "adjust-0001")
    assert not adjust["correct"] and adjust["missing"] and adjust["step"] == 0
    assert report["missing"] == [{"id": "adjust-0001", "lang": "en", "step": 0}]


def test_unknown_ids_and_steps_are_problems_outside_selection_is_ignored(repo: Corpus) -> None:
    extra = [
        *records(RIGHT),
        {"id": "no-such-case", "lang": "en", "output": "[]"},
        {"id": "enum-0001", "lang": "en", "step": 3, "output": "[]"},
        {"id": "bool-0001", "lang": "zh", "output": "[]"},  # zh not selected
        {"id": "irrelevant-0001", "lang": "en", "output": "[]"},  # special not selected
    ]
    report = score_records(repo, extra, langs=["en"], categories=["normal"])
    assert report["problems"] == [
        "line 4: no case or scenario has the id 'no-such-case'",
        "line 5: enum-0001 (en) has 1 checkpoint(s), steps 0–0; step 3 does not exist",
    ]
    assert report["ignored"] == 2


def test_results_carry_error_details(repo: Corpus) -> None:
    answers = {("enum-0001", "en", 0): "[convert_currency(amount=50, from_currency='EUR', to_currency='CNY')]"}
    report = score_records(repo, records(answers), langs=["en"], categories=["normal/atom/enum"])
    entry = result(report, "enum-0001")
    assert entry["error"] == "wrong_value" and "to_currency='CNY'" in entry["detail"]
    assert report["errors"]["wrong_value"] == 1
