"""The oracle: a perfect model that answers every checkpoint with its ground truth.

For a case it renders the checkpoint's first alternative (matchers rendered: the first
``$any``, the ``$text`` string, the ``$regex`` example …) in the syntax the request asks for,
or the special answer's marker line in the request's language. In a retrieval episode it
searches for each expected API with its reference query, then calls it, one step a turn
(``validator.models.retrieval``). In a scenario it makes the reference calls not made yet;
before a call that a ``confirmed`` milestone says the user must approve, it stops and asks —
telling the user the facts the milestone lists — and goes on once the user has answered; at the
end it tells the user each output fact in a sentence of its own (``validator.facts.sentence``).
Scoring its predictions must give exactly 1.0 everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from validator.corpus.index import Corpus
from validator.facts import FactError, read_facts, sentence
from validator.models.base import ModelContext, Reply, Request
from validator.models.render import text_calls, tool_calls
from validator.models.request import first_alternative
from validator.models.retrieval import reference_calls_next
from validator.sandbox.replay import call_matches, milestone_alternatives
from validator.scoring.agent import Confirmations, reference_calls, scenario_clock
from validator.scoring.special import render_special
from validator.scoring.transcript import read_transcript

_DONE = {"en": "Done.", "zh": "已完成。"}
_ASK = {"en": ("Before I go ahead, please confirm:", "Shall I go ahead?"), "zh": ("办理之前请您确认：", "可以办理吗？")}


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
        scenario = self.corpus.scenarios[request.id].data  # milestones and outputs are agent scoring's format
        lang = request.lang
        conversation = [m for m in request.messages if m.get("role") != "system"]
        made = sum(len(m.get("tool_calls") or []) for m in conversation if m.get("role") == "assistant")
        batch: list[dict[str, Any]] = []
        for call in reference_calls(scenario, lang)[made:]:
            milestone = _needs_confirmation(scenario, call, conversation, lang)
            if milestone is not None:
                if batch:
                    break  # make the calls before it first
                return self._say(request, _question(milestone, lang))
            batch.append(call)
        if batch:
            if request.syntax == "tool_calls":
                return Reply(None, tool_calls(batch, prefix=f"call_{request.step}"))
            return Reply(text_calls(batch, request.syntax))
        try:
            facts = read_facts(scenario.get("outputs"))
        except FactError:  # a malformed scenario (`callbank check` says where): nothing to tell
            facts = ()
        return self._say(request, "\n".join(sentence(fact, lang) for fact in facts) if facts else _DONE[lang])

    @staticmethod
    def _say(request: Request, text: str) -> Reply:
        return Reply(text, [] if request.syntax == "tool_calls" else None)


def _needs_confirmation(
    scenario: Mapping[str, Any], call: Mapping[str, Any], conversation: Sequence[Mapping[str, Any]], lang: str
) -> Mapping[str, Any] | None:
    """The ``confirmed`` milestone call belongs to, if the user has not yet confirmed it here
    (judged exactly as the scorer judges a call made as the next message)."""
    transcript = read_transcript(list(conversation), [])._replace(positions=(len(conversation),))
    for milestone in scenario.get("milestones") or []:
        if not isinstance(milestone, Mapping) or not milestone.get("confirmed"):
            continue
        patterns = [pattern for alternative in milestone_alternatives(milestone) for pattern in alternative]
        if not any(call_matches(pattern, call, lang) for pattern in patterns):
            continue
        if not Confirmations(transcript, lang, scenario_clock(scenario))(milestone, 0):
            return milestone
    return None


def _question(milestone: Mapping[str, Any], lang: str) -> str:
    confirmed = milestone.get("confirmed")
    facts = read_facts(confirmed) if isinstance(confirmed, list) else ()
    opening, question = _ASK[lang]
    return "\n".join([opening, *(sentence(fact, lang) for fact in facts), question])


def create(context: ModelContext) -> OracleModel:
    return OracleModel(context.corpus)
