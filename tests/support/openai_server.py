"""A scripted OpenAI-compatible server on 127.0.0.1 for tests: real sockets, scripted replies.

It serves ``POST /v1/chat/completions`` (plain JSON, or server-sent events when the request says
``"stream": true``) and ``GET /v1/models``. What it answers is decided per request by a
*responder*: a callable that receives the parsed request and returns one of

- a ``str``: an assistant message with that content;
- a :class:`Reply`: content and/or ``tool_calls``, an HTTP error status (429, 500, …), a delay;
- a ``dict``: sent as the full JSON body, unchanged.

Every request is recorded (thread-safe) so tests can count what the client really sent::

    with OpenAIServer(scripted("first", Reply(status=500), "second")) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        ...
        assert server.count("/v1/chat/completions") == 3

Prompt tokens are the words of the messages and, like a server that reads them, of the request's
``tools``; ``OpenAIServer(tools_in_prompt=False)`` is a server whose chat template drops them.

Helpers build responders: :func:`scripted` (replies in order), :func:`always`, :func:`by_model`
(one responder per requested model), :func:`tool_call` (a call entry in OpenAI's shape).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "ChatRequest",
    "OpenAIServer",
    "Reply",
    "Responder",
    "always",
    "by_model",
    "scripted",
    "tool_call",
]


@dataclass(frozen=True)
class ChatRequest:
    """One request the server received (chat completions, models, or anything else)."""

    index: int  # 0-based, over every request this server received
    method: str
    path: str
    headers: Mapping[str, str]
    body: Any  # parsed JSON, or None

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or []) if isinstance(self.body, dict) else []

    @property
    def last_user_message(self) -> str:
        for message in reversed(self.messages):
            if message.get("role") == "user":
                content = message.get("content")
                return content if isinstance(content, str) else json.dumps(content)
        return ""

    @property
    def text(self) -> str:
        """Every message's content, joined: handy for `"some case id" in request.text`."""
        parts = []
        for message in self.messages:
            content = message.get("content")
            parts.append(content if isinstance(content, str) else json.dumps(content, ensure_ascii=False))
        return "\n".join(parts)


@dataclass(frozen=True)
class Reply:
    """A scripted answer to a chat-completions request."""

    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    status: int = 200  # anything else: an OpenAI-style error body with `error` as message
    error: str = "scripted error"
    delay: float = 0.0  # seconds to wait before answering (a slow model)
    headers: Mapping[str, str] = field(default_factory=dict)  # e.g. {"retry-after": "0"}
    finish_reason: str | None = None  # default: "tool_calls" when there are calls, else "stop"


Responder = Callable[[ChatRequest], "str | Reply | dict[str, Any]"]


def tool_call(name: str, arguments: Mapping[str, Any] | str, call_id: str | None = None) -> dict[str, Any]:
    """One OpenAI ``tool_calls`` entry; arguments are JSON-encoded unless already a string."""
    encoded = arguments if isinstance(arguments, str) else json.dumps(dict(arguments), ensure_ascii=False)
    return {"id": call_id or f"call_{name}", "type": "function", "function": {"name": name, "arguments": encoded}}


def scripted(*replies: str | Reply | dict[str, Any], then: str | Reply | None = None) -> Responder:
    """Replies in order, one per chat request; after the last, `then` (or an error if None)."""
    queue = list(replies)
    lock = threading.Lock()

    def respond(request: ChatRequest) -> str | Reply | dict[str, Any]:
        with lock:
            if queue:
                return queue.pop(0)
        if then is None:
            return Reply(status=500, error=f"the script has no reply left for request {request.index}")
        return then

    return respond


def always(reply: str | Reply | dict[str, Any]) -> Responder:
    return lambda request: reply


def by_model(responders: Mapping[str, Responder]) -> Responder:
    """Dispatch on the request's ``model``; an unknown model gets a 404 like the real API."""

    def respond(request: ChatRequest) -> str | Reply | dict[str, Any]:
        responder = responders.get(request.model or "")
        if responder is None:
            return Reply(status=404, error=f"model {request.model!r} does not exist")
        return responder(request)

    return respond


