"""One agent scenario, run: the model's calls execute in the sandbox, a user answers its text.

The loop: the model sees the conversation (system prompt with the sandboxes' policies and the
scenario's clock, then the user's first message); when it calls APIs, each call runs in the scenario's sandboxes (a
fresh session per episode) and its result comes back as a ``tool`` message; when it answers in
text, the user (``validator.models.user``: the scenario's script, or a simulator model) says
the next thing, until the user is done or ``max_turns`` model turns have passed. The record
keeps the calls in order, each with ``at`` (the index of the message that made it), and the
transcript (without the system prompt); the scorer replays the calls itself and reads from
that order whether the user had confirmed a write before it was made.

Sandbox calls run synchronously on the thread of the event loop (the main thread), one at a
time: the sandbox runtime's guard and per-call time limit (SIGALRM) need exactly that.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from validator.corpus.index import Corpus
from validator.corpus.records import Scenario, Spec
from validator.models.base import Model, Reply, Request, RequestRejected, complete_async
from validator.models.prompts import system_prompt
from validator.models.render import tool_calls
from validator.models.request import scenario_apis, tools_for
from validator.models.user import User, scripted_user
from validator.sandbox.replay import runtime_of, scenario_session
from validator.scoring.parse import Call, parse_text, parse_tool_calls

DEFAULT_MAX_TURNS = 30


class Environment(Protocol):
    """Executes one call in the scenario's sandboxes, given every call made so far."""

    def call(self, api: str, args: dict[str, Any]) -> Any: ...


class SessionEnvironment:
    """Runs calls in one fresh sandbox session (``validator.sandbox``) for the whole episode."""

    def __init__(self, session: Any, lang: str) -> None:
        self.session = session
        self.lang = lang

    def call(self, api: str, args: dict[str, Any]) -> Any:
        return self.session.run(api, args, self.lang).observation


class OfflineEnvironment:
    """Stands in when the scenario's sandboxes cannot run: every call reports why."""

    def __init__(self, reason: str = "the sandbox runtime is not available") -> None:
        self.reason = reason

    def call(self, api: str, args: dict[str, Any]) -> Any:
        return {"error": f"{self.reason}; the call was recorded but not executed"}


def environments(corpus: Corpus) -> Callable[[Scenario, str], Environment]:
    """A factory of fresh environments (one per scenario run) over the corpus's sandboxes."""
    runtime = runtime_of(corpus)

    def make(scenario: Scenario, lang: str) -> Environment:
        try:
            return SessionEnvironment(scenario_session(runtime, scenario.data), lang)
        except (KeyError, ValueError) as error:  # a sandbox that failed to load
            return OfflineEnvironment(f"the scenario's sandboxes cannot run ({error})")

    return make


def policy_text(corpus: Corpus, scenario: Scenario, lang: str) -> str:
    """The policies of the scenario's sandboxes in lang, one after another."""
    texts = [corpus.read_text(corpus.sandboxes[name].policy_path(lang)) if name in corpus.sandboxes else None for name in scenario.sandboxes]
    return "\n\n".join(text.strip() for text in texts if text is not None)


def reply_calls(reply: Reply) -> list[Call]:
    if reply.tool_calls:
        parsed = parse_tool_calls(reply.tool_calls)
    else:
        parsed = parse_text(reply.content, native=reply.tool_calls is not None)
    return list(parsed.calls) if parsed.kind == "calls" else []


def add_usage(total: dict[str, Any], usage: Mapping[str, Any]) -> None:
    """Add one reply's usage to an episode's: tokens summed, and — for cost and latency
    (``validator.runs.usage``) — the model turns, the attempts they took and each latency."""
    if not usage:
        return
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        if isinstance(usage.get(key), int):
            total[key] = total.get(key, 0) + usage[key]
    total["turns"] = total.get("turns", 0) + 1
    if isinstance(usage.get("attempts"), int):
        total["attempts"] = total.get("attempts", 0) + usage["attempts"]
    if isinstance(usage.get("latency_s"), int | float):
        total.setdefault("latencies_s", []).append(usage["latency_s"])


async def run_episode_async(
    model: Model,
    scenario: Scenario,
    lang: str,
    specs: Mapping[str, Spec],
    syntax: str,
    environment: Environment,
    policy: str = "",
    *,
    style: str = "standard",
    user: User | None = None,
    max_turns: int | None = None,
) -> dict[str, Any]:
    """Run one scenario in one language; the prediction record for it.

    A request the endpoint rejects (``RequestRejected``, e.g. a context grown too long) ends the
    episode: the record keeps what happened so far and says why it ended in ``error``.
    """
    user = user if user is not None else scripted_user(scenario, lang)
    tools = tools_for(scenario_apis(scenario, specs), specs, lang)
    system = {"role": "system", "content": system_prompt(lang, syntax, tools=tools, time=scenario.time, policy=policy, style=style)}
    messages: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    usage: dict[str, Any] = {}
    record: dict[str, Any] = {"id": scenario.id, "lang": lang, "calls": calls, "messages": messages}
    opening = await user.first()
    if opening is not None:
        messages.append({"role": "user", "content": opening})
    limit = int(max_turns or scenario.max_turns or DEFAULT_MAX_TURNS)
    category = scenario.category
    for turn in range(limit):
        request = Request("scenario", scenario.id, lang, turn, category, [system, *messages], tools, syntax)
        try:
            reply = await complete_async(model, request)
        except RequestRejected as error:
            record["error"] = str(error)
            break
        add_usage(usage, reply.usage)
        made = reply_calls(reply)
        if made:
            entries = tool_calls([{"api": c.api, "args": c.args} for c in made], prefix=f"call_{turn}")
            messages.append({"role": "assistant", "content": reply.content or None, "tool_calls": entries})
            at = len(messages) - 1  # where the call was made: the scorer reads confirmations from this order
            for call, entry in zip(made, entries, strict=True):
                calls.append({"api": call.api, "args": call.args, "at": at})
                observation = environment.call(call.api, call.args)
                messages.append({"role": "tool", "tool_call_id": entry["id"], "name": call.api, "content": json.dumps(observation, ensure_ascii=False, default=str)})
            continue
        messages.append({"role": "assistant", "content": reply.content or ""})
        said = await user.reply(messages)
        if said is None:
            break
        messages.append({"role": "user", "content": said})
    if usage:
        record["usage"] = usage
    return record


def run_episode(
    model: Model,
    scenario: Scenario,
    lang: str,
    specs: Mapping[str, Spec],
    syntax: str,
    environment: Environment,
    policy: str = "",
    *,
    style: str = "standard",
    user: User | None = None,
    max_turns: int | None = None,
) -> dict[str, Any]:
    """:func:`run_episode_async` for a synchronous caller."""
    return asyncio.run(
        run_episode_async(model, scenario, lang, specs, syntax, environment, policy, style=style, user=user, max_turns=max_turns)
    )
