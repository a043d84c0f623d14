"""A retrieval checkpoint, run live: the model searches the catalog, then calls what it found.

A `retrieval/*` case offers only ``search_tools``. At its checkpoint the model is run as a short
agent episode in the case's world (``docs/running.md``):

- the system prompt is an agent's, with the tool-search policy (``sandboxes/<tools>/policy``),
  the case's clock and profile; the conversation is the case's dialogue up to the checkpoint;
- a ``search_tools`` call runs against the catalog index and its real results come back: the
  APIs it returned become callable — in fc mode they are added to the request's ``tools``, in
  prompt mode their schemas are in the results the model reads;
- any other call to a found API runs in a fresh session of every sandbox, under the case's
  ``time`` and ``state`` — so a later call can use an earlier call's real result; a call to an
  API no search has returned is not run (the model is told to search first);
- the episode ends when the model answers without calls (or with a special answer), or after
  ``MAX_TURNS`` model turns.

The record keeps every call in order, searches included (the scorer re-runs the searches, see
``validator.scoring.retrieval``), the final text and the transcript after the dialogue.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from validator.corpus.index import Corpus
from validator.corpus.records import Case, Checkpoint, Spec
from validator.models.base import Model, Reply, Request, RequestRejected, complete_async
from validator.models.episode import Environment, OfflineEnvironment, SessionEnvironment, add_usage
from validator.models.prompts import system_prompt
from validator.models.render import tool_calls
from validator.models.request import case_requests, first_alternative, tools_for
from validator.sandbox.replay import runtime_of
from validator.scoring.parse import Call, parse_text, parse_tool_calls
from validator.toolsearch import SEARCH_API, found_names, reference_query

EPISODE_PREFIX = "episode_"  # tool-call ids of the calls made during a retrieval episode
MAX_TURNS = 12  # model turns per retrieval checkpoint: a three-call plan needs six with one search each

NOT_FOUND = "not_found"
_NOT_FOUND_MESSAGE = {
    "en": "{api} is not one of the tools your searches have returned; find the tool with search_tools first.",
    "zh": "{api} 不在你搜索到的工具中；请先用 search_tools 搜索需要的工具。",
}


# ----------------------------------------------------------------------------- requests


def retrieval_requests(case: Case, lang: str, specs: Mapping[str, Spec], syntax: str, *, style: str = "standard", policy: str = "") -> Iterator[Request]:
    """The opening request of each checkpoint of one language side of a retrieval case.

    The dialogue up to the checkpoint is the case's (``case_requests``); the system prompt is
    an agent's, with the tool-search policy, since the model acts over several turns.
    """
    profile = case.profile[lang] if case.profile is not None else None
    for request in case_requests(case, lang, specs, syntax, style=style):
        system = system_prompt(lang, syntax, tools=request.tools, time=case.time, profile=profile, policy=policy, style=style)
        yield replace(request, kind="retrieval", messages=[{"role": "system", "content": system}, *request.messages[1:]])


def case_environments(corpus: Corpus) -> Callable[[Case, str], Environment]:
    """A factory of fresh environments for retrieval checkpoints: a session over every sandbox
    of the corpus (the model may find and call any API), with the case's ``state`` and ``time``."""
    runtime = runtime_of(corpus)
    names = sorted(runtime.classes)

    def make(case: Case, lang: str) -> Environment:
        try:
            return SessionEnvironment(runtime.session(names, case.state, case.time), lang)
        except (KeyError, ValueError) as error:  # a sandbox that failed to load
            return OfflineEnvironment(f"the case's sandboxes cannot run ({error})")

    return make


# ----------------------------------------------------------------------------- the episode


def reply_calls(reply: Reply) -> list[Call]:
    """The calls of one reply; none for text, a special answer or an unreadable answer."""
    if reply.tool_calls:
        parsed = parse_tool_calls(reply.tool_calls)
    else:
        parsed = parse_text(reply.content, native=reply.tool_calls is not None)
    return list(parsed.calls) if parsed.kind == "calls" else []


