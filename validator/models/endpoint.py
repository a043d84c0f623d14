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
import re
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
UNAVAILABLE_STATUS = frozenset({502, 503, 504})  # "try later": retried, and the run stops when they last
FAILING_STREAK = 5  # requests in a row answered by one repeated server error: the server, not the requests
# server options a rejection may name: the server is not set up for the run, no request will pass
SERVER_OPTIONS = re.compile(r"--(?:enable-auto-tool-choice|tool-call-parser|jinja|chat[_-]format)\b|does not support tools")
# the tool of probe_tools: its schema is some 60 tokens in any tokenizer
PROBE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "report_weather",
        "description": "Report the current weather conditions for a named city, in the unit the user prefers.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "Name of the city, for example Hangzhou."},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit."},
            },
            "required": ["city"],
        },
    },
}
TOOLLESS_REPLIES = 3  # replies without a call before the tools are probed
PROBE_MIN_TOKENS = 16  # fewer extra prompt tokens with PROBE_TOOL than this: the tool was dropped
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
    on_warning: Callable[[str], None] | None = None  # told once when the server leaves the tools out
    _answered: int = field(default=0, repr=False)  # requests answered so far
    _failing: list[str] = field(default_factory=list, repr=False)  # repeated server errors since the last answer
    _toolless: int = field(default=0, repr=False)  # replies to requests with tools, none of them a call
    _tools_seen: bool = field(default=False, repr=False)  # a call came back, or the tools were probed

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
        """(result, attempts) of call, retrying transient failures within the bound.

        A server error that comes back identical on the next attempt is this request's, not
        the server's passing trouble (llama-cpp-python's HTTP 500 on a message shape it cannot
        render): it is not retried further, and the request is rejected — unless the server
        has answered nothing yet, or keeps failing so on every request, when the run stops.
        Gateway and overload statuses (502, 503, 504) say "later", and are retried as before.
        """
        seen: list[str] = []

        async def attempt() -> Any:
            try:
                return await call(self._client())
            except openai.APIStatusError as error:
                said = describe(error)
                if error.status_code >= 500 and error.status_code not in UNAVAILABLE_STATUS and seen and seen[-1] == said:
                    raise _RepeatedServerError(error, len(seen) + 1) from error
                seen.append(said)
                raise

        def count_retry(wait: float) -> None:
            self.usage.retries += 1

        def count_request() -> None:
            self.usage.requests += 1

        try:
            result = await call_with_retries(
                attempt,
                retries=self.config.max_retries,
                backoff=self.config.backoff_policy,
                sleep=self.sleep,
                on_attempt=count_request,
                on_retry=count_retry,
            )
        except _RepeatedServerError as repeated:
            raise self._server_fails(repeated) from repeated.error
        except TransportFailure as failure:
            error, status, url = failure.error, status_of(failure.error), self.config.base_url
            if status in REJECTED_STATUS:
                if _names_server_option(describe(error)):
                    raise EndpointError(f"{url} is not set up for this request: {describe(error)} (docs/running.md has a recipe per server)") from error
                self.usage.rejected += 1
                raise RequestRejected(describe(error)) from error
            if status in (401, 403):
                raise EndpointError(f"{url} refused the API key from {self.config.api_key_env} ({describe(error)})") from error
            if not failure.transient:
                raise EndpointError(f"{url}: {describe(error)}") from error
            tries = f" after {failure.attempts} attempts" if failure.attempts > 1 else ""
            raise EndpointError(f"{url} kept failing{tries}: {describe(error)}") from error
        self._answered += 1
        self._failing = []
        return result

    def _server_fails(self, repeated: _RepeatedServerError) -> Exception:
        """What a server error repeated for one request becomes: this record's error, or the end of the run."""
        said, url = describe(repeated.error), self.config.base_url
        self._failing.append(said)
        if not self._answered:
            return EndpointError(f"{url} answered {said} to the same request {repeated.attempts} times and has answered no request yet; is the server set up as docs/running.md says?")
        if len(self._failing) >= FAILING_STREAK and len(set(self._failing[-FAILING_STREAK:])) == 1:
            return EndpointError(f"{url} answered {said} to the last {FAILING_STREAK} requests; it no longer serves this run")
        self.usage.rejected += 1
        return RequestRejected(f"{said} (the same answer {repeated.attempts} times: the server cannot serve this request)")

    async def chat(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None = None) -> ChatResult:
        options: dict[str, Any] = {"model": self.config.model, "messages": list(messages), "temperature": self.config.temperature}
        if self.config.max_tokens is not None:
            options["max_tokens"] = self.config.max_tokens
        if self.config.seed is not None:
            options["seed"] = self.config.seed
        if tools:
            options["tools"] = wire_tools(tools)
            # the protocol's default, said out loud: llama-cpp-python's function-calling chat
            # format leaves the tools out of the prompt unless a request asks for a tool choice
            options["tool_choice"] = "auto"
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
        result = ChatResult(content, _tool_call_dicts(getattr(message, "tool_calls", None)), usage)
        if tools:
            await self._watch_tools(bool(result.tool_calls))
        return result

    async def _watch_tools(self, called: bool) -> None:
        """After TOOLLESS_REPLIES replies to requests with tools and not one call, ask once
        whether the server reads the tools at all (:meth:`probe_tools`); tell ``on_warning``."""
        if self._tools_seen:
            return
        if called:
            self._tools_seen = True
            return
        self._toolless += 1
        if self._toolless < TOOLLESS_REPLIES:
            return
        self._tools_seen = True
        try:
            warning = await self.probe_tools()
        except (EndpointError, RequestRejected):
            return  # the run's own requests with tools were served; the probe adds nothing
        if warning is not None and self.on_warning is not None:
            self.on_warning(warning)

    async def probe_tools(self) -> str | None:
        """Whether the server puts a request's ``tools`` in the prompt (asked in ``--mode fc`` when
        the first replies make no call: a model that never calls may simply not see the tools).

        Two one-token requests, the same two messages, without and with a tool: a server that lets
        its chat template drop the tools (llama-cpp-python without a function-calling chat
        format; a model whose template has no place for them) counts the same prompt tokens
        for both. The tool is forced by name, so no server spends more than the one token.
        Returns a warning to show once, or None; EndpointError when the server refuses tools
        (vLLM without ``--enable-auto-tool-choice``, an Ollama model without tool support).
        """
        # a system message: llama-cpp-python's chatml-function-calling lists the tools inside it
        messages = [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "ping"}]
        options: dict[str, Any] = {"model": self.config.model, "messages": messages, "max_tokens": 1, "temperature": 0.0}
        named = {"type": "function", "function": {"name": PROBE_TOOL["function"]["name"]}}
        bare, _ = await self._with_retries(lambda client: client.chat.completions.create(**options))
        armed: Any = None
        refusal = ""
        for choice in (named, "auto"):  # a server may know only the string choices

            def ask(client: openai.AsyncOpenAI, choice: Any = choice) -> Awaitable[Any]:
                armed_options: dict[str, Any] = {**options, "tools": [PROBE_TOOL], "tool_choice": choice}
                return client.chat.completions.create(**armed_options)

            try:
                armed, _ = await self._with_retries(ask)
                break
            except RequestRejected as error:
                refusal = str(error)
        if armed is None:
            raise EndpointError(f"{self.config.base_url} refuses requests with tools ({refusal}); --mode fc needs a server set up for tool calls (docs/running.md), or use --mode prompt")
        without = _token_usage(getattr(bare, "usage", None)).get("prompt_tokens")
        with_tool = _token_usage(getattr(armed, "usage", None)).get("prompt_tokens")
        if not without or not with_tool or with_tool - without >= PROBE_MIN_TOKENS:
            return None
        return (
            f"{self.config.base_url} leaves the tools out of the prompt ({without} prompt tokens without a tool, {with_tool} with one): "
            f"in --mode fc the model never sees the APIs. Start llama-cpp-python with --chat_format chatml-function-calling, "
            f"llama-server with --jinja, vLLM with --enable-auto-tool-choice --tool-call-parser <parser>; or run --mode prompt"
        )

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


