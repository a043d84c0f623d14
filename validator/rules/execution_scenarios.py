"""Replaying a scenario's reference calls (EXE006–EXE012, EXE020, and the sandbox faults they show).

In each language the reference calls replay on the scenario's initial state, twice: they must
succeed (EXE006), agree with themselves (EXE007), change what a do-nothing agent leaves alone
— or change nothing in a ``no_change`` scenario (EXE008, EXE009) — reach every milestone in
its ``after`` order (EXE010) and hit no minefield (EXE011). Before that, every API a scenario
names must run in its sandboxes, with milestone and minefield arguments its parameters accept
(EXE012); and ``compare.ignore`` may not drop content the user supplied (EXE020). A finding
seen in both languages is reported once, naming them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from validator import matchers
from validator.corpus.records import Scenario, Spec
from validator.diagnostics import Finding, join_pointer
from validator.rules.execution_cases import error_text
from validator.rules.execution_context import Coded, Execution, merge_languages
from validator.rules.scenarios import scenario_calls
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
    for lang in execution.corpus.langs:
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
        changes = compare_states(nothing, first.end_state, scenario.compare, limit=1, lang=lang)  # initial state vs after the reference calls
        outputs = scenario.outputs
        if scenario.no_change:
            if changes:
                message = f"no_change is true, but the reference calls change the state (initial state vs after them): {changes[0]}"
                found.append(("EXE009", Finding(message, "/no_change"), lang))
            elif not isinstance(outputs, list) or not outputs:
                message = "a do-nothing agent passes: nothing is to change and there are no outputs to tell the user; add outputs"
                found.append(("EXE008", Finding(message, "/no_change"), lang))
        elif not changes:
            message = (
                "a do-nothing agent passes: the reference calls change nothing that compare sees; "
                "make the goal change the state, or mark a refusal no_change with outputs"
            )
            found.append(("EXE008", Finding(message, "/reference_calls"), lang))
        rendered = [{"api": call["api"], "args": matchers.render(call["args"], lang)} for call in calls]
        for index, message in ignored_user_content(scenario.compare, nothing, first.end_state, rendered, runtime):
            found.append(("EXE020", Finding(message, join_pointer("compare", "ignore", index)), lang))
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
    if "one_of" in milestone:
        return "the reference calls complete none of this milestone's one_of alternatives in order (after its after milestones); fix the alternatives or the calls"
    if not any(call_matches(milestone, call, lang) for call in calls):
        args = milestone.get("args") or {}
        return f"no reference call matches {api} with {args}; fix the milestone or the calls"
    after = ", ".join(str(a) for a in milestone.get("after") or [])
    return f"reference calls match {api} only before they reach {after}; reorder the calls or relax after"


def check_scenario_apis(scenario: Scenario, runtime: Runtime, found: list[Found]) -> set[str]:
    """EXE012; returns the pointers of entries that cannot run (they are skipped afterwards): the
    entry's own and, for a call of a milestone's ``one_of`` alternatives, the milestone's."""
    names = set(scenario.sandboxes)
    blocked: set[str] = set()
    entries: list[tuple[str, str, str, Mapping[str, Any] | None]] = [
        (key, pointer, entry["api"], None if key == "reference_calls" else entry) for key, entry, pointer in scenario_calls(scenario.data) if isinstance(entry.get("api"), str)
    ]
    entries += [("apis", join_pointer("apis", i), api, None) for i, api in enumerate(scenario.apis or ())]
    for key, pointer, api, pattern in entries:
        spec = runtime.specs.get(api)
        if spec is None:
            continue  # REF001 reports unknown APIs
        entry_pointers = (pointer, "/".join(pointer.split("/")[:3]))  # a one_of call blocks its milestone
        sandbox = runtime.sandbox_of(api)
        if sandbox is None and not spec.spec_only and spec.sandbox in names:
            blocked.update(entry_pointers)  # EXE001 / EXE004 report the missing implementation
            continue
        if sandbox not in names and not (spec.spec_only and key in ("minefields", "apis")):
            blocked.update(entry_pointers)
            found.append(("EXE012", Finding(_not_runnable(api, spec, sandbox, names), pointer + ("" if key == "apis" else "/api")), None))
            continue
        if pattern is not None:
            for problem, arg_pointer in _pattern_problems(spec, pattern, runtime):
                blocked.update(entry_pointers)
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


