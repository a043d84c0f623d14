"""The endpoint model: keys, URLs, message shapes per mode, and the bounded retry loop."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.support.openai_server import ChatRequest, OpenAIServer, Reply, always, scripted, tool_call
from validator.corpus.index import Corpus
from validator.errors import UserError
from validator.models.base import EndpointError, Request, RequestRejected
from validator.models.endpoint import (
    NO_KEY,
    ChatClient,
    EndpointConfig,
    EndpointModel,
    check_base_url,
    is_local,
    native_messages,
    plain_pattern,
    resolve_api_key,
    text_messages,
    wire_tools,
)
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
    assert native[2] == {"role": "assistant", "content": "", "tool_calls": [{**tool_call("f", {"x": 1}), "id": "call00000"}]}
    assert native[3] == {"role": "tool", "tool_call_id": "call00000", "content": '{"ok": true}'}


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


# ----------------------------------------------------------------------------- what real servers accept


def test_native_messages_are_what_llama_cpp_vllm_and_ollama_accept() -> None:
    messages = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": None, "tool_calls": [tool_call("f", {"x": 1}, "call_0_0"), tool_call("g", {}, "call_0_1")]},
        {"role": "tool", "tool_call_id": "call_0_1", "name": "g", "content": "[]"},  # answered out of order
        {"role": "tool", "tool_call_id": "call_0_0", "name": "f", "content": {"ok": True}},
        {"role": "user", "content": "b"},
        {"role": "assistant", "tool_calls": [{"id": "call_0_0", "type": "function", "function": {"name": "f", "arguments": {"x": 2}}}]},  # an id used again
        {"role": "tool", "tool_call_id": "call_0_0", "content": "1"},
        {"role": "assistant", "content": "", "tool_calls": [tool_call("h", {}, "c9")]},
        {"role": "tool", "tool_call_id": "nowhere", "content": "2"},  # names no call: pairs with the one unanswered
    ]
    native = native_messages(messages)
    assistants = [m for m in native if m["role"] == "assistant"]
    assert all(m["content"] == "" for m in assistants)  # never null, never left out (llama-cpp-python answers 500 to both)
    ids = [entry["id"] for m in assistants for entry in m["tool_calls"]]
    assert ids == ["call00000", "call00001", "call00002", "call00003"] and all(len(i) == 9 and i.isalnum() for i in ids)
    assert [m["tool_call_id"] for m in native if m["role"] == "tool"] == ["call00001", "call00000", "call00002", "call00003"]
    assert assistants[1]["tool_calls"][0]["function"]["arguments"] == '{"x": 2}'  # arguments travel as a JSON string
    assert native[4] == {"role": "tool", "tool_call_id": "call00000", "content": '{"ok": true}'}  # no "name": not in the protocol
    assert all(set(m) <= {"role", "content", "tool_calls", "tool_call_id"} for m in native)


def test_patterns_are_spelled_out_with_the_same_matches() -> None:
    import re

    assert plain_pattern(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$") == "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}$"
    assert plain_pattern(r"^[\d-]+\.x\+$") == "^[0-9-]+[.]x[+]$"
    assert plain_pattern(r"^\D\W$") == "^[^0-9][^A-Za-z0-9_]$" and plain_pattern(r"^[A-Z]{3}$") == "^[A-Z]{3}$"
    samples = ["2024-06-11T19:00", "2024-6-11", "a b", "x.y", "x_y", "+86 138", "\t", "é", "12", "-", "]", "a\\b"]
    for pattern in (r"^\d{4}-\d{1,2}-\d{2}(T\d{2}:\d{2})?$", r"^[^@\s]+\.\w+$", r"^\+?\d[\d ]*$", r"^\s$", r"^[\d\]-]+$", r"^\S+$", r"^a\\b$"):
        for text in samples:  # on ASCII whitespace, Python's escapes under re.ASCII are ECMA-262's
            assert (re.fullmatch(plain_pattern(pattern), text) is not None) == (re.fullmatch(pattern, text, re.ASCII) is not None), (pattern, text)
    for space in ("\u3000", "\ufeff", "\u00a0", "\u2028"):  # ECMA-262's \s has the Unicode spaces too
        assert re.fullmatch(plain_pattern(r"^\s$"), space) and not re.fullmatch(plain_pattern(r"^\S$"), space)
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"properties": {"d": {"type": "string", "pattern": r"^\d+$"}, "pattern": {"type": "string"}}}}}]
    sent = wire_tools(tools)
    assert sent[0]["function"]["parameters"]["properties"] == {"d": {"type": "string", "pattern": "^[0-9]+$"}, "pattern": {"type": "string"}}
    assert tools[0]["function"]["parameters"]["properties"]["d"]["pattern"] == r"^\d+$"  # the request's own tools are untouched


def test_a_request_with_tools_asks_for_a_tool_choice_and_sends_plain_patterns(repo: Corpus) -> None:
    tools = [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {"t": {"type": "string", "pattern": r"^\d{2}$"}}}}}]
    with OpenAIServer(scripted(Reply(tool_calls=[tool_call("f", {"t": "12"})]), "plain")) as server:
        client, _ = client_for(server)

        async def go() -> None:
            try:
                await client.chat([{"role": "user", "content": "hi"}], tools=tools)
                await client.chat([{"role": "user", "content": "hi"}])
            finally:
                await client.close()

        asyncio.run(go())
        with_tools, without = (r.body for r in server.chat_requests)
    # llama-cpp-python's chatml-function-calling leaves the tools out unless a tool choice is asked for
    assert with_tools["tool_choice"] == "auto" and with_tools["tools"] == wire_tools(tools)
    assert with_tools["tools"][0]["function"]["parameters"]["properties"]["t"]["pattern"] == "^[0-9]{2}$"
    assert "tool_choice" not in without and "tools" not in without


# ----------------------------------------------------------------------------- server errors that repeat


def ask_twice(client: ChatClient) -> list[object]:
    """Two requests in a row; each outcome is the result or the exception."""

    async def go() -> list[object]:
        outcomes: list[object] = []
        try:
            for text in ("first", "second"):
                try:
                    outcomes.append(await client.chat([{"role": "user", "content": text}]))
                except (EndpointError, RequestRejected) as error:
                    outcomes.append(error)
        finally:
            await client.close()
        return outcomes

    return asyncio.run(go())


def test_a_server_error_repeated_for_one_request_rejects_that_request() -> None:
    def respond(request: ChatRequest) -> str | Reply:
        if request.last_user_message == "second":
            return Reply(status=500, error="'dict object' has no attribute 'content'")  # the same every time
        return "fine"

    with OpenAIServer(respond) as server:
        client, slept = client_for(server, max_retries=4, backoff=1.0)
        first, second = ask_twice(client)
        assert server.count("/v1/chat/completions") == 1 + 2  # not retried past the repetition
    assert first.content == "fine"  # type: ignore[attr-defined]
    assert isinstance(second, RequestRejected) and "HTTP 500: 'dict object' has no attribute 'content'" in str(second) and "the same answer 2 times" in str(second)
    assert slept == [1.0] and client.usage.rejected == 1


def test_a_repeated_server_error_before_any_answer_stops_the_run() -> None:
    with OpenAIServer(always(Reply(status=500, error="7 validation errors"))) as server:
        client, _ = client_for(server, max_retries=4)
        with pytest.raises(EndpointError, match="answered HTTP 500: 7 validation errors to the same request 2 times and has answered no request yet"):
            ask(client)
        assert server.count("/v1/chat/completions") == 2


def test_server_errors_that_change_are_retried_and_unavailable_is_never_the_requests() -> None:
    script = scripted(Reply(status=500, error="boom 1"), Reply(status=500, error="boom 2"), "fine")
    with OpenAIServer(script) as server:
        client, _ = client_for(server, max_retries=4, backoff=0.01)
        assert ask(client).content == "fine"  # type: ignore[attr-defined]
    with OpenAIServer(scripted("fine", then=Reply(status=503, error="overloaded"))) as server:
        client, _ = client_for(server, max_retries=2, backoff=0.01)
        _, second = ask_twice(client)
        assert isinstance(second, EndpointError) and "kept failing after 3 attempts" in str(second)


def test_the_same_server_error_on_five_requests_in_a_row_stops_the_run() -> None:
    texts = iter(range(100))

    def respond(request: ChatRequest) -> str | Reply:
        return "fine" if request.last_user_message == "0" else Reply(status=500, error="model unloaded")

    with OpenAIServer(respond) as server:
        client, _ = client_for(server, max_retries=1, backoff=0.0)

        async def go() -> list[object]:
            outcomes: list[object] = []
            try:
                for _ in range(7):
                    try:
                        outcomes.append(await client.chat([{"role": "user", "content": str(next(texts))}]))
                    except (EndpointError, RequestRejected) as error:
                        outcomes.append(error)
            finally:
                await client.close()
            return outcomes

        outcomes = asyncio.run(go())
    assert [type(o).__name__ for o in outcomes] == ["ChatResult", *["RequestRejected"] * 4, "EndpointError", "EndpointError"]
    assert "answered HTTP 500: model unloaded to the last 5 requests" in str(outcomes[5])


def test_a_rejection_naming_a_server_option_stops_the_run() -> None:
    said = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
    with OpenAIServer(always(Reply(status=400, error=said))) as server:
        client, _ = client_for(server)
        with pytest.raises(EndpointError, match=r"is not set up for this request: HTTP 400: .*--enable-auto-tool-choice.*docs/running\.md"):
            ask(client)


# ----------------------------------------------------------------------------- tools left out of the prompt


def chats_with_tools(client: ChatClient, times: int) -> None:
    tools = [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}}}}]

    async def go() -> None:
        try:
            for _ in range(times):
                await client.chat([{"role": "user", "content": "hi"}], tools=tools)
        finally:
            await client.close()

    asyncio.run(go())


@pytest.mark.parametrize(("reads_tools", "reply", "probes"), [(False, "text", 1), (True, "text", 0), (False, "call", 0)])
def test_tools_left_out_of_the_prompt_are_reported_once(reads_tools: bool, reply: str, probes: int) -> None:
    answer = Reply(content="I cannot call anything.") if reply == "text" else Reply(tool_calls=[tool_call("f", {})])
    warnings: list[str] = []
    with OpenAIServer(always(answer), tools_in_prompt=reads_tools) as server:
        client, _ = client_for(server)
        client.on_warning = warnings.append
        chats_with_tools(client, 6)
        probe_requests = [r for r in server.chat_requests if r.body.get("max_tokens") == 1]
    assert len(warnings) == probes
    # the probe runs once, after three replies without a call; a model that calls is never probed
    assert len(probe_requests) == (2 if reply == "text" else 0)
    if probes:
        assert "leaves the tools out of the prompt" in warnings[0] and "--chat_format chatml-function-calling" in warnings[0]
        bare, armed = (r.body for r in probe_requests)
        assert "tools" not in bare and armed["tools"][0]["function"]["name"] == "report_weather" and armed["tool_choice"]["type"] == "function"
