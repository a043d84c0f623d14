"""The oracle: a perfect model that answers every checkpoint with its ground truth.

For a case it renders the checkpoint's first alternative (matchers rendered: the first
``$any``, the ``$text`` string, the ``$regex`` example …) in the syntax the request asks for,
or the special answer's marker line in the request's language. In a retrieval episode it
searches for each expected API with its reference query, then calls it, one step a turn
(``validator.models.retrieval``). In a scenario it makes the reference calls not made yet,
then tells the user the scenario's required output facts.
Scoring its predictions must give exactly 1.0 everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from validator.models.base import ModelContext, Reply, Request
from validator.models.render import text_calls, tool_calls
from validator.models.request import first_alternative
from validator.models.retrieval import reference_calls_next
from validator.scoring.agent import reference_calls
from validator.scoring.special import render_special
from validator.scoring.units import checkpoint_answers

_DONE = {"en": "Done.", "zh": "已完成。"}


class OracleModel:
    name = "oracle"

    def __init__(self, cases: Mapping[str, Any], scenarios: Mapping[str, Any], specs: Mapping[str, Any] | None = None) -> None:
        self.cases = cases
        self.scenarios = scenarios
        self.specs = specs or {}

    def complete(self, request: Request) -> Reply:
        if request.kind == "scenario":
            return self._agent_turn(request)
        answer = checkpoint_answers(self.cases[request.id][request.lang])[request.step]
        native = request.syntax == "tool_calls"
        if request.kind == "retrieval":
            steps = reference_calls_next(answer, request, self.specs)
            if not steps:
                return Reply(_DONE[request.lang], [] if native else None)
            return Reply(None, tool_calls(steps)) if native else Reply(text_calls(steps, request.syntax))
        if "special" in answer:
            return Reply(render_special(answer, request.lang), [] if native else None)
        calls = first_alternative(answer, request.lang)
        if native:
            return Reply(None, tool_calls(calls, prefix=f"call_{request.step}"))
        return Reply(text_calls(calls, request.syntax))

    def _agent_turn(self, request: Request) -> Reply:
        scenario = self.scenarios[request.id]
        reference = reference_calls(scenario, request.lang)
        made = sum(len(m.get("tool_calls") or []) for m in request.messages if m.get("role") == "assistant")
        remaining = reference[made:]
        if remaining:
            if request.syntax == "tool_calls":
                return Reply(None, tool_calls(remaining, prefix=f"call_{request.step}"))
            return Reply(text_calls(remaining, request.syntax))
        outputs = scenario.get("outputs") or {}
        facts = outputs.get(request.lang) if isinstance(outputs, dict) else None
        return Reply("\n".join(facts) if facts else _DONE[request.lang], [] if request.syntax == "tool_calls" else None)


def create(context: ModelContext) -> OracleModel:
    return OracleModel(context.cases, context.scenarios, context.specs)