# ----------------------------------------------------------------------------- compare.ignore


def ignored_user_content(
    compare: Mapping[str, Any] | None, start: Any, end: Any, calls: list[dict[str, Any]], runtime: Runtime
) -> Iterator[tuple[int, str]]:
    """(index in compare.ignore, message) for each ignored path that drops content the user
    supplied: a value the reference calls changed and that one of them passed as a free-text
    or numeric argument (a title, a label, an amount). Timestamps and generated ids come from no
    argument, so ignoring them is fine; a sandbox's ``session`` (who is logged in) is
    bookkeeping too, though the login call names the user."""
    supplied: dict[tuple[str, Any], str] = {}
    for i, call in enumerate(calls):
        spec = runtime.specs.get(call["api"]) if isinstance(call.get("api"), str) else None
        schema = spec.parameters if spec is not None else None
        for where, value, leaf_schema in _argument_leaves(call.get("args") or {}, schema, ""):
            if _is_content(value, leaf_schema):
                supplied.setdefault(_leaf_key(value), f"reference call {i} ({call.get('api')}) passes as {where}")
    ignored = (compare or {}).get("ignore")
    paths = ignored if isinstance(ignored, list) else []
    for index, path in enumerate(paths):
        if not isinstance(path, str) or path.split(".")[1:2] == ["session"]:
            continue  # who is logged in is bookkeeping: an agent may log out when it is done
        for place, value in _reached_leaves(end, [p for p in path.split(".") if p], []):
            if not isinstance(value, (str, int, float)) or isinstance(value, bool) or _leaf_at(start, place) == (True, value):
                continue
            source = supplied.get(_leaf_key(value))
            if source is not None:
                yield index, (
                    f"compare.ignore drops {'.'.join(place)} = {value!r}, which {source}: content the user supplied must be compared "
                    "(list free text under compare.text to compare it as text); ignore only bookkeeping"
                )
                break


def _leaf_key(value: Any) -> tuple[str, Any]:
    return ("n", float(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) else ("s", value)


def _is_content(value: Any, schema: Any) -> bool:
    """A value the user may dictate: free text (a string without enum, format, pattern or
    const) of two characters or more, or a number without enum."""
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, bool) or any(key in schema for key in ("enum", "const")):
        return False
    if isinstance(value, str):
        return len(value.strip()) >= 2 and not any(key in schema for key in ("format", "pattern"))
    return isinstance(value, (int, float))


def _argument_leaves(value: Any, schema: Any, where: str) -> Iterator[tuple[str, Any, Any]]:
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, dict):
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        for key, item in value.items():
            yield from _argument_leaves(item, properties.get(key), f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _argument_leaves(item, schema.get("items"), f"{where}[{i}]")
    else:
        yield where, value, schema


def _reached_leaves(value: Any, parts: list[str], place: list[str]) -> Iterator[tuple[list[str], Any]]:
    """(concrete path, scalar) of every leaf at or below what a dotted path (``*`` = any) reaches."""
    if not parts:
        if isinstance(value, dict):
            for key, item in value.items():
                yield from _reached_leaves(item, [], [*place, str(key)])
        elif isinstance(value, list):
            for i, item in enumerate(value):
                yield from _reached_leaves(item, [], [*place, str(i)])
        else:
            yield place, value
        return
    head, rest = parts[0], parts[1:]
    if isinstance(value, dict):
        keys = list(value) if head == "*" else [head] if head in value else []
        for key in keys:
            yield from _reached_leaves(value[key], rest, [*place, str(key)])
    elif isinstance(value, list):
        indexes = range(len(value)) if head == "*" else [int(head)] if head.isdigit() and int(head) < len(value) else []
        for i in indexes:
            yield from _reached_leaves(value[i], rest, [*place, str(i)])


def _leaf_at(value: Any, place: list[str]) -> tuple[bool, Any]:
    for part in place:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return False, None
    return True, value
