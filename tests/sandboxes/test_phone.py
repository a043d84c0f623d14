"""The phone sandbox: business rules, spec parity, and every scenario's reference replay.

These tests read the sandbox's own files (state.yaml, specs/phone, scenarios) so that a change
to any of them that breaks the contract of docs/data-model.md fails here before `callbank exec`.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import inspect
import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from validator.sandbox.base import ApiError, Sandbox

ROOT = Path(__file__).resolve().parents[2]
SANDBOX_DIR = ROOT / "sandboxes" / "phone"
SPEC_DIR = ROOT / "specs" / "phone"
LANGS = ("en", "zh")


def _load_class() -> type[Sandbox]:
    # sandboxes/ is not a package: load the module from its file, as the runtime does.
    spec = importlib.util.spec_from_file_location("callbank_sandbox_phone", SANDBOX_DIR / "sandbox.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PhoneSandbox


PhoneSandbox = _load_class()
STATE: dict[str, Any] = yaml.safe_load((SANDBOX_DIR / "state.yaml").read_text(encoding="utf-8"))
SPECS: dict[str, dict[str, Any]] = {
    path.stem: yaml.safe_load(path.read_text(encoding="utf-8")) for path in sorted(SPEC_DIR.glob("*.yaml"))
}
SCENARIO_PATHS = sorted((SANDBOX_DIR / "scenarios").glob("*.yaml"))
SCENARIOS: dict[str, dict[str, Any]] = {
    path.stem: yaml.safe_load(path.read_text(encoding="utf-8")) for path in SCENARIO_PATHS
}


# ----------------------------------------------------------------------------- helpers


def fresh(patch: dict[str, Any] | None = None) -> Sandbox:
    state = copy.deepcopy(STATE)
    if patch:
        state["data"] = deep_merge(state["data"], patch)
    return PhoneSandbox(state)


def deep_merge(base: Any, patch: Any) -> Any:
    """Mappings merge key by key; anything else in the patch replaces the base value."""
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = dict(base)
        for key, value in patch.items():
            merged[key] = deep_merge(base.get(key), value) if key in base else copy.deepcopy(value)
        return merged
    return copy.deepcopy(patch)


def resolve_lang(value: Any, lang: str) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$lang"}:
            return resolve_lang(value["$lang"][lang], lang)
        return {key: resolve_lang(item, lang) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve_lang(item, lang) for item in value]
    return value


def plain_schema(schema: Any) -> Any:
    """A spec's schema with each bilingual description reduced to English, as rendering does."""
    if isinstance(schema, dict):
        return {
            key: (value["en"] if key == "description" and isinstance(value, dict) else plain_schema(value))
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [plain_schema(item) for item in schema]
    return schema


def _normalise_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(ch).startswith(("P", "S")) else ch for ch in text)
    return " ".join(text.split())


def matches(pattern: Any, value: Any, lang: str) -> bool:
    """Enough of the documented matcher semantics to check milestones and minefields here."""
    if isinstance(pattern, dict) and pattern and all(key.startswith("$") for key in pattern):
        if "$lang" in pattern:
            return matches(pattern["$lang"][lang], value, lang)
        if "$any" in pattern:
            return any(matches(option, value, lang) for option in pattern["$any"])
        if "$text" in pattern:
            return isinstance(value, str) and _normalise_text(value) == _normalise_text(pattern["$text"])
        if "$optional" in pattern:
            return matches(pattern["$optional"], value, lang)
        if "$unordered" in pattern:
            wanted = list(pattern["$unordered"])
            if not isinstance(value, list) or len(value) != len(wanted):
                return False
            remaining = list(value)
            for option in wanted:  # items here are literals, so greedy equals optimal
                hit = next((i for i, item in enumerate(remaining) if matches(option, item, lang)), None)
                if hit is None:
                    return False
                remaining.pop(hit)
            return True
        if "$regex" in pattern:
            return isinstance(value, str) and re.fullmatch(pattern["$regex"], value) is not None
        if "$approx" in pattern:
            return isinstance(value, (int, float)) and abs(value - pattern["$approx"]) <= pattern["$tol"]
        if "$literal" in pattern:
            return value == pattern["$literal"]
        raise AssertionError(f"unknown matcher {pattern}")
    if isinstance(pattern, dict):
        return isinstance(value, dict) and pattern.keys() == value.keys() and all(
            matches(pattern[key], value[key], lang) for key in pattern
        )
    if isinstance(pattern, list):
        return isinstance(value, list) and len(pattern) == len(value) and all(
            matches(p, v, lang) for p, v in zip(pattern, value)
        )
    return type(pattern) is type(value) and pattern == value or (
        isinstance(pattern, (int, float)) and isinstance(value, (int, float)) and not isinstance(value, bool)
        and pattern == value
    )


