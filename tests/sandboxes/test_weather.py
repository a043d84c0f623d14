"""The weather sandbox: spec parity, business rules and determinism.

These tests read the sandbox's own files (state.yaml, specs/weather) so that a change to any of
them that breaks the contract of docs/data-model.md fails here before `callbank exec`.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import inspect
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from validator.sandbox.base import ApiError, Sandbox

ROOT = Path(__file__).resolve().parents[2]
SANDBOX_DIR = ROOT / "sandboxes" / "weather"
SPEC_DIR = ROOT / "specs" / "weather"


def _load_class() -> type[Sandbox]:
    # sandboxes/ is not a package: load the module from its file, as the runtime does.
    spec = importlib.util.spec_from_file_location("callbank_sandbox_weather", SANDBOX_DIR / "sandbox.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.WeatherSandbox


WeatherSandbox = _load_class()
STATE: dict[str, Any] = yaml.safe_load((SANDBOX_DIR / "state.yaml").read_text(encoding="utf-8"))
ALL_SPECS: dict[str, dict[str, Any]] = {
    path.stem: yaml.safe_load(path.read_text(encoding="utf-8")) for path in sorted(SPEC_DIR.glob("*.yaml"))
}
SPECS = {name: spec for name, spec in ALL_SPECS.items() if not spec.get("spec_only")}
DISTRACTORS = {name: spec for name, spec in ALL_SPECS.items() if spec.get("spec_only")}


# ----------------------------------------------------------------------------- helpers


def deep_merge(base: Any, patch: Any) -> Any:
    """Mappings merge key by key; anything else in the patch replaces the base value."""
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = dict(base)
        for key, value in patch.items():
            merged[key] = deep_merge(base.get(key), value) if key in base else copy.deepcopy(value)
        return merged
    return copy.deepcopy(patch)


def fresh(patch: dict[str, Any] | None = None, clock: str | None = None) -> Sandbox:
    state = copy.deepcopy(STATE)
    if patch:
        state["data"] = deep_merge(state["data"], patch)
    if clock:
        state["clock"] = clock
    return WeatherSandbox(state)


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


def run(sandbox: Sandbox, api: str, **args: Any) -> Any:
    """Call one API with schema-valid arguments; check the result against its spec, or that the error is declared."""
    Draft202012Validator(plain_schema(SPECS[api]["parameters"])).validate(args)
    try:
        result = getattr(sandbox, api)(**args)
    except ApiError as error:
        assert error.kind in SPECS[api].get("errors", {}), f"{api} raised undeclared error {error.kind}"
        json.dumps(error.details)
        raise
    json.dumps(result)  # results are JSON data
    Draft202012Validator(SPECS[api]["returns"]).validate(result)
    return result


def error_kind(sandbox: Sandbox, api: str, **args: Any) -> str:
    before = copy.deepcopy(sandbox.state)
    with pytest.raises(ApiError) as caught:
        run(sandbox, api, **args)
    assert sandbox.state == before, f"{api} failed with {caught.value.kind} but changed the state"
    return caught.value.kind


# ----------------------------------------------------------------------------- specs and parity


def test_state_shape() -> None:
    assert STATE["sandbox"] == "weather"
    assert set(STATE) == {"sandbox", "clock", "counters", "data"}


def test_every_method_has_a_spec_and_back() -> None:
    assert WeatherSandbox.name == "weather"
    assert sorted(SPECS) == WeatherSandbox.api_names()
    assert len(SPECS) >= 8
    assert 1 <= len(DISTRACTORS) <= 2
    for name, spec in DISTRACTORS.items():
        assert "sandbox" not in spec and not hasattr(WeatherSandbox, name)


@pytest.mark.parametrize("api", sorted(SPECS))
def test_spec_matches_signature(api: str) -> None:
    spec = SPECS[api]
    assert spec["name"] == api and spec["sandbox"] == "weather" and spec["domain"].startswith("weather.")
    params = spec["parameters"]
    required = set(params.get("required", []))
    signature = inspect.signature(getattr(WeatherSandbox, api))
    keywords = {name: p for name, p in signature.parameters.items() if name != "self"}
    assert set(keywords) == set(params["properties"])
    for name, parameter in keywords.items():
        assert parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
        has_default = parameter.default is not inspect.Parameter.empty
        assert has_default == (name not in required), f"{api}.{name}: default iff not required"
        if "default" in params["properties"][name]:
            assert parameter.default == params["properties"][name]["default"]


def _declared_errors(api: str) -> set[str]:
    """Error kinds a method can raise, read from its source and the helpers it calls."""
    tree = ast.parse((SANDBOX_DIR / "sandbox.py").read_text(encoding="utf-8"))
    methods = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    seen: set[str] = set()
    kinds: set[str] = set()

    def visit(name: str) -> None:
        if name in seen or name not in methods:
            return
        seen.add(name)
        for node in ast.walk(methods[name]):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ApiError":
                if node.args and isinstance(node.args[0], ast.Constant):
                    kinds.add(node.args[0].value)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                visit(node.attr)

    visit(api)
    return kinds


@pytest.mark.parametrize("api", sorted(SPECS))
def test_every_raisable_error_is_declared(api: str) -> None:
    assert _declared_errors(api) <= set(SPECS[api].get("errors", {})), api


@pytest.mark.parametrize("api", sorted(ALL_SPECS))
def test_spec_descriptions_bilingual_at_every_depth(api: str) -> None:
    def walk(schema: dict[str, Any], where: str) -> None:
        assert set(schema["description"]) == {"en", "zh"}, where
        assert re.search(r"[\u4e00-\u9fff]", schema["description"]["zh"]), f"{where}: zh is not Chinese"
        unquoted = re.sub(r'"[^"]*"|“[^”]*”', "", schema["description"]["en"])
        assert not re.search(r"[\u4e00-\u9fff]", unquoted), f"{where}: en has Chinese outside quotes"
        for name, child in schema.get("properties", {}).items():
            walk(child, f"{where}.{name}")
        if "items" in schema:
            walk(schema["items"], f"{where}[]")
        if schema.get("type") == "array":
            assert "items" in schema, where

    spec = ALL_SPECS[api]
    assert set(spec["description"]) == {"en", "zh"}
    for name, prop in spec["parameters"]["properties"].items():
        walk(prop, f"{api}.{name}")


def test_method_names_do_not_shadow_the_base_class() -> None:
    assert not set(WeatherSandbox.api_names()) & set(vars(Sandbox))


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
    for forbidden in ("datetime.now(", "datetime.today(", "date.today(", "open(", "utcnow(", "random"):
        assert forbidden not in source


# ----------------------------------------------------------------------------- data


def test_every_city_has_fifteen_consecutive_days() -> None:
    for key, city in STATE["data"]["cities"].items():
        dates = [row["date"] for row in city["days"]]
        assert dates == sorted(dates) and len(dates) == len(set(dates)) == 15, key
        assert dates[0] == "2024-07-10" and dates[-1] == "2024-07-24", key
        for row in city["days"]:
            assert row["low"] < row["high"], (key, row["date"])
            assert 0 <= row["rain_chance"] <= 100 and 0 <= row["humidity"] <= 100
            assert isinstance(row["wind_dir"], str)


def test_every_alert_names_a_city_and_a_window() -> None:
    cities = STATE["data"]["cities"]
    for alert_id, alert in STATE["data"]["alerts"].items():
        assert alert["city"] in cities, alert_id
        assert alert["starts"] < alert["ends"], alert_id
        assert alert["level"] in ("blue", "yellow", "orange", "red")


# ----------------------------------------------------------------------------- business rules


def test_city_names_in_either_language_reach_the_same_city() -> None:
    sandbox = fresh()
    for name in ("Xi'an", "Xian", "西安", "西安市", "xi an"):
        assert run(sandbox, "get_current_weather", city=name)["city"] == "Xi'an"
    assert run(sandbox, "get_air_quality", city="香港")["city"] == "Hong Kong"
    assert error_kind(sandbox, "get_current_weather", city="Atlantis") == "unknown_city"


def test_current_hourly_and_daily_agree() -> None:
    sandbox = fresh()
    now = run(sandbox, "get_current_weather", city="Hangzhou")
    hourly = run(sandbox, "get_hourly_forecast", city="Hangzhou", hours=1)["hours"][0]
    assert hourly["time"] == now["observed_at"] == "2024-07-15T09:00"
    assert hourly["temperature"] == now["temperature"]
    day = run(sandbox, "get_weather_forecast", city="Hangzhou")["days"]
    assert len(day) == 1 and day[0]["date"] == "2024-07-15" and day[0]["weekday"] == "mon"
    assert day[0]["low"] <= now["temperature"] <= day[0]["high"]


def test_forecast_window_is_seven_days_from_the_clock() -> None:
    sandbox = fresh()
    week = run(sandbox, "get_weather_forecast", city="Beijing", days=7)["days"]
    assert [d["date"] for d in week][-1] == "2024-07-21"
    assert run(sandbox, "get_weather_forecast", city="Beijing", start_date="2024-07-19", days=3)["days"][2]["date"] == "2024-07-21"
    assert error_kind(sandbox, "get_weather_forecast", city="Beijing", start_date="2024-07-20", days=3) == "date_out_of_range"
    assert error_kind(sandbox, "get_weather_forecast", city="Beijing", start_date="2024-07-14") == "date_out_of_range"
    assert error_kind(sandbox, "get_weather_forecast", city="Beijing", start_date="2024-02-30") == "invalid_date"
    later = fresh(clock="2024-07-18T08:00:00+08:00")
    assert run(later, "get_weather_forecast", city="Beijing", days=7)["days"][-1]["date"] == "2024-07-24"


def test_history_is_for_past_days_only() -> None:
    sandbox = fresh()
    observed = run(sandbox, "get_weather_history", city="Chengdu", date="2024-07-13")["observed"]
    assert observed["date"] == "2024-07-13" and observed["weekday"] == "sat"
    assert error_kind(sandbox, "get_weather_history", city="Chengdu", date="2024-07-15") == "date_not_in_past"
    assert error_kind(sandbox, "get_weather_history", city="Chengdu", date="2024-07-01") == "no_history"


def test_imperial_units_convert() -> None:
    sandbox = fresh()
    metric = run(sandbox, "get_weather_forecast", city="London", days=2)
    imperial = run(sandbox, "get_weather_forecast", city="London", days=2, units="imperial")
    assert imperial["units"]["temperature"] == "°F" and metric["units"]["temperature"] == "°C"
    for m, i in zip(metric["days"], imperial["days"]):
        assert abs(i["high"] - (m["high"] * 9 / 5 + 32)) <= 1


def test_hourly_forecast_crosses_midnight_and_stops_at_the_horizon() -> None:
    sandbox = fresh()
    hours = run(sandbox, "get_hourly_forecast", city="Shenzhen", hours=48)["hours"]
    assert hours[0]["time"] == "2024-07-15T09:00" and hours[-1]["time"] == "2024-07-17T08:00"
    late = fresh(clock="2024-07-23T20:00:00+08:00")
    assert error_kind(late, "get_hourly_forecast", city="Shenzhen", hours=48) == "date_out_of_range"


def test_air_uv_pollen_and_sun() -> None:
    sandbox = fresh()
    air = run(sandbox, "get_air_quality", city="Xi'an")
    assert air["category"] == "light_pollution" and air["main_pollutant"] == "o3"
    assert air["sensitive_groups_should_limit_outdoor_activity"] is True
    uv = run(sandbox, "get_uv_index", city="Shanghai", date="2024-07-16")
    assert uv["uv_index"] == 10 and uv["level"] == "very_high"
    assert run(sandbox, "get_uv_index", city="Sydney")["level"] in ("low", "moderate")
    pollen = run(sandbox, "get_pollen_forecast", city="Harbin")
    assert pollen["overall"] == "high"
    sun = run(sandbox, "get_sun_times", city="London", date="2024-07-20")
    assert sun == {"city": "London", "date": "2024-07-20", "sunrise": "05:06", "sunset": "21:06", "day_length": "16:00"}
    assert error_kind(sandbox, "get_sun_times", city="London", date="2024-09-01") == "date_out_of_range"
    assert error_kind(sandbox, "get_uv_index", city="Shanghai", date="2024-07-22") == "date_out_of_range"


def test_rain_lowers_pollen_by_one_step() -> None:
    sandbox = fresh()
    wet = next(r for r in STATE["data"]["cities"]["kunming"]["days"] if r["date"] >= "2024-07-15" and r["rain_chance"] >= 60)
    dry = fresh({"cities": {"kunming": {"days": [{**wet, "rain_chance": 10}]}}}, clock=f"{wet['date']}T09:00:00+08:00")
    wet_run = fresh(clock=f"{wet['date']}T09:00:00+08:00")
    assert run(dry, "get_pollen_forecast", city="Kunming")["levels"]["grass"] == "high"
    assert run(wet_run, "get_pollen_forecast", city="Kunming")["levels"]["grass"] == "moderate"
    del sandbox


def test_alerts_active_and_upcoming() -> None:
    sandbox = fresh()
    assert [a["id"] for a in run(sandbox, "get_weather_alerts", city="Chongqing")["active"]] == ["WA-301"]
    beijing = run(sandbox, "get_weather_alerts", city="Beijing")
    assert beijing == {"city": "Beijing", "active": []}
    ahead = run(sandbox, "get_weather_alerts", city="Beijing", include_upcoming=True)
    assert [a["id"] for a in ahead["upcoming"]] == ["WA-306"]
    # An expired warning is neither active nor upcoming.
    xian = run(sandbox, "get_weather_alerts", city="Xian", include_upcoming=True)
    assert xian["active"] == [] and xian["upcoming"] == []
    afternoon = fresh(clock="2024-07-15T15:00:00+08:00")
    assert [a["level"] for a in run(afternoon, "get_weather_alerts", city="北京")["active"]] == ["yellow"]


def test_subscriptions() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "subscribe_weather_alerts", city="上海", channel="push") == "already_subscribed"
    first = run(sandbox, "subscribe_weather_alerts", city="Shanghai", channel="email", min_level="orange")
    assert first["subscription_id"] == "WS-3" and first["all_types"] is True
    second = run(sandbox, "subscribe_weather_alerts", city="深圳", channel="sms", alert_types=["typhoon", "rainstorm"])
    assert second["alert_types"] == ["rainstorm", "typhoon"] and second["subscription_id"] == "WS-4"
    assert sandbox.data["subscriptions"]["WS-4"]["city"] == "shenzhen"


def test_same_calls_same_results() -> None:
    def script() -> tuple[list[Any], dict[str, Any]]:
        sandbox = fresh()
        results = [
            run(sandbox, "get_hourly_forecast", city="Wuhan", hours=30),
            run(sandbox, "subscribe_weather_alerts", city="Wuhan", channel="push"),
            run(sandbox, "get_weather_forecast", city="Tokyo", days=5, units="imperial"),
        ]
        return results, sandbox.state

    assert script() == script()
