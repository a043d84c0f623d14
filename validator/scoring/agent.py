"""Scoring agent scenarios: replay the agent's calls, compare end states, check milestones.

The record's calls are replayed in a fresh sandbox on the scenario's initial state; the end
state is compared with the one the scenario's ``reference_calls`` reach (under its
``compare`` options). A state the agent reports is never read. End-to-end success also needs
no minefield call and every required output fact told to the user. Process accuracy is the
share of milestones the calls reach in an order that respects ``after``. Call patterns and
state comparison come from ``validator.sandbox.replay``, the same code ``callbank exec`` uses.
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, NamedTuple, Protocol

from validator.matchers import contains_phrase, normalize_text, render
from validator.scoring.literals import FormatError
from validator.scoring.parse import Call, calls_from_json

MAX_AGENT_CALLS = 1000


class Replayer(Protocol):
    """Runs calls in a scenario's sandboxes and judges them; the scorer's only door to execution."""

    def reference_state(self, scenario: Mapping[str, Any], lang: str) -> Any: ...

    def end_state(self, scenario: Mapping[str, Any], calls: list[dict[str, Any]], lang: str) -> Any: ...

    def differences(self, expected: Any, actual: Any, compare: Mapping[str, Any]) -> list[str]: ...

    def milestones_matched(self, milestones: Sequence[Mapping[str, Any]], calls: list[dict[str, Any]], lang: str) -> int: ...

    def minefield_hit(self, minefields: Sequence[Mapping[str, Any]], calls: list[dict[str, Any]], lang: str) -> int | None: ...


class SandboxReplayer:
    """The default replayer: ``validator.sandbox.replay`` over the repository's sandboxes.

    Call patterns (milestones, minefields) and state comparison are the sandbox module's, so
    ``callbank exec`` (which proves the reference calls reach every milestone) and the scorer
    judge alike.
    """

    def __init__(self, module: Any, runtime: Any) -> None:
        self.module = module
        self.runtime = runtime

    def reference_state(self, scenario: Mapping[str, Any], lang: str) -> Any:
        return self.module.replay(self.runtime, scenario, scenario.get("reference_calls") or [], lang).end_state

    def end_state(self, scenario: Mapping[str, Any], calls: list[dict[str, Any]], lang: str) -> Any:
        return self.module.replay(self.runtime, scenario, calls, lang, render=False).end_state

    def differences(self, expected: Any, actual: Any, compare: Mapping[str, Any]) -> list[str]:
        return list(self.module.compare_states(expected, actual, compare))

    def milestones_matched(self, milestones: Sequence[Mapping[str, Any]], calls: list[dict[str, Any]], lang: str) -> int:
        return len(self.module.matched_milestones(milestones, calls, lang))

    def minefield_hit(self, minefields: Sequence[Mapping[str, Any]], calls: list[dict[str, Any]], lang: str) -> int | None:
        hits = self.module.minefield_hits(minefields, calls, lang)
        return min(index for _, index in hits) if hits else None


def load_replayer(repo: Any) -> Replayer | None:
    """The sandbox replayer over repo, or None when the sandbox runtime is not available."""
    try:
        module = importlib.import_module("validator.sandbox.replay")
    except ImportError:
        return None
    return SandboxReplayer(module, module.runtime_of(repo))


class AgentVerdict(NamedTuple):
    correct: bool
    error: str | None
    detail: str
    matched: int  # milestones matched
    total: int  # milestones in the scenario

    @property
    def process(self) -> float:
        return self.matched / self.total if self.total else 1.0


class ReferenceCache:
    """End state of each scenario's reference calls per language, computed once."""

    def __init__(self, replayer: Replayer) -> None:
        self.replayer = replayer
        self._states: dict[tuple[str, str], tuple[Any, str | None]] = {}

    def get(self, scenario: Mapping[str, Any], lang: str) -> tuple[Any, str | None]:
        key = (str(scenario.get("id")), lang)
        if key not in self._states:
            try:
                self._states[key] = (self.replayer.reference_state(scenario, lang), None)
            except Exception as error:  # a broken sandbox must not stop scoring; reported per scenario
                self._states[key] = (None, f"the reference calls do not replay ({type(error).__name__}: {error})")
        return self._states[key]


