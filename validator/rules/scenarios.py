"""Rules for agent scenarios and sandbox folders (what can be checked without executing)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from validator import matchers
from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.corpus.params import CompileError
from validator.corpus.records import SandboxInfo, Scenario
from validator.diagnostics import Finding, join_pointer
from validator.rules.registry import rule

SANDBOX_FILES = ("sandbox.py", "state.yaml", "policy.en.md", "policy.zh.md")


def _data(scenario: Scenario) -> Mapping[str, Any]:
    return scenario.data


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


@rule("SBX001", "milestone-order-invalid", "Milestone ids repeat, or `after` names an unknown id or forms a cycle.", on=Scenario)
def milestone_order_invalid(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Milestone ids are unique; every `after` entry names another milestone; the `after`
    relation has no cycle (it is a partial order).
    ## Why is this bad?
    A cycle or a dangling `after` makes the milestone unreachable: process accuracy can never
    reach 1 even for the reference agent.
    ## Example
    ```yaml
    - {id: m1, api: bank_login, after: [m2]}
    - {id: m2, api: transfer_funds, after: [m1]}
    ```
    ## Use instead
    ```yaml
    - {id: m1, api: bank_login}
    - {id: m2, api: transfer_funds, after: [m1]}
    ```
    """
    milestones = [m for m in _data(scenario).get("milestones") or [] if isinstance(m, dict)] if isinstance(_data(scenario).get("milestones"), list) else []
    ids: dict[str, int] = {}
    for i, milestone in enumerate(milestones):
        mid = milestone.get("id")
        if isinstance(mid, str) and mid in ids:
            yield Finding(f"milestone id {mid!r} is used twice; make ids unique", join_pointer("milestones", i, "id"))
        elif isinstance(mid, str):
            ids[mid] = i
    edges: dict[str, list[str]] = {}
    for i, milestone in enumerate(milestones):
        for j, before in enumerate(milestone.get("after") or [] if isinstance(milestone.get("after"), list) else []):
            if not isinstance(before, str):
                continue  # not an id at all: a schema violation (SCH010)
            if before not in ids:
                yield Finding(f"after names {before!r}, which is no milestone id", join_pointer("milestones", i, "after", j))
            elif before == milestone.get("id"):
                yield Finding("a milestone cannot come after itself", join_pointer("milestones", i, "after", j))
            else:
                edges.setdefault(str(milestone.get("id")), []).append(before)
    state: dict[str, int] = {}

    def cyclic(node: str) -> bool:
        state[node] = 1
        for nxt in edges.get(node, []):
            if state.get(nxt) == 1 or (state.get(nxt) is None and cyclic(nxt)):
                return True
        state[node] = 2
        return False

    for mid in ids:
        if state.get(mid) is None and cyclic(mid):
            yield Finding(f"the after relation has a cycle through {mid!r}; milestones must form a partial order", join_pointer("milestones", ids[mid], "after"))
            break


