"""Rows of the dataset: one table of columns per kind, and the two maps between files and rows.

Every config holds one kind of item (case, API spec, agent scenario, sandbox) and has one split
per language of the repository. ``project(kind, item, lang, sources)`` turns a source item into
the record of one language (the decoded row); ``to_source(kind, {lang: record})`` merges the
records of an item back into the source item, so ``to_source({l: project(x, l) for l in langs})
== x`` for every valid item — the round-trip tests hold the build to that. Derived columns (rendered function schemas,
the states and policies a scenario runs with) are conveniences for consumers; ``to_source``
ignores them.

Column types: ``string``, ``bool``, ``int``, ``strings`` (list of strings) are real Arrow
columns; ``json`` columns hold JSON text (``validator.corpus.canonical.data_json``) because their
values are nested and heterogeneous. A null cell means "the source has no such field".
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, NamedTuple

from validator.corpus.schemawalk import localize
from validator.hub.corpus import Sources


class Column(NamedTuple):
    name: str
    type: str  # string | bool | int | strings | json
    optional: bool  # null when the source has no such field
    derived: bool  # computed from other files; not part of the source item
    doc: str


def _c(name: str, type_: str, doc: str, *, optional: bool = False, derived: bool = False) -> Column:
    return Column(name, type_, optional, derived, doc)


CASE_COLUMNS: tuple[Column, ...] = (
    _c("id", "string", "case id (the file stem)"),
    _c("category", "string", "category, e.g. `normal/single_turn/single`"),
    _c("apis", "strings", "candidate API names shown to the model"),
    _c("time", "string", "the fixed \"now\" shown to the model (ISO 8601)", optional=True),
    _c("profile", "string", "user profile in this language (preference cases)", optional=True),
    _c("state", "json", "deep-merge patch over sandbox data, per sandbox", optional=True),
    _c("turns", "json", "the dialogue in this language; `expect` turns are the checkpoints with their answers"),
    _c("origin", "json", "where an imported case came from (`callbank import`): peer, file, record", optional=True),
    _c("functions", "json", "the candidate APIs as OpenAI `tools` entries in this language", derived=True),
    _c("source", "string", "the file in the repository", derived=True),
)

API_COLUMNS: tuple[Column, ...] = (
    _c("name", "string", "API name"),
    _c("domain", "string", "dotted domain, e.g. `phone.messaging`"),
    _c("sandbox", "string", "the sandbox implementing it (null for distractors)", optional=True),
    _c("spec_only", "bool", "true for distractors offered as candidates but never answered"),
    _c("description", "string", "description in this language"),
    _c("parameters", "json", "JSON Schema of the arguments, descriptions in this language"),
    _c("returns", "json", "JSON Schema of the result"),
    _c("errors", "json", "business errors: kind → message in this language", optional=True),
    _c("origin", "json", "where an imported API came from (`callbank import`): peer, file, its name there", optional=True),
    _c("source", "string", "the file in the repository", derived=True),
)

SCENARIO_COLUMNS: tuple[Column, ...] = (
    _c("id", "string", "scenario id (the file stem)"),
    _c("mode", "string", "`multi_turn` (the user speaks several times) or `multi_step` (once)"),
    _c("sandboxes", "strings", "sandboxes the scenario runs in"),
    _c("time", "string", "the clock of its sandboxes, shown to the agent as \"now\" (ISO 8601)", optional=True),
    _c("apis", "strings", "candidate APIs (null: every API of its sandboxes)", optional=True),
    _c("initial_state", "json", "deep-merge patch over each sandbox's data", optional=True),
    _c("goal", "string", "the simulated user's goal in this language"),
    _c("known", "strings", "what the user knows", optional=True),
    _c("unknown", "strings", "what the user does not know", optional=True),
    _c("script", "strings", "scripted user messages (fallback without a user model)"),
    _c("reference_calls", "json", "calls whose replay defines the expected end state (`$lang` values per language)"),
    _c("milestones", "json", "call patterns (or `one_of` lists of them) with a partial order (`after`); `confirmed` on writes the user must approve"),
    _c("minefields", "json", "calls that must not happen"),
    _c("compare", "json", "end-state comparison options: `ignore`, `text`, `match` and `unordered` paths", optional=True),
    _c("outputs", "json", "facts the agent must tell the user: numbers with units, codes, times, dates, phrases (words in both languages)", optional=True),
    _c("no_change", "bool", "true when the right behaviour changes nothing", optional=True),
    _c("max_turns", "int", "turn limit", optional=True),
    _c("states", "json", "initial state (`state.yaml`) of each of its sandboxes", derived=True),
    _c("policies", "json", "policy of each of its sandboxes in this language", derived=True),
    _c("functions", "json", "the candidate APIs as OpenAI `tools` entries in this language", derived=True),
    _c("source", "string", "the file in the repository", derived=True),
)

SANDBOX_COLUMNS: tuple[Column, ...] = (
    _c("name", "string", "sandbox name"),
    _c("state", "json", "initial state: `{sandbox, clock, counters, data}`"),
    _c("policy", "string", "rules the agent is told, in this language (Markdown)"),
    _c("code", "string", "source of `sandbox.py`, the class implementing its APIs"),
    _c("apis", "strings", "APIs it implements", derived=True),
    _c("source", "string", "the folder in the repository", derived=True),
)

COLUMNS: dict[str, tuple[Column, ...]] = {
    "case": CASE_COLUMNS,
    "api": API_COLUMNS,
    "scenario": SCENARIO_COLUMNS,
    "sandbox": SANDBOX_COLUMNS,
}
KEY_COLUMN = {"case": "id", "api": "name", "scenario": "id", "sandbox": "name"}


# ----------------------------------------------------------------------------- rendering


def merge_property(by_lang: Mapping[str, Any]) -> Any:
    """Inverse of ``validator.corpus.schemawalk.localize`` over the languages (lang → schema)."""
    langs = list(by_lang)
    first = by_lang[langs[0]]
    if not all(isinstance(by_lang[lang], dict) for lang in langs):
        return copy.deepcopy(first)
    out: dict[str, Any] = {}
    for key, value in first.items():
        others = {lang: by_lang[lang].get(key) for lang in langs}
        if key == "description" and all(isinstance(text, str) for text in others.values()):
            out[key] = dict(others)
        elif key == "items":
            out[key] = merge_property(others)
        elif key == "properties" and all(isinstance(props, dict) for props in others.values()):
            out[key] = {name: merge_property({lang: others[lang].get(name) for lang in langs}) for name in value}
        else:
            out[key] = copy.deepcopy(value)
    return out


def _functions(names: list[str], sources: Sources, lang: str) -> list[dict[str, Any]]:
    specs = sources.corpus.specs
    missing = [name for name in names if name not in specs]
    if missing:
        raise KeyError(f"no API spec named {', '.join(missing)}")
    return [specs[name].tool(lang) for name in names]


def _present(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if value is not None}


# ----------------------------------------------------------------------------- per kind


def project(kind: str, item: Mapping[str, Any], lang: str, sources: Sources) -> dict[str, Any]:
    """The record of item in lang: every column's decoded value, absent fields left out."""
    return _PROJECT[kind](item, lang, sources)


