"""A model under test behind an OpenAI-compatible chat-completions endpoint.

Any server speaking the protocol works: a hosted API, vLLM, llama.cpp's server, Ollama. The
transport is the ``openai`` SDK with its own retries off (``max_retries=0``): requests retry
through ``validator.transport`` (the policy the review judges share), so what happens is
bounded, visible and counted —

- connection errors, timeouts, 408/409/429 and 5xx are retried up to ``max_retries`` times with
  exponential backoff (``backoff`` · 2^n seconds, at most ``max_backoff``; ``retry-after-ms`` or
  ``Retry-After`` — seconds or an HTTP date — is honoured within that bound); when every attempt
  fails the run stops (``base.EndpointError``) — what is already written stays, a re-run resumes;
- 400, 413 and 422 mean *this* request cannot be served (typically a context too long): the
  record is written with an ``error`` and no answer, and the run goes on (:class:`RequestRejected`);
- anything else (401, 403, 404 …) stops the run at once.

Two calling modes (``docs/running.md``): with the ``tool_calls`` syntax (``--mode fc``) the
request's ``tools`` are sent and the answer is read from the reply's ``tool_calls``; with a text
syntax (``--mode prompt``) no ``tools`` are sent — the APIs are in the system prompt — and the
conversation is flattened to plain text turns: earlier calls become the assistant's call text,
tool results one user message (the prompt style's ``results`` section), since many chat
templates know no ``tool`` role.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import openai

from validator.errors import UserError
from validator.models.base import EndpointError, Reply, Request, RequestRejected
from validator.models.prompts import PROMPT_VERSION, results_message
from validator.models.render import text_calls
from validator.scoring.transcript import message_text
from validator.transport import Backoff, TransportFailure, call_with_retries, describe, status_of

NO_KEY = "no-key"  # the SDK wants a key even for a local server that ignores it
REJECTED_STATUS = frozenset({400, 413, 422})
PROBE_TIMEOUT = 15.0
LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})

Sleep = Callable[[float], Awaitable[Any]]


@dataclass(frozen=True)
class EndpointConfig:
    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_tokens: int | None = 1024
    timeout: float = 120.0  # seconds per request
    max_retries: int = 4  # retries after the first attempt
    backoff: float = 1.0  # seconds before the first retry; doubles each time
    max_backoff: float = 30.0
    seed: int | None = None

    @property
    def backoff_policy(self) -> Backoff:
        return Backoff(self.backoff, self.max_backoff)  # no jitter: one client, requests in order

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        return self.backoff_policy.delay(retry, retry_after)


def is_local(base_url: str) -> bool:
    """Whether base_url points at this machine (a local server may run without an API key)."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host in LOCAL_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(base_url: str, option: str = "--base-url") -> None:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{option} {base_url!r} is not an http(s) URL; give the server's API root, e.g. http://127.0.0.1:8000/v1")


def resolve_api_key(base_url: str, env: str, option: str = "--api-key-env") -> str:
    """The key from the environment variable env; a local server may do without one."""
    value = os.environ.get(env, "").strip()
    if value:
        return value
    if is_local(base_url):
        return NO_KEY
    raise UserError(f"environment variable {env} is not set: export the API key for {base_url} in it, or name another variable with {option}")


@dataclass
class Usage:
    """What a client spent: requests sent (every attempt), retries, tokens, rejected requests."""

    requests: int = 0
    retries: int = 0
    rejected: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    seconds: float = 0.0  # summed request latency (concurrent requests overlap)

    def add_tokens(self, usage: Mapping[str, Any]) -> None:
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)
        self.total_tokens += int(usage.get("total_tokens") or 0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "retries": self.retries,
            "rejected": self.rejected,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }

    def summary(self) -> str:
        text = f"{self.requests:,} request(s), {self.retries:,} retr{'y' if self.retries == 1 else 'ies'}"
        if self.rejected:
            text += f", {self.rejected:,} rejected"
        return text + f"; tokens: {self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion = {self.total_tokens:,}"


class ChatResult(NamedTuple):
    content: str | None
    tool_calls: list[dict[str, Any]]
    usage: dict[str, Any]  # prompt/completion/total tokens, latency_s, attempts, finish_reason


