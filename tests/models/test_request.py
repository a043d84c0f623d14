"""Requests: the dialogue up to each checkpoint in OpenAI shapes, tools in the run's language."""

from __future__ import annotations

import json

from validator.corpus.build import build_case
from validator.corpus.index import Corpus
from validator.loading import Document
from validator.models.request import case_requests, scenario_apis
from validator.models.retrieval import retrieval_requests


def test_one_request_per_checkpoint_with_history(repo: Corpus) -> None:
    requests = list(case_requests(repo.cases["adjust-0001"], "en", repo.specs, "tool_calls"))
    assert [r.step for r in requests] == [0, 1]
    assert all(r.kind == "case" and r.id == "adjust-0001" and r.lang == "en" for r in requests)
    last = requests[1].messages
    assert [m["role"] for m in last] == ["system", "user", "assistant", "tool", "assistant", "user"]
    first_call = last[2]["tool_calls"][0]
    assert first_call["id"] == "call_0_0" and first_call["function"]["name"] == "get_weather"
    assert json.loads(first_call["function"]["arguments"]) == {"city": "Beijing"}
    assert last[3]["tool_call_id"] == "call_0_0" and json.loads(last[3]["content"])["temperature"] == 20.0
    assert [t["function"]["name"] for t in requests[0].tools] == [t["function"]["name"] for t in requests[1].tools] == ["get_weather"]


def test_matchers_are_rendered_in_history(repo: Corpus) -> None:
    turns = [
        {"user": "东京天气怎么样？"},
        {"expect": {"calls": [{"api": "get_weather", "args": {"city": {"$any": [{"$text": "东京"}, "Tokyo"]}}}]}},
        {"tool": [{"api": "get_weather", "result": {"city": "东京"}}]},
        {"user": "那明天呢？"},
        {"expect": {"calls": [{"api": "get_weather", "args": {"city": "东京", "days": 2}}]}},
    ]
    data = {"id": "inline-0001", "category": "normal/multi_turn/adjust", "apis": ["get_weather"], "time": "2024-06-11T09:00:00+08:00", "en": {"turns": turns}, "zh": {"turns": turns}}
    case = build_case(Document("dialogues/normal/multi_turn/adjust/inline-0001.yaml", "case", data, ""))
    requests = list(case_requests(case, "zh", repo.specs, "python"))
    assert json.loads(requests[1].messages[2]["tool_calls"][0]["function"]["arguments"]) == {"city": "东京"}  # the first $any option's $text


def test_retrieval_request_offers_only_the_search_and_an_agents_prompt(repo: Corpus) -> None:
    policy = "Search first, then call what you found."
    [request] = retrieval_requests(repo.cases["retrieval-plan-0001"], "en", repo.specs, "python", policy=policy)
    assert request.kind == "retrieval" and request.step == 0
    assert [t["function"]["name"] for t in request.tools] == ["search_tools"]
    assert [m["role"] for m in request.messages] == ["system", "user"]
    system = request.messages[0]["content"]
    assert policy in system and "2024-07-15T09:00:00+08:00" in system and '"search_tools"' in system
    assert '"convert_currency"' not in system  # the APIs to find are not shown
    assert "[MISSING]" not in system  # an agent's prompt: it talks with the user instead of markers


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
