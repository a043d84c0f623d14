"""The scripted OpenAI-compatible test server, through the real OpenAI client."""

from __future__ import annotations

import json

import openai
import pytest

from tests.support.openai_server import OpenAIServer, Reply, always, by_model, scripted, tool_call

MESSAGES = [{"role": "user", "content": "hi"}]


def client(server: OpenAIServer, key: str = "x") -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=0)


def test_text_tool_calls_and_errors_in_script_order() -> None:
    script = scripted("hello", Reply(tool_calls=[tool_call("get_weather", {"city": "杭州"})]), Reply(status=429, headers={"retry-after": "0"}), Reply(status=500))
    with OpenAIServer(script) as server:
        api = client(server)
        assert api.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content == "hello"
        choice = api.chat.completions.create(model="m", messages=MESSAGES).choices[0]
        assert choice.finish_reason == "tool_calls"
        assert choice.message.tool_calls[0].function.name == "get_weather"
        assert json.loads(choice.message.tool_calls[0].function.arguments) == {"city": "杭州"}
        with pytest.raises(openai.RateLimitError) as limited:
            api.chat.completions.create(model="m", messages=MESSAGES)
        assert limited.value.response.headers["retry-after"] == "0"
        with pytest.raises(openai.InternalServerError):
            api.chat.completions.create(model="m", messages=MESSAGES)
        with pytest.raises(openai.InternalServerError, match="no reply left"):
            api.chat.completions.create(model="m", messages=MESSAGES)
        assert server.count("/v1/chat/completions") == 5 and server.chat_requests[0].last_user_message == "hi"


def test_streaming_models_dispatch_and_auth() -> None:
    responder = by_model({"a": always("from a"), "b": always(Reply(tool_calls=[tool_call("f", "{}")]))})
    with OpenAIServer(responder, models=["a", "b"], api_key="k") as server:
        api = client(server, "k")
        assert [m.id for m in api.models.list()] == ["a", "b"]
        chunks = list(api.chat.completions.create(model="a", messages=MESSAGES, stream=True))
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "from a"
        chunks = list(api.chat.completions.create(model="b", messages=MESSAGES, stream=True))
        calls = [tc for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or []]
        assert calls[0].function.name == "f"
        with pytest.raises(openai.NotFoundError):
            api.chat.completions.create(model="zzz", messages=MESSAGES)
        with pytest.raises(openai.AuthenticationError):
            client(server, "wrong").models.list()
        assert server.chat_requests[0].model == "a" and server.count() == 5
