"""EXE021: an answer accepts every name the sandbox resolves to the entity it expects.

A sandbox declares in its ``state.yaml`` which fields name one entity (``names``, see
``validator.sandbox.names``): the saved place ``Work`` is also ``office``, ``公司`` and ``单位``.
For every string an answer expects (the value its first ``$any`` branch, ``$text`` … renders
to), the other names of the records it names are tried in its place: a name the answer's
matcher rejects is a finding when the checkpoint's calls, run with that name instead, return
the same results and leave the same state — the sandbox treats the two as one, so a grader must
too. Running the calls is what tells a name used to find something (``location: office``) from
the same word used as content (a reminder titled "Home"): only the first resolves.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from validator import matchers
from validator.corpus.records import Call, Calls, Case
from validator.diagnostics import Finding
from validator.rules.execution_context import Execution
from validator.rules.registry import rule
from validator.sandbox.base import Sandbox
from validator.sandbox.names import Key, fold_name, name_kinds, names_of, rows
from validator.sandbox.runtime import Runtime, Session, json_copy

Path = tuple[str | int, ...]  # a leaf inside one argument value
NameIndex = Mapping[str, Mapping[str, tuple[Key, ...]]]  # kind -> folded name -> keys of the records it names


class Rejected(NamedTuple):
    """Names one expected value stands for that the answer does not accept."""

    call: int  # index in the alternative
    param: str
    path: Path
    value: str  # what the answer expects there
    kind: str
    names: tuple[str, ...]  # the record's names the answer rejects


@rule("EXE021", "alias-rejected", "An answer rejects a name the sandbox resolves to the entity it expects.", on=Case, stage="exec")
def alias_rejected(case: Case, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    For every string an answer expects, looks up the records of the sandbox's declared `names`
    (`state.yaml`) that the string names, and tries each of their other names in its place. A
    name the answer's matcher rejects is reported when the checkpoint's calls, run with it
    instead, return the same results and leave the same end state as the expected calls.
    ## Why is this bad?
    The sandbox treats both names as one entity: a model that writes "office" where the user
    said "office" gets the same pharmacy as one that writes "Work", yet is scored wrong. A
    benchmark that fails defensible answers ranks models by luck.
    ## Example
    ```yaml
    # sandboxes/maps/state.yaml: SP-2 {label: Work, aliases: [公司, 单位, office]}
    - user: Is there a pharmacy open near my office?
    - expect: {calls: [{api: search_nearby, args: {location: Work, category: pharmacy}}]}
    ```
    ## Use instead
    ```yaml
    - expect:
        calls:
          - {api: search_nearby, args: {location: {$any: [Work, office, 公司, 单位]}, category: pharmacy}}
    ```
    """
    for call, rejected in rejected_names(case, execution):
        shown = ", ".join(repr(name) for name in rejected.names)
        sandbox = execution.runtime.sandbox_of(call.api)
        yield Finding(
            f"{call.api} resolves {shown} to the same {rejected.kind.replace('_', ' ')} as {rejected.value!r} (names declared in "
            f"sandboxes/{sandbox}/state.yaml) and the calls do exactly the same, but this answer rejects "
            f"{'it' if len(rejected.names) == 1 else 'them'}; accept every name, e.g. {{$any: [{', '.join(_names_list(rejected.value, rejected.names))}]}}",
            call.arg_pointer(rejected.param),
        )


def rejected_names(case: Case, execution: Execution) -> Iterator[tuple[Call, Rejected]]:
    """Every expected string of a case's answers with the names of the same entity its matcher
    rejects and the sandbox treats alike (as data: the rule words them, a fixer can apply them)."""
    runtime = execution.runtime
    apis = {call.api for _, _, _, call in case.calls()}
    if not apis or not all(runtime.runnable(api) for api in apis):
        return
    sandboxes = sorted({runtime.sandbox_of(api) or "" for api in apis})
    indexes = {name: _index(execution, name, case.state) for name in sandboxes}
    if not any(indexes.values()):
        return
    for dialogue in case.dialogues.values():
        lang, session = dialogue.lang, None  # a session only where needed: most answers name nothing
        for position, checkpoint in enumerate(dialogue.checkpoints):
            for alternative in checkpoint.alternatives:
                if _may_name(alternative, lang, runtime, indexes):
                    session = session or runtime.session(sandboxes, case.state, case.time, execution.time_limit)
                    yield from _alternative(session, alternative, lang, execution, indexes)
            if position + 1 < len(dialogue.checkpoints) and checkpoint.alternatives:
                session = session or runtime.session(sandboxes, case.state, case.time, execution.time_limit)
                if _run(session, _rendered(checkpoint.alternatives[0], lang), lang) is None:
                    break  # later checkpoints build on this one (EXE005 reports the failing call)


def _may_name(alternative: Calls, lang: str, runtime: Runtime, indexes: Mapping[str, NameIndex]) -> bool:
    """Whether a string of the alternative is a declared name at all (no session needed to know)."""
    for api, args in _rendered(alternative, lang):
        sandbox = runtime.sandbox_of(api) or ""
        index, cls = indexes.get(sandbox), runtime.classes.get(sandbox)
        if not index or cls is None:
            continue
        for _, text in _strings(args):
            if any(cls.name_folds.get(kind, fold_name)(text) in by_name for kind, by_name in index.items()):
                return True
    return False


