"""Agent episodes as training data: the whole transcript, and the first step that went wrong.

An agent scenario's training example is an episode, not one answer: the system prompt `callbank
run` shows (tools, policy, clock), the user's messages, the assistant's tool calls, the real
results as ``tool`` messages, and the final answer. The reference episode is the oracle's
(``validator.models.oracle``) run in the real sandbox with the scenario's scripted user: it makes
the reference calls, asks before a write a milestone says the user must confirm, and tells the
outcome — `callbank score` gives it 1.0.

For a preference pair the episode must have a *wrong step*: walking the assistant's messages in
order, the first call that is not the next reference call (API and arguments, by the matchers
in the episode's language), or — when every reference call was made in order — the last text
when the episode still failed (an outcome untold), or a last text while reference calls remain
(it stopped early). The prompt is the transcript before that message, the rejected side that
message, the chosen side the reference's next call (or the oracle's closing text). Following
the reference's order is a heuristic for *where* a failed episode went wrong: it is used only
for episodes the scorer already marked wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from validator import matchers
from validator.corpus.index import Corpus
from validator.corpus.records import Scenario, Spec
from validator.models.episode import SessionEnvironment, policy_text, run_episode
from validator.models.oracle import OracleModel
from validator.models.prompts import system_prompt
from validator.models.render import tool_calls
from validator.models.request import scenario_apis, tools_for
from validator.models.user import scripted_user
from validator.sandbox.replay import scenario_session
from validator.sandbox.runtime import Runtime

SYNTAX = "tool_calls"  # the fine-tuning formats carry native tool calls


@dataclass(frozen=True)
class Episode:
    """One language of a scenario as the fine-tuning formats take it."""

    system: dict[str, Any]
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]  # after the system prompt


@dataclass(frozen=True)
class WrongStep:
    index: int  # of the assistant message that went wrong, in Episode.messages
    reference: int  # the reference call it should have made (== len(reference calls): the closing text)


def prompt_of(corpus: Corpus, scenario: Scenario, lang: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The system message and the tools `callbank run` shows an agent in this scenario."""
    tools = tools_for(scenario_apis(scenario, corpus.specs), corpus.specs, lang)
    text = system_prompt(lang, SYNTAX, tools=tools, time=scenario.time, policy=policy_text(corpus, scenario, lang), style="standard")
    return {"role": "system", "content": text}, tools


def oracle_episode(corpus: Corpus, scenario: Scenario, lang: str, runtime: Runtime) -> Episode:
    """The reference episode: the oracle as the agent, the scripted user, the real sandbox.
    The corpus must hold the scenario (a synthesised one: ``Corpus.with_file``)."""
    system, tools = prompt_of(corpus, scenario, lang)
    environment = SessionEnvironment(scenario_session(runtime, scenario.data), lang)
    record = run_episode(OracleModel(corpus), scenario, lang, corpus.specs, SYNTAX, environment, policy_text(corpus, scenario, lang), user=scripted_user(scenario, lang))
    return Episode(system, tools, list(record["messages"]))


def learned(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The transcript cut after its last assistant message (a trailing user message teaches nothing)."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return [dict(m) for m in messages[: last + 1]]


def first_wrong_step(scenario: Scenario, messages: Sequence[Mapping[str, Any]], calls: Sequence[Mapping[str, Any]], lang: str, specs: Mapping[str, Spec]) -> WrongStep | None:
    """Where a failed episode first left the reference (module docstring); None when no step
    can be told wrong. ``calls`` are the record's calls, each with ``at`` (its message)."""
    reference = [call for call in scenario.data.get("reference_calls") or [] if isinstance(call, Mapping)]
    made: dict[int, list[Mapping[str, Any]]] = {}
    for call in calls:
        if isinstance(call.get("at"), int):
            made.setdefault(int(call["at"]), []).append(call)
    position = 0
    assistant = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    for index in assistant:
        if index in made:
            for call in made[index]:
                if position < len(reference) and _matches(reference[position], call, lang, specs):
                    position += 1
                else:
                    return WrongStep(index, position)
        elif index == assistant[-1]:
            return WrongStep(index, position)  # stopped early, or closed without telling the outcome
    return None


def _matches(reference: Mapping[str, Any], call: Mapping[str, Any], lang: str, specs: Mapping[str, Spec]) -> bool:
    spec = specs.get(str(call.get("api")))
    schema = spec.parameters if spec is not None else None
    return reference.get("api") == call.get("api") and matchers.matches(dict(reference.get("args") or {}), dict(call.get("args") or {}), lang, schema)


def reference_move(scenario: Scenario, position: int, lang: str, oracle: Episode) -> dict[str, Any]:
    """The reference's move at a wrong step: its next call, or — all calls made — the oracle's closing text."""
    reference = [call for call in scenario.data.get("reference_calls") or [] if isinstance(call, Mapping)]
    if position < len(reference):
        call = reference[position]
        rendered = [{"api": call["api"], "args": matchers.render(dict(call.get("args") or {}), lang)}]
        return {"role": "assistant", "content": None, "tool_calls": tool_calls(rendered, prefix="call_ref")}
    closing = next((m for m in reversed(oracle.messages) if m.get("role") == "assistant" and not m.get("tool_calls")), None)
    return {"role": "assistant", "content": str((closing or {}).get("content") or "")}