def call_matches(pattern: dict[str, Any], call: dict[str, Any], lang: str) -> bool:
    if pattern["api"] != call["api"]:
        return False
    args = call["args"]
    return all(key in args and matches(value, args[key], lang) for key, value in pattern.get("args", {}).items())


def run(sandbox: Sandbox, api: str, **args: Any) -> Any:
    """Call one API; check the result against its spec, or that the error kind is declared."""
    try:
        result = getattr(sandbox, api)(**args)
    except ApiError as error:
        assert error.kind in SPECS[api].get("errors", {}), f"{api} raised undeclared error {error.kind}"
        json.dumps(error.details)
        raise
    json.dumps(result)  # results are JSON data
    Draft202012Validator(SPECS[api]["returns"]).validate(result)
    return result


def replay(scenario: dict[str, Any], lang: str) -> dict[str, Any]:
    sandbox = fresh(scenario.get("initial_state", {}).get("phone"))
    for call in scenario["reference_calls"]:
        args = resolve_lang(call["args"], lang)
        Draft202012Validator(plain_schema(SPECS[call["api"]]["parameters"])).validate(args)
        run(sandbox, call["api"], **args)
    return {"phone": sandbox.data}


def error_kind(sandbox: Sandbox, api: str, **args: Any) -> str:
    with pytest.raises(ApiError) as caught:
        run(sandbox, api, **args)
    return caught.value.kind


# ----------------------------------------------------------------------------- state and specs


def test_state_shape() -> None:
    assert STATE["sandbox"] == "phone"
    data = STATE["data"]
    assert {"device", "contacts", "messages", "reminders", "alarms"} <= data.keys()
    # Near capacity, so that one patch of message_capacity makes storage full.
    assert data["device"]["message_capacity"] - len(data["messages"]) == 2
    for table, counter in [("contacts", "contact"), ("messages", "message"), ("reminders", "reminder"), ("alarms", "alarm")]:
        ids = [int(row["id"].split("-")[1]) for row in data[table]]
        assert len(ids) == len(set(ids)), table
        assert max(ids) <= STATE["counters"][counter], f"counter {counter} would reissue an id"


def test_every_method_has_a_spec_and_back() -> None:
    assert PhoneSandbox.name == "phone"
    assert sorted(SPECS) == PhoneSandbox.api_names()
    assert len(SPECS) >= 16


@pytest.mark.parametrize("api", sorted(SPECS))
def test_spec_matches_signature(api: str) -> None:
    spec = SPECS[api]
    assert spec["name"] == api and spec["sandbox"] == "phone" and spec["domain"].startswith("phone.")
    params = spec["parameters"]
    required = set(params.get("required", []))
    signature = inspect.signature(getattr(PhoneSandbox, api))
    keywords = {name: p for name, p in signature.parameters.items() if name != "self"}
    assert set(keywords) == set(params["properties"])
    for name, parameter in keywords.items():
        assert parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
        has_default = parameter.default is not inspect.Parameter.empty
        assert has_default == (name not in required), f"{api}.{name}: default iff not required"
        if "default" in params["properties"][name]:
            assert parameter.default == params["properties"][name]["default"]


@pytest.mark.parametrize("api", sorted(SPECS))
def test_spec_descriptions_bilingual_at_every_depth(api: str) -> None:
    def walk(schema: dict[str, Any], where: str) -> None:
        assert set(schema["description"]) == {"en", "zh"}, where
        assert re.search(r"[\u4e00-\u9fff]", schema["description"]["zh"]), f"{where}: zh is not Chinese"
        for name, child in schema.get("properties", {}).items():
            walk(child, f"{where}.{name}")
        if "items" in schema:
            walk(schema["items"], f"{where}[]")
        if schema.get("type") == "array":
            assert "items" in schema, where

    spec = SPECS[api]
    assert set(spec["description"]) == {"en", "zh"}
    for name, prop in spec["parameters"]["properties"].items():
        walk(prop, f"{api}.{name}")