class _RepeatedServerError(Exception):
    """A server error answered twice in a row to one request (passes through the retry loop)."""

    def __init__(self, error: openai.APIStatusError, attempts: int) -> None:
        super().__init__(describe(error))
        self.error = error
        self.attempts = attempts


def _names_server_option(said: str) -> bool:
    return SERVER_OPTIONS.search(said) is not None


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

# ECMA-262's class escapes, written out as the characters they stand for: the same language,
# in the words every regex-to-grammar converter knows
_CLASS_ESCAPES = {
    "d": "0-9",
    "w": "A-Za-z0-9_",
    "s": "\t\n\u000b\u000c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff",
}


def plain_pattern(pattern: str) -> str:
    r"""pattern with ``\d``, ``\w`` and ``\s`` spelled out as character ranges, and an escaped
    punctuation mark outside a class as a class of that one character (``\.`` → ``[.]``): the
    same matches in ECMA-262.

    llama.cpp's JSON-schema-to-grammar copies such escapes into its grammar, which does not know
    them; llama-cpp-python then fails to parse the grammar and its server dies on the request.
    """
    out: list[str] = []
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            escape = pattern[index + 1]
            if escape in _CLASS_ESCAPES:
                out.append(_CLASS_ESCAPES[escape] if in_class else f"[{_CLASS_ESCAPES[escape]}]")
            elif escape.lower() in _CLASS_ESCAPES and not in_class:
                out.append(f"[^{_CLASS_ESCAPES[escape.lower()]}]")
            elif not escape.isalnum() and not in_class:  # \. \+ \( …: a class of that one character
                out.append(f"[\\{escape}]" if escape in "]\\^-" else f"[{escape}]")
            else:
                out.append(pattern[index : index + 2])
            index += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class and not (out and out[-1] in ("[", "[^")):
            in_class = False
        out.append(char)
        index += 1
    return "".join(out)