@rule("SBX002", "script-mode-mismatch", "The scripted user does not fit the scenario's mode.", on=Scenario)
def script_mode_mismatch(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    In `multi_step` scenarios the user speaks once (one script message); in `multi_turn`
    scenarios at least twice.
    ## Why is this bad?
    The mode is reported as its own category; a `multi_turn` scenario with one message
    tests multi-step planning instead.
    ## Example
    `mode: multi_turn` with `script: [Transfer 200 yuan to my savings.]`
    ## Use instead
    Use `mode: multi_step`, or add the user's follow-up message.
    """
    data = _data(scenario)
    mode = data.get("mode")
    user = _mapping(data.get("user"))
    for lang in LANGS:
        side = user.get(lang)
        script = side.get("script") if isinstance(side, dict) else None
        if not isinstance(script, list):
            continue
        if mode == "multi_step" and len(script) != 1:
            yield Finding(f"a multi_step scenario has exactly one user message; this {lang} script has {len(script)}", join_pointer("user", lang, "script"))
        elif mode == "multi_turn" and len(script) < 2:
            yield Finding(f"a multi_turn scenario has at least two user messages; this {lang} script has {len(script)}", join_pointer("user", lang, "script"))


@rule("SBX003", "no-change-without-outputs", "A no-change scenario does not say what the agent must tell the user.", on=Scenario)
def no_change_without_outputs(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    A scenario marked `no_change: true` (the right behaviour leaves the state as it is: a
    refusal, a question back) lists, in both languages, the facts the agent must tell the user.
    ## Why is this bad?
    The end state of a do-nothing agent equals the expected one and it hits no minefield, so
    only required outputs can fail it — a published peer lets do-nothing agents pass its
    refusal tasks.
    ## Example
    ```yaml
    no_change: true
    minefields: [{api: transfer_to_payee}]
    ```
    ## Use instead
    ```yaml
    no_change: true
    minefields: [{api: transfer_to_payee}]
    outputs: {en: [the daily limit is 50000 yuan], zh: [每日转账限额为5万元]}
    ```
    """
    data = _data(scenario)
    if data.get("no_change") is not True:
        return
    outputs = _mapping(data.get("outputs"))
    for lang in LANGS:
        if not outputs.get(lang):
            yield Finding(f"a no_change scenario needs {lang} outputs (what the agent must tell the user), or a do-nothing agent passes it", "/no_change")
            break


@rule("SBX004", "invalid-scenario-call", "A reference call, milestone or minefield has arguments its API rejects.", on=Scenario)
def invalid_scenario_call(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Arguments of reference calls, milestones and minefields are parameters of their API with
    values valid for them (through matchers and both `$lang` sides); reference calls give
    every required parameter.
    ## Why is this bad?
    A milestone no valid call can match, or a minefield no valid call can hit, checks nothing.
    ## Example
    ```yaml
    milestones: [{id: m1, api: transfer_funds, args: {amount: -50}}]
    ```
    ## Use instead
    ```yaml
    milestones: [{id: m1, api: transfer_funds, args: {amount: 50}}]
    ```
    """
    data = _data(scenario)
    for key in ("reference_calls", "milestones", "minefields"):
        entries = data.get(key)
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            if not isinstance(entry, dict) or not isinstance(entry.get("api"), str):
                continue
            api = entry["api"]
            spec = corpus.specs.get(api)
            args = _mapping(entry.get("args"))
            if spec is None:
                continue
            properties, required = spec.properties, spec.required
            base = join_pointer(key, i)
            for name, value in args.items():
                if name not in properties:
                    yield Finding(f"{api} has no parameter {name!r}", base + join_pointer("args", name))
                    continue
                validator = corpus.validators.parameter(api, name)
                if list(matchers.problems(value, allow_lang=True)) or validator is None or isinstance(validator, CompileError):
                    continue  # DLG013 reports malformed matchers, SPC008 schemas that cannot check values
                for concrete in matchers.concrete_values(value):
                    errors = validator.messages(concrete)
                    if errors:
                        yield Finding(f"{name}={concrete!r} is not valid for {api}: {errors[0]}", base + join_pointer("args", name))
                        break
            if key == "reference_calls":
                for name in required:
                    if name not in args:
                        yield Finding(f"{api} requires {name!r}, which this reference call does not give", base + "/args")


@rule("SBX005", "incomplete-sandbox", "A sandbox folder lacks one of its fixed files.", on=SandboxInfo)
def incomplete_sandbox(sandbox: SandboxInfo, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every folder under `sandboxes/` holds `sandbox.py`, `state.yaml`, `policy.en.md` and
    `policy.zh.md` (and optionally `scenarios/`); both policies are non-empty, the Chinese
    one written in Chinese.
    ## Why is this bad?
    The agent is told the policy in its language, and the sandbox cannot run without its
    class and state.
    ## Example
    `sandboxes/bank/` with no `policy.zh.md`.
    ## Use instead
    Add the missing file.
    """
    name = sandbox.name
    folder = corpus.root / sandbox.folder
    for file in SANDBOX_FILES:
        path = folder / file
        if not path.is_file():
            yield Finding(f"sandboxes/{name}/ has no {file}; every sandbox has {', '.join(SANDBOX_FILES)}", path=f"sandboxes/{name}/{file}")
        elif file.startswith("policy") and not path.read_text(encoding="utf-8", errors="replace").strip():
            yield Finding(f"{file} is empty; write the rules the agent is told", path=f"sandboxes/{name}/{file}")
