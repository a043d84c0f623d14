"""Scoring agent scenarios: replay the agent's calls, compare end states, check what it told.

The record's calls are replayed in a fresh sandbox on the scenario's initial state; the end
state is compared with the one the scenario's ``reference_calls`` reach (under its
``compare`` options). A state the agent reports is never read. End-to-end success also needs
no minefield call, every write marked ``confirmed`` made only after the agent told the user
what it would do and the user answered (``Confirmations``), and every output fact told to the user
(``validator.facts``; only the agent's words to the user count:
``validator.scoring.transcript``). Process accuracy is the share of milestones the calls reach
in an order that respects ``after``. Call patterns and state comparison come from
``validator.sandbox.replay``, the same code ``callbank exec`` uses.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from validator.facts import Analysis, FactError, analyse, read_fact, read_facts, told
from validator.matchers import render
from validator.scoring.literals import FormatError
from validator.scoring.parse import Call, calls_from_json
from validator.scoring.transcript import Transcript, read_transcript

MAX_AGENT_CALLS = 1000

Confirmed = Callable[[Mapping[str, Any], int], bool]


class Replayer(Protocol):
    """Runs calls in a scenario's sandboxes and judges them; the scorer's only door to execution."""

    def reference_state(self, scenario: Mapping[str, Any], lang: str) -> Any: ...

    def end_state(self, scenario: Mapping[str, Any], calls: list[dict[str, Any]], lang: str) -> Any: ...

    def differences(self, expected: Any, actual: Any, compare: Mapping[str, Any], lang: str) -> list[str]: ...

    def milestones_matched(
        self, milestones: Sequence[Mapping[str, Any]], calls: list[dict[str, Any]], lang: str, confirmed: Confirmed | None = None
    ) -> int: ...

    def unconfirmed_call(
        self, milestones: Sequence[Mapping[str, Any]], calls: list[dict[str, Any]], lang: str, confirmed: Confirmed
    ) -> tuple[str, int] | None: ...

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

    def differences(self, expected: Any, actual: Any, compare: Mapping[str, Any], lang: str) -> list[str]:
        return list(self.module.compare_states(expected, actual, compare, lang=lang))

    def milestones_matched(
        self, milestones: Sequence[Mapping[str, Any]], calls: list[dict[str, Any]], lang: str, confirmed: Confirmed | None = None
    ) -> int:
        return len(self.module.matched_milestones(milestones, calls, lang, confirmed))

    def unconfirmed_call(
        self, milestones: Sequence[Mapping[str, Any]], calls: list[dict[str, Any]], lang: str, confirmed: Confirmed
    ) -> tuple[str, int] | None:
        found = self.module.unconfirmed_calls(milestones, calls, lang, confirmed)
        return found[0] if found else None

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


def scenario_clock(scenario: Mapping[str, Any]) -> _dt.datetime | None:
    """The scenario's ``time`` (its sandboxes' clock, shown to the agent), or None."""
    value = scenario.get("time")
    if not isinstance(value, str):
        return None
    try:
        return _dt.datetime.fromisoformat(value)
    except ValueError:
        return None


class Confirmations:
    """Judges whether the user confirmed a call before it was made (a milestone's ``confirmed``).

    A call is confirmed when the last user message before it answers the agent: in the
    messages between the user's previous message and that answer, the agent told the user every
    fact the milestone's ``confirmed`` lists (``true``: it said something, nothing in
    particular). Facts told earlier do not count — repeating the request back before asking for
    the PIN is not asking for a yes. The order of messages and calls comes from the record
    (:class:`~validator.scoring.transcript.Transcript`); a call whose place is unknown is never
    confirmed.
    """

    def __init__(self, transcript: Transcript, lang: str, clock: _dt.datetime | None) -> None:
        self.transcript = transcript
        self.lang = lang
        self.clock = clock
        self._analyses: dict[int, Analysis] = {}

    def __call__(self, milestone: Mapping[str, Any], index: int) -> bool:
        wanted = milestone.get("confirmed")
        if not wanted:
            return True
        positions = self.transcript.positions
        at = positions[index] if index < len(positions) else None
        if at is None:
            return False
        answer = self.transcript.last_user_before(at)
        if answer is None:
            return False
        previous = self.transcript.last_user_before(answer)
        question = self.transcript.told(0 if previous is None else previous + 1, answer)
        if not question:
            return False
        if wanted is True:
            return True
        try:
            facts = read_facts(wanted)
        except FactError:
            return False
        if answer not in self._analyses:
            self._analyses[answer] = analyse(question, self.clock)
        return all(told(fact, self._analyses[answer], self.lang) for fact in facts)


def score_scenario(
    scenario: Mapping[str, Any], record: Mapping[str, Any], lang: str, replayer: Replayer, cache: ReferenceCache
) -> AgentVerdict:
    milestones = list(scenario.get("milestones") or [])
    try:
        calls = read_calls(record.get("calls"))
        transcript = read_transcript(record.get("messages"), record.get("calls"))
    except FormatError as error:
        return AgentVerdict(False, "format", str(error), 0, len(milestones))
    plain = [{"api": call.api, "args": call.args} for call in calls]
    confirmed = Confirmations(transcript, lang, scenario_clock(scenario))
    try:
        matched = replayer.milestones_matched(milestones, plain, lang, confirmed)
    except Exception:  # a model's calls must never crash the scorer
        matched = 0
    verdict = _end_to_end(scenario, plain, transcript, confirmed, lang, replayer, cache)
    return AgentVerdict(verdict is None, None if verdict is None else verdict[0], "" if verdict is None else verdict[1], matched, len(milestones))


def _end_to_end(
    scenario: Mapping[str, Any],
    calls: list[dict[str, Any]],
    transcript: Transcript,
    confirmed: Confirmations,
    lang: str,
    replayer: Replayer,
    cache: ReferenceCache,
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
        differences = replayer.differences(expected, actual, scenario.get("compare") or {}, lang)
    except Exception as error:  # a model's calls must never crash the scorer
        return "agent_end_state", f"the agent's calls do not replay ({type(error).__name__}: {error})"
    if differences:
        more = f" (and {len(differences) - 1} more)" if len(differences) > 1 else ""
        return "agent_end_state", f"end state differs: {differences[0]}{more}"
    try:
        unconfirmed = replayer.unconfirmed_call(scenario.get("milestones") or [], calls, lang, confirmed)
    except Exception:  # a model's calls must never crash the scorer
        unconfirmed = None
    if unconfirmed is not None:
        milestone, index = unconfirmed
        return "agent_unconfirmed", f"call {index + 1} ({calls[index]['api']}, milestone {milestone}) was made before the user confirmed it"
    return _untold(scenario, transcript, lang)


def _untold(scenario: Mapping[str, Any], transcript: Transcript, lang: str) -> tuple[str, str] | None:
    outputs = scenario.get("outputs") or []
    if not isinstance(outputs, list):
        return "agent_untold", "the scenario's outputs cannot be read (run `callbank check`)"
    analysis: Analysis | None = None
    for index, data in enumerate(outputs):
        try:
            fact = read_fact(data)
        except FactError as error:
            return "agent_untold", f"outputs[{index}] cannot be read ({error.message}; run `callbank check`)"
        if analysis is None:
            analysis = analyse(transcript.told(), scenario_clock(scenario))
        if not told(fact, analysis, lang):
            return "agent_untold", f"the agent never told the user outputs[{index}] {json.dumps(data, ensure_ascii=False)}"
    return None


def read_calls(value: Any) -> list[Call]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise FormatError("\"calls\" is not a list")
    # "at" places a call in the conversation (read by the transcript), not part of the call itself
    return calls_from_json([{k: v for k, v in c.items() if k != "at"} if isinstance(c, dict) else c for c in value], MAX_AGENT_CALLS)