def wire_tools(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The tools as sent: every schema ``pattern`` in :func:`plain_pattern`'s words."""

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: plain_pattern(item) if key == "pattern" and isinstance(item, str) else walk(item) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    return [walk(dict(tool)) for tool in tools]



WIRE_ID_PREFIX = "call"


def wire_id(index: int) -> str:
    """The id of the index-th call in a request: ``call00000`` … — nine letters and digits, the
    one shape every server takes (Mistral's tokenizers in vLLM insist on exactly that)."""
    return f"{WIRE_ID_PREFIX}{index:05d}"


def native_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The conversation for native tool calling, in the shape llama.cpp, vLLM and Ollama all accept.

    - An assistant message that made calls has ``content: ""`` when it said nothing:
      llama-cpp-python answers HTTP 500 to ``null`` (its request model) and to an omitted
      ``content`` (its chat templates read ``message.content``), Ollama before 0.4 refuses
      ``null``; every server, and OpenAI, takes the empty string.
    - Call ids are renumbered (:func:`wire_id`) and every ``tool`` message answers the id of its
      call: the most recent call with the id it names, else the first call of the latest
      assistant message still unanswered — so ids repeated across turns, or a result that names
      no call, still pair with a call.
    - Only the fields of the protocol are sent: ``role``, ``content``, ``tool_calls`` (with
      ``arguments`` as a JSON string), ``tool_call_id``.
    """
    out: list[dict[str, Any]] = []
    wire: dict[str, str] = {}  # the request's own id -> its id on the wire
    unanswered: list[str] = []
    made = 0  # calls so far: the next wire id
    for message in messages:
        role = str(message.get("role"))
        content = message.get("content")
        if role == "tool":
            named = wire.get(str(message.get("tool_call_id")))
            call_id = named if named in unanswered else (unanswered[0] if unanswered else named or str(message.get("tool_call_id") or ""))
            if call_id in unanswered:
                unanswered.remove(call_id)
            text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
            out.append({"role": "tool", "tool_call_id": call_id, "content": text or ""})
            continue
        text = message_text(content) or ""
        calls = message.get("tool_calls") if role == "assistant" else None
        if not calls:
            out.append({"role": role, "content": text})
            continue
        entries = []
        unanswered = []
        for entry in calls:
            function = entry.get("function") or {}
            arguments = function.get("arguments")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
            call_id = wire_id(made)
            made += 1
            wire[str(entry.get("id"))] = call_id
            unanswered.append(call_id)
            entries.append({"id": call_id, "type": "function", "function": {"name": str(function.get("name") or ""), "arguments": arguments}})
        out.append({"role": "assistant", "content": text, "tool_calls": entries})
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
