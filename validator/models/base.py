"""What every model under test is: ``complete(request) -> reply``, in OpenAI chat shapes.

A request carries which checkpoint it is (case or scenario id, language, step, category),
the conversation so far as OpenAI-style ``messages``, the candidate APIs as OpenAI ``tools``,
and the answer syntax the model is asked for. A reply is an OpenAI-style assistant message:
text ``content`` and/or ``tool_calls``. Built-in models (``oracle``, ``null``) and endpoint
clients implement the same protocol, so ``callbank run`` has one code path for all of them;
an endpoint client also has ``acomplete`` (the same, as a coroutine) so the runner can keep
several requests in flight.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from validator.corpus.index import Corpus

SYNTAXES = ("python", "json", "tool_calls")


@dataclass(frozen=True)
class Request:
    kind: str  # "case" | "scenario"
    id: str
    lang: str  # "en" | "zh"
    step: int  # case: checkpoint index; scenario: the model's turn in the episode
    category: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    syntax: str = "python"  # how the answer is asked for: python | json | tool_calls


@dataclass(frozen=True)
class Reply:
    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None  # None: the model does not use native tool calling
    usage: dict[str, Any] = field(default_factory=dict)  # token counts etc., when the transport reports them


class EndpointError(Exception):
    """The model's endpoint cannot serve the run (unreachable, key refused, kept failing): the run
    stops with this one line; what was already written stays, and a re-run resumes."""


class RequestRejected(Exception):
    """The model's endpoint refused this one request (say, a context too long): the record is
    written with this as its ``error`` and the run goes on."""


class Model(Protocol):
    name: str

    def complete(self, request: Request) -> Reply: ...


async def complete_async(model: Model, request: Request) -> Reply:
    """Ask model: through its ``acomplete`` coroutine when it has one (endpoint clients), else
    its ``complete`` (built-in models answer at once). The runner's one way of asking."""
    method = getattr(model, "acomplete", None)
    if method is not None:
        reply: Reply = await method(request)
        return reply
    return model.complete(request)


@dataclass(frozen=True)
class ModelContext:
    """What a model factory may use: the corpus and the run's model options."""

    corpus: Corpus
    options: dict[str, Any] = field(default_factory=dict)
