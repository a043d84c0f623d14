"""Cross-file references: APIs, sandboxes and ids named by one file exist in another."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from validator.diagnostics import Finding, join_pointer
from validator.loading import Document
from validator.rules.answers import alternatives, checkpoints, iter_calls, sides, special_of
from validator.rules.context import Context
from validator.rules.registry import rule
from validator.toolsearch import is_retrieval

def _data(document: Document) -> dict[str, Any]:
    return document.data if isinstance(document.data, dict) else {}


def _strings(value: Any) -> set[str]:
    """The strings of a list (other items are schema violations, reported by SCH010)."""
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _named_apis(document: Document) -> Iterator[tuple[str, str, bool]]:
    """(api, pointer, used-as-a-call) of every API name the document mentions."""
    data = _data(document)
    for i, api in enumerate(data.get("apis") or [] if isinstance(data.get("apis"), list) else []):
        if isinstance(api, str):
            yield api, join_pointer("apis", i), False
    if document.kind == "case":
        for _, call, pointer in iter_calls(data):
            if isinstance(call.get("api"), str):
                yield call["api"], pointer + "/api", True
        for lang, turns in sides(data):
            for index, answer in checkpoints(turns):
                if special_of(answer) and isinstance(answer.get("api"), str):
                    yield answer["api"], join_pointer(lang, "turns", index, "expect", "api"), False
    else:
        from validator.rules.scenarios import scenario_calls

        for key, entry, pointer in scenario_calls(data):
            if isinstance(entry.get("api"), str):
                yield entry["api"], pointer + "/api", key == "reference_calls"


@rule("REF001", "unknown-api", "A file names an API that no spec declares.", applies_to=("case", "scenario"))
def unknown_api(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    Every API named in a case's `apis` and answers, and in a scenario's `apis`,
    `reference_calls`, milestones and minefields, has a spec in `specs/`.
    ## Why is this bad?
    The model is shown the specs of the candidate APIs; an API without a spec cannot be
    offered, executed or scored.
    ## Example
    `apis: [get_wether]`
    ## Use instead
    `apis: [get_weather]`, or add `specs/<domain>/get_wether.yaml`.
    """
    for api, pointer, _ in _named_apis(document):
        if api not in context.specs and api not in context.unreadable_specs:
            close = sorted(context.specs, key=lambda name: _distance(name, api))[:1]
            hint = f"; did you mean {close[0]!r}?" if close and _distance(close[0], api) <= 3 else ""
            yield Finding(f"no spec declares an API named {api!r}{hint}", pointer)


def _distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


@rule("REF002", "api-not-candidate", "An answer calls an API that the case does not offer.", applies_to=("case", "scenario"))
def api_not_candidate(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    Every API an answer calls (or a special answer names) is in the case's `apis` — except in
    `retrieval/*` cases, which offer only `search_tools`: there the answer calls the APIs the
    model must find with a live search (EXE018 proves each is findable). A scenario's reference
    calls use APIs of its sandboxes (and of its `apis`, when given).
    ## Why is this bad?
    The model only sees the candidates; an answer outside them is unreachable.
    ## Example
    `apis: [get_weather]` and an answer calling `get_forecast`.
    ## Use instead
    Add `get_forecast` to `apis`.
    """
    data = _data(document)
    if document.kind == "case":
        apis = _strings(data.get("apis"))
        if is_retrieval(data.get("category")):
            return  # the answer's APIs are found by the model's own search, not offered
        for lang, turns in sides(data):
            for index, answer in checkpoints(turns):
                named: list[tuple[str, str]] = []
                if special_of(answer) and isinstance(answer.get("api"), str):
                    named.append((answer["api"], join_pointer(lang, "turns", index, "expect", "api")))
                for calls, pointer in alternatives(answer, join_pointer(lang, "turns", index, "expect")):
                    for j, call in enumerate(calls):
                        if isinstance(call, dict) and isinstance(call.get("api"), str):
                            named.append((call["api"], pointer + join_pointer(j, "api")))
                for api, pointer in named:
                    if api in context.specs and api not in apis:
                        yield Finding(f"{api!r} is not among the case's candidate apis; add it to apis", pointer)
        return
    sandboxes = _strings(data.get("sandboxes"))
    offered = _strings(data["apis"]) if isinstance(data.get("apis"), list) else None
    for api, pointer, _ in _named_apis(document):
        if pointer.startswith("/apis"):
            continue
        spec = context.specs.get(api)
        if not isinstance(spec, dict):
            continue
        if offered is not None and api not in offered:
            yield Finding(f"{api!r} is not among the scenario's apis; add it", pointer)
        elif spec.get("sandbox") not in sandboxes:
            yield Finding(f"{api!r} is implemented by sandbox {spec.get('sandbox')!r}, which the scenario does not use", pointer)


@rule("REF003", "spec-only-in-answer", "A spec-only (distractor) API is used as a call.", applies_to=("case", "scenario"))
def spec_only_in_answer(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    APIs marked `spec_only: true` have no implementation; they may be offered as candidates
    but never appear in an answer or reference call.
    ## Why is this bad?
    Every ground-truth call is executed; a call to an API with no sandbox cannot be verified.
    ## Example
    An answer calling `compare_insurance_plans`, a spec-only distractor.
    ## Use instead
    Implement the API in a sandbox (drop `spec_only`), or answer with a runnable API.
    """
    for api, pointer, used in _named_apis(document):
        spec = context.specs.get(api)
        if used and isinstance(spec, dict) and spec.get("spec_only") is True:
            yield Finding(f"{api!r} is spec-only (no implementation); an answer may only call runnable APIs", pointer)


@rule("REF004", "unknown-sandbox", "A file names a sandbox folder that does not exist.", applies_to=("api", "case", "scenario"))
def unknown_sandbox(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    A spec's `sandbox`, a scenario's `sandboxes` and `initial_state` keys, and a case's `state`
    keys name folders under `sandboxes/`.
    ## Why is this bad?
    The API cannot be executed and the state patch applies to nothing.
    ## Example
    `sandbox: phones`
    ## Use instead
    `sandbox: phone`
    """
    data = _data(document)
    names: list[tuple[str, str]] = []
    if document.kind == "api" and isinstance(data.get("sandbox"), str):
        names.append((data["sandbox"], "/sandbox"))
    for key in ("sandboxes",):
        for i, name in enumerate(data.get(key) or [] if isinstance(data.get(key), list) else []):
            if isinstance(name, str):
                names.append((name, join_pointer(key, i)))
    for key in ("initial_state", "state"):
        if isinstance(data.get(key), dict):
            names.extend((name, join_pointer(key, name)) for name in data[key])
    for name, pointer in names:
        if name not in context.sandboxes:
            yield Finding(f"there is no sandbox {name!r} (no folder sandboxes/{name}/)", pointer)


@rule("REF005", "duplicate-id", "Two cases or scenarios share an id.", applies_to=("case", "scenario"))
def duplicate_id(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    Case and scenario ids (their file stems) are unique across `dialogues/` and `sandboxes/`.
    ## Why is this bad?
    Predictions, scores and review records are keyed by id; two files with one id collide.
    ## Example
    `dialogues/normal/atom/bool/atom-0001.yaml` and `dialogues/normal/atom/enum/atom-0001.yaml`.
    ## Use instead
    Give each a unique id, conventionally prefixed by its category: `atom-bool-0001`.
    """
    paths = context.id_paths.get(document.stem, [])
    if len(paths) > 1 and paths[0] != document.path:
        yield Finding(f"id {document.stem!r} is already used by {paths[0]}; choose a unique id", "/id")