def test_method_names_do_not_shadow_the_base_class() -> None:
    assert not set(PhoneSandbox.api_names()) & set(vars(Sandbox))


def test_no_nondeterministic_sources() -> None:
    tree = ast.parse((SANDBOX_DIR / "sandbox.py").read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
    }
    assert imported <= {"__future__", "copy", "datetime", "typing", "validator"}
    source = (SANDBOX_DIR / "sandbox.py").read_text(encoding="utf-8")
    for forbidden in ("datetime.now(", "datetime.today(", "date.today(", "open(", "utcnow("):
        assert forbidden not in source


# ----------------------------------------------------------------------------- business rules


def test_send_needs_wifi() -> None:
    sandbox = fresh({"device": {"wifi": False}})
    before = copy.deepcopy(sandbox.state)
    assert error_kind(sandbox, "send_message", receiver="Zhang Wei", content="hi") == "wifi_off"
    assert sandbox.state == before  # a failed call changes nothing, not even a counter


def test_send_to_unknown_contact() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "send_message", receiver="Zhou Kai", content="hi") == "unknown_contact"
    # A bare surname is not a contact: ambiguity must be resolved by the agent, not the sandbox.
    assert error_kind(sandbox, "send_message", receiver="Li", content="hi") == "unknown_contact"


def test_storage_full_until_a_message_is_deleted() -> None:
    sandbox = fresh({"device": {"message_capacity": 18}})
    assert error_kind(sandbox, "send_message", receiver="Emma", content="hi") == "storage_full"
    run(sandbox, "delete_message", message_id="M-1007")
    sent = run(sandbox, "send_message", receiver="Emma", content="hi")
    assert sent["receiver"] == "Emma Clarke" and sent["storage"] == {"used": 18, "capacity": 18}
    assert error_kind(sandbox, "send_message", receiver="Emma", content="again") == "storage_full"


def test_sending_fills_the_last_free_slots() -> None:
    sandbox = fresh()
    run(sandbox, "send_message", receiver="张伟", content="一")
    run(sandbox, "send_message", receiver="zhang wei", content="二")
    assert error_kind(sandbox, "send_message", receiver="Zhang Wei", content="三") == "storage_full"


def test_aliases_resolve_to_the_same_contact() -> None:
    en, zh = fresh(), fresh()
    run(en, "send_message", receiver="Zhang Wei", content="x")
    run(zh, "send_message", receiver="张伟", content="x")
    assert en.state == zh.state


def test_reminders_need_login_and_a_future_time() -> None:
    sandbox = fresh({"device": {"logged_in": False}})
    assert error_kind(sandbox, "add_reminder", title="t", time="2024-07-16T20:00") == "not_logged_in"
    assert error_kind(sandbox, "list_reminders") == "not_logged_in"
    assert error_kind(sandbox, "log_in", password="lotus#2024") == "wrong_password"
    run(sandbox, "log_in", password="Lotus#2024")
    assert error_kind(sandbox, "log_in", password="Lotus#2024") == "already_logged_in"
    assert error_kind(sandbox, "add_reminder", title="t", time="2024-07-14T20:00") == "time_in_past"
    assert error_kind(sandbox, "add_reminder", title="t", time="2024-07-15T09:00") == "time_in_past"
    assert error_kind(sandbox, "add_reminder", title="t", time="2024-02-30T09:00") == "invalid_time"
    assert run(sandbox, "add_reminder", title="t", time="2024-07-15T09:01")["id"] == "R-307"


def test_login_needs_wifi() -> None:
    sandbox = fresh({"device": {"wifi": False, "logged_in": False}})
    assert error_kind(sandbox, "log_in", password="Lotus#2024") == "wifi_off"
    run(sandbox, "turn_on_wifi")
    assert run(sandbox, "log_in", password="Lotus#2024") == {"logged_in": True, "account": "linyue.cloud"}
    run(sandbox, "log_out")
    assert error_kind(sandbox, "log_out") == "not_logged_in"