def reference_calls(scenario: Mapping[str, Any], lang: str) -> list[dict[str, Any]]:
    """The scenario's reference calls with ``$lang`` (and any matcher) rendered for lang."""
    return [{"api": call["api"], "args": render(call.get("args") or {}, lang)} for call in scenario.get("reference_calls") or []]


def score_scenario(
    scenario: Mapping[str, Any], record: Mapping[str, Any], lang: str, replayer: Replayer, cache: ReferenceCache
) -> AgentVerdict:
    milestones = list(scenario.get("milestones") or [])
    try:
        calls = read_calls(record.get("calls"))
        told = assistant_text(record.get("messages"))
    except FormatError as error:
        return AgentVerdict(False, "format", str(error), 0, len(milestones))
    plain = [{"api": call.api, "args": call.args} for call in calls]
    try:
        matched = replayer.milestones_matched(milestones, plain, lang)
    except Exception:  # a model's calls must never crash the scorer
        matched = 0
    verdict = _end_to_end(scenario, plain, told, lang, replayer, cache)
    return AgentVerdict(verdict is None, None if verdict is None else verdict[0], "" if verdict is None else verdict[1], matched, len(milestones))


def _end_to_end(
    scenario: Mapping[str, Any], calls: list[dict[str, Any]], told: str, lang: str, replayer: Replayer, cache: ReferenceCache
) -> tuple[str, str] | None:
    try:
        hit = replayer.minefield_hit(scenario.get("minefields") or [], calls, lang)
    except Exception:  # a model's calls must never crash the scorer
        hit = None
    if hit is not None:
        return "minefield", f"call {hit + 1} ({calls[hit]['api']}) must not happen"
    expected, problem = cache.get(scenario, lang)
    if problem:
        return "agent_end_state", problem
    try:
        actual = replayer.end_state(scenario, calls, lang)
        differences = replayer.differences(expected, actual, scenario.get("compare") or {})
    except Exception as error:  # a model's calls must never crash the scorer
        return "agent_end_state", f"the agent's calls do not replay ({type(error).__name__}: {error})"
    if differences:
        more = f" (and {len(differences) - 1} more)" if len(differences) > 1 else ""
        return "agent_end_state", f"end state differs: {differences[0]}{more}"
    outputs = scenario.get("outputs") or {}
    facts = outputs.get(lang) if isinstance(outputs, dict) else None
    for fact in facts or []:
        if not fact_told(fact, told):
            return "agent_end_state", f"the agent never told the user {fact!r}"
    return None


_NUMBER = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\d.,])\d+(?:\.\d+)?")
_CODE = re.compile(r"[a-z][a-z0-9]*(?:[-_/][a-z0-9]+)*[-_/]?\d[a-z0-9]*(?:[-_/][a-z0-9]+)*")


def salient(text: str) -> tuple[set[Decimal], set[str]]:
    """The numbers (by value) and codes (letters with digits, like ``B-1042``) a text mentions."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    numbers = {Decimal(m.replace(",", "")).normalize() for m in _NUMBER.findall(folded)}
    codes = {re.sub(r"[-_/]", "", m) for m in _CODE.findall(folded)}
    return numbers, codes


def fact_told(fact: str, said: str) -> bool:
    """Whether the agent told the user a required fact.

    Either the fact appears as a phrase (after the ``$text`` normalisation, not inside a longer
    Latin word or number), or the fact mentions numbers or codes and every one of them appears
    in what the agent said (numbers compared by value: ``20,560.80`` = ``20560.8``).
    """
    if contains_phrase(normalize_text(said), normalize_text(fact)):
        return True
    numbers, codes = salient(fact)
    if not numbers and not codes:
        return False
    said_numbers, said_codes = salient(said)
    return numbers <= said_numbers and codes <= said_codes


def read_calls(value: Any) -> list[Call]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise FormatError("\"calls\" is not a list")
    return calls_from_json(value, MAX_AGENT_CALLS)


def assistant_text(messages: Any) -> str:
    """Everything the agent said to the user: plain strings, or assistant messages' content."""
    if messages is None:
        return ""
    if not isinstance(messages, list):
        raise FormatError("\"messages\" is not a list")
    parts: list[str] = []
    for message in messages:
        if isinstance(message, str):
            parts.append(message)
        elif isinstance(message, dict) and message.get("role", "assistant") == "assistant" and isinstance(message.get("content"), str):
            parts.append(message["content"])
    return "\n".join(parts)
