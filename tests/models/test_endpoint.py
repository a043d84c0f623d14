"""The endpoint model: keys, URLs, message shapes per mode, and the bounded retry loop."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.support.openai_server import OpenAIServer, Reply, always, scripted, tool_call
from validator.corpus.index import Corpus
from validator.errors import UserError
from validator.models.base import EndpointError, Request, RequestRejected
from validator.models.endpoint import NO_KEY, ChatClient, EndpointConfig, EndpointModel, check_base_url, is_local, native_messages, resolve_api_key, text_messages
from validator.models.request import case_requests


def test_local_urls_need_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    for url in ("http://localhost:8000/v1", "http://127.0.0.1:1234/v1", "http://127.3.4.5/v1", "http://[::1]:8000/v1", "http://ollama.localhost/v1"):
        assert is_local(url) and resolve_api_key(url, "NO_SUCH_KEY_VAR") == NO_KEY
    for url in ("https://api.openai.com/v1", "http://10.0.0.2:8000/v1", "http://localhost.example.com/v1"):
        assert not is_local(url)
        with pytest.raises(UserError, match="NO_SUCH_KEY_VAR is not set"):
            resolve_api_key(url, "NO_SUCH_KEY_VAR")
    monkeypatch.setenv("NO_SUCH_KEY_VAR", " k ")
    assert resolve_api_key("https://api.openai.com/v1", "NO_SUCH_KEY_VAR") == "k"
    with pytest.raises(UserError, match="not an http"):
        check_base_url("localhost:8000/v1")


def test_backoff_is_exponential_bounded_and_honours_retry_after() -> None:
    config = EndpointConfig("http://127.0.0.1/v1", "m", backoff=1.0, max_backoff=5.0)
    assert [config.delay(n) for n in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert config.delay(0, retry_after=3.0) == 3.0 and config.delay(0, retry_after=99) == 5.0


def test_text_mode_flattens_calls_and_results(repo: Corpus) -> None:
    requests = list(case_requests(repo.cases["adjust-0001"], "zh", repo.specs, "python"))
    messages = text_messages(requests[1].messages, "zh", "python")
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert messages[2]["content"].startswith("[get_weather(city=")
    assert messages[3]["content"].startswith("API 调用的结果（按顺序）：\nget_weather: {")
    assert all(set(m) == {"role", "content"} for m in messages)
    minimal = text_messages(requests[1].messages, "en", "json", "minimal")
    assert minimal[2]["content"].startswith('[{"api": "get_weather"') and minimal[3]["content"].startswith("Results:\n")


def test_text_mode_merges_turns_of_one_role() -> None:
    messages = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": None, "tool_calls": [tool_call("f", {"x": 1}, "c0")]},
        {"role": "tool", "tool_call_id": "c0", "name": "f", "content": '{"ok": true}'},
        {"role": "user", "content": "b"},
        {"role": "assistant", "content": "[f(x=2)]", "tool_calls": [tool_call("f", {"x": 2}, "c1")]},
    ]
    flat = text_messages(messages, "en", "python")
    assert flat == [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "[f(x=1)]"},
        {"role": "user", "content": 'Results of the API calls, in order:\nf: {"ok": true}\n\nb'},
        {"role": "assistant", "content": "[f(x=2)]"},  # the model's own words are kept
    ]
    native = native_messages(messages)
    assert native[3] == {"role": "tool", "tool_call_id": "c0", "content": '{"ok": true}'} and native[2] == messages[2]


def client_for(server: OpenAIServer, **settings: object) -> tuple[ChatClient, list[float]]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    config = EndpointConfig(server.base_url, "test-model", **settings)  # type: ignore[arg-type]
    return ChatClient(config, "x", sleep=sleep), slept


def ask(client: ChatClient, messages: list[dict[str, object]] | None = None) -> object:
    async def go() -> object:
        try:
            return await client.chat(messages or [{"role": "user", "content": "hi"}])
        finally:
            await client.close()

    return asyncio.run(go())


def test_retry_loop_counts_and_backs_off() -> None:
    script = scripted(Reply(status=500), Reply(status=429, headers={"retry-after": "2"}), Reply(status=502), "fine")
    with OpenAIServer(script) as server:
        client, slept = client_for(server, backoff=0.5, max_retries=3)
        result = ask(client)
        assert server.count("/v1/chat/completions") == 4
    assert result.content == "fine" and result.usage["attempts"] == 4  # type: ignore[attr-defined]
    assert slept == [0.5, 2.0, 2.0]  # 0.5·2^0, Retry-After, 0.5·2^2
    assert client.usage.requests == 4 and client.usage.retries == 3 and client.usage.total_tokens > 0


def test_retry_limit_and_errors_that_are_not_retried() -> None:
    with OpenAIServer(always(Reply(status=503, error="overloaded"))) as server:
        client, slept = client_for(server, max_retries=2, backoff=0.01)
        with pytest.raises(EndpointError, match="kept failing after 3 attempts: HTTP 503: overloaded"):
            ask(client)
        assert server.count("/v1/chat/completions") == 3 and slept == [0.01, 0.02]
    with OpenAIServer(always(Reply(status=404, error="no such model"))) as server:
        client, slept = client_for(server)
        with pytest.raises(EndpointError, match="HTTP 404"):
            ask(client)
        assert server.count("/v1/chat/completions") == 1 and slept == []
    with OpenAIServer(always(Reply(status=400, error="context too long"))) as server:
        client, _ = client_for(server)
        with pytest.raises(RequestRejected, match="context too long"):
            ask(client)
        assert client.usage.rejected == 1


def test_request_options_and_reply_in_each_mode(repo: Corpus) -> None:
    [fc] = case_requests(repo.cases["parallel-0001"], "en", repo.specs, "tool_calls")
    [text] = case_requests(repo.cases["parallel-0001"], "en", repo.specs, "python")
    calls = [tool_call("get_weather", {"city": "Beijing"}, "a"), tool_call("get_weather", {"city": "Shanghai"}, "b")]
    with OpenAIServer(scripted(Reply(tool_calls=calls), "[get_weather(city='Beijing')]")) as server:
        client, _ = client_for(server, temperature=0.0, max_tokens=64, seed=7)
        model = EndpointModel(client)
        reply = model.complete(fc)  # the synchronous form: one event loop per call
        assert reply.content is None and [c["function"]["name"] for c in reply.tool_calls or []] == ["get_weather", "get_weather"]
        assert json.loads((reply.tool_calls or [])[1]["function"]["arguments"]) == {"city": "Shanghai"}
        assert reply.usage["finish_reason"] == "tool_calls"
        reply = model.complete(text)
        assert reply == type(reply)("[get_weather(city='Beijing')]", None, reply.usage)
        first, second = (r.body for r in server.chat_requests)
    assert first["tools"] == fc.tools and first["temperature"] == 0 and first["max_tokens"] == 64 and first["seed"] == 7
    assert "tools" not in second and second["messages"][0]["content"] == text.messages[0]["content"]


def test_preflight(repo: Corpus) -> None:
    with OpenAIServer(always("x"), models=["a", "llama3.2:latest"]) as server:
        for name, ok in (("a", True), ("llama3.2", True), ("b", False)):
            client = ChatClient(EndpointConfig(server.base_url, name), "x")

            async def check(c: ChatClient = client) -> None:
                try:
                    await c.preflight()
                finally:
                    await c.close()

            if ok:
                asyncio.run(check())
            else:
                with pytest.raises(EndpointError, match=r"'b' is not served at .*; it serves: a, llama3\.2:latest"):
                    asyncio.run(check())


def test_episode_ends_when_a_request_is_rejected(repo: Corpus) -> None:
    from validator.models.episode import OfflineEnvironment, run_episode

    with OpenAIServer(scripted("[list_notes()]", Reply(status=400, error="too long"))) as server:
        client, _ = client_for(server)
        record = run_episode(EndpointModel(client), repo.scenarios["office-0003"], "en", repo.specs, "python", OfflineEnvironment())
    assert record["calls"] == [{"api": "list_notes", "args": {}, "at": 1}] and "too long" in record["error"]


def test_request_is_frozen_and_shared(repo: Corpus) -> None:
    [request] = case_requests(repo.cases["single-0001"], "en", repo.specs, "python")
    assert isinstance(request, Request)
    before = json.dumps(request.messages)
    text_messages(request.messages, "en", "python")
    native_messages(request.messages)
    assert json.dumps(request.messages) == before  # converting never mutates the request
