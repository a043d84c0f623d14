"""Requests: the dialogue up to each checkpoint in OpenAI shapes, tools in the run's language."""

from __future__ import annotations

import json

from validator.corpus.index import Corpus
from validator.models.request import case_requests, scenario_apis


def test_one_request_per_checkpoint_with_history(repo: Corpus) -> None:
    requests = list(case_requests(repo.cases["retrieval-plan-0001"], "en", repo.specs, "tool_calls"))
    assert [r.step for r in requests] == [0, 1, 2]
    assert all(r.kind == "case" and r.id == "retrieval-plan-0001" and r.lang == "en" for r in requests)
    last = requests[2].messages
    assert [m["role"] for m in last] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    first_call = last[2]["tool_calls"][0]
    assert first_call["id"] == "call_0_0" and first_call["function"]["name"] == "search_tools"
    assert last[3]["tool_call_id"] == "call_0_0" and json.loads(last[3]["content"]) == ["convert_currency", "send_message"]
    assert json.loads(last[4]["tool_calls"][0]["function"]["arguments"]) == {"amount": 100, "from_currency": "USD", "to_currency": "CNY"}
    # APIs found by the search become tools at later checkpoints
    assert [t["function"]["name"] for t in requests[0].tools] == ["search_tools"]
    assert [t["function"]["name"] for t in requests[1].tools] == ["search_tools", "convert_currency", "send_message"]


def test_matchers_are_rendered_in_history(repo: Corpus) -> None:
    requests = list(case_requests(repo.cases["retrieval-call-0001"], "zh", repo.specs, "python"))
    query = json.loads(requests[1].messages[2]["tool_calls"][0]["function"]["arguments"])
    assert query == {"query": "weather"}  # the first $any option's $text


def test_system_prompt_has_time_profile_convention_and_tools_for_text_syntaxes(repo: Corpus) -> None:
    [request] = case_requests(repo.cases["preference-0001"], "zh", repo.specs, "python")
    system = request.messages[0]["content"]
    assert "李雷住在杭州" in system and "【缺少参数】" in system and '"get_weather"' in system
    [native] = case_requests(repo.cases["list-0001"], "en", repo.specs, "tool_calls")
    assert "2024-06-11T09:00:00+08:00" in native.messages[0]["content"]
    assert "[MISSING]" in native.messages[0]["content"] and '"add_event"' not in native.messages[0]["content"]


def test_tools_are_localized(repo: Corpus) -> None:
    tool = repo.specs["add_event"].tool("zh")
    function = tool["function"]
    assert function["description"] == "在日历中添加一个日程。"
    location = function["parameters"]["properties"]["location"]
    assert location["description"] == "日程地点。" and location["properties"]["floor"]["description"] == "楼层。"
    assert function["parameters"]["properties"]["attendees"]["items"]["description"] == "参加者姓名。"
    assert function["parameters"]["required"] == ["title", "start"]


def test_scenario_apis(repo: Corpus) -> None:
    apis = scenario_apis(repo.scenarios["office-0001"], repo.specs)
    assert "add_note" in apis and "get_forecast" not in apis  # spec-only distractors have no sandbox
