"""Cross-file references: APIs, sandboxes and ids named by one file exist in another."""

from __future__ import annotations

from collections.abc import Iterator

from validator.corpus.index import Corpus
from validator.corpus.records import Case, Checkpoint, Scenario, Spec
from validator.diagnostics import Finding, join_pointer
from validator.gitage import oldest_first
from validator.loading import Document
from validator.rules.registry import rule
from validator.rules.scenarios import scenario_calls
from validator.toolsearch import is_retrieval


def _named_apis(item: Case | Scenario) -> Iterator[tuple[str, str, bool]]:
    """(api, pointer, used-as-a-call) of every API name the case or scenario mentions."""
    for i, api in enumerate(item.apis or ()):
        yield api, join_pointer("apis", i), False
    if isinstance(item, Case):
        for _, _, _, call in item.calls():
            yield call.api, call.pointer + "/api", True
        for _, call in item.history_calls():
            yield call.api, call.pointer + "/api", False
        for dialogue in item.dialogues.values():
            for checkpoint in dialogue.checkpoints:
                if checkpoint.special is not None and checkpoint.special.api is not None:
                    yield checkpoint.special.api, checkpoint.expect_pointer + "/api", False
        return
    for key, entry, pointer in scenario_calls(item.data):
        if isinstance(entry.get("api"), str):
            yield entry["api"], pointer + "/api", key == "reference_calls"


@rule("REF001", "unknown-api", "A file names an API that no spec declares.", on=(Case, Scenario))
def unknown_api(item: Case | Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every API named in a case's `apis`, answers and history calls, and in a scenario's `apis`,
    `reference_calls`, milestones and minefields, has a spec in `specs/`.
    ## Why is this bad?
    The model is shown the specs of the candidate APIs; an API without a spec cannot be
    offered, executed or scored.
    ## Example
    `apis: [get_wether]`
    ## Use instead
    `apis: [get_weather]`, or add `specs/<domain>/get_wether.yaml`.
    """
    declared = corpus.spec_paths  # every spec file that names an API, schema-valid or not
    for api, pointer, _ in _named_apis(item):
        if api not in declared and api not in corpus.unreadable_specs:
            close = sorted(declared, key=lambda name: _distance(name, api))[:1]
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


def _checkpoint_apis(checkpoint: Checkpoint) -> Iterator[tuple[str, str]]:
    if checkpoint.special is not None and checkpoint.special.api is not None:
        yield checkpoint.special.api, checkpoint.expect_pointer + "/api"
    for alternative in checkpoint.alternatives:
        for call in alternative.calls:
            yield call.api, call.pointer + "/api"


@rule("REF002", "api-not-candidate", "An answer calls an API that the case does not offer.", on=(Case, Scenario))
def api_not_candidate(item: Case | Scenario, corpus: Corpus) -> Iterator[Finding]:
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
    if isinstance(item, Case):
        if is_retrieval(item.category):
            return  # the answer's APIs are found by the model's own search, not offered
        for dialogue in item.dialogues.values():
            for checkpoint in dialogue.checkpoints:
                for api, pointer in _checkpoint_apis(checkpoint):
                    if api in corpus.specs and api not in item.apis:
                        yield Finding(f"{api!r} is not among the case's candidate apis; add it to apis", pointer)
        return
    for api, pointer, _ in _named_apis(item):
        if pointer.startswith("/apis"):
            continue
        spec = corpus.specs.get(api)
        if spec is None:
            continue
        if item.apis is not None and api not in item.apis:
            yield Finding(f"{api!r} is not among the scenario's apis; add it", pointer)
        elif spec.sandbox not in item.sandboxes:
            yield Finding(f"{api!r} is implemented by sandbox {spec.sandbox!r}, which the scenario does not use", pointer)


@rule("REF003", "spec-only-in-answer", "A spec-only (distractor) API is used as a call.", on=(Case, Scenario))
def spec_only_in_answer(item: Case | Scenario, corpus: Corpus) -> Iterator[Finding]:
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
    for api, pointer, used in _named_apis(item):
        spec = corpus.specs.get(api)
        if used and spec is not None and spec.spec_only:
            yield Finding(f"{api!r} is spec-only (no implementation); an answer may only call runnable APIs", pointer)


@rule("REF004", "unknown-sandbox", "A file names a sandbox folder that does not exist.", on=(Spec, Case, Scenario))
def unknown_sandbox(item: Spec | Case | Scenario, corpus: Corpus) -> Iterator[Finding]:
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
    names: list[tuple[str, str]] = []
    if isinstance(item, Spec):
        if item.sandbox is not None:
            names.append((item.sandbox, "/sandbox"))
    elif isinstance(item, Case):
        names.extend((name, join_pointer("state", name)) for name in item.state or {})
    else:
        names.extend((name, join_pointer("sandboxes", i)) for i, name in enumerate(item.sandboxes))
        names.extend((name, join_pointer("initial_state", name)) for name in item.initial_state or {})
    for name, pointer in names:
        if name not in corpus.sandbox_names:
            yield Finding(f"there is no sandbox {name!r} (no folder sandboxes/{name}/)", pointer)


@rule("REF005", "duplicate-id", "Two cases or scenarios share an id.", on="document", kinds=("case", "scenario"))
def duplicate_id(document: Document, corpus: Corpus) -> Iterator[Finding]:
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
    paths = corpus.id_paths.get(document.stem, [])
    if len(paths) > 1:
        first = oldest_first(corpus.root, paths)[0]  # the file that had the id first keeps it
        if first != document.path:
            yield Finding(f"id {document.stem!r} is already used by {first}; choose a unique id", "/id")
