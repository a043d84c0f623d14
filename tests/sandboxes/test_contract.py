"""The contract every sandbox keeps (docs/data-model.md), checked for every folder under sandboxes/.

Each test is parametrized over the discovered sandboxes (and their APIs or scenarios), so a new
sandbox is held to the same rules without a line of test code; a sandbox's own business rules
live in tests/sandboxes/test_<name>.py.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from typing import Any

import jsonschema
import pytest

from tests.sandboxes import support
from validator import matchers
from validator.facts import read_facts
from validator.rules.scenarios import scenario_calls
from validator.sandbox import replay as replay_module
from validator.sandbox.base import Sandbox
from validator.sandbox.names import KEY_FIELD, name_kinds, names_of, rows

NAMES = support.sandbox_names()
APIS = [(name, api) for name in NAMES for api in support.specs(name)]
ALL_APIS = [(name, api) for name in NAMES for api in support.all_specs(name)]
SCENARIO_NAMES = [name for name in NAMES if support.scenarios(name)]
SCENARIOS = [(name, sid) for name in SCENARIO_NAMES for sid in support.scenarios(name)]
RUNS = [(name, sid, lang) for name, sid in SCENARIOS for lang in support.LANGS]

# Modules a sandbox may import: none of them reads the clock, randomness, files or the network.
DETERMINISTIC_MODULES = {"__future__", "copy", "datetime", "decimal", "math", "re", "typing", "unicodedata", "validator"}
FORBIDDEN_TEXT = ("datetime.now(", "datetime.today(", "date.today(", "utcnow(", "random", "uuid")
FORBIDDEN_CALLS = {"open", "input", "eval", "exec", "__import__", "hash", "id"}
CLOCK_METHODS = {"now", "today", "utcnow", "fromtimestamp"}


def _ids(params: tuple[Any, ...]) -> str:
    return "-".join(str(p) for p in params)


by_sandbox = pytest.mark.parametrize("name", NAMES)
by_api = pytest.mark.parametrize(("name", "api"), APIS, ids=[_ids(p) for p in APIS])
by_any_api = pytest.mark.parametrize(("name", "api"), ALL_APIS, ids=[_ids(p) for p in ALL_APIS])
by_scenario = pytest.mark.parametrize(("name", "scenario_id"), SCENARIOS, ids=[_ids(p) for p in SCENARIOS])
by_run = pytest.mark.parametrize(("name", "scenario_id", "lang"), RUNS, ids=[_ids(p) for p in RUNS])


# ----------------------------------------------------------------------------- files


@by_sandbox
def test_state_file(name: str) -> None:
    doc = support.state_document(name)
    assert support.schema_problems("state", doc) == []
    assert {"sandbox", "clock", "counters", "data"} <= set(doc.data) <= {"sandbox", "clock", "counters", "names", "data"}
    assert doc.data["sandbox"] == name


@by_any_api
def test_spec_file(name: str, api: str) -> None:
    doc = support.spec_documents(name)[api]
    assert support.schema_problems("api", doc) == []
    assert doc.data["name"] == api


@by_sandbox
def test_policy_in_both_languages(name: str) -> None:
    en = (support.sandbox_dir(name) / "policy.en.md").read_text(encoding="utf-8")
    zh = (support.sandbox_dir(name) / "policy.zh.md").read_text(encoding="utf-8")
    assert en.count("\n- ") == zh.count("\n- ")
    assert en.count("## ") == zh.count("## ")
    assert support.HAN.search(zh)


@by_sandbox
def test_declared_names_are_real_and_used(name: str) -> None:
    """Each kind of `names` names fields its table's records have (every record has a name), and
    the sandbox's code resolves that kind: the declaration is the sandbox's, not a side list."""
    data = support.state(name)
    code = (support.sandbox_dir(name) / "sandbox.py").read_text(encoding="utf-8")
    for kind, declared in name_kinds(data).items():
        records = list(rows(data["data"], declared))
        assert records, f"{name}: names.{kind} names an empty table"
        for field in declared.fields:
            assert field == KEY_FIELD or any(field in record for _, record in records), f"{name}: no record of {declared.table} has {field}"
        assert all(names_of(declared, key, record) for key, record in records), f"{name}: a record of {declared.table} has no name"
        assert re.search(rf"_named\(\s*\"{kind}\"|names_of\(\s*\"{kind}\"", code), f"{name}: sandbox.py never resolves names of kind {kind!r}"


# ----------------------------------------------------------------------------- spec ↔ method parity


@by_sandbox
def test_every_method_has_a_spec_and_back(name: str) -> None:
    cls = support.sandbox_class(name)
    assert issubclass(cls, Sandbox) and cls.name == name
    assert cls.api_names() == sorted(support.specs(name))
    assert not set(cls.api_names()) & set(vars(Sandbox)), "a method shadows the base class"
    for api, spec in support.distractors(name).items():
        assert "sandbox" not in spec and not hasattr(cls, api), api


@by_sandbox
def test_parameters_are_keywords_of_one_kind(name: str) -> None:
    kinds = support.parameter_kinds(name)
    assert len(kinds) <= 1 and kinds <= {inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY}


def _property_paths(schema: dict[str, Any], path: str) -> list[tuple[str, dict[str, Any]]]:
    """(path, schema) of every property and array item below a schema, at any depth."""
    found = []
    for key, prop in (schema.get("properties") or {}).items():
        here = f"{path}.{key}"
        found.append((here, prop))
        found.extend(_property_paths(prop, here))
        if "items" in prop:
            found.append((here + "[]", prop["items"]))
            found.extend(_property_paths(prop["items"], here + "[]"))
    return found


@by_api
def test_spec_matches_signature(name: str, api: str) -> None:
    spec = support.specs(name)[api]
    assert spec["name"] == api and spec["sandbox"] == name and spec["domain"].startswith(f"{name}.")
    params = spec["parameters"]
    assert params["type"] == "object" and params["additionalProperties"] is False
    properties = params["properties"]
    required = set(params.get("required", []))
    assert required <= set(properties)
    signature = inspect.signature(getattr(support.sandbox_class(name), api))
    keywords = {key: p for key, p in signature.parameters.items() if key != "self"}
    assert set(keywords) == set(properties), "parameter names"
    for key, parameter in keywords.items():
        has_default = parameter.default is not inspect.Parameter.empty
        assert has_default == (key not in required), f"{api}.{key}: a default exactly when not required"
        if "default" in properties[key]:
            assert parameter.default == properties[key]["default"], key
        elif has_default:
            assert parameter.default is None, f"{api}.{key} has a Python default the spec does not declare"
    for path, prop in _property_paths(params, api):
        if prop.get("type") == "array":
            assert "items" in prop, path
        if prop.get("type") == "object":
            assert prop.get("additionalProperties") is False, path
    jsonschema.Draft202012Validator.check_schema(spec["returns"])
    for lang in support.LANGS:
        jsonschema.Draft202012Validator.check_schema(support.render_schema(params, lang))


# Kinds the static reading finds on a path the API never takes: travel charges a booking's own
# stored card, which always exists, so `_card`'s card_not_found cannot happen there. Each entry
# must stay true (found statically, undeclared), so the list cannot hide a new omission.
UNREACHABLE_KINDS: dict[tuple[str, str], set[str]] = {
    # food prices a pickup with the shared cart check, whose minimum-order rule applies to deliveries only
    ("food", "place_pickup_order"): {"below_minimum_order"},
}


@by_api
def test_every_raised_error_is_declared(name: str, api: str) -> None:
    kinds, patterns = support.raised_error_kinds(name)
    declared = set(support.specs(name)[api].get("errors") or {})
    unreachable = UNREACHABLE_KINDS.get((name, api), set())
    assert unreachable <= kinds[api] - declared, "an UNREACHABLE_KINDS entry is stale"
    assert kinds[api] - unreachable <= declared, f"raises undeclared {sorted(kinds[api] - unreachable - declared)}"
    for pattern in patterns[api]:  # an f-string kind must fit some declared kind
        assert any(re.fullmatch(pattern, kind) for kind in declared), f"no declared kind fits {pattern!r}"
    if not patterns[api]:  # every kind is a literal: each declared kind can really be raised
        assert declared <= kinds[api], f"declares never raised {sorted(declared - kinds[api])}"


# ----------------------------------------------------------------------------- bilingual text


def _bilingual(text: Any, where: str) -> None:
    assert isinstance(text, dict) and set(text) == {"en", "zh"}, where
    assert text["en"].strip() and support.HAN.search(text["zh"]), f"{where}: zh is not Chinese"
    unquoted = re.sub(r'"[^"]*"|“[^”]*”', "", text["en"])
    assert not support.HAN.search(unquoted), f"{where}: en has Chinese outside quotes"


@by_any_api
def test_descriptions_bilingual_at_every_depth(name: str, api: str) -> None:
    spec = support.all_specs(name)[api]
    _bilingual(spec["description"], api)
    for path, prop in _property_paths(spec["parameters"], api):
        _bilingual(prop.get("description"), path)
    for kind, message in (spec.get("errors") or {}).items():
        _bilingual(message, f"{api} error {kind}")


# ----------------------------------------------------------------------------- determinism


@by_sandbox
def test_no_nondeterministic_sources(name: str) -> None:
    assert support.imported_modules(name) <= DETERMINISTIC_MODULES
    text = support.source(name)
    for forbidden in FORBIDDEN_TEXT:
        assert forbidden not in text, forbidden
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, node.lineno
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            assert node.func.attr not in CLOCK_METHODS or (
                isinstance(node.func.value, ast.Name) and node.func.value.id == "self"
            ), node.lineno


# ----------------------------------------------------------------------------- scenarios


@pytest.mark.parametrize("name", SCENARIO_NAMES)
def test_enough_scenarios_of_both_modes(name: str) -> None:
    scenarios = support.scenarios(name)
    assert len(scenarios) >= 11
    assert {s["mode"] for s in scenarios.values()} == {"multi_turn", "multi_step"}
    # Refusals and pure answers are allowed, but under 15% of a sandbox's scenarios.
    assert sum(bool(s.get("no_change")) for s in scenarios.values()) < 0.15 * len(scenarios)


@by_scenario
def test_scenario_file(name: str, scenario_id: str) -> None:
    doc = support.scenario_documents(name)[scenario_id]
    assert support.schema_problems("scenario", doc) == []
    scenario = doc.data
    # A scenario lives in the folder of its first (primary) sandbox and may span others.
    assert scenario["id"] == scenario_id and scenario["sandboxes"][0] == name
    assert set(scenario["sandboxes"]) <= set(NAMES)
    apis = {api for sandbox in scenario["sandboxes"] for api in support.specs(sandbox)}
    assert set(scenario.get("initial_state") or {}) <= set(scenario["sandboxes"])
    en, zh = scenario["user"]["en"], scenario["user"]["zh"]
    for side in (en, zh):
        assert len(side["script"]) == 1 if scenario["mode"] == "multi_step" else len(side["script"]) >= 2
    assert all(support.HAN.search(line) for line in zh["script"])
    for key in ("script", "known", "unknown"):
        assert len(en.get(key, [])) == len(zh.get(key, [])), key
    # facts are one list for both languages, and every fact reads
    assert read_facts(scenario.get("outputs")) or not scenario.get("no_change")
    assert scenario["time"] and all(not isinstance(m.get("confirmed"), list) or read_facts(m["confirmed"]) for m in scenario["milestones"])
    ids = [m["id"] for m in scenario["milestones"]]
    assert len(ids) == len(set(ids))
    for position, milestone in enumerate(scenario["milestones"]):
        assert set(milestone.get("after", [])) <= set(ids[:position]), milestone["id"]
    for _, call, _ in scenario_calls(scenario):
        assert call["api"] in apis, call["api"]
    assert scenario["minefields"], "every scenario names calls that must not happen"
    for call in scenario["reference_calls"]:
        # reference calls are concrete: only $lang (and $literal) stand in them, no looser matcher
        for _, pointer in matchers.problems(call.get("args"), allow_lang=True):
            pytest.fail(f"malformed matcher in a reference call at {pointer}")
        assert _only_concrete(call.get("args")), call
        per_lang = [support.render(call.get("args") or {}, lang) for lang in support.LANGS]
        assert [sorted(args) for args in per_lang] == [sorted(per_lang[0])] * 2, "languages differ in argument names"
        for args in per_lang:
            assert support.runtime().argument_errors(call["api"], args) == [], (call["api"], args)
    end = {sandbox: support.end_state(name, scenario_id, sandbox=sandbox) for sandbox in scenario["sandboxes"]}
    compare = scenario.get("compare") or {}
    for path in [*compare.get("text", []), *compare.get("match", {})]:
        assert _reaches(end, path.split(".")), f"compare {path} reaches nothing in the end state"
    for path in compare.get("ignore", []):
        # an ignored key may be one the reference leaves out and an agent may add (an optional
        # setting, a note): what holds it must exist, so a misspelt path is still caught
        parts = path.split(".")
        assert _reaches(end, parts) or _reaches(end, parts[:-1]), f"compare ignore {path}: nothing in the end state holds it"


def _only_concrete(value: Any) -> bool:
    if isinstance(value, list):
        return all(_only_concrete(v) for v in value)
    if isinstance(value, dict):
        if matchers.is_matcher(value):
            kind = matchers.matcher_kind(value)
            if kind == "$literal":
                return True
            return kind == "$lang" and all(_only_concrete(v) for v in value["$lang"].values())
        return all(_only_concrete(v) for v in value.values())
    return True


def _reaches(node: Any, parts: list[str]) -> bool:
    if not parts:
        return True
    head, rest = parts[0], parts[1:]
    if isinstance(node, dict):
        children = list(node.values()) if head == "*" else [node[head]] if head in node else []
    elif isinstance(node, list):
        children = node if head == "*" else [node[int(head)]] if head.isdigit() and int(head) < len(node) else []
    else:
        children = []
    return any(_reaches(child, rest) for child in children)


@by_run
def test_scenario_replays(name: str, scenario_id: str, lang: str) -> None:
    """Reference calls all succeed (results valid against `returns`), twice alike, and change the state iff they should."""
    scenario = support.scenarios(name)[scenario_id]
    first = support.replayed(name, scenario_id, lang)
    assert first.errors == [], first.errors  # includes results rejected by `returns` and undeclared errors
    second = support.replay(name, scenario_id, lang)
    assert second.errors == []
    assert json.dumps(first.end_state, sort_keys=True) == json.dumps(second.end_state, sort_keys=True)
    assert first.observations == second.observations
    compare = scenario.get("compare")
    differences = replay_module.compare_states(support.start_state(name, scenario), first.end_state, compare)
    if scenario.get("no_change"):
        assert differences == [], "a no_change scenario must leave the state as it was"
        assert scenario["minefields"]
    else:
        assert differences, "the reference calls must change the end state"


@by_run
def test_milestones_reached_and_minefields_avoided(name: str, scenario_id: str, lang: str) -> None:
    scenario = support.scenarios(name)[scenario_id]
    calls = support.reference_calls(scenario, lang)
    milestones = scenario["milestones"]
    assert replay_module.matched_milestones(milestones, calls, lang) == {m["id"] for m in milestones}
    # stricter than the partial order: a call matching a milestone follows the first call of each
    # milestone in its `after` (two payments with one pattern, each after its own booking, are
    # matched by the later payment)
    matching: dict[str, list[int]] = {}
    for milestone in milestones:
        patterns = [pattern for alternative in replay_module.milestone_alternatives(milestone) for pattern in alternative]
        matching[milestone["id"]] = [i for i, c in enumerate(calls) if any(replay_module.call_matches(p, c, lang) for p in patterns)]
    for milestone in milestones:
        for before in milestone.get("after", []):
            assert any(i > matching[before][0] for i in matching[milestone["id"]]), (before, milestone["id"])
    assert replay_module.minefield_hits(scenario["minefields"], calls, lang) == []