def _alternative(session: Session, alternative: Calls, lang: str, execution: Execution, indexes: Mapping[str, NameIndex]) -> Iterator[tuple[Call, Rejected]]:
    runtime = execution.runtime
    rendered = _rendered(alternative, lang)
    found = [r for index, call in enumerate(alternative.calls) for r in _rejected(index, call, rendered[index][1], lang, runtime, session, indexes)]
    if not found:
        return
    expected = _does(_fork(session), rendered, lang)
    if expected is None:
        return
    for rejected in found:
        # plain equality: JSON data from the same code on the same state, so 1 vs 1.0 never arises
        same = tuple(name for name in rejected.names if _does(_fork(session), _replaced(rendered, rejected, name), lang) == expected)
        if same:
            yield alternative.calls[rejected.call], rejected._replace(names=same)


def _rejected(
    index: int, call: Call, args: Mapping[str, Any], lang: str, runtime: Runtime, session: Session, indexes: Mapping[str, NameIndex]
) -> Iterator[Rejected]:
    """The names each string of a call's arguments stands for that its matchers reject."""
    sandbox = runtime.sandbox_of(call.api)
    instance = session.instances.get(sandbox or "")
    index_of = indexes.get(sandbox or "")
    spec = runtime.specs[call.api]
    if instance is None or not index_of:
        return
    for param, value in args.items():
        schema = spec.properties.get(param)
        for path, text in _strings(value):
            named = list(_names_for(instance, index_of, text))  # several records may share a name (an artist's tracks)
            names = dict.fromkeys(name for _, record_names in named for name in record_names if name != text)
            refused = tuple(name for name in names if not matchers.matches(call.args.get(param), _set(value, path, name), lang, schema))
            if refused:
                yield Rejected(index, param, path, text, named[0][0], refused)


def _names_for(instance: Sandbox, index: NameIndex, text: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(kind, names) of every record the text names: found through the index of the state before
    the dialogue, read from the live state (a record renamed or deleted since is skipped)."""
    kinds = name_kinds(instance.state)
    for kind, by_name in index.items():
        declared = kinds.get(kind)
        keys = by_name.get(instance.fold_name(kind, text)) if declared is not None else None
        if not keys or declared is None:
            continue
        table = instance.data.get(declared.table)
        for key in keys:
            record = _record(table, key)
            if record is not None and instance.is_named(kind, key, record, text):
                yield kind, names_of(declared, key, record)


def _record(table: Any, key: Key) -> dict[str, Any] | None:
    if isinstance(table, dict) and isinstance(key, str):
        record = table.get(key)
    elif isinstance(table, list) and isinstance(key, int) and key < len(table):
        record = table[key]
    else:
        record = None
    return record if isinstance(record, dict) else None


def _index(execution: Execution, sandbox: str, patch: Mapping[str, Any] | None) -> NameIndex:
    """Every declared name of a sandbox's state (the case's patch applied), folded by its kind:
    a quick test of whether a string can be a name at all, computed once per sandbox and patch."""
    own = (patch or {}).get(sandbox)
    key = (sandbox, json.dumps(own, sort_keys=True, ensure_ascii=False) if own is not None else "")
    cache: dict[tuple[str, str], NameIndex] = execution.caches.setdefault("EXE021", {})
    if key not in cache:
        instance = execution.runtime.session([sandbox], {sandbox: own} if own is not None else None).instances[sandbox]
        index: dict[str, dict[str, tuple[Key, ...]]] = {}
        for kind, declared in name_kinds(instance.state).items():
            by_name: dict[str, tuple[Key, ...]] = {}
            for record_key, record in rows(instance.data, declared):
                for name in names_of(declared, record_key, record):
                    folded = instance.fold_name(kind, name)
                    by_name[folded] = (*by_name.get(folded, ()), record_key)
            index[kind] = by_name
        cache[key] = index
    return cache[key]


# ----------------------------------------------------------------------------- calls as data


Rendered = list[tuple[str, dict[str, Any]]]  # (api, concrete arguments) of each call


def _rendered(alternative: Calls, lang: str) -> Rendered:
    return [(call.api, dict(matchers.render(dict(call.args), lang))) for call in alternative.calls]


def _fork(session: Session) -> Session:
    """Session.fork by marshal: the states are JSON data, and marshal copies them in C, several
    times faster than a Python deep copy (this rule forks once per name it tries)."""
    instances = {}
    for name, instance in session.instances.items():
        state = marshal.loads(marshal.dumps(instance.state))
        instances[name] = type(instance)(state, instance.catalog) if instance.needs_catalog else type(instance)(state)
    return Session(session.runtime, instances, session.time_limit)


def _run(session: Session, rendered: Rendered, lang: str) -> list[Any] | None:
    """Run the calls in session; their results, or None when one of them fails."""
    observed: list[Any] = []
    for api, args in rendered:
        outcome = session.run(api, args, lang)
        if not outcome.ok:
            return None
        observed.append(outcome.observation)
    return observed


def _does(session: Session, rendered: Rendered, lang: str) -> tuple[list[Any], list[Any]] | None:
    """What the calls do in a session: every result, then the end state (live, not copied)."""
    observed = _run(session, rendered, lang)
    return None if observed is None else (observed, [instance.state["data"] for _, instance in sorted(session.instances.items())])


def _strings(value: Any, path: Path = ()) -> Iterator[tuple[Path, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _strings(item, (*path, position))


def _set(value: Any, path: Path, replacement: str) -> Any:
    """A copy of value with the leaf at path replaced."""
    if not path:
        return replacement
    copied = json_copy(value)
    holder = copied
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = replacement
    return copied


def _replaced(rendered: Rendered, rejected: Rejected, name: str) -> Rendered:
    changed = [(api, dict(args)) for api, args in rendered]
    args = changed[rejected.call][1]
    args[rejected.param] = _set(args[rejected.param], rejected.path, name)
    return changed


def _names_list(value: str, extra: tuple[str, ...]) -> list[str]:
    return [json.dumps(name, ensure_ascii=False) if not name.replace(" ", "").isalnum() else name for name in (value, *extra)]
