"""The agent loop: calls run in the sandbox, results come back, the scripted user speaks."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

from validator.corpus.build import build_scenario
from validator.corpus.index import Corpus
from validator.corpus.records import Scenario
from validator.loading import Document
from validator.models.base import Reply, Request
from validator.models.episode import OfflineEnvironment, environments, run_episode


class Scripted:
    """A model that replies from a fixed list and records what it was asked."""

    name = "scripted"

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = list(replies)
        self.requests: list[Request] = []

    def complete(self, request: Request) -> Reply:
        self.requests.append(request)
        return self.replies.pop(0) if self.replies else Reply("bye")


def test_calls_run_in_the_sandbox_and_the_script_continues(repo: Corpus) -> None:
    scenario = repo.scenarios["office-0002"]
    model = Scripted(
        [
            Reply("[add_note(title='Call the plumber')]"),
            Reply("Saved."),
            Reply(None, [{"id": "x", "type": "function", "function": {"name": "send_message", "arguments": '{"receiver": "Zhang Wei", "content": "Running late"}'}}]),
            Reply("Sent."),
        ]
    )
    record = run_episode(model, scenario, "en", repo.specs, "python", environments(repo)(scenario, "en"))
    assert record["id"] == "office-0002" and record["lang"] == "en"
    # each call says where it was made: the index of the assistant message that carried it
    assert record["calls"] == [
        {"api": "add_note", "args": {"title": "Call the plumber"}, "at": 1},
        {"api": "send_message", "args": {"receiver": "Zhang Wei", "content": "Running late"}, "at": 5},
    ]
    roles = [m["role"] for m in record["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]
    assert json.loads(record["messages"][2]["content"]) == {"note_id": "N-2"}
    assert record["messages"][4]["content"] == scenario.user["en"].script[1]
    assert [r.step for r in model.requests] == [0, 1, 2, 3]
    assert model.requests[0].kind == "scenario" and model.requests[0].messages[0]["role"] == "system"
    assert "Never delete a note" not in model.requests[0].messages[0]["content"]  # no policy given here


def test_turn_limit_stops_a_model_that_never_stops(repo: Corpus) -> None:
    scenario = dataclasses.replace(repo.scenarios["office-0001"], max_turns=3)

    class Looping:
        name = "looping"

        def complete(self, request: Request) -> Reply:
            return Reply("[list_notes()]")

    record = run_episode(Looping(), scenario, "zh", repo.specs, "python", OfflineEnvironment())
    assert len(record["calls"]) == 3
    assert "not available" in record["messages"][-1]["content"]


def test_unreadable_replies_are_text_not_calls(repo: Corpus) -> None:
    model = Scripted([Reply("[list_notes(x=os.system('ls'))]")])
    record = run_episode(model, repo.scenarios["office-0003"], "en", repo.specs, "python", OfflineEnvironment())
    assert record["calls"] == [] and record["messages"][-1]["role"] == "assistant"


def test_oracle_episode_reaches_the_reference_calls(repo: Corpus) -> None:
    from validator.models.base import ModelContext
    from validator.models.oracle import create

    oracle = create(ModelContext(repo))
    scenario = repo.scenarios["office-0001"]
    record = run_episode(oracle, scenario, "zh", repo.specs, "tool_calls", environments(repo)(scenario, "zh"), policy="规则")
    assert record["calls"] == [{"api": "add_note", "args": {"title": "购物清单", "body": "牛奶和鸡蛋"}, "at": 1}]
    assert record["messages"][-1] == {"role": "assistant", "content": "已保存。\n编号是N-2。"}


def rebuilt(scenario: Scenario, **changes: Any) -> Scenario:
    """The scenario record with some fields of its document changed."""
    return build_scenario(Document(scenario.path, "scenario", {**scenario.data, **changes}, scenario.document.text))


def test_the_agent_is_shown_the_scenarios_clock_in_every_style_and_mode(repo: Corpus) -> None:
    scenario = rebuilt(repo.scenarios["office-0001"], time="2025-05-06T09:00:00+08:00")
    for style in ("standard", "condensed", "minimal"):
        for syntax in ("python", "json", "tool_calls"):
            for lang, weekday in (("en", " (Tuesday)"), ("zh", "（星期二）")):
                model = Scripted([Reply("ok")])
                run_episode(model, scenario, lang, repo.specs, syntax, OfflineEnvironment(), policy="P", style=style, max_turns=1)
                system = model.requests[0].messages[0]["content"]
                assert "2025-05-06T09:00:00+08:00" + weekday in system, (style, syntax, lang)


def test_the_oracle_asks_before_a_confirmed_write_and_acts_after_the_answer(repo: Corpus) -> None:
    from validator.models.base import ModelContext
    from validator.models.oracle import create
    from validator.scoring.agent import ReferenceCache, load_replayer, score_scenario

    original = repo.scenarios["office-0001"].data
    scenario = rebuilt(
        repo.scenarios["office-0001"],
        mode="multi_turn",
        user={lang: {**side, "script": [*side["script"], "Yes." if lang == "en" else "好。"]} for lang, side in original["user"].items()},
        milestones=[{**original["milestones"][0], "confirmed": [{"phrase": {"en": ["Groceries"], "zh": ["购物清单"]}}]}],
    )
    corpus = copy.copy(repo)  # the same corpus, with this scenario in place of office-0001
    corpus.scenarios = {**repo.scenarios, scenario.id: scenario}
    oracle = create(ModelContext(corpus))
    for lang in ("en", "zh"):
        record = run_episode(oracle, scenario, lang, repo.specs, "python", environments(repo)(scenario, lang))
        roles = [m["role"] for m in record["messages"]]
        assert roles[:4] == ["user", "assistant", "user", "assistant"] and record["calls"][0]["at"] == 3
        assert ("Groceries" if lang == "en" else "购物清单") in record["messages"][1]["content"]
        replayer = load_replayer(repo)
        verdict = score_scenario(scenario.data, record, lang, replayer, ReferenceCache(replayer))
        assert verdict.correct and verdict.process == 1.0