class OpenAIServer:
    """A ThreadingHTTPServer in a daemon thread; use as a context manager or start()/stop()."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        models: Iterable[str] = ("test-model",),
        api_key: str | None = None,
        models_status: int = 200,
        tools_in_prompt: bool = True,
    ) -> None:
        self.responder: Responder = responder or always("ok")
        self.tools_in_prompt = tools_in_prompt  # False: a server whose chat template drops the request's tools
        self.models = list(models)
        self.api_key = api_key  # when set, requests without "Authorization: Bearer <key>" get 401
        self.models_status = models_status  # e.g. 404 for servers without GET /models
        self.requests: list[ChatRequest] = []
        self._lock = threading.Lock()
        self._counter = itertools.count()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> OpenAIServer:
        handler = _handler_for(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="openai-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in a scripted delay
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- inspection -------------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._httpd is not None, "the server is not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def count(self, path: str | None = None) -> int:
        """How many requests were received (only those to `path` when given)."""
        with self._lock:
            return sum(1 for r in self.requests if path is None or r.path == path)

    @property
    def chat_requests(self) -> list[ChatRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()

    # -- internals --------------------------------------------------------------------------
    def _record(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> ChatRequest:
        with self._lock:
            request = ChatRequest(next(self._counter), method, path, dict(headers), body)
            self.requests.append(request)
            return request

    def _sleep(self, seconds: float) -> bool:
        """Wait; False when the server is stopping."""
        return not self._stopping.wait(seconds) if seconds > 0 else True


def _completion_body(request: ChatRequest, reply: Reply, tools_in_prompt: bool = True) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    prompt_tokens = sum(len(str(m.get("content") or "").split()) for m in request.messages)
    if tools_in_prompt and isinstance(request.body, dict) and request.body.get("tools"):
        prompt_tokens += len(json.dumps(request.body["tools"]).split())  # the schemas are read, and counted
    completion_tokens = len((reply.content or "").split())
    return {
        "id": f"chatcmpl-{request.index}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model or "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
    }


def _stream_chunks(request: ChatRequest, reply: Reply) -> Iterator[dict[str, Any]]:
    base = {"id": f"chatcmpl-{request.index}", "object": "chat.completion.chunk", "created": int(time.time()), "model": request.model or "test-model"}
    yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}
    if reply.content:
        yield {**base, "choices": [{"index": 0, "delta": {"content": reply.content}, "finish_reason": None}]}
    if reply.tool_calls:
        deltas = [{"index": i, **call} for i, call in enumerate(reply.tool_calls)]
        yield {**base, "choices": [{"index": 0, "delta": {"tool_calls": deltas}, "finish_reason": None}]}
    finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}


def _handler_for(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def handle(self) -> None:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client went away (a killed run)
                super().handle()

        def _send_json(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> None:
            kind = {401: "authentication_error", 404: "not_found_error", 429: "rate_limit_error"}.get(status, "server_error" if status >= 500 else "invalid_request_error")
            self._send_json(status, {"error": {"message": message, "type": kind, "code": status}}, headers)

        def _authorised(self) -> bool:
            if server.api_key is None:
                return True
            if self.headers.get("Authorization") == f"Bearer {server.api_key}":
                return True
            self._error(401, "invalid api key")
            return False

        def _read_body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw) if raw else None
            except json.JSONDecodeError:
                return None

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            server._record("GET", path, self.headers, None)
            if not self._authorised():
                return
            if path.rstrip("/") == "/v1/models":
                if server.models_status != 200:
                    self._error(server.models_status, "models are not listed here")
                    return
                data = [{"id": m, "object": "model", "created": 0, "owned_by": "tests"} for m in server.models]
                self._send_json(200, {"object": "list", "data": data})
                return
            self._error(404, f"no route GET {path}")

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0]
            body = self._read_body()
            request = server._record("POST", path, self.headers, body)
            if not self._authorised():
                return
            if path.rstrip("/") != "/v1/chat/completions":
                self._error(404, f"no route POST {path}")
                return
            if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
                self._error(400, "the body must be a JSON object with messages")
                return
            try:
                answer = server.responder(request)
            except Exception as error:  # a broken script shows up as a server error, not a hang
                self._error(500, f"responder failed: {type(error).__name__}: {error}")
                return
            if isinstance(answer, dict):
                self._send_json(200, answer)
                return
            reply = Reply(content=answer) if isinstance(answer, str) else answer
            if not server._sleep(reply.delay):
                return
            if reply.status != 200:
                self._error(reply.status, reply.error, reply.headers)
                return
            if body.get("stream"):
                self._stream(request, reply)
            else:
                self._send_json(200, _completion_body(request, reply, server.tools_in_prompt), reply.headers)

        def _stream(self, request: ChatRequest, reply: Reply) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in _stream_chunks(request, reply):
                self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return Handler