def to_source(kind: str, by_lang: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The source item whose record in each language (lang → record, in the repository's
    order of languages) is given."""
    return _MERGE[kind](by_lang)


def _project_case(case: Mapping[str, Any], lang: str, sources: Sources) -> dict[str, Any]:
    profile = case.get("profile")
    return _present(
        {
            "id": case["id"],
            "category": case["category"],
            "apis": list(case["apis"]),
            "time": case.get("time"),
            "profile": profile[lang] if isinstance(profile, dict) else profile,
            "state": copy.deepcopy(case.get("state")),
            "turns": copy.deepcopy(case[lang]["turns"]),
            "origin": copy.deepcopy(case.get("origin")),
            "functions": _functions(list(case["apis"]), sources, lang),
            "source": sources.path_of("case", case["id"]),
        }
    )


def _merge_case(by_lang: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    first = next(iter(by_lang.values()))
    case: dict[str, Any] = {"id": first["id"], "category": first["category"], "apis": list(first["apis"])}
    if "time" in first:
        case["time"] = first["time"]
    if "profile" in first:
        case["profile"] = {lang: record["profile"] for lang, record in by_lang.items()}
    if "state" in first:
        case["state"] = copy.deepcopy(first["state"])
    if "origin" in first:
        case["origin"] = copy.deepcopy(first["origin"])
    for lang, record in by_lang.items():
        case[lang] = {"turns": copy.deepcopy(record["turns"])}
    return case


def _project_api(spec: Mapping[str, Any], lang: str, sources: Sources) -> dict[str, Any]:
    errors = spec.get("errors")
    return _present(
        {
            "name": spec["name"],
            "domain": spec["domain"],
            "sandbox": spec.get("sandbox"),
            "spec_only": bool(spec.get("spec_only", False)),
            "description": spec["description"][lang],
            "parameters": localize(spec["parameters"], lang),
            "returns": copy.deepcopy(spec["returns"]),
            "errors": None if errors is None else {kind: message[lang] for kind, message in errors.items()},
            "origin": copy.deepcopy(spec.get("origin")),
            "source": sources.path_of("api", spec["name"]),
        }
    )


def _merge_api(by_lang: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    first = next(iter(by_lang.values()))
    spec: dict[str, Any] = {"name": first["name"], "domain": first["domain"]}
    if "sandbox" in first:
        spec["sandbox"] = first["sandbox"]
    if first.get("spec_only"):
        spec["spec_only"] = True
    spec["description"] = {lang: record["description"] for lang, record in by_lang.items()}
    spec["parameters"] = merge_property({lang: record["parameters"] for lang, record in by_lang.items()})
    spec["returns"] = copy.deepcopy(first["returns"])
    if "errors" in first:
        spec["errors"] = {kind: {lang: record["errors"][kind] for lang, record in by_lang.items()} for kind in first["errors"]}
    if "origin" in first:
        spec["origin"] = copy.deepcopy(first["origin"])
    return spec


_USER_FIELDS = ("goal", "known", "unknown", "script")
_SCENARIO_SHARED = ("reference_calls", "milestones", "minefields")
_SCENARIO_OPTIONAL = ("time", "apis", "initial_state", "compare", "outputs", "no_change", "max_turns")


def scenario_apis(scenario: Mapping[str, Any], sources: Sources) -> list[str]:
    """The candidate APIs: the scenario's own list, else every API of its sandboxes by name."""
    if scenario.get("apis") is not None:
        return list(scenario["apis"])
    sandboxes = set(scenario.get("sandboxes", []))
    return sorted(name for name, spec in sources.corpus.specs.items() if spec.sandbox in sandboxes)


def _project_scenario(scenario: Mapping[str, Any], lang: str, sources: Sources) -> dict[str, Any]:
    user = scenario["user"][lang]
    names = list(scenario["sandboxes"])
    unknown = [name for name in names if name not in sources.sandboxes]
    if unknown:
        raise KeyError(f"no sandbox named {', '.join(unknown)}")
    record: dict[str, Any] = {"id": scenario["id"], "mode": scenario["mode"], "sandboxes": names}
    record.update({key: copy.deepcopy(scenario.get(key)) for key in _SCENARIO_OPTIONAL})
    record.update({key: copy.deepcopy(user.get(key)) for key in _USER_FIELDS})
    record.update({key: copy.deepcopy(scenario[key]) for key in _SCENARIO_SHARED})
    record["states"] = {name: copy.deepcopy(sources.sandboxes[name]["state"]) for name in names}
    record["policies"] = {name: sources.sandboxes[name]["policy"][lang] for name in names}
    record["functions"] = _functions(scenario_apis(scenario, sources), sources, lang)
    record["source"] = sources.path_of("scenario", scenario["id"])
    return _present(record)


def _merge_scenario(by_lang: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    first = next(iter(by_lang.values()))
    scenario: dict[str, Any] = {"id": first["id"], "mode": first["mode"], "sandboxes": list(first["sandboxes"])}
    for key in _SCENARIO_OPTIONAL:
        if key in first:
            scenario[key] = copy.deepcopy(first[key])
    scenario["user"] = {lang: {key: copy.deepcopy(record[key]) for key in _USER_FIELDS if key in record} for lang, record in by_lang.items()}
    for key in _SCENARIO_SHARED:
        scenario[key] = copy.deepcopy(first[key])
    return scenario


def _project_sandbox(sandbox: Mapping[str, Any], lang: str, sources: Sources) -> dict[str, Any]:
    name = sandbox["name"]
    return {
        "name": name,
        "state": copy.deepcopy(sandbox["state"]),
        "policy": sandbox["policy"][lang],
        "code": sandbox["code"],
        "apis": sorted(api for api, spec in sources.corpus.specs.items() if spec.sandbox == name),
        "source": sources.path_of("sandbox", name),
    }


def _merge_sandbox(by_lang: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    first = next(iter(by_lang.values()))
    return {
        "name": first["name"],
        "state": copy.deepcopy(first["state"]),
        "policy": {lang: record["policy"] for lang, record in by_lang.items()},
        "code": first["code"],
    }


_PROJECT = {"case": _project_case, "api": _project_api, "scenario": _project_scenario, "sandbox": _project_sandbox}
_MERGE = {"case": _merge_case, "api": _merge_api, "scenario": _merge_scenario, "sandbox": _merge_sandbox}
