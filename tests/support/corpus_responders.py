"""Responders for :mod:`tests.support.openai_server` that know the corpus: which case checkpoint
a chat request is, and what to answer it.

:class:`CorpusResponder` precomputes, for every case checkpoint of a corpus, the exact
``messages`` ``callbank run`` sends for it (in the run's syntax and the given prompt styles), and answers
each request with ``answer(request) -> Reply`` — for instance the oracle's answer
(:func:`oracle_answers`) or a deliberately wrong one. It records which checkpoint every request
was for (``seen``), so a test can count requests per record. Requests it does not recognise
(agent episodes) go to ``fallback``, e.g. :func:`agent_script`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.support.openai_server import ChatRequest, Reply, Responder
from validator.models.base import Reply as ModelReply
from validator.models.base import Request
from validator.models.endpoint import native_messages, text_messages
from validator.models.runner import CaseJob, plan

Key = tuple[str, str, "int | None"]


def fingerprint(messages: Sequence[Mapping[str, Any]]) -> str:
    return json.dumps(json.loads(json.dumps(list(messages), ensure_ascii=False)), ensure_ascii=False, sort_keys=True)


def sent_messages(request: Request, style: str = "standard") -> list[dict[str, Any]]:
    """The messages the endpoint model sends for request (as EndpointModel builds them)."""
    if request.syntax == "tool_calls":
        return native_messages(request.messages)
    return text_messages(request.messages, request.lang, request.syntax, style)


def as_server_reply(reply: ModelReply) -> Reply:
    return Reply(content=reply.content, tool_calls=reply.tool_calls or None)


class CorpusResponder:
    def __init__(
        self,
        repo: Any,
        syntax: str,
        answer: Callable[[Request], Reply | str],
        *,
        styles: Sequence[str] = ("standard",),
        fallback: Responder | None = None,
    ) -> None:
        self.answer = answer
        self.fallback = fallback
        self.requests: dict[str, Request] = {}
        for style in styles:
            for job in plan(repo, syntax=syntax, style=style):
                if isinstance(job, CaseJob):
                    self.requests[fingerprint(sent_messages(job.request, style))] = job.request
        self.seen: list[Key | None] = []  # per chat request: the checkpoint it was for
        self._lock = threading.Lock()

    def __call__(self, request: ChatRequest) -> str | Reply | dict[str, Any]:
        known = self.requests.get(fingerprint(request.messages))
        with self._lock:
            self.seen.append((known.id, known.lang, known.step) if known else None)
        if known is not None:
            return self.answer(known)
        if self.fallback is not None:
            return self.fallback(request)
        return Reply(status=500, error="the corpus responder does not know this request")

    def count(self, key: Key) -> int:
        with self._lock:
            return self.seen.count(key)


def oracle_answers(repo: Any) -> Callable[[Request], Reply]:
    """What the oracle model would answer, as a server reply."""
    from validator.models.base import ModelContext
    from validator.models.oracle import create

    oracle = create(ModelContext(repo))
    return lambda request: as_server_reply(oracle.complete(request))


def agent_script(replies: Mapping[str, Sequence[str | Reply]], then: str | Reply = "Done.") -> Responder:
    """Agent turns by the conversation's first user message: the n-th reply answers the
    request that has n assistant messages before it."""

    def respond(request: ChatRequest) -> str | Reply:
        users = [m for m in request.messages if m.get("role") == "user"]
        opening = str(users[0].get("content")) if users else ""
        script = replies.get(opening)
        if script is None:
            return Reply(status=500, error=f"no agent script opens with {opening[:40]!r}")
        turn = sum(1 for m in request.messages if m.get("role") == "assistant")
        return script[turn] if turn < len(script) else then

    return respond
