"""Responders for :mod:`tests.support.openai_server` that know the corpus: which case checkpoint
a chat request is, and what to answer it.

:class:`CorpusResponder` precomputes, for every case checkpoint of a corpus, the exact
``messages`` ``callbank run`` sends for it (in the run's syntax and the given prompt styles), and answers
each request with ``answer(request) -> Reply`` — for instance the oracle's answer
(:func:`oracle_answers`) or a deliberately wrong one. It records which checkpoint every request
was for (``seen``), so a test can count requests per record. A retrieval checkpoint is an
episode whose later requests carry the model's own searches and calls: it is recognised by its
opening (system prompt and dialogue) and answered by ``episode(request, chat_request)`` — for
instance :func:`oracle_episode`. Requests it does not recognise (agent episodes) go to
``fallback``, e.g. :func:`agent_script`.
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
from validator.models.render import text_calls, tool_calls
from validator.models.request import first_alternative
from validator.models.runner import CaseJob, RetrievalJob, plan
from validator.toolsearch import SEARCH_API, reference_query

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
        episode: Callable[[Request, ChatRequest], Reply | str] | None = None,
        root: Any = None,
    ) -> None:
        self.answer = answer
        self.fallback = fallback
        self.episode = episode
        self.requests: dict[str, Request] = {}
        self.openings: dict[str, Request] = {}  # retrieval episodes, by their system prompt and dialogue
        for style in styles:
            for job in plan(repo, syntax=syntax, style=style):
                if isinstance(job, CaseJob):
                    self.requests[fingerprint(sent_messages(job.request, style))] = job.request
                elif isinstance(job, RetrievalJob):
                    self.openings[fingerprint(sent_messages(job.request, style))] = job.request
        self.seen: list[Key | None] = []  # per chat request: the checkpoint it was for
        self._lock = threading.Lock()

    def __call__(self, request: ChatRequest) -> str | Reply | dict[str, Any]:
        known = self.requests.get(fingerprint(request.messages))
        opening = self._opening(request) if known is None else None
        with self._lock:
            found = known or opening
            self.seen.append((found.id, found.lang, found.step) if found else None)
        if known is not None:
            return self.answer(known)
        if opening is not None and self.episode is not None:
            return self.episode(opening, request)
        if self.fallback is not None:
            return self.fallback(request)
        return Reply(status=500, error="the corpus responder does not know this request")

    def _opening(self, request: ChatRequest) -> Request | None:
        """The retrieval checkpoint whose episode this request continues (or opens)."""
        for size in range(len(request.messages), 0, -1):
            hit = self.openings.get(fingerprint(request.messages[:size]))
            if hit is not None:
                return hit
        return None

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


_DONE = {"en": "Done.", "zh": "已完成。"}


def oracle_episode(repo: Any) -> Callable[[Request, ChatRequest], Reply]:
    """A retrieval episode played as the oracle plays it: for each expected call, search with the
    API's reference query unless an earlier search returned it, then make the call; then say it is
    done. The n-th reply answers the request with n assistant messages after the opening."""
    from validator.scoring.retrieval import load_searcher

    searcher = load_searcher(repo)
    assert searcher is not None, "the corpus has no runnable search_tools"

    def respond(opening: Request, request: ChatRequest) -> Reply:
        checkpoint = repo.cases[opening.id].dialogues[opening.lang].checkpoints[opening.step]
        steps: list[list[dict[str, Any]]] = []
        found: set[str] = set()
        for call in first_alternative(checkpoint, opening.lang):
            if call["api"] not in found:
                search = {"api": SEARCH_API, "args": {"query": reference_query(repo.specs[call["api"]].document.data, opening.lang)}}
                found.update(searcher.search(search["args"], opening.lang))
                steps.append([search])
            steps.append([call])
        turn = sum(1 for m in request.messages[len(opening.messages) :] if m.get("role") == "assistant")
        if turn >= len(steps):
            return Reply(content=_DONE[opening.lang], tool_calls=None)
        if opening.syntax == "tool_calls":
            return Reply(tool_calls=tool_calls(steps[turn], prefix=f"call_{turn}"))
        return Reply(content=text_calls(steps[turn], opening.syntax))

    return respond
