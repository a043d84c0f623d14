"""Replaying calls in a scenario's sandboxes, and judging the result: pure functions over plain data.

- :func:`replay` runs a list of ``{api, args}`` calls on the scenario's patched initial state;
- :func:`compare_states` lists the differences between two end states under the scenario's
  ``compare`` options (``ignore``: dotted paths with ``*``; ``text``: strings compared as free
  text; ``match``: values that must satisfy a matcher, such as ``$any`` or ``$contains``;
  ``unordered``: lists, and mappings' values, as multisets);
- :func:`matched_milestones` and :func:`minefield_hits` match calls against call patterns, the
  former respecting the milestones' ``after`` partial order, their ``one_of`` alternatives and,
  given a judge of confirmations, ``confirmed``; :func:`unconfirmed_calls` lists the writes
  made before the user confirmed them.

The scorer uses these for agent scoring; ``callbank exec`` uses them to prove every scenario's
reference calls reach a state a do-nothing agent does not, deterministically.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from validator import matchers
from validator.corpus.index import Corpus
from validator.sandbox.runtime import (
    DEFAULT_TIME_LIMIT,
    NotJson,
    Outcome,
    Runtime,
    Session,
)

_MAX_DIFFERENCES = 20


class ReplayError(NamedTuple):
    """A call of a replay that did not succeed (index -1: reading the end state failed)."""

    index: int  # type: ignore[assignment]  # shadows tuple.index, which nothing calls on it
    api: str
    status: str  # an Outcome status other than "ok"
    message: str
    sandbox: str | None = None
    line: int | None = None  # in the sandbox's sandbox.py, for sandbox faults


class ReplayResult(NamedTuple):
    end_state: dict[str, Any]  # sandbox name -> data
    observations: list[Any]  # one per call, what the agent would have seen
    errors: list[ReplayError]
    outcomes: list[Outcome]


def runtime_of(source: Runtime | Corpus) -> Runtime:
    """A Runtime from a Runtime or a Corpus (building one loads every sandbox: reuse it)."""
    return source if isinstance(source, Runtime) else Runtime.from_corpus(source)


def scenario_session(runtime: Runtime, scenario: Mapping[str, Any], time_limit: float | None = DEFAULT_TIME_LIMIT) -> Session:
    """A fresh session over the scenario's sandboxes with its ``initial_state`` patch, every
    sandbox's clock set to the scenario's ``time`` (the "now" the agent is shown)."""
    names = [n for n in scenario.get("sandboxes") or [] if isinstance(n, str)]
    patch = scenario.get("initial_state") if isinstance(scenario.get("initial_state"), dict) else None
    clock = scenario.get("time") if isinstance(scenario.get("time"), str) else None
    return runtime.session(names, patch, clock, time_limit=time_limit)


def replay(
    source: Any,
    scenario: Mapping[str, Any],
    calls: Sequence[Mapping[str, Any]],
    lang: str,
    *,
    render: bool = True,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
) -> ReplayResult:
    """Run calls in order on the scenario's initial state; failed calls are observations too.

    With ``render`` (the default) argument values are rendered first (``$lang`` picks the run's
    language, other matchers their exact form), as reference calls need; pass ``render=False``
    for a model's concrete calls.
    """
    session = scenario_session(runtime_of(source), scenario, time_limit)
    observations: list[Any] = []
    errors: list[ReplayError] = []
    outcomes: list[Outcome] = []
    for index, call in enumerate(calls):
        api = call.get("api") if isinstance(call, Mapping) else None
        args = call.get("args", {}) if isinstance(call, Mapping) else None
        if render:
            args = matchers.render(args if args is not None else {}, lang)
        outcome = session.run(api if isinstance(api, str) else "", args, lang)
        outcomes.append(outcome)
        observations.append(outcome.observation)
        if not outcome.ok:
            errors.append(ReplayError(index, outcome.api, outcome.status, outcome.detail, outcome.sandbox, outcome.line))
    try:
        end_state = session.state()
    except NotJson as error:
        errors.append(ReplayError(-1, "", "sandbox_bug", f"the end state is not JSON data: {error}"))
        end_state = {}
    return ReplayResult(end_state, observations, errors, outcomes)


# ----------------------------------------------------------------------------- state comparison


def _split(path: str) -> list[str]:
    return [part for part in path.split(".") if part]


def _drop(value: Any, parts: list[str]) -> Any:
    """value without what the dotted path (``*`` = any key or index) reaches."""
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    if isinstance(value, dict):
        if head == "*":
            keys = list(value)
        else:
            keys = [head] if head in value else []
        out = dict(value)
        for key in keys:
            if rest:
                out[key] = _drop(value[key], rest)
            else:
                del out[key]
        return out
    if isinstance(value, list):
        if head == "*":
            indexes: Sequence[int] = range(len(value))
        else:
            indexes = [int(head)] if head.isdigit() and int(head) < len(value) else []
        if not rest:
            drop = set(indexes)
            return [item for i, item in enumerate(value) if i not in drop]
        out_list = list(value)
        for i in indexes:
            out_list[i] = _drop(value[i], rest)
        return out_list
    return value


def _canonical(value: Any) -> Any:
    """Integral floats as ints, so 1 and 1.0 sort and compare alike (JSON numbers)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _key(value: Any) -> str:
    return json.dumps(_canonical(value), sort_keys=True, ensure_ascii=False)