def test_reminder_lifecycle() -> None:
    sandbox = fresh()
    tomorrow = run(sandbox, "list_reminders", date="2024-07-16")["reminders"]
    assert [r["id"] for r in tomorrow] == ["R-306", "R-302"]
    assert "R-304" not in [r["id"] for r in run(sandbox, "list_reminders")["reminders"]]
    assert "R-304" in [r["id"] for r in run(sandbox, "list_reminders", include_done=True)["reminders"]]
    assert error_kind(sandbox, "list_reminders", date="2024-13-01") == "invalid_date"
    assert run(sandbox, "complete_reminder", reminder_id="R-303")["done"] is True
    assert error_kind(sandbox, "complete_reminder", reminder_id="R-303") == "already_done"
    assert error_kind(sandbox, "update_reminder", reminder_id="R-301") == "nothing_to_update"
    assert error_kind(sandbox, "update_reminder", reminder_id="R-999", note="x") == "reminder_not_found"
    assert run(sandbox, "update_reminder", reminder_id="R-301", time="2024-07-18T15:00")["time"] == "2024-07-18T15:00"
    run(sandbox, "delete_reminder", reminder_id="R-302")
    assert error_kind(sandbox, "delete_reminder", reminder_id="R-302") == "reminder_not_found"


def test_alarm_rules() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "set_alarm", time="06:30") == "alarm_exists"
    assert error_kind(sandbox, "set_alarm", time="24:00") == "invalid_time"
    alarm = run(sandbox, "set_alarm", time="07:45", label="Hiking", repeat_days=["sun", "sat"])
    assert alarm == {"id": "A-4", "time": "07:45", "label": "Hiking", "repeat_days": ["sat", "sun"]}
    assert [a["time"] for a in run(sandbox, "list_alarms")["alarms"]] == ["06:30", "07:45", "09:00", "21:30"]
    run(sandbox, "cancel_alarm", alarm_id="A-4")
    assert error_kind(sandbox, "cancel_alarm", alarm_id="A-4") == "alarm_not_found"


def test_contact_rules() -> None:
    sandbox = fresh()
    found = run(sandbox, "find_contacts", query="li")["contacts"]
    assert {"Li Na", "Li Nan"} <= {c["name"] for c in found}
    assert [c["name"] for c in run(sandbox, "find_contacts", query="李")["contacts"]] == ["Li Na", "Li Nan"]
    assert error_kind(sandbox, "add_contact", name="zhang wei", phone="10000") == "contact_exists"
    assert error_kind(sandbox, "add_contact", name="New", phone="13811112222") == "phone_in_use"
    assert error_kind(sandbox, "update_contact", name="Nobody", phone="10000") == "unknown_contact"
    assert error_kind(sandbox, "update_contact", name="Wang Fang") == "nothing_to_update"
    run(sandbox, "update_contact", name="王芳", phone="13987654321")
    assert run(sandbox, "send_message", receiver="Wang Fang", content="x")["number"] == "13987654321"
    run(sandbox, "delete_contact", name="Wang Fang")
    assert error_kind(sandbox, "delete_contact", name="Wang Fang") == "unknown_contact"


def test_list_messages_filters() -> None:
    sandbox = fresh()
    everything = run(sandbox, "list_messages", limit=100)
    assert everything["total"] == 18 and everything["messages"][0]["id"] == "M-1018"
    assert run(sandbox, "list_messages")["storage"] == {"used": 18, "capacity": 20}
    bank = run(sandbox, "list_messages", contact="106900112233")
    assert [m["id"] for m in bank["messages"]] == ["M-1018", "M-1001"]
    assert run(sandbox, "list_messages", contact="妈妈", direction="out")["total"] == 1
    assert run(sandbox, "list_messages", keyword="stridemall")["total"] == 2
    assert error_kind(sandbox, "list_messages", contact="StrideMall") == "unknown_contact"
    assert error_kind(sandbox, "delete_message", message_id="M-1") == "message_not_found"


def test_ids_are_deterministic() -> None:
    def script() -> tuple[list[str], dict[str, Any]]:
        sandbox = fresh()
        ids = [
            run(sandbox, "send_message", receiver="Mom", content="a")["message_id"],
            run(sandbox, "add_contact", name="Kevin Zhou", phone="13800001111")["id"],
            run(sandbox, "add_reminder", title="r", time="2024-08-01T08:00")["id"],
            run(sandbox, "set_alarm", time="05:00")["id"],
        ]
        return ids, sandbox.state

    first, second = script(), script()
    assert first == second
    assert first[0] == ["M-1019", "C-11", "R-307", "A-4"]


