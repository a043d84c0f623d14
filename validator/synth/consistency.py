"""Stage 4, *cycle consistency*: a simulator model solves the case blind; the scorer compares.

The simulator sees what a model under test sees in `callbank run` — the system prompt, the
dialogue up to each checkpoint (earlier checkpoints answered by the reference, their real
results), the candidate APIs as tools — and never the reference answer. Its reply at every
checkpoint, in both languages, is parsed and scored by `callbank score`'s own comparison
(``validator.scoring.match.score_checkpoint``): per step a verdict, API-F1 and parameter-F1.
The candidate agrees when every step is right. Disagreement rejects it, or with
``--keep-disputed`` keeps it for review with the simulator's answers attached.

A retrieval case's checkpoint is an episode, as `callbank run` runs it
(``validator.models.retrieval``): the simulator sees the tool-search policy and only the search
API, searches the catalog, reads the real results, calls what it found in a session of every
sandbox, and its episode is scored by the retrieval scorer, which re-runs its searches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from validator.corpus.canonical import sha256_of
from validator.corpus.index import Corpus
from validator.corpus.records import Case, Spec
from validator.models.base import Reply, Request
from validator.models.endpoint import native_messages, text_messages
from validator.models.episode import SessionEnvironment
from validator.models.prompts import PROMPT_VERSION
from validator.models.request import case_requests
from validator.models.retrieval import retrieval_requests, run_retrieval_async
from validator.models.runner import search_policy
from validator.sandbox.runtime import Runtime
from validator.scoring.match import Counts, Verdict, score_checkpoint
from validator.scoring.parse import parse_prediction
from validator.scoring.retrieval import Searcher, score_retrieval
from validator.synth.client import Answer, Asker

STAGE = "consistency"


@dataclass(frozen=True)
class StepCheck:
    """The simulator at one checkpoint of one language, scored against the reference."""

    lang: str
    step: int
    correct: bool
    error: str | None
    detail: str
    api_f1: float
    param_f1: float
    answer: Mapping[str, Any]  # what the simulator replied (content and tool calls)

    def as_dict(self) -> dict[str, Any]:
        return {
            "lang": self.lang,
            "step": self.step,
            "correct": self.correct,
            "error": self.error,
            "detail": self.detail,
            "api_f1": self.api_f1,
            "param_f1": self.param_f1,
            "answer": dict(self.answer),
        }


def f1(counts: Counts, special: bool) -> float:
    tp, fp, fn = counts
    if special or tp + fp + fn == 0:
        return 1.0 if not (fp or fn) else 0.0
    return round(2 * tp / (2 * tp + fp + fn), 4)


def wire(request: Request, syntax: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """The request as sent: native tool calling, or the conversation as text turns."""
    if syntax == "tool_calls":
        return native_messages(request.messages), request.tools or None
    return text_messages(request.messages, request.lang, syntax, "standard", PROMPT_VERSION), None


def score_answer(case: Case, lang: str, step: int, answer: Answer, specs: Mapping[str, Spec], syntax: str) -> StepCheck:
    checkpoint = case.dialogues[lang].checkpoints[step]
    record: dict[str, Any] = {"output": answer.content}
    if syntax == "tool_calls":
        record["tool_calls"] = answer.tool_calls
    verdict: Verdict = score_checkpoint(checkpoint, parse_prediction(record), specs, lang)
    special = checkpoint.special is not None
    shown = {"content": answer.content, "tool_calls": answer.tool_calls}
    return StepCheck(lang, step, verdict.correct, verdict.error, verdict.detail, f1(verdict.api, special and verdict.correct), f1(verdict.params, special and verdict.correct), shown)


async def simulate(case: Case, specs: Mapping[str, Spec], asker: Asker, recipe_key: str, syntax: str) -> list[StepCheck]:
    """The simulator's answer at every checkpoint of both languages, scored."""
    checks: list[StepCheck] = []
    for lang in case.dialogues:
        for request in case_requests(case, lang, specs, "tool_calls" if syntax == "tool_calls" else syntax):
            messages, tools = wire(request, syntax)
            key = asker.key("simulator", f"run.{PROMPT_VERSION}.{syntax}", recipe_key, f"{lang}/{request.step}")
            answer = await asker.ask(key, messages, tools)
            checks.append(score_answer(case, lang, request.step, answer, specs, syntax))
    return checks


class SimulatorAgent:
    """The simulator as the model of one of `callbank run`'s episode loops (an agent scenario,
    a retrieval checkpoint), every answer cached under the conversation it answers."""

    def __init__(self, asker: Asker, recipe_key: str, syntax: str, lang: str, purpose: str) -> None:
        self.asker = asker
        self.recipe_key = recipe_key
        self.syntax = syntax
        self.lang = lang
        self.purpose = purpose  # "agent" | "retrieval": part of the cache key's prompt version
        self.name = asker.models["simulator"].model

    def complete(self, request: Request) -> Reply:  # the protocol's synchronous door; the loops use acomplete
        raise NotImplementedError("the synth simulator is asked asynchronously")

    async def acomplete(self, request: Request) -> Reply:
        messages, tools = wire(request, self.syntax)
        question = f"{self.lang}/{request.step}/{sha256_of(messages)[7:23]}"
        key = self.asker.key("simulator", f"{self.purpose}.{PROMPT_VERSION}.{self.syntax}", self.recipe_key, question)
        answer = await self.asker.ask(key, messages, tools)
        return Reply(answer.content, answer.tool_calls if self.syntax == "tool_calls" else None, dict(answer.usage))


async def simulate_retrieval(case: Case, corpus: Corpus, runtime: Runtime, searcher: Searcher, asker: Asker, recipe_key: str, syntax: str) -> list[StepCheck]:
    """The simulator's episode at every checkpoint of a retrieval case, in both languages, scored
    as `callbank score` scores a retrieval run (its own searches re-run against the catalog)."""
    checks: list[StepCheck] = []
    names = sorted(runtime.classes)  # the model may find and call any API of the catalog
    for lang in case.dialogues:
        agent = SimulatorAgent(asker, recipe_key, syntax, lang, "retrieval")
        for request in retrieval_requests(case, lang, corpus.specs, syntax, policy=search_policy(corpus, lang)):
            environment = SessionEnvironment(runtime.session(names, case.state, case.time), lang)
            record = await run_retrieval_async(agent, request, environment, corpus.specs)
            checkpoint = case.dialogues[lang].checkpoints[request.step]
            verdict = score_retrieval(checkpoint, record, corpus.specs, lang, searcher)
            shown = {"calls": record.get("calls", []), "output": record.get("output", "")}
            checks.append(StepCheck(lang, request.step, verdict.correct, verdict.error, verdict.detail, f1(verdict.api, False), f1(verdict.params, False), shown))
    return checks


def disagreement(checks: list[StepCheck]) -> str | None:
    """Why the simulator and the reference disagree (the first wrong step), None when they agree."""
    for check in checks:
        if not check.correct:
            return f"{check.lang} step {check.step}: {check.error}: {check.detail}".rstrip(": ")
    return None
