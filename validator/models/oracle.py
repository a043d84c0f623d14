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

from validator.corpus.index import Corpus
from validator.models.base import ModelContext, Reply, Request
from validator.models.render import text_calls, tool_calls
from validator.models.request import first_alternative
from validator.models.retrieval import reference_calls_next
from validator.scoring.agent import reference_calls
from validator.scoring.special import render_special

_DONE = {"en": "Done.", "zh": "已完成。"}


class OracleModel:
    name = "oracle"

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    def complete(self, request: Request) -> Reply:
        if request.kind == "scenario":
            return self._agent_turn(request)
        checkpoint = self.corpus.cases[request.id].dialogues[request.lang].checkpoints[request.step]
        native = request.syntax == "tool_calls"
        if request.kind == "retrieval":
            steps = reference_calls_next(checkpoint, request, self.corpus.specs)
            if not steps:
                return Reply(_DONE[request.lang], [] if native else None)
            return Reply(None, tool_calls(steps)) if native else Reply(text_calls(steps, request.syntax))
        if checkpoint.special is not None:
            return Reply(render_special(dict(checkpoint.answer), request.lang), [] if native else None)
        calls = first_alternative(checkpoint, request.lang)
        if native:
            return Reply(None, tool_calls(calls, prefix=f"call_{request.step}"))
        return Reply(text_calls(calls, request.syntax))

    def _agent_turn(self, request: Request) -> Reply:
        scenario = self.corpus.scenarios[request.id]
        reference = reference_calls(scenario.data, request.lang)
        made = sum(len(m.get("tool_calls") or []) for m in request.messages if m.get("role") == "assistant")
        remaining = reference[made:]
        if remaining:
            if request.syntax == "tool_calls":
                return Reply(None, tool_calls(remaining, prefix=f"call_{request.step}"))
            return Reply(text_calls(remaining, request.syntax))
        outputs = scenario.outputs or {}
        facts = outputs.get(request.lang) if isinstance(outputs, dict) else None
        return Reply("\n".join(facts) if facts else _DONE[request.lang], [] if request.syntax == "tool_calls" else None)


def create(context: ModelContext) -> OracleModel:
    return OracleModel(context.corpus)
