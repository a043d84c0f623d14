"""The user side of an episode: the scenario's script, or a simulator model over an endpoint."""

from __future__ import annotations

import asyncio
import dataclasses

from tests.support.openai_server import ChatRequest, OpenAIServer
from validator.corpus.index import Corpus
from validator.models.endpoint import ChatClient, EndpointConfig
from validator.models.episode import OfflineEnvironment, run_episode
from validator.models.prompts import STOP_MARKER
from validator.models.user import ScriptedUser, SimulatedUser, scripted_user, visible_text


def test_scripted_user_says_its_lines_then_stops(repo: Corpus) -> None:
    user = scripted_user(repo.scenarios["office-0002"], "zh")
    assert isinstance(user, ScriptedUser)

    async def talk() -> list[str | None]:
        return [await user.first(), await user.reply([]), await user.reply([])]

    assert asyncio.run(talk()) == [*repo.scenarios["office-0002"].user["zh"].script, None]


def test_visible_text_hides_calls_and_results() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "[f()]", "tool_calls": [{"id": "c"}]},
        {"role": "tool", "tool_call_id": "c", "content": "{}"},
        {"role": "assistant", "content": "done"},
    ]
    assert visible_text(messages) == [("user", "hi"), ("assistant", "done")]


def test_the_user_sees_content_parts_and_words_next_to_calls_but_no_call_lists() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [{"id": "c"}]},
        {"role": "assistant", "content": '[{"api": "f", "args": {}}]'},
        {"role": "tool", "content": "{}"},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
    ]
    assert visible_text(messages) == [("user", "hi"), ("assistant", "Let me look."), ("assistant", "done")]


def test_simulated_user_in_an_episode(repo: Corpus) -> None:
    seen: list[ChatRequest] = []

    def respond(request: ChatRequest) -> str:
        seen.append(request)
        if request.model == "sim":
            return ["帮我记一条笔记：购物清单。", "标题就叫购物清单。", f"谢谢！{STOP_MARKER}"][sum(1 for r in seen if r.model == "sim") - 1]
        return ["请问笔记标题是什么？", "[add_note(title='购物清单')]", "已保存，编号 N-2。"][sum(1 for r in seen if r.model == "agent") - 1]

    with OpenAIServer(respond, models=["agent", "sim"]) as server:
        from validator.models.endpoint import EndpointModel

        agent = EndpointModel(ChatClient(EndpointConfig(server.base_url, "agent"), "x"))
        user = SimulatedUser(ChatClient(EndpointConfig(server.base_url, "sim"), "x"), repo.scenarios["office-0001"].user["zh"].data, "zh")
        scenario = dataclasses.replace(repo.scenarios["office-0001"], max_turns=4)
        record = run_episode(agent, scenario, "zh", repo.specs, "python", OfflineEnvironment(), user=user)
    roles = [m["role"] for m in record["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "tool", "assistant"]  # then the user said STOP
    assert record["messages"][2]["content"] == "标题就叫购物清单。" and record["calls"] == [{"api": "add_note", "args": {"title": "购物清单"}, "at": 3}]
    sim_requests = [r for r in seen if r.model == "sim"]
    assert len(sim_requests) == 3
    assert "保存一条标题为“购物清单”" in sim_requests[0].messages[0]["content"]  # the scenario's goal
    assert [m["role"] for m in sim_requests[2].messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert sim_requests[2].messages[-1]["content"] == "已保存，编号 N-2。"
    assert all("tool_calls" not in m and m["role"] != "tool" for r in sim_requests for m in r.messages)