@dataclass
class ChatClient:
    """Chat completions at one endpoint, with bounded retries and usage totals."""

    config: EndpointConfig
    api_key: str
    sleep: Sleep = asyncio.sleep
    usage: Usage = field(default_factory=Usage)
    _clients: dict[int, openai.AsyncOpenAI] = field(default_factory=dict, repr=False)

    def _client(self) -> openai.AsyncOpenAI:
        # an httpx connection pool belongs to one event loop: one SDK client per loop
        loop = id(asyncio.get_running_loop())
        client = self._clients.get(loop)
        if client is None:
            client = openai.AsyncOpenAI(base_url=self.config.base_url, api_key=self.api_key, max_retries=0, timeout=self.config.timeout)
            self._clients = {loop: client}
        return client

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()
        self._clients = {}

    async def _with_retries(self, call: Callable[[openai.AsyncOpenAI], Awaitable[Any]]) -> tuple[Any, int]:
        """(result, attempts) of call, retrying transient failures within the bound."""

        def count_retry(wait: float) -> None:
            self.usage.retries += 1

        def count_request() -> None:
            self.usage.requests += 1

        try:
            return await call_with_retries(
                lambda: call(self._client()),
                retries=self.config.max_retries,
                backoff=self.config.backoff_policy,
                sleep=self.sleep,
                on_attempt=count_request,
                on_retry=count_retry,
            )
        except TransportFailure as failure:
            error, status, url = failure.error, status_of(failure.error), self.config.base_url
            if status in REJECTED_STATUS:
                self.usage.rejected += 1
                raise RequestRejected(describe(error)) from error
            if status in (401, 403):
                raise EndpointError(f"{url} refused the API key from {self.config.api_key_env} ({describe(error)})") from error
            if not failure.transient:
                raise EndpointError(f"{url}: {describe(error)}") from error
            tries = f" after {failure.attempts} attempts" if failure.attempts > 1 else ""
            raise EndpointError(f"{url} kept failing{tries}: {describe(error)}") from error

    async def chat(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None = None) -> ChatResult:
        options: dict[str, Any] = {"model": self.config.model, "messages": list(messages), "temperature": self.config.temperature}
        if self.config.max_tokens is not None:
            options["max_tokens"] = self.config.max_tokens
        if self.config.seed is not None:
            options["seed"] = self.config.seed
        if tools:
            options["tools"] = list(tools)
        started = time.monotonic()
        response, attempts = await self._with_retries(lambda client: client.chat.completions.create(**options))
        latency = time.monotonic() - started
        self.usage.seconds += latency
        choice = response.choices[0] if getattr(response, "choices", None) else None
        message = choice.message if choice is not None else None
        tokens = _token_usage(getattr(response, "usage", None))
        self.usage.add_tokens(tokens)
        usage: dict[str, Any] = {**tokens, "latency_s": round(latency, 3), "attempts": attempts}
        if choice is not None and choice.finish_reason:
            usage["finish_reason"] = choice.finish_reason
        content = message.content if message is not None else None
        return ChatResult(content, _tool_call_dicts(getattr(message, "tool_calls", None)), usage)

    async def preflight(self) -> None:
        """Prove, before any work, that the endpoint answers and serves the model (EndpointError)."""
        url = self.config.base_url
        probe_timeout = min(self.config.timeout, PROBE_TIMEOUT)
        try:
            page = await self._client().models.list(timeout=probe_timeout)
        except openai.APITimeoutError:
            raise EndpointError(f"{url} did not answer within {probe_timeout:g} s; is the server up?") from None
        except openai.APIConnectionError as error:
            raise EndpointError(f"cannot reach {url} {describe(error).removeprefix('cannot connect ')}; is the server up?") from None
        except openai.APIStatusError as error:
            if error.status_code in (401, 403):
                raise EndpointError(f"{url} refused the API key from {self.config.api_key_env} ({describe(error)})") from None
            await self._probe_chat(probe_timeout, error.status_code)  # a server that does not list its models
            return
        served = [str(getattr(entry, "id", "")) for entry in getattr(page, "data", None) or []]
        if served and not _serves(served, self.config.model):
            shown = ", ".join(served[:10]) + (f" … ({len(served)} in all)" if len(served) > 10 else "")
            raise EndpointError(f"model {self.config.model!r} is not served at {url}; it serves: {shown}")

    async def _probe_chat(self, probe_timeout: float, models_status: int) -> None:
        url = self.config.base_url
        try:
            await self._client().chat.completions.create(
                model=self.config.model, messages=[{"role": "user", "content": "ping"}], max_tokens=1, timeout=probe_timeout
            )
        except openai.APIStatusError as error:
            if error.status_code == 404 and models_status == 404:
                raise EndpointError(
                    f"model {self.config.model!r} is not served at {url}, or {url} is not an OpenAI-compatible API root "
                    f"(GET /models and POST /chat/completions both gave HTTP 404)"
                ) from None
            if error.status_code == 404:
                raise EndpointError(f"model {self.config.model!r} is not served at {url} ({describe(error)})") from None
            if error.status_code in (401, 403):
                raise EndpointError(f"{self.config.base_url} refused the API key from {self.config.api_key_env} ({describe(error)})") from None
            raise EndpointError(f"{self.config.base_url} does not answer chat completions ({describe(error)})") from None
        except openai.APIConnectionError as error:
            raise EndpointError(f"cannot reach {url}: {describe(error)}") from None