async def run_retrieval_async(model: Model, start: Request, environment: Environment, specs: Mapping[str, Spec], *, max_turns: int = MAX_TURNS) -> dict[str, Any]:
    """Run one retrieval checkpoint from its opening request; the prediction record."""
    lang = start.lang
    offered = {tool["function"]["name"] for tool in start.tools}
    found: dict[str, None] = {}  # APIs the searches returned, in order (a dict keeps it)
    messages: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    usage: dict[str, Any] = {}
    record: dict[str, Any] = {"id": start.id, "lang": lang, "step": start.step, "calls": calls, "output": "", "messages": messages}
    for turn in range(max_turns):
        tools = start.tools + tools_for([name for name in found if name not in offered], specs, lang)
        request = replace(start, messages=[*start.messages, *messages], tools=tools)
        try:
            reply = await complete_async(model, request)
        except RequestRejected as error:
            record["error"] = str(error)
            break
        add_usage(usage, reply.usage)
        made = reply_calls(reply)
        if not made:
            record["output"] = reply.content or ""
            messages.append({"role": "assistant", "content": reply.content or ""})
            break
        # ids of the episode's own calls: the dialogue before it may hold calls too (history, earlier checkpoints)
        entries = tool_calls([{"api": call.api, "args": call.args} for call in made], prefix=f"{EPISODE_PREFIX}{turn}")
        messages.append({"role": "assistant", "content": reply.content or None, "tool_calls": entries})
        for call, entry in zip(made, entries, strict=True):
            calls.append({"api": call.api, "args": call.args})
            if call.api == SEARCH_API:
                observation = environment.call(call.api, call.args)
                found.update((name, None) for name in found_names(observation) if name in specs)
            elif call.api in found:
                observation = environment.call(call.api, call.args)
            else:
                observation = {"error": NOT_FOUND, "message": _NOT_FOUND_MESSAGE[lang].format(api=call.api)}
            content = json.dumps(observation, ensure_ascii=False, default=str)
            messages.append({"role": "tool", "tool_call_id": entry["id"], "name": call.api, "content": content})
    else:
        record["stopped"] = f"turn limit ({max_turns} model turns)"
    if usage:
        record["usage"] = usage
    return record


# ----------------------------------------------------------------------------- the reference model


def reference_calls_next(checkpoint: Checkpoint, request: Request, specs: Mapping[str, Spec]) -> list[dict[str, Any]]:
    """The oracle's next move in a retrieval episode: [] when every expected call is made.

    It walks the answer's first alternative in order: an API no search has returned yet is
    searched for with its reference query (the first sentence of its description in the
    case's language — EXE018 proves that query finds it), then called. One step per turn,
    as a model that reads each result before it acts.
    """
    expected = first_alternative(checkpoint, request.lang)
    found: set[str] = set()
    queries: set[str] = set()
    made = 0
    for message in request.messages:
        if message.get("role") == "assistant":
            for entry in message.get("tool_calls") or []:
                function = entry.get("function") or {}
                if not str(entry.get("id", "")).startswith(EPISODE_PREFIX):
                    continue  # a call of the dialogue before the checkpoint (history, an earlier checkpoint)
                if function.get("name") == SEARCH_API:
                    queries.add(str(json.loads(function.get("arguments") or "{}").get("query")))
                else:
                    made += 1
        elif message.get("role") == "tool" and message.get("name") == SEARCH_API:
            found.update(found_names(json.loads(message.get("content") or "null")))
    if made >= len(expected):
        return []
    call = expected[made]
    spec = specs.get(call["api"])
    query = reference_query(spec.document.data, request.lang) if spec is not None else call["api"]
    if call["api"] not in found and query not in queries:
        return [{"api": SEARCH_API, "args": {"query": query}}]
    return [call]