def _sort_lists(value: Any, parts: list[str]) -> Any:
    """value with the list(s) the dotted path reaches sorted into a canonical order; a mapping
    there becomes the sorted list of its values (records filed under the ids the sandbox gave
    them, TB-1009 and TB-1010, whichever the agent made first)."""
    if not parts:
        if isinstance(value, dict):
            return sorted(value.values(), key=_key)
        return sorted(value, key=_key) if isinstance(value, list) else value
    head, rest = parts[0], parts[1:]
    if isinstance(value, dict):
        keys = list(value) if head == "*" else [head] if head in value else []
        out = dict(value)
        for key in keys:
            out[key] = _sort_lists(value[key], rest)
        return out
    if isinstance(value, list):
        indexes = range(len(value)) if head == "*" else [int(head)] if head.isdigit() and int(head) < len(value) else []
        out_list = list(value)
        for i in indexes:
            out_list[i] = _sort_lists(value[i], rest)
        return out_list
    return value


def _as_text(value: Any, parts: list[str]) -> Any:
    """value with every string at or below what the dotted path reaches compared as free text
    (``$text``: NFKC, case folded, punctuation as space, spaces collapsed)."""
    if not parts:
        if isinstance(value, str):
            return matchers.normalize_text(value)
        if isinstance(value, dict):
            return {k: _as_text(v, []) for k, v in value.items()}
        if isinstance(value, list):
            return [_as_text(v, []) for v in value]
        return value
    head, rest = parts[0], parts[1:]
    if isinstance(value, dict):
        keys = list(value) if head == "*" else [head] if head in value else []
        out = dict(value)
        for key in keys:
            out[key] = _as_text(value[key], rest)
        return out
    if isinstance(value, list):
        indexes = range(len(value)) if head == "*" else [int(head)] if head.isdigit() and int(head) < len(value) else []
        out_list = list(value)
        for i in indexes:
            out_list[i] = _as_text(value[i], rest)
        return out_list
    return value


def normalise_state(state: Any, compare: Mapping[str, Any] | None) -> Any:
    """The state as compared: ignored paths removed, free text (``text`` paths) normalised,
    unordered lists in canonical order.

    Only the paths named are copied; the rest is shared with the input (never mutated).
    """
    compare = compare or {}
    value = state
    for path in _paths(compare, "ignore"):
        value = _drop(value, _split(path))
    for path in _paths(compare, "text"):
        value = _as_text(value, _split(path))
    for path in _paths(compare, "unordered"):
        value = _sort_lists(value, _split(path))
    return value


def _paths(compare: Mapping[str, Any], key: str) -> list[str]:
    paths = compare.get(key)
    return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []


