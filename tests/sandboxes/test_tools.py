"""The tools sandbox: BM25 tool search over the whole API catalog, in English and Chinese.

The catalog is every spec under specs/, loaded the way the runtime hands it to the sandbox
(plain spec dicts). The expected top-1 results below are the APIs a person would pick for each
query; if a new spec outranks one of them, either the new spec's description is too generic or
the query needs to say more.
"""

from __future__ import annotations

import copy
import inspect
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.sandboxes import support
from validator.sandbox.base import ApiError, Sandbox
from validator.toolsearch import reference_query

NAME = "tools"
ROOT = Path(__file__).resolve().parents[2]
ToolsSandbox = support.sandbox_class(NAME)
MODULE = sys.modules[ToolsSandbox.__module__]
STATE: dict[str, Any] = support.state(NAME)
SPEC: dict[str, Any] = support.specs(NAME)["search_tools"]
CATALOG: list[dict[str, Any]] = list(support.catalog())


def fresh(catalog: list[dict[str, Any]] | None = None) -> Sandbox:
    return support.fresh(NAME, catalog_specs=CATALOG if catalog is None else catalog)


def search(sandbox: Sandbox, **args: Any) -> list[dict[str, Any]]:
    """search_tools with checked arguments; the result is JSON valid against the spec's returns."""
    return support.call(sandbox, "search_tools", **args)["results"]


def top(query: str) -> str:
    results = search(fresh(), query=query)
    assert results, f"nothing found for {query!r}"
    return results[0]["name"]


def fake_spec(name: str, en: str, zh: str, domain: str = "demo.things") -> dict[str, Any]:
    return {
        "name": name,
        "domain": domain,
        "sandbox": "demo",
        "description": {"en": en, "zh": zh},
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": {"en": "City name.", "zh": "城市名称。"}},
                "options": {
                    "type": "object",
                    "description": {"en": "Extra options.", "zh": "其他选项。"},
                    "properties": {"unit": {"type": "string", "enum": ["c", "f"], "description": {"en": "Temperature unit.", "zh": "温度单位。"}}},
                },
                "days": {
                    "type": "array",
                    "description": {"en": "Days to cover.", "zh": "覆盖的日期。"},
                    "items": {"type": "string", "description": {"en": "One day.", "zh": "某一天。"}},
                },
            },
            "required": ["city"],
            "additionalProperties": False,
        },
        "returns": {"type": "object"},
    }


# ----------------------------------------------------------------------------- contract


def test_sandbox_contract() -> None:
    assert ToolsSandbox.name == "tools" and ToolsSandbox.needs_catalog is True
    assert ToolsSandbox.api_names() == ["search_tools"]
    assert set(STATE["data"]) == {"bm25", "field_weights"}
    assert SPEC["domain"] == "tools.search" and not support.distractors(NAME)
    signature = inspect.signature(ToolsSandbox.search_tools)
    assert list(signature.parameters) == ["self", "query", "top_k"]
    assert signature.parameters["query"].default is inspect.Parameter.empty
    assert signature.parameters["top_k"].default == SPEC["parameters"]["properties"]["top_k"]["default"] == 5


def test_tokenizer() -> None:
    assert MODULE.tokenize("Plan the driving routes") == ["plan", "driving", "route"]
    assert MODULE.tokenize("规划路线") == ["规", "划", "路", "线", "规划", "划路", "路线"]
    assert MODULE.tokenize("帮我订") == ["订", "帮我", "我订"]  # function characters dropped as unigrams only
    assert MODULE.tokenize("ＡＢＣ dictionaries") == ["abc", "dictionary"]  # NFKC, plural folded


# ----------------------------------------------------------------------------- ranking

EXPECTED_TOP = {
    # English
    "plan a driving route": "plan_route",
    "find coffee shops nearby": "search_nearby",
    "live traffic on a road": "get_traffic",
    "latitude longitude to address": "reverse_geocode",
    "add a product to the shopping cart": "add_to_cart",
    "track my parcel delivery": "track_order",
    "send a text message to a contact": "send_message",
    "set an alarm clock": "set_alarm",
    "transfer money to a saved payee": "transfer_to_payee",
    "freeze a lost bank card": "bank_freeze_card",
    "search high-speed train tickets": "search_trains",
    "restaurant menu and dish prices": "get_menu",
    # Chinese
    "规划驾车路线": "plan_route",
    "附近的咖啡店": "search_nearby",
    "实时路况": "get_traffic",
    "申请退货": "request_return",
    "查看购物车": "view_cart",
    "发短信": "send_message",
    "定个闹钟": "set_alarm",
    "把这个地方加入收藏": "save_place",
    "申请个人贷款": "apply_for_loan",
    "查询物流": "track_order",
}


@pytest.mark.parametrize("query", sorted(EXPECTED_TOP))
def test_expected_top_result(query: str) -> None:
    assert top(query) == EXPECTED_TOP[query]


