"""A retrieval checkpoint run live: real search results, found APIs become callable, calls run."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from validator.corpus.index import Corpus
from validator.models.base import Reply, Request
from validator.models.render import text_calls, tool_calls
from validator.models.retrieval import MAX_TURNS, NOT_FOUND, case_environments, retrieval_requests, run_retrieval_async

Step = Callable[[Request], Reply]


class ScriptedModel:
    """Answers the n-th request of an episode with the n-th step, keeping every request it saw."""

    name = "scripted"

    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps
        self.requests: list[Request] = []

    def complete(self, request: Request) -> Reply:
        self.requests.append(request)
        turn = len(self.requests) - 1
        return self.steps[turn](request) if turn < len(self.steps) else Reply("Done.", [] if request.syntax == "tool_calls" else None)


def calls(syntax: str, *made: dict[str, Any]) -> Step:
    return lambda request: Reply(None, tool_calls(list(made))) if syntax == "tool_calls" else Reply(text_calls(list(made), syntax))


def episode(repo: Corpus, case_id: str, lang: str, syntax: str, model: ScriptedModel) -> dict[str, Any]:
    [start] = retrieval_requests(repo.cases[case_id], lang, repo.specs, syntax, policy="Search, then call.")
    environment = case_environments(repo)(repo.cases[case_id], lang)
    return asyncio.run(run_retrieval_async(model, start, environment, repo.specs))


def tool_results(request: Request) -> list[tuple[str, Any]]:
    return [(m["name"], json.loads(m["content"])) for m in request.messages if m["role"] == "tool"]


@pytest.mark.parametrize("syntax", ["tool_calls", "python"])
def test_the_model_sees_real_results_and_what_it_found_becomes_callable(repo: Corpus, syntax: str) -> None:
    model = ScriptedModel(
        [
            calls(syntax, {"api": "search_tools", "args": {"query": "weather in a city"}}),
            calls(syntax, {"api": "get_weather", "args": {"city": "Tokyo"}}),
            lambda request: Reply("It is 20 °C and sunny in Tokyo.", [] if syntax == "tool_calls" else None),
        ]
    )
    record = episode(repo, "retrieval-call-0001", "en", syntax, model)
    first, second, third = model.requests
    assert [t["function"]["name"] for t in first.tools] == ["search_tools"]
    [(name, found)] = tool_results(second)
    assert name == "search_tools" and "get_weather" in [r["name"] for r in found["results"]]  # the real index answered
    # the found APIs join the tools (fc mode sends them; prompt mode reads their schemas in the results)
    assert {t["function"]["name"] for t in second.tools} == {"search_tools", *(r["name"] for r in found["results"])}
    assert tool_results(third)[-1] == ("get_weather", {"city": "Tokyo", "temperature": 20.0, "forecast": ["sunny"]})  # executed
    assert record["calls"] == [
        {"api": "search_tools", "args": {"query": "weather in a city"}},
        {"api": "get_weather", "args": {"city": "Tokyo"}},
    ]
    assert record["output"] == "It is 20 °C and sunny in Tokyo." and record["step"] == 0 and "stopped" not in record
    assert [m["role"] for m in record["messages"]] == ["assistant", "tool", "assistant", "tool", "assistant"]


def test_an_api_no_search_returned_is_not_run(repo: Corpus) -> None:
    model = ScriptedModel(
        [
            calls("tool_calls", {"api": "search_tools", "args": {"query": "currency"}}),
            calls("tool_calls", {"api": "get_weather", "args": {"city": "Tokyo"}}),  # guessed, never found
        ]
    )
    record = episode(repo, "retrieval-call-0001", "en", "tool_calls", model)
    [search, guessed] = tool_results(model.requests[2])
    assert "get_weather" not in [r["name"] for r in search[1]["results"]]
    assert guessed[0] == "get_weather" and guessed[1]["error"] == NOT_FOUND and "search_tools" in guessed[1]["message"]
    assert [c["api"] for c in record["calls"]] == ["search_tools", "get_weather"]  # kept for the scorer to judge


def test_an_earlier_result_can_feed_a_later_call(repo: Corpus) -> None:
    def send(request: Request) -> Reply:
        amount = tool_results(request)[-1][1]["amount"]  # what convert_currency really returned
        return Reply(None, tool_calls([{"api": "send_message", "args": {"receiver": "Zhang Wei", "content": f"100 USD is {amount:g} CNY"}}]))

    model = ScriptedModel(
        [
            calls("tool_calls", {"api": "search_tools", "args": {"query": "convert currency and send a message"}}),
            calls("tool_calls", {"api": "convert_currency", "args": {"amount": 100, "from_currency": "USD", "to_currency": "CNY"}}),
            send,
        ]
    )
    record = episode(repo, "retrieval-plan-0001", "en", "tool_calls", model)
    assert record["calls"][-1] == {"api": "send_message", "args": {"receiver": "Zhang Wei", "content": "100 USD is 720 CNY"}}
    assert tool_results(model.requests[3])[-1] == ("send_message", {"message_id": "M-1"})


def test_the_episode_stops_at_the_turn_limit(repo: Corpus) -> None:
    model = ScriptedModel([calls("python", {"api": "search_tools", "args": {"query": "weather"}})] * (MAX_TURNS + 5))
    record = episode(repo, "retrieval-call-0001", "zh", "python", model)
    assert len(model.requests) == MAX_TURNS and len(record["calls"]) == MAX_TURNS and "turn limit" in record["stopped"]


def test_a_rejected_request_ends_the_episode_with_its_error(repo: Corpus) -> None:
    from validator.models.base import RequestRejected

    def reject(request: Request) -> Reply:
        raise RequestRejected("context too long")

    model = ScriptedModel([calls("python", {"api": "search_tools", "args": {"query": "weather"}}), reject])
    record = episode(repo, "retrieval-call-0001", "en", "python", model)
    assert record["error"] == "context too long" and [c["api"] for c in record["calls"]] == ["search_tools"]
