"""What a commit touches, for the pre-commit hook: the files to check and the cases, scenarios and
sandboxes whose execution checks to run, so the hook catches what CI's ``validate`` would without
running the whole corpus.

- a case or scenario file: that item;
- a spec: the items that offer or call its API, and the sandbox that implements it;
- anything else under ``sandboxes/<name>/`` (``sandbox.py``, ``state.yaml``, a policy): that
  sandbox, its scenarios (every scenario that lists it), and every case that offers one of its
  APIs or patches its state.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from validator.corpus.index import Corpus
from validator.corpus.records import Case, Scenario


class Touched(NamedTuple):
    files: frozenset[str]  # corpus files to run the rule checks on (repo-relative)
    items: frozenset[str]  # case and scenario files to execute
    sandboxes: frozenset[str]  # sandbox names whose own execution checks run


def _case_apis(case: Case) -> set[str]:
    called = {call.api for dialogue in case.dialogues.values() for checkpoint in dialogue.checkpoints for calls in checkpoint.alternatives for call in calls.calls}
    return set(case.apis) | called


def _scenario_apis(scenario: Scenario, corpus: Corpus) -> set[str]:
    if scenario.apis is not None:
        return set(scenario.apis)
    return {name for name, spec in corpus.specs.items() if spec.sandbox in scenario.sandboxes}


def touched(corpus: Corpus, paths: Iterable[str]) -> Touched:
    """The selection for repo-relative changed paths (files that are no part of the corpus are ignored)."""
    kinds = dict(corpus.discovered)
    files: set[str] = set()
    items: set[str] = set()
    apis: set[str] = set()
    sandboxes: set[str] = set()
    for path in paths:
        kind = kinds.get(path)
        if kind is not None:
            files.add(path)
        if kind in ("case", "scenario"):
            items.add(path)
        elif kind == "api":
            loaded = corpus.load_file(path)
            data = loaded.document.data if loaded.document is not None else None
            if isinstance(data, dict) and isinstance(data.get("name"), str):
                apis.add(data["name"])
                spec = corpus.specs.get(data["name"])
                if spec is not None and spec.sandbox:
                    sandboxes.add(spec.sandbox)
        parts = path.split("/")
        if len(parts) >= 3 and parts[0] == "sandboxes" and parts[2] != "scenarios" and parts[1] in corpus.sandbox_names:
            sandboxes.add(parts[1])
    sandbox_apis = {name for name, spec in corpus.specs.items() if spec.sandbox in sandboxes}
    for case in corpus.cases_in():
        offered = _case_apis(case)
        if offered & (apis | sandbox_apis) or set(case.state or {}) & sandboxes:
            items.add(case.document.path)
    for scenario in corpus.scenarios_in():
        if set(scenario.sandboxes) & sandboxes or _scenario_apis(scenario, corpus) & apis:
            items.add(scenario.document.path)
    return Touched(frozenset(files), frozenset(items), frozenset(sandboxes))
