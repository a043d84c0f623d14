"""Replaying a scenario's reference calls (EXE006–EXE012, and the sandbox faults they show).

In each language the reference calls replay on the scenario's initial state, twice: they must
succeed (EXE006), agree with themselves (EXE007), change what a do-nothing agent leaves alone
— or change nothing in a ``no_change`` scenario (EXE008, EXE009) — reach every milestone in
its ``after`` order (EXE010) and hit no minefield (EXE011). Before that, every API a scenario
names must run in its sandboxes, with milestone and minefield arguments its parameters accept
(EXE012). A finding seen in both languages is reported once, naming them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from validator import matchers
from validator.corpus.langs import LANGS
from validator.corpus.records import Scenario, Spec
from validator.diagnostics import Finding, join_pointer
from validator.rules.execution_cases import error_text
from validator.rules.execution_context import Coded, Execution, merge_languages
from validator.sandbox.replay import call_matches, compare_states, matched_milestones, minefield_hits, replay
from validator.sandbox.runtime import Runtime

Found = tuple[str, Finding, "str | None"]  # (code, finding, language or None)


def execute_scenario(scenario: Scenario, execution: Execution) -> Iterator[Coded]:
    found: list[Found] = []
    _execute(scenario, execution, found)
    return merge_languages(found)


def _execute(scenario: Scenario, execution: Execution, found: list[Found]) -> None:
    runtime = execution.runtime
    if not all(name in runtime.classes for name in scenario.sandboxes):
        return  # REF004 / EXE004 report sandboxes that do not exist or do not load
    data = scenario.data
    calls = [{"api": call.api, "args": call.args} for call in scenario.reference_calls]
    milestones, minefields = list(scenario.milestones), list(scenario.minefields)
    blocked = check_scenario_apis(scenario, runtime, found)
    if any(p.startswith("/reference_calls/") for p in blocked):
        return
    nothing: Any = None  # the do-nothing agent's end state: the initial state, in any language
    for lang in LANGS:
        first = replay(runtime, data, calls, lang, time_limit=execution.time_limit)
        if first.errors:
            for error in first.errors:
                if error.index < 0:
                    found.append(("EXE013", Finding(error.message, "/reference_calls"), lang))
                    continue
                outcome = first.outcomes[error.index]
                if outcome.is_fault:
                    fault = execution.fault(outcome, f"replaying {scenario.path} reference call {error.index} ({lang})")
                    if fault is not None:
                        found.append((*fault, None))
                else:
                    found.append(("EXE006", Finding(error_text(outcome), join_pointer("reference_calls", error.index)), lang))
            continue
        second = replay(runtime, data, calls, lang, time_limit=execution.time_limit)
        drift = _drift(first.observations, second.observations, first.end_state, second.end_state)
        if drift:
            found.append(("EXE007", Finding(f"replaying the reference calls twice gives different results: {drift}", "/reference_calls"), lang))
            return  # nothing else about this scenario can be trusted
        if nothing is None:
            nothing = replay(runtime, data, [], lang, time_limit=execution.time_limit).end_state
        changes = compare_states(nothing, first.end_state, scenario.compare, limit=1)  # initial state vs after the reference calls
        outputs = scenario.outputs if isinstance(scenario.outputs, dict) else {}
        if scenario.no_change:
            if changes:
                message = f"no_change is true, but the reference calls change the state (initial state vs after them): {changes[0]}"
                found.append(("EXE009", Finding(message, "/no_change"), lang))
            elif not outputs.get(lang):
                message = "a do-nothing agent passes: nothing is to change and there are no outputs to tell the user; add outputs"
                found.append(("EXE008", Finding(message, "/no_change"), lang))
        elif not changes:
            message = (
                "a do-nothing agent passes: the reference calls change nothing that compare sees; "
                "make the goal change the state, or mark a refusal no_change with outputs"
            )
            found.append(("EXE008", Finding(message, "/reference_calls"), lang))
        rendered = [{"api": call["api"], "args": matchers.render(call["args"], lang)} for call in calls]
        reached = matched_milestones(milestones, rendered, lang)
        for i, milestone in enumerate(milestones):
            pointer = join_pointer("milestones", i)
            if milestone.get("id") not in reached and pointer not in blocked:
                found.append(("EXE010", Finding(_unreached(milestone, rendered, lang), pointer), lang))
        for m, index in minefield_hits(minefields, rendered, lang):
            message = f"reference call {index} ({rendered[index]['api']}) hits this minefield"
            found.append(("EXE011", Finding(message, join_pointer("minefields", m)), lang))


def _drift(obs_a: list[Any], obs_b: list[Any], end_a: Any, end_b: Any) -> str:
    for index, (a, b) in enumerate(zip(obs_a, obs_b, strict=True)):  # the same calls: one observation each
        if not matchers.literal_equal(a, b):
            return f"call {index} returned {a!r:.120} then {b!r:.120}"
    if end_a == end_b:  # C-speed; exact replays never trade true for 1
        return ""
    differences = compare_states(end_a, end_b, None)
    return f"end states differ at {differences[0]}" if differences else ""


def _unreached(milestone: Mapping[str, Any], calls: list[dict[str, Any]], lang: str) -> str:
    api = milestone.get("api")
    if not any(call_matches(milestone, call, lang) for call in calls):
        args = milestone.get("args") or {}
        return f"no reference call matches {api} with {args}; fix the milestone or the calls"
    after = ", ".join(str(a) for a in milestone.get("after") or [])
    return f"reference calls match {api} only before they reach {after}; reorder the calls or relax after"


def check_scenario_apis(scenario: Scenario, runtime: Runtime, found: list[Found]) -> set[str]:
    """EXE012; returns the pointers of entries that cannot run (they are skipped afterwards)."""
    names = set(scenario.sandboxes)
    blocked: set[str] = set()
    entries: list[tuple[str, int, str, Mapping[str, Any] | None]] = [("reference_calls", i, c.api, None) for i, c in enumerate(scenario.reference_calls)]
    for key, patterns in (("milestones", scenario.milestones), ("minefields", scenario.minefields)):
        entries += [(key, i, entry["api"], entry) for i, entry in enumerate(patterns) if isinstance(entry.get("api"), str)]
    entries += [("apis", i, api, None) for i, api in enumerate(scenario.apis or ())]
    for key, i, api, pattern in entries:
        pointer = join_pointer(key, i)
        spec = runtime.specs.get(api)
        if spec is None:
            continue  # REF001 reports unknown APIs
        sandbox = runtime.sandbox_of(api)
        if sandbox is None and not spec.spec_only and spec.sandbox in names:
            blocked.add(pointer)  # EXE001 / EXE004 report the missing implementation
            continue
        if sandbox not in names and not (spec.spec_only and key in ("minefields", "apis")):
            blocked.add(pointer)
            found.append(("EXE012", Finding(_not_runnable(api, spec, sandbox, names), pointer + ("" if key == "apis" else "/api")), None))
            continue
        if pattern is not None:
            for problem, arg_pointer in _pattern_problems(spec, pattern, runtime):
                blocked.add(pointer)
                found.append(("EXE012", Finding(problem, pointer + arg_pointer), None))
    return blocked


def _not_runnable(api: str, spec: Spec, sandbox: str | None, names: set[str]) -> str:
    listed = ", ".join(sorted(names))
    if spec.spec_only:
        return f"{api} is a spec-only distractor; no call can run it"
    runs_in = sandbox if sandbox is not None else spec.sandbox
    return f"{api} runs in sandbox {runs_in!r}, which this scenario does not use (sandboxes: {listed}); add it to sandboxes"


def _pattern_problems(spec: Spec, entry: Mapping[str, Any], runtime: Runtime) -> Iterator[tuple[str, str]]:
    args = entry.get("args") or {}
    if not isinstance(args, dict):
        return
    for name, value in args.items():
        pointer = join_pointer("args", name)
        if name not in spec.properties:
            yield f"{spec.name} has no parameter {name!r}", pointer
            continue
        if list(matchers.problems(value, allow_lang=True)):
            continue  # DLG013 reports malformed matchers
        for concrete in matchers.concrete_values(value):
            errors = runtime.parameter_errors(spec.name, name, concrete)
            if errors:
                yield f"{name}={concrete!r} is not valid for {spec.name}: {errors[0]}", pointer
                break


