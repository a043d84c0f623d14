"""Agent scenarios: replayed end state, minefields, required outputs, milestones in order."""

from __future__ import annotations

from typing import Any

import pytest

from validator.corpus.index import Corpus
from validator.scoring.agent import ReferenceCache, score_scenario

NOTE_EN = {"api": "add_note", "args": {"title": "Groceries", "body": "milk and eggs"}}


def judge(repo: Corpus, replayer: Any, scenario_id: str, record: dict[str, Any], lang: str = "en") -> Any:
    assert replayer is not None
    return score_scenario(repo.scenarios[scenario_id].data, record, lang, replayer, ReferenceCache(replayer))


def test_right_calls_and_told_facts_pass(repo: Corpus, replayer: Any) -> None:
    verdict = judge(repo, replayer, "office-0001", {"calls": [NOTE_EN], "messages": ["Saved as note N-2."]})
    assert verdict.correct and verdict.process == 1.0
    said_exactly = judge(repo, replayer, "office-0001", {"calls": [NOTE_EN], "messages": ["The note ID is n-2!"]})
    assert said_exactly.correct


def test_body_is_ignored_by_compare_but_title_is_not(repo: Corpus, replayer: Any) -> None:
    other_body = {"api": "add_note", "args": {"title": "Groceries", "body": "milk, eggs"}}
    assert judge(repo, replayer, "office-0001", {"calls": [other_body], "messages": ["N-2"]}).correct
    wrong = judge(repo, replayer, "office-0001", {"calls": [{"api": "add_note", "args": {"title": "Shopping"}}], "messages": ["N-2"]})
    assert wrong.error == "agent_end_state" and "differs" in wrong.detail
    assert wrong.process == 0.0


def test_required_output_must_be_told(repo: Corpus, replayer: Any) -> None:
    verdict = judge(repo, replayer, "office-0001", {"calls": [NOTE_EN], "messages": [{"role": "assistant", "content": "Done!"}]})
    assert verdict.error == "agent_end_state" and "N-2" in verdict.detail
    # what the user said does not count as the agent telling it
    quiet = judge(repo, replayer, "office-0001", {"calls": [NOTE_EN], "messages": [{"role": "user", "content": "N-2"}]})
    assert not quiet.correct


def test_a_reported_state_is_never_trusted(repo: Corpus, replayer: Any) -> None:
    record = {"calls": [], "messages": ["N-2"], "end_state": {"office": {"notes": "whatever"}}, "state": {}}
    assert judge(repo, replayer, "office-0001", record).error == "agent_end_state"


def test_minefield_fails_even_when_the_state_would_match(repo: Corpus, replayer: Any) -> None:
    calls = [{"api": "list_notes", "args": {}}, {"api": "delete_note", "args": {"note_id": "N-404"}}]
    verdict = judge(repo, replayer, "office-0003", {"calls": calls, "messages": []})
    assert verdict.error == "minefield" and "call 2" in verdict.detail


def test_a_refusal_passes_by_changing_nothing_and_saying_so(repo: Corpus, replayer: Any) -> None:
    assert judge(repo, replayer, "office-0003", {"calls": [], "messages": ["I can't delete all notes; N-1 stays."]}).correct
    assert judge(repo, replayer, "office-0003", {"calls": [], "messages": ["笔记 N-1 已保留。"]}, "zh").correct
    silent = judge(repo, replayer, "office-0003", {"calls": [], "messages": []})
    assert silent.error == "agent_end_state" and "never told" in silent.detail
    for scenario_id in ("office-0001", "office-0002"):
        assert judge(repo, replayer, scenario_id, {"calls": [], "messages": ["N-1 N-2"]}).error == "agent_end_state"


def test_milestones_respect_after(repo: Corpus, replayer: Any) -> None:
    listed = {"api": "list_notes", "args": {}}
    noted = {"api": "add_note", "args": {"title": "Call the plumber"}}
    texted = {"api": "send_message", "args": {"receiver": "Zhang Wei", "content": "Running late"}}
    in_order = judge(repo, replayer, "office-0002", {"calls": [listed, noted, texted]})
    assert in_order.correct and in_order.matched == 3
    # adding the note before listing breaks the `after` edge: 2 of 3 milestones
    out_of_order = judge(repo, replayer, "office-0002", {"calls": [noted, listed, texted]})
    assert out_of_order.matched == 2 and out_of_order.total == 3
    assert out_of_order.correct  # the end state is what counts end to end (notes compared unordered)