def _serves(served: Sequence[str], model: str) -> bool:
    # Ollama lists "llama3.2:latest" and answers to "llama3.2"
    return model in served or f"{model}:latest" in served


def _token_usage(usage: Any) -> dict[str, int]:
    if usage is None:
        return {}
    out: dict[str, int] = {}
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = getattr(usage, key, None)
        if isinstance(value, int):
            out[key] = value
    return out


def _tool_call_dicts(calls: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for index, call in enumerate(calls or []):
        function = getattr(call, "function", None)
        arguments = getattr(function, "arguments", None)
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False) if arguments is not None else ""
        out.append(
            {
                "id": getattr(call, "id", None) or f"call_{index}",
                "type": "function",
                "function": {"name": getattr(function, "name", None) or "", "arguments": arguments},
            }
        )
    return out


# ----------------------------------------------------------------------------- messages


def native_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Messages for native tool calling: as built, minus keys the protocol does not define."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") == "tool":
            out.append({"role": "tool", "tool_call_id": message.get("tool_call_id"), "content": message.get("content") or ""})
        else:
            out.append(dict(message))
    return out


def _calls_of(tool_calls: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    calls = []
    for entry in tool_calls:
        function = entry.get("function") or {}
        arguments = function.get("arguments")
        try:
            args = json.loads(arguments) if isinstance(arguments, str) and arguments.strip() else (arguments or {})
        except json.JSONDecodeError:
            args = {}
        calls.append({"api": function.get("name", ""), "args": args if isinstance(args, dict) else {}})
    return calls


def text_messages(
    messages: Sequence[Mapping[str, Any]], lang: str, syntax: str, style: str = "standard", version: str = PROMPT_VERSION
) -> list[dict[str, Any]]:
    """The conversation as plain text turns for a model without native tool calling.

    An assistant turn with calls becomes its call text (the model's own words when it wrote
    them, else the calls rendered in syntax); each run of tool results becomes one user turn;
    consecutive turns of one role are merged (some chat templates insist on alternation).
    """
    out: list[dict[str, Any]] = []
    results: list[tuple[str, Any]] = []

    def push(role: str, content: str) -> None:
        if out and out[-1]["role"] == role and role != "system":
            out[-1]["content"] = f"{out[-1]['content']}\n\n{content}".strip("\n")
        else:
            out.append({"role": role, "content": content})

    def flush() -> None:
        if results:
            push("user", results_message(results, lang, style, version))
            results.clear()

    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "tool":
            results.append((str(message.get("name") or "result"), content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)))
            continue
        flush()
        text = message_text(content) or ""
        if role == "assistant" and message.get("tool_calls") and not text.strip():
            text = text_calls(_calls_of(message["tool_calls"]), syntax)
        push(str(role), text)
    flush()
    return out


# ----------------------------------------------------------------------------- the model


class EndpointModel:
    """The Model protocol over a :class:`ChatClient` (``acomplete`` for the runner)."""

    def __init__(self, client: ChatClient, *, style: str = "standard", version: str = PROMPT_VERSION) -> None:
        self.client = client
        self.name = client.config.model
        self.style = style
        self.version = version

    async def acomplete(self, request: Request) -> Reply:
        if request.syntax == "tool_calls":
            result = await self.client.chat(native_messages(request.messages), tools=request.tools or None)
            return Reply(result.content, result.tool_calls, result.usage)
        messages = text_messages(request.messages, request.lang, request.syntax, self.style, self.version)
        result = await self.client.chat(messages)
        return Reply(result.content, None, result.usage)

    def complete(self, request: Request) -> Reply:
        """The same, for a synchronous caller (one event loop per call)."""
        return asyncio.run(self._complete_and_close(request))

    async def _complete_and_close(self, request: Request) -> Reply:
        try:
            return await self.acomplete(request)
        finally:
            await self.client.close()
