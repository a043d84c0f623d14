"""Stage 4, *cycle consistency*: a simulator model solves the case blind; the scorer compares.

The simulator sees what a model under test sees in `callbank run` — the system prompt, the
dialogue up to each checkpoint (earlier checkpoints answered by the reference, their real
results), the candidate APIs as tools — and never the reference answer. Its reply at every
checkpoint, in both languages, is parsed and scored by `callbank score`'s own comparison
(``validator.scoring.match.score_checkpoint``): per step a verdict, API-F1 and parameter-F1.
The candidate agrees when every step is right. Disagreement rejects it, or with
``--keep-disputed`` keeps it for review with the simulator's answers attached.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from validator.corpus.records import Case, Spec
from validator.models.base import Request
from validator.models.endpoint import native_messages, text_messages
from validator.models.prompts import PROMPT_VERSION
from validator.models.request import case_requests
from validator.scoring.match import Counts, Verdict, score_checkpoint
from validator.scoring.parse import parse_prediction
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


def disagreement(checks: list[StepCheck]) -> str | None:
    """Why the simulator and the reference disagree (the first wrong step), None when they agree."""
    for check in checks:
        if not check.correct:
            return f"{check.lang} step {check.step}: {check.error}: {check.detail}".rstrip(": ")
    return None