def test_every_api_returns_valid_json() -> None:
    sandbox = fresh()
    for api in ("get_device_status", "list_alarms", "list_reminders", "list_messages", "turn_on_wifi"):
        run(sandbox, api)
    status = run(sandbox, "get_device_status")
    assert status["time"] == "2024-07-15T09:00" and status["weekday"] == "mon"
    assert "password" not in json.dumps(status)
    run(sandbox, "turn_off_wifi")
    assert run(sandbox, "turn_off_wifi") == {"wifi": False, "changed": False}


# ----------------------------------------------------------------------------- scenarios


def test_there_are_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 11
    modes = {scenario["mode"] for scenario in SCENARIOS.values()}
    assert modes == {"multi_turn", "multi_step"}
    assert sum(1 for s in SCENARIOS.values() if s.get("no_change")) <= 1


@pytest.mark.parametrize("path", SCENARIO_PATHS, ids=lambda p: p.stem)
def test_scenario_shape(path: Path) -> None:
    scenario = SCENARIOS[path.stem]
    assert path.read_text(encoding="utf-8").startswith(
        "# yaml-language-server: $schema=../../../schemas/scenario.schema.json\n"
    )
    assert scenario["id"] == path.stem and scenario["sandboxes"] == ["phone"]
    for lang in LANGS:
        script = scenario["user"][lang]["script"]
        assert len(script) == 1 if scenario["mode"] == "multi_step" else len(script) >= 2, lang
    ids = [m["id"] for m in scenario["milestones"]]
    assert len(ids) == len(set(ids))
    for position, milestone in enumerate(scenario["milestones"]):
        assert set(milestone.get("after", [])) <= set(ids[:position]), milestone["id"]
    apis = set(SPECS)
    for call in [*scenario["reference_calls"], *scenario["milestones"], *scenario["minefields"]]:
        assert call["api"] in apis
    if scenario.get("no_change"):
        assert scenario["minefields"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path", SCENARIO_PATHS, ids=lambda p: p.stem)
def test_scenario_replay(path: Path, lang: str) -> None:
    scenario = SCENARIOS[path.stem]
    first = replay(scenario, lang)  # raises on any ApiError
    second = replay(scenario, lang)
    assert first == second
    start = {"phone": fresh(scenario.get("initial_state", {}).get("phone")).data}
    if scenario.get("no_change"):
        assert first == start
    else:
        assert first != start


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path", SCENARIO_PATHS, ids=lambda p: p.stem)
def test_milestones_and_minefields_agree_with_reference(path: Path, lang: str) -> None:
    scenario = SCENARIOS[path.stem]
    calls = [{"api": c["api"], "args": resolve_lang(c["args"], lang)} for c in scenario["reference_calls"]]
    positions: dict[str, int] = {}
    for milestone in scenario["milestones"]:
        hits = [i for i, call in enumerate(calls) if call_matches(milestone, call, lang)]
        assert hits, f"milestone {milestone['id']} matches no reference call"
        positions[milestone["id"]] = hits[0]
    for milestone in scenario["milestones"]:
        for before in milestone.get("after", []):
            assert positions[before] < positions[milestone["id"]], milestone["id"]
    for minefield in scenario["minefields"]:
        assert not any(call_matches(minefield, call, lang) for call in calls), minefield


@pytest.mark.parametrize("path", SCENARIO_PATHS, ids=lambda p: p.stem)
def test_languages_are_parallel(path: Path) -> None:
    scenario = SCENARIOS[path.stem]
    en = [(c["api"], sorted(c["args"])) for c in scenario["reference_calls"]]
    zh = [(c["api"], sorted(resolve_lang(c["args"], "zh"))) for c in scenario["reference_calls"]]
    assert en == zh
    for key in ("known", "unknown"):
        assert len(scenario["user"]["en"].get(key, [])) == len(scenario["user"]["zh"].get(key, [])), key
    assert len(scenario["user"]["en"]["script"]) == len(scenario["user"]["zh"]["script"])
    if "outputs" in scenario:
        assert len(scenario["outputs"]["en"]) == len(scenario["outputs"]["zh"])