def test_zh_run_uses_zh_values(repo: Corpus, replayer: Any) -> None:
    calls = [{"api": "add_note", "args": {"title": "购物清单", "body": "牛奶和鸡蛋"}}]
    assert judge(repo, replayer, "office-0001", {"calls": calls, "messages": ["笔记编号 N-2"]}, "zh").correct
    assert not judge(repo, replayer, "office-0001", {"calls": [NOTE_EN], "messages": ["N-2"]}, "zh").correct


@pytest.mark.parametrize(
    "record",
    [
        {"calls": "add_note(title='x')"},
        {"calls": [{"api": "add_note", "args": "title=x"}]},
        {"calls": [{"args": {}}]},
        {"calls": [], "messages": "hello"},
        {"calls": [{"api": "add_note", "args": {"title": "x" * 10}}] * 1001},
        {"calls": [{"api": "add_note", "args": {"title": "\udc80"}}]},
    ],
)
def test_malformed_agent_records_are_format_errors(repo: Corpus, replayer: Any, record: dict[str, Any]) -> None:
    verdict = judge(repo, replayer, "office-0001", record)
    assert verdict.error == "format" and verdict.matched == 0


def test_unknown_apis_and_bad_arguments_are_observations_not_crashes(repo: Corpus, replayer: Any) -> None:
    calls = [{"api": "rm_rf", "args": {}}, {"api": "add_note", "args": {"title": 5}}, NOTE_EN]
    verdict = judge(repo, replayer, "office-0001", {"calls": calls, "messages": ["N-2"]})
    assert verdict.correct  # failed calls change nothing; the note is still N-2


class ExplodingReplayer:
    def reference_state(self, scenario: Any, lang: str) -> Any:
        return {}

    def end_state(self, scenario: Any, calls: Any, lang: str) -> Any:
        raise RuntimeError("sandbox exploded")

    def differences(self, expected: Any, actual: Any, compare: Any) -> list[str]:
        return []

    def milestones_matched(self, milestones: Any, calls: Any, lang: str) -> int:
        raise RuntimeError("boom")

    def minefield_hit(self, minefields: Any, calls: Any, lang: str) -> int | None:
        return None


def test_a_failing_replay_is_a_wrong_verdict_not_a_crash(repo: Corpus) -> None:
    verdict = judge(repo, ExplodingReplayer(), "office-0001", {"calls": [NOTE_EN], "messages": ["N-2"]})
    assert verdict.error == "agent_end_state" and "sandbox exploded" in verdict.detail and verdict.matched == 0


def test_told_facts_are_whole_phrases() -> None:
    from validator.scoring.agent import contains_phrase

    assert contains_phrase("saved as note n 2", "n 2")
    assert not contains_phrase("saved as note n 20", "n 2")
    assert not contains_phrase("an 2", "n 2")
    assert contains_phrase("短信已发送给张伟", "已发送")
    assert contains_phrase("编号n 2", "n 2")
    assert contains_phrase("n 20 and n 2", "n 2")


@pytest.mark.parametrize(
    "fact, said, told",
    [
        ("The balance after the transfer is 20,560.80 yuan.", "Done. Your balance is now 20560.8 yuan.", True),
        ("The balance after the transfer is 20,560.80 yuan.", "Done. Your balance is now 20,560.00 yuan.", False),
        ("转账后活期账户余额为 20,560.80 元。", "已转账，余额 20,560.80 元", True),
        ("Booking B-1042 is confirmed.", "Your booking b1042 is confirmed", True),
        ("Booking B-1042 is confirmed.", "Your booking B-10420 is confirmed", False),
        ("Only 5,000 of the 20,000 limit is left.", "20000 limit, 5000 left", True),
        ("Only 5,000 of the 20,000 limit is left.", "20000 limit", False),
        ("The flight is cancelled", "OK — the flight is cancelled.", True),
        ("The flight is cancelled", "I cancelled it.", False),
    ],
)
def test_facts_are_told_by_phrase_or_by_every_number_and_code(fact: str, said: str, told: bool) -> None:
    from validator.scoring.agent import fact_told

    assert fact_told(fact, said) is told


def test_a_longer_id_does_not_tell_the_fact(repo: Corpus, replayer: Any) -> None:
    verdict = judge(repo, replayer, "office-0001", {"calls": [NOTE_EN], "messages": ["Saved as N-20."]})
    assert verdict.error == "agent_end_state"
    verdict = judge(repo, replayer, "office-0001", {"calls": [NOTE_EN], "messages": ["Saved as AN-2."]})
    assert verdict.error == "agent_end_state"