def test_result_language_follows_the_query() -> None:
    english = search(fresh(), query="plan a route", top_k=1)[0]
    chinese = search(fresh(), query="规划路线", top_k=1)[0]
    assert english["name"] == chinese["name"] == "plan_route"
    spec = next(s for s in CATALOG if s["name"] == "plan_route")
    assert english["description"] == spec["description"]["en"]
    assert chinese["description"] == spec["description"]["zh"]
    mode = chinese["parameters"]["properties"]["mode"]
    assert mode["description"] == spec["parameters"]["properties"]["mode"]["description"]["zh"]
    assert mode["enum"] == ["driving", "walking", "cycling", "transit"] and mode["default"] == "driving"
    assert chinese["parameters"]["properties"]["waypoints"]["items"]["description"] == "途经的一个地点，写法与出发地相同。"
    # a mixed query with any Chinese character is answered in Chinese
    assert re.search(r"[\u4e00-\u9fff]", search(fresh(), query="route 路线", top_k=1)[0]["description"])


def test_parameters_are_plain_json_schema_at_every_depth() -> None:
    catalog = [fake_spec("get_weather_report", "Weather report for a city.", "查询城市天气预报。")]
    result = search(fresh(catalog), query="weather")[0]
    params = result["parameters"]
    assert params["properties"]["options"]["properties"]["unit"] == {"type": "string", "enum": ["c", "f"], "description": "Temperature unit."}
    assert params["properties"]["days"]["items"]["description"] == "One day."
    assert params["required"] == ["city"] and params["additionalProperties"] is False

    def no_bilingual(value: Any) -> None:
        if isinstance(value, dict):
            assert not ({"en", "zh"} <= set(value)), value
            for item in value.values():
                no_bilingual(item)
        elif isinstance(value, list):
            for item in value:
                no_bilingual(item)

    for query in ("weather", "天气"):
        no_bilingual(search(fresh(catalog), query=query))


def test_ties_are_broken_by_name() -> None:
    twins = [
        fake_spec("zeta_forecast", "Forecast the weather.", "预报天气。"),
        fake_spec("alpha_forecast", "Forecast the weather.", "预报天气。"),
        fake_spec("mid_forecast", "Forecast the weather.", "预报天气。"),
    ]
    # names differ, so make the name field carry no query word: the scores are equal
    for order in (twins, list(reversed(twins)), [twins[1], twins[2], twins[0]]):
        assert [r["name"] for r in search(fresh(order), query="weather")] == ["alpha_forecast", "mid_forecast", "zeta_forecast"]
        assert [r["name"] for r in search(fresh(order), query="天气")] == ["alpha_forecast", "mid_forecast", "zeta_forecast"]


def test_only_matching_specs_and_top_k() -> None:
    sandbox = fresh()
    assert len(search(sandbox, query="route", top_k=2)) == 2
    assert len(search(sandbox, query="booking", top_k=10)) == 10
    assert search(sandbox, query="xylophone quasar") == []
    with pytest.raises(ApiError) as caught:
        sandbox.search_tools(query="the of and")
    assert caught.value.kind == "empty_query" and caught.value.kind in SPEC["errors"]


def test_every_api_finds_itself_by_its_own_description() -> None:
    sandbox = fresh()
    misses = []
    for spec in CATALOG:
        for lang in ("en", "zh"):
            names = [r["name"] for r in search(sandbox, query=spec["description"][lang][:400], top_k=10)]
            if spec["name"] not in names:
                misses.append((spec["name"], lang))
    assert not misses, misses


def test_search_is_deterministic_and_read_only() -> None:
    catalog = copy.deepcopy(CATALOG)
    sandbox = fresh(catalog)
    before = copy.deepcopy(sandbox.state)
    first = search(sandbox, query="取消订单", top_k=10)
    second = search(fresh(list(reversed(catalog))), query="取消订单", top_k=10)
    assert first == second
    assert sandbox.state == before and catalog == CATALOG


def test_every_runnable_api_is_found_by_its_reference_query() -> None:
    """What EXE018 requires of every API a retrieval case expects, checked for the whole catalog:
    the oracle's query (the first sentence of the description) ranks the API within the default top_k."""
    sandbox = fresh()
    misses = []
    for spec in CATALOG:
        if spec.get("spec_only"):
            continue
        for lang in ("en", "zh"):
            query = reference_query(spec, lang)
            names = [r["name"] for r in search(sandbox, query=query)]
            if spec["name"] not in names:
                misses.append((spec["name"], lang, query, names))
    assert not misses, misses


@pytest.mark.parametrize("fixture", ["scoring", "retrieval"])
def test_fixture_repositories_search_with_this_sandbox(fixture: str) -> None:
    """The test repositories carry a copy of the tools sandbox: it must be this one, byte for byte."""
    real = ROOT / "sandboxes" / NAME
    copy_ = ROOT / "tests" / "fixtures" / "repos" / fixture / "sandboxes" / NAME
    for name in ("sandbox.py", "state.yaml", "policy.en.md", "policy.zh.md"):
        assert (copy_ / name).read_bytes() == (real / name).read_bytes(), f"{copy_ / name} differs; copy {real / name} over it"
    spec = ROOT / "specs" / "tools" / "search_tools.yaml"
    assert (ROOT / "tests" / "fixtures" / "repos" / fixture / "specs" / "tools" / "search_tools.yaml").read_bytes() == spec.read_bytes()