def compare_states(
    expected: Any, actual: Any, compare: Mapping[str, Any] | None = None, limit: int = _MAX_DIFFERENCES, lang: str | None = None
) -> list[str]:
    """Human-readable differences between two end states (empty when they count as equal).

    JSON semantics: 1 equals 1.0, true never equals 1, mappings are unordered, lists ordered
    except at the ``unordered`` paths, where they are compared as multisets (a mapping there
    by its values, its keys ignored). At a ``match``
    path the actual value must satisfy the matcher (``$lang`` read for lang) instead of equalling
    the expected one, and both must have a value there.
    """
    compare = compare or {}
    out: list[str] = []
    matched: Mapping[str, Any] = compare["match"] if isinstance(compare.get("match"), Mapping) else {}
    for path, matcher in matched.items():
        parts = _split(str(path))
        wanted = {tuple(place) for place, _ in _reached(expected, parts, [])}
        found = {tuple(place): value for place, value in _reached(actual, parts, [])}
        for place in sorted(wanted - set(found)):
            out.append(f"{'.'.join(place)}: expected a value matching {_short(matcher)}, missing")
        for place, value in sorted(found.items()):
            if place not in wanted:
                out.append(f"{'.'.join(place)}: unexpected {_short(value)}")
            elif not matchers.matches(matcher, value, lang):
                out.append(f"{'.'.join(place)}: expected a value matching {_short(matcher)}, got {_short(value)}")
    if matched:
        compare = {**compare, "ignore": [*_paths(compare, "ignore"), *map(str, matched)]}
    a = normalise_state(expected, compare)
    b = normalise_state(actual, compare)
    if not out and json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True):  # the common case, at C speed
        return []
    unordered = [_split(p) for p in _paths(compare, "unordered")]
    _diff(a, b, [], unordered, out, limit, shortcut=True)
    if not out:  # only differences Python's == hides (true vs 1) or only 1 vs 1.0: look strictly
        _diff(a, b, [], unordered, out, limit, shortcut=False)
    return out[:limit]


def _reached(value: Any, parts: list[str], place: list[str]) -> list[tuple[list[str], Any]]:
    """(concrete path, value) of everything a dotted path (``*`` = any key or index) reaches."""
    if not parts:
        return [(place, value)]
    head, rest = parts[0], parts[1:]
    found: list[tuple[list[str], Any]] = []
    if isinstance(value, dict):
        for key in list(value) if head == "*" else [head] if head in value else []:
            found.extend(_reached(value[key], rest, [*place, str(key)]))
    elif isinstance(value, list):
        for i in range(len(value)) if head == "*" else [int(head)] if head.isdigit() and int(head) < len(value) else []:
            found.extend(_reached(value[i], rest, [*place, str(i)]))
    return found


def _path_text(path: list[str]) -> str:
    return ".".join(path) or "(the whole state)"


def _is_unordered(path: list[str], unordered: list[list[str]]) -> bool:
    return any(len(p) == len(path) and all(x == "*" or x == y for x, y in zip(p, path, strict=True)) for p in unordered)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def _scalar_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and bool(a == b)
    return bool(a == b)


def _diff(a: Any, b: Any, path: list[str], unordered: list[list[str]], out: list[str], limit: int, shortcut: bool) -> None:
    if len(out) >= limit or (shortcut and type(a) is type(b) and a == b):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            if key not in b:
                out.append(f"{_path_text([*path, key])}: expected {_short(a[key])}, missing")
            else:
                _diff(a[key], b[key], [*path, key], unordered, out, limit, shortcut)
        for key in b:
            if key not in a:
                out.append(f"{_path_text([*path, key])}: unexpected {_short(b[key])}")
        return
    if isinstance(a, list) and isinstance(b, list):
        if _is_unordered(path, unordered):
            ca, cb = Counter(_key(x) for x in a), Counter(_key(x) for x in b)
            for item in sorted((ca - cb).elements()):
                out.append(f"{_path_text(path)}: expected item {_short(json.loads(item))}, missing")
            for item in sorted((cb - ca).elements()):
                out.append(f"{_path_text(path)}: unexpected item {_short(json.loads(item))}")
            return
        for i, (x, y) in enumerate(zip(a, b, strict=False)):  # the longer list's tail is reported below
            _diff(x, y, [*path, str(i)], unordered, out, limit, shortcut)
        if len(a) > len(b):
            out.append(f"{_path_text(path)}: expected {len(a)} items, got {len(b)} (missing {_short(a[len(b):])})")
        elif len(b) > len(a):
            out.append(f"{_path_text(path)}: expected {len(a)} items, got {len(b)} (unexpected {_short(b[len(a):])})")
        return
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)) or not _scalar_equal(a, b):
        out.append(f"{_path_text(path)}: expected {_short(a)}, got {_short(b)}")


# ----------------------------------------------------------------------------- call patterns


def call_matches(pattern: Mapping[str, Any], call: Mapping[str, Any], lang: str | None) -> bool:
    """A call matches a pattern when the API is the same and every pattern argument matches.

    Pattern arguments are a subset: the call may pass more. ``$optional`` arguments may be absent.
    """
    if not isinstance(call, Mapping) or call.get("api") != pattern.get("api"):
        return False
    wanted = pattern.get("args") or {}
    given = call.get("args") or {}
    if not isinstance(wanted, Mapping) or not isinstance(given, Mapping):
        return False
    for name, expected in wanted.items():
        if name not in given:
            if not matchers.is_omittable(_resolve_lang(expected, lang)):
                return False
        elif not matchers.matches(expected, given[name], lang):
            return False
    return True


