"""Properties of every real sandbox over random call sequences (hypothesis).

Calls mix scenario reference calls (which reach deep states: logged in, ordered, booked) with
calls whose arguments are generated from the specs' schemas and from values the corpus uses.

- no call is ever a sandbox fault: every result validates against its spec's `returns`, every
  error kind is declared, nothing crashes or escapes the sandbox;
- replaying the same sequence on a fresh session gives the same observations and end state;
- no run leaks into the next: the runtime's initial states never change, and a fresh session
  always starts from them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.sandbox.strategies import arguments, corpus_values
from validator import matchers
from validator.corpus.index import Corpus
from validator.sandbox.runtime import SANDBOX_FAULTS, Runtime, json_copy

ROOT = Path(__file__).resolve().parents[2]
REPO = Corpus.load(ROOT)
RUNTIME = Runtime.from_corpus(REPO)
SANDBOXES = sorted(RUNTIME.classes)
PROPERTY_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


def _scenarios(name: str) -> list[dict[str, Any]]:
    return [dict(s.data) for s in REPO.scenarios.values() if s.sandboxes == (name,)]


def _all_calls() -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    for scenario in REPO.scenarios.values():
        calls.extend({"api": c.api, "args": c.args} for c in scenario.reference_calls)
        calls.extend(scenario.milestones)
    for case in REPO.cases.values():
        calls.extend({"api": call.api, "args": call.args} for _, _, _, call in case.calls())
    return calls


KNOWN = corpus_values(_all_calls())


def call_sequences(name: str) -> st.SearchStrategy[tuple[dict[str, Any] | None, list[tuple[str, dict[str, Any]]], str]]:
    """(initial_state patch, calls, language) for one sandbox."""
    session_apis = RUNTIME.session([name]).apis()
    scenarios = _scenarios(name)
    reference = [
        (c["api"], matchers.render(c.get("args") or {}, lang))
        for s in scenarios
        for c in s.get("reference_calls") or []
        for lang in ("en", "zh")
        if c.get("api") in session_apis
    ]
    generated = st.sampled_from(session_apis).flatmap(lambda api: arguments(RUNTIME.specs[api], KNOWN.get(api)).map(lambda args, api=api: (api, args)))
    call = st.one_of(st.sampled_from(reference), generated) if reference else generated
    patches = [s.get("initial_state", {}).get(name) for s in scenarios] + [None]
    return st.tuples(st.sampled_from(patches), st.lists(call, max_size=10), st.sampled_from(["en", "zh"]))


def _run(name: str, patch: Any, calls: list[tuple[str, dict[str, Any]]], lang: str) -> tuple[list[Any], dict[str, Any]]:
    session = RUNTIME.session([name], {name: patch} if patch else None)
    observations = []
    for api, args in calls:
        outcome = session.run(api, args, lang)
        assert outcome.status not in SANDBOX_FAULTS, f"{name}.{api}({json.dumps(args, ensure_ascii=False)}): {outcome.detail} (sandbox.py line {outcome.line})"
        observations.append(outcome.observation)
    return observations, session.state()


@pytest.mark.parametrize("name", SANDBOXES)
def test_random_call_sequences_never_fault_and_replay_identically(name: str) -> None:
    pristine = json_copy(RUNTIME.states[name])

    @PROPERTY_SETTINGS
    @given(call_sequences(name))
    def check(example: tuple[Any, list[tuple[str, dict[str, Any]]], str]) -> None:
        patch, calls, lang = example
        first = _run(name, patch, calls, lang)
        second = _run(name, patch, calls, lang)
        assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
        assert RUNTIME.states[name] == pristine  # the loaded initial state is never touched
        fresh = RUNTIME.session([name], {name: patch} if patch else None).state()
        assert fresh == RUNTIME.session([name], {name: patch} if patch else None).state()
        assert fresh[name] == RUNTIME.initial_state(name, patch)["data"]

    check()


def test_every_sandbox_loads() -> None:
    assert RUNTIME.load_errors == {}
    assert len(SANDBOXES) >= 4