def _resolve_lang(value: Any, lang: str | None) -> Any:
    if lang is not None and matchers.is_matcher(value) and matchers.matcher_kind(value) == "$lang":
        body = value["$lang"]
        return body.get(lang) if isinstance(body, dict) else value
    return value


Confirmed = Callable[[Mapping[str, Any], int], bool]  # (milestone, call index) -> asked and answered first?


def milestone_alternatives(milestone: Mapping[str, Any]) -> list[list[Mapping[str, Any]]]:
    """The call sequences that reach a milestone: its ``one_of`` lists, or its own single pattern."""
    options = milestone.get("one_of")
    if isinstance(options, list):
        return [[p for p in option if isinstance(p, Mapping)] for option in options if isinstance(option, list) and option]
    return [[milestone]]


def matched_milestones(
    milestones: Sequence[Mapping[str, Any]], calls: Sequence[Mapping[str, Any]], lang: str | None, confirmed: Confirmed | None = None
) -> set[str]:
    """Ids of the milestones the calls reach, in a partial order.

    A milestone counts when the calls of one of its alternatives (``one_of``; a plain
    milestone has one, of one call) match in order, all *after* (at later indexes than) the
    calls that reached every milestone it names in ``after``; with ``confirmed`` given, a
    milestone marked ``confirmed`` counts only calls the user confirmed first. Each milestone
    takes the alternative that completes earliest, matching each of its patterns at the
    earliest qualifying call — optimal, since a later completion can only make its successors
    harder to reach. Milestones in a cycle or after an unknown id are never reached.
    """
    by_id: dict[str, Mapping[str, Any]] = {m["id"]: m for m in milestones if isinstance(m, Mapping) and isinstance(m.get("id"), str)}
    reached: dict[str, int] = {}  # id -> index of the call that completed it
    pending = dict(by_id)
    progress = True
    while pending and progress:
        progress = False
        for mid, milestone in list(pending.items()):
            after = [a for a in milestone.get("after") or [] if isinstance(a, str)] if isinstance(milestone.get("after"), list) else []
            if any(a not in reached for a in after):
                if any(a not in by_id or a == mid for a in after):
                    del pending[mid]
                continue
            start = max((reached[a] for a in after), default=-1) + 1
            del pending[mid]
            progress = True
            needs_yes = confirmed is not None and bool(milestone.get("confirmed"))
            completions = []
            for alternative in milestone_alternatives(milestone):
                position = start
                for pattern in alternative:
                    position = next(
                        (
                            index + 1
                            for index in range(position, len(calls))
                            if call_matches(pattern, calls[index], lang) and (not needs_yes or confirmed(milestone, index))  # type: ignore[misc]
                        ),
                        -1,
                    )
                    if position < 0:
                        break
                if position > 0:
                    completions.append(position - 1)
            if completions:
                reached[mid] = min(completions)
    return set(reached)


def unconfirmed_calls(
    milestones: Sequence[Mapping[str, Any]], calls: Sequence[Mapping[str, Any]], lang: str | None, confirmed: Confirmed
) -> list[tuple[str, int]]:
    """(milestone id, call index) of every call matching a ``confirmed`` milestone's patterns
    that the user had not confirmed when it was made."""
    found: list[tuple[str, int]] = []
    for milestone in milestones:
        if not isinstance(milestone, Mapping) or not milestone.get("confirmed"):
            continue
        patterns = [pattern for alternative in milestone_alternatives(milestone) for pattern in alternative]
        for index, call in enumerate(calls):
            if any(call_matches(pattern, call, lang) for pattern in patterns) and not confirmed(milestone, index):
                found.append((str(milestone.get("id")), index))
                break
    return found


def minefield_hits(minefields: Sequence[Mapping[str, Any]], calls: Sequence[Mapping[str, Any]], lang: str | None) -> list[tuple[int, int]]:
    """(minefield index, index of the first call that hit it) for every minefield hit."""
    hits: list[tuple[int, int]] = []
    for m, mine in enumerate(minefields):
        if not isinstance(mine, Mapping):
            continue
        for index, call in enumerate(calls):
            if call_matches(mine, call, lang):
                hits.append((m, index))
                break
    return hits
