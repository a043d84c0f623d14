"""Tests of the ``food`` sandbox: business rules, determinism, spec ↔ code parity, scenarios.

Scenarios are replayed in both languages: ``$lang`` values resolved for the run's language and
``initial_state[food]`` deep-merged into the state's data, as the runtime does.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import inspect
import itertools
import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from validator.loading import load_file
from validator.sandbox.base import ApiError, Sandbox

ROOT = Path(__file__).resolve().parents[2]
SANDBOX_DIR = ROOT / "sandboxes" / "food"
SPEC_DIR = ROOT / "specs" / "food"
SCENARIO_DIR = SANDBOX_DIR / "scenarios"
LANGS = ("en", "zh")
MISSING = object()


# ----------------------------------------------------------------------------- loading


def _load(path: Path, kind: str) -> Any:
    document, problems = load_file(ROOT, path.relative_to(ROOT).as_posix(), kind)
    assert not problems, f"{path}: {problems}"
    assert document is not None
    return document


def _module() -> Any:
    spec = importlib.util.spec_from_file_location("callbank_sandbox_food", SANDBOX_DIR / "sandbox.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


MODULE = _module()
FoodSandbox = MODULE.FoodSandbox
STATE_DOC = _load(SANDBOX_DIR / "state.yaml", "state")
STATE: dict[str, Any] = STATE_DOC.data
SPEC_DOCS = {path.stem: _load(path, "api") for path in sorted(SPEC_DIR.glob("*.yaml"))}
SPECS: dict[str, dict[str, Any]] = {name: doc.data for name, doc in SPEC_DOCS.items()}
SCENARIO_DOCS = {path.stem: _load(path, "scenario") for path in sorted(SCENARIO_DIR.glob("*.yaml"))}
SCENARIOS: dict[str, dict[str, Any]] = {name: doc.data for name, doc in SCENARIO_DOCS.items()}


def _registry() -> Registry:
    registry = Registry()
    for path in (ROOT / "schemas").glob("*.schema.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
    return registry


REGISTRY = _registry()


def _schema_validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((ROOT / "schemas" / name).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema, registry=REGISTRY)


def _render(schema: Any, lang: str) -> Any:
    """A parameter schema for one language: every bilingual description becomes a string."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key == "description" and isinstance(value, dict) and set(value) == {"en", "zh"}:
                out[key] = value[lang]
            else:
                out[key] = _render(value, lang)
        return out
    if isinstance(schema, list):
        return [_render(item, lang) for item in schema]
    return schema


def fresh(patch: dict[str, Any] | None = None) -> Any:
    state = copy.deepcopy(STATE)
    if patch:
        _deep_merge(state["data"], copy.deepcopy(patch))
    return FoodSandbox(state)


def login(sandbox: Any, account: str = "linxiao", password: str = "Lx-2024!") -> None:
    sandbox.food_login(account=account, password=password)


def _deep_merge(base: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _deep_merge(base[key], value)
        else:
            base[key] = value


def _resolve(value: Any, lang: str) -> Any:
    """A reference-call argument for one language (only literals and $lang occur there)."""
    if isinstance(value, dict):
        if "$lang" in value:
            return _resolve(value["$lang"][lang], lang)
        assert not any(key.startswith("$") for key in value), f"unexpected matcher in reference call: {value}"
        return {key: _resolve(item, lang) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolve(item, lang) for item in value]
    return value


# ----------------------------------------------------------------------------- matchers


def _normal_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text)
    return " ".join(text.split())


def _matches(pattern: Any, value: Any, lang: str) -> bool:
    if isinstance(pattern, dict) and pattern and all(key.startswith("$") for key in pattern):
        if "$lang" in pattern:
            return _matches(pattern["$lang"][lang], value, lang)
        if "$any" in pattern:
            return any(_matches(option, value, lang) for option in pattern["$any"])
        if "$optional" in pattern:
            return value is MISSING or _matches(pattern["$optional"], value, lang)
        if value is MISSING:
            return False
        if "$text" in pattern:
            return isinstance(value, str) and _normal_text(value) == _normal_text(pattern["$text"])
        if "$approx" in pattern:
            return isinstance(value, (int, float)) and abs(value - pattern["$approx"]) <= pattern["$tol"]
        if "$regex" in pattern:
            return isinstance(value, str) and re.fullmatch(pattern["$regex"], value) is not None
        if "$literal" in pattern:
            return value == pattern["$literal"]
        if "$unordered" in pattern:
            items = pattern["$unordered"]
            if not isinstance(value, list) or len(value) != len(items):
                return False
            return any(
                all(_matches(items[i], value[j], lang) for i, j in enumerate(order))
                for order in itertools.permutations(range(len(value)))
            )
        raise AssertionError(f"unknown matcher {pattern}")
    if value is MISSING:
        return False
    if isinstance(pattern, dict):
        if not isinstance(value, dict):
            return False
        keys = set(pattern) | set(value)
        return all(_matches(pattern.get(key, MISSING), value.get(key, MISSING), lang) for key in keys if key in pattern) and all(
            key in pattern for key in value
        )
    if isinstance(pattern, list):
        return isinstance(value, list) and len(pattern) == len(value) and all(
            _matches(p, v, lang) for p, v in zip(pattern, value)
        )
    if isinstance(pattern, bool) or isinstance(value, bool):
        return pattern is value
    return pattern == value


def _call_matches(pattern: dict[str, Any], call: dict[str, Any], lang: str) -> bool:
    """A milestone / minefield pattern against a resolved call: api equal, args a subset."""
    if pattern["api"] != call["api"]:
        return False
    return all(_matches(value, call["args"].get(key, MISSING), lang) for key, value in (pattern.get("args") or {}).items())


# ----------------------------------------------------------------------------- replay


def replay(scenario: dict[str, Any], lang: str) -> tuple[dict[str, Any], list[Any], list[dict[str, Any]]]:
    """Replay the reference calls; returns (end state {food: data}, results, resolved calls)."""
    sandbox = fresh((scenario.get("initial_state") or {}).get("food"))
    results, calls = [], []
    for call in scenario["reference_calls"]:
        args = _resolve(call["args"], lang)
        calls.append({"api": call["api"], "args": args})
        try:
            results.append(getattr(sandbox, call["api"])(**args))
        except ApiError as error:  # pragma: no cover - reported as a failure
            raise AssertionError(f"{scenario['id']} [{lang}] {call['api']}({args}) raised {error.kind} {error.details}")
    return {"food": copy.deepcopy(sandbox.data)}, results, calls


# ============================================================================= files


def test_state_and_files_follow_their_schemas() -> None:
    assert STATE_DOC.first_line == "# yaml-language-server: $schema=../../schemas/state.schema.json"
    assert not list(_schema_validator("state.schema.json").iter_errors(STATE))
    assert STATE["sandbox"] == "food"
    api = _schema_validator("api.schema.json")
    for name, doc in SPEC_DOCS.items():
        assert doc.first_line == "# yaml-language-server: $schema=../../schemas/api.schema.json", name
        errors = [error.message for error in api.iter_errors(doc.data)]
        assert not errors, (name, errors)
    scenario = _schema_validator("scenario.schema.json")
    for name, doc in SCENARIO_DOCS.items():
        assert doc.first_line == "# yaml-language-server: $schema=../../../schemas/scenario.schema.json", name
        errors = [error.message for error in scenario.iter_errors(doc.data)]
        assert not errors, (name, errors)


def test_policy_exists_in_both_languages() -> None:
    en = (SANDBOX_DIR / "policy.en.md").read_text(encoding="utf-8")
    zh = (SANDBOX_DIR / "policy.zh.md").read_text(encoding="utf-8")
    assert en.count("\n- ") == zh.count("\n- ")
    assert en.count("## ") == zh.count("## ")


# ============================================================================= spec ↔ code parity


def _property_paths(schema: dict[str, Any], path: str = "") -> list[tuple[str, dict[str, Any]]]:
    found = []
    for name, prop in (schema.get("properties") or {}).items():
        here = f"{path}.{name}" if path else name
        found.append((here, prop))
        found.extend(_property_paths(prop, here))
        if prop.get("type") == "array":
            items = prop["items"]
            found.append((here + "[]", items))
            found.extend(_property_paths(items, here + "[]"))
    return found


def test_specs_and_methods_correspond() -> None:
    assert FoodSandbox.name == "food"
    assert issubclass(FoodSandbox, Sandbox)
    assert sorted(SPECS) == FoodSandbox.api_names()
    assert len(SPECS) >= 15
    for name, spec in SPECS.items():
        assert spec["name"] == name and spec["sandbox"] == "food"
        assert spec["domain"].startswith("food.")
        params = spec["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        required = set(params.get("required", []))
        assert required <= set(params["properties"])
        signature = inspect.signature(getattr(FoodSandbox, name))
        keywords = {key: p for key, p in signature.parameters.items() if key != "self"}
        assert set(keywords) == set(params["properties"]), name
        for key, parameter in keywords.items():
            assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, (name, key)
            has_default = parameter.default is not inspect.Parameter.empty
            assert has_default == (key not in required), (name, key)
            if "default" in params["properties"][key]:
                assert parameter.default == params["properties"][key]["default"], (name, key)
        for path, prop in _property_paths(params):
            if not path.endswith("[]") or prop.get("type") == "object":
                assert set(prop.get("description", {})) == {"en", "zh"}, (name, path)
            if prop.get("type") == "array":
                assert "items" in prop, (name, path)
            if prop.get("type") == "object":
                assert prop.get("additionalProperties") is False, (name, path)
        jsonschema.Draft202012Validator.check_schema(spec["returns"])
        for lang in LANGS:
            jsonschema.Draft202012Validator.check_schema(_render(params, lang))


def _raised_kinds() -> dict[str, set[str]]:
    """Error kinds each public method can raise, following calls to self._helpers (static)."""
    tree = ast.parse((SANDBOX_DIR / "sandbox.py").read_text(encoding="utf-8"))
    cls = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "FoodSandbox")
    direct: dict[str, set[str]] = {}
    calls: dict[str, set[str]] = {}
    for fn in cls.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        direct[fn.name], calls[fn.name] = set(), set()
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ApiError":
                assert isinstance(node.args[0], ast.Constant)
                direct[fn.name].add(node.args[0].value)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "self"
            ):
                calls[fn.name].add(node.func.attr)

    def closure(name: str, seen: set[str]) -> set[str]:
        kinds = set(direct.get(name, set()))
        for callee in calls.get(name, set()):
            if callee in direct and callee not in seen:
                kinds |= closure(callee, seen | {callee})
        return kinds

    return {name: closure(name, {name}) for name in direct if not name.startswith("_")}


def test_declared_errors_equal_raised_errors() -> None:
    for name, kinds in _raised_kinds().items():
        declared = set((SPECS[name].get("errors") or {}))
        assert kinds == declared, (name, sorted(kinds ^ declared))


# ============================================================================= business rules


def test_browsing_needs_no_login_but_account_actions_do() -> None:
    sandbox = fresh()
    assert sandbox.search_merchants(cuisine="sichuan")["count"] == 1
    assert sandbox.get_menu(merchant_id="M-101")["is_open"] is True
    calls = [
        ("food_get_balance", {}),
        ("food_top_up", {"amount": 10, "payment_method": "alipay"}),
        ("list_delivery_addresses", {}),
        ("list_food_coupons", {}),
        ("list_food_orders", {}),
        ("food_logout", {}),
        ("quote_food_order", {"merchant_id": "M-101", "items": [{"item_id": "I-101-01", "quantity": 1}]}),
        (
            "place_food_order",
            {"merchant_id": "M-101", "items": [{"item_id": "I-101-01", "quantity": 1}], "address_id": "A-1"},
        ),
        ("cancel_food_order", {"order_id": "FO1004"}),
    ]
    before = copy.deepcopy(sandbox.state)
    for api, args in calls:
        with pytest.raises(ApiError) as caught:
            getattr(sandbox, api)(**args)
        assert caught.value.kind == "not_logged_in", api
    assert sandbox.state == before


def test_login_rules() -> None:
    sandbox = fresh()
    with pytest.raises(ApiError, match="missing_credentials"):
        sandbox.food_login(account="linxiao")
    with pytest.raises(ApiError, match="wrong_password"):
        sandbox.food_login(account="linxiao", password="guess")
    with pytest.raises(ApiError, match="account_not_found"):
        sandbox.food_login(account="nobody", password="x")
    result = sandbox.food_login(account="13800138001", password="Lx-2024!")
    assert result["user_id"] == "U-1" and result["balance"] == 86.5
    with pytest.raises(ApiError, match="already_logged_in"):
        sandbox.food_login(account="mchen", password="Mc_8899")
    with pytest.raises(ApiError, match="wrong_password"):
        sandbox.food_login(account="linxiao", password="guess")
    before = copy.deepcopy(sandbox.state)
    assert sandbox.food_login(account="linxiao", password="Lx-2024!")["user_id"] == "U-1"
    assert sandbox.state == before  # logging in again to the same account changes nothing
    sandbox.food_logout()
    assert sandbox.data["session"]["user_id"] is None
    with pytest.raises(ApiError, match="not_logged_in"):
        sandbox.food_logout()


def test_login_code_is_deterministic_resent_and_single_use() -> None:
    sandbox = fresh()
    first = sandbox.food_send_login_code(account="zhouyu")
    again = sandbox.food_send_login_code(account="zhouyu")
    assert first["sent_to"] == "137****7003" and not first["resent"] and again["resent"]
    assert sandbox.state["counters"]["login_code"] == 604218
    with pytest.raises(ApiError, match="invalid_login_code"):
        sandbox.food_login(account="zhouyu", login_code="123456")
    sandbox.food_login(account="zhouyu", login_code="604218")
    sandbox.food_logout()
    with pytest.raises(ApiError, match="invalid_login_code"):
        sandbox.food_login(account="zhouyu", login_code="604218")
    sandbox.advance_clock(minutes=6)
    assert sandbox.food_send_login_code(account="zhouyu")["resent"] is False
    sandbox.advance_clock(minutes=6)
    with pytest.raises(ApiError, match="invalid_login_code"):
        sandbox.food_login(account="zhouyu", login_code="604219")


def test_insufficient_balance_changes_nothing() -> None:
    sandbox = fresh()
    login(sandbox, "mchen", "Mc_8899")
    items = [{"item_id": "I-103-01", "quantity": 1}]
    quote = sandbox.quote_food_order(merchant_id="M-103", items=items)
    assert quote["total"] == 76.0 and quote["balance"] == 23.0 and quote["balance_sufficient"] is False
    before = copy.deepcopy(sandbox.state)
    with pytest.raises(ApiError) as caught:
        sandbox.place_food_order(merchant_id="M-103", items=items, address_id="A-3")
    assert caught.value.kind == "insufficient_balance"
    assert caught.value.details == {"total": 76.0, "balance": 23.0, "shortfall": 53.0}
    assert sandbox.state == before


def test_menu_and_merchant_rules() -> None:
    sandbox = fresh()
    login(sandbox)
    cases = [
        ("M-999", [{"item_id": "I-101-01", "quantity": 1}], None, "merchant_not_found"),
        ("M-104", [{"item_id": "I-104-01", "quantity": 2}], None, "merchant_closed"),
        ("M-106", [{"item_id": "I-106-01", "quantity": 1}], None, "merchant_closed"),
        ("M-101", [{"item_id": "I-103-01", "quantity": 1}], None, "item_not_on_menu"),
        ("M-101", [{"item_id": "I-101-04", "quantity": 1}], None, "item_sold_out"),
        ("M-101", [{"item_id": "I-101-01", "quantity": 0}], None, "invalid_quantity"),
        ("M-101", [{"item_id": "I-101-05", "quantity": 2}], None, "below_minimum_order"),
        ("M-101", [{"item_id": "I-101-01", "quantity": 1}], "NOPE1", "coupon_not_found"),
        ("M-101", [{"item_id": "I-101-01", "quantity": 1}], "WELCOME20", "coupon_not_found"),
        ("M-101", [{"item_id": "I-101-01", "quantity": 2}], "SPRING15", "coupon_expired"),
        ("M-107", [{"item_id": "I-107-01", "quantity": 1}], "SICHUAN5", "coupon_not_applicable"),
        ("M-101", [{"item_id": "I-101-03", "quantity": 1}], "SICHUAN5", "coupon_min_spend_not_met"),
    ]
    before = copy.deepcopy(sandbox.state)
    for merchant_id, items, coupon, kind in cases:
        for api in ("quote_food_order", "place_food_order"):
            args: dict[str, Any] = {"merchant_id": merchant_id, "items": items, "coupon_code": coupon}
            if api == "place_food_order":
                args["address_id"] = "A-1"
            with pytest.raises(ApiError) as caught:
                getattr(sandbox, api)(**args)
            assert caught.value.kind == kind, (api, merchant_id, items, coupon)
    with pytest.raises(ApiError, match="address_not_found"):
        sandbox.place_food_order(merchant_id="M-101", items=[{"item_id": "I-101-01", "quantity": 1}], address_id="A-3")
    assert sandbox.state == before
    # the clock decides opening hours, including past midnight
    sandbox.state["clock"] = "2024-07-15T23:30:00+08:00"
    assert sandbox.get_menu(merchant_id="M-104")["is_open"] is True
    assert sandbox.get_menu(merchant_id="M-101")["is_open"] is False
    sandbox.state["clock"] = "2024-07-16T01:59:00+08:00"
    assert sandbox.search_merchants(open_now=True)["merchants"][0]["merchant_id"] == "M-104"


def test_order_pricing_coupon_and_money_rounding() -> None:
    sandbox = fresh({"users": {"U-1": {"balance": 100.1}}})
    login(sandbox)
    result = sandbox.place_food_order(
        merchant_id="M-101",
        items=[{"item_id": "I-101-03", "quantity": 1}, {"item_id": "I-101-01", "quantity": 1}, {"item_id": "I-101-03", "quantity": 1}],
        address_id="A-2",
        note="少放辣",
        coupon_code="sichuan5",
    )
    assert result["order_id"] == "FO1008"
    assert (result["subtotal"], result["delivery_fee"], result["discount"], result["total"]) == (72.0, 4.0, 5.0, 71.0)
    assert result["balance"] == 29.1 and result["estimated_delivery_at"] == "2024-07-15T12:05:00+08:00"
    order = sandbox.data["orders"]["FO1008"]
    assert [(line["item_id"], line["quantity"]) for line in order["items"]] == [("I-101-03", 2), ("I-101-01", 1)]
    assert sandbox.data["coupons"]["SICHUAN5"]["used_order_id"] == "FO1008"
    with pytest.raises(ApiError, match="coupon_already_used"):
        sandbox.quote_food_order(merchant_id="M-101", items=[{"item_id": "I-101-02", "quantity": 1}], coupon_code="SICHUAN5")
    assert sandbox.data["transactions"][-1] == {
        "transaction_id": "T1012",
        "user_id": "U-1",
        "type": "payment",
        "amount": 71.0,
        "order_id": "FO1008",
        "payment_method": None,
        "created_at": "2024-07-15T11:30:00+08:00",
        "balance_after": 29.1,
    }
    topped = sandbox.food_top_up(amount=10.3, payment_method="alipay")
    assert topped["balance"] == 39.4  # not 39.400000000000006
    with pytest.raises(ApiError, match="payment_method_not_linked"):
        sandbox.food_top_up(amount=10, payment_method="wechat_pay")
    with pytest.raises(ApiError, match="invalid_amount"):
        sandbox.food_top_up(amount=10.005, payment_method="alipay")


def test_cancel_rules_refund_and_coupon_return() -> None:
    sandbox = fresh()
    login(sandbox)
    with pytest.raises(ApiError) as caught:
        sandbox.cancel_food_order(order_id="FO1003")
    assert caught.value.kind == "order_already_dispatched"
    with pytest.raises(ApiError, match="order_already_dispatched"):
        sandbox.cancel_food_order(order_id="FO1001")
    with pytest.raises(ApiError, match="order_not_found"):
        sandbox.cancel_food_order(order_id="FO1005")  # another user's order
    result = sandbox.cancel_food_order(order_id="FO1004", reason="ordered_by_mistake")
    assert result == {"order_id": "FO1004", "status": "cancelled", "refund_amount": 62.0, "balance": 148.5, "coupon_returned": False}
    with pytest.raises(ApiError, match="order_already_cancelled"):
        sandbox.cancel_food_order(order_id="FO1004")
    sandbox.food_logout()
    login(sandbox, "zhouyu", "Zy#0715")
    result = sandbox.cancel_food_order(order_id="FO1005")
    assert result["refund_amount"] == 73.0 and result["coupon_returned"] is True
    assert sandbox.data["coupons"]["DIMSUM6"]["used_order_id"] is None
    assert [c["code"] for c in sandbox.list_food_coupons()["coupons"]] == ["WELCOME20", "DIMSUM6"]


def test_rating_rules() -> None:
    sandbox = fresh()
    login(sandbox)
    with pytest.raises(ApiError, match="order_not_delivered"):
        sandbox.rate_food_order(order_id="FO1004", stars=3)
    with pytest.raises(ApiError, match="order_already_rated"):
        sandbox.rate_food_order(order_id="FO1002", stars=3)
    with pytest.raises(ApiError, match="order_not_found"):
        sandbox.rate_food_order(order_id="FO1007", stars=3)
    result = sandbox.rate_food_order(order_id="FO1001", stars=4, comment="Good")
    assert result == {"order_id": "FO1001", "stars": 4, "comment": "Good", "rated_at": "2024-07-15T11:30:00+08:00"}


def test_lists_and_search() -> None:
    sandbox = fresh()
    assert [m["merchant_id"] for m in sandbox.search_merchants(keyword="提拉米苏")["merchants"]] == ["M-103"]
    assert sandbox.search_merchants(keyword="Tiramisu")["merchants"][0]["matched_items"] == ["I-103-04"]
    assert [m["merchant_id"] for m in sandbox.search_merchants(cuisine="cantonese")["merchants"]] == ["M-102", "M-106"]
    assert [m["merchant_id"] for m in sandbox.search_merchants(cuisine="cantonese", open_now=True)["merchants"]] == ["M-102"]
    assert sandbox.search_merchants(keyword="夜猫子")["merchants"][0]["is_open"] is False
    login(sandbox)
    orders = sandbox.list_food_orders()
    assert [o["order_id"] for o in orders["orders"]] == ["FO1004", "FO1003", "FO1002", "FO1001"]
    assert [o["order_id"] for o in sandbox.list_food_orders(status="delivered", limit=1)["orders"]] == ["FO1002"]
    assert [c["code"] for c in sandbox.list_food_coupons()["coupons"]] == ["LUNCH10", "SICHUAN5"]
    assert len(sandbox.list_food_coupons(include_unusable=True)["coupons"]) == 3
    assert [t["transaction_id"] for t in sandbox.food_list_wallet_transactions(limit=2)["transactions"]] == ["T1010", "T1009"]
    address = sandbox.add_delivery_address(label="other", address="Somewhere 1", contact_name="Lin", contact_phone="13800138001")
    assert address["address_id"] == "A-6"


def test_ids_are_deterministic() -> None:
    def run() -> tuple[list[str], dict[str, Any]]:
        sandbox = fresh()
        login(sandbox, "zhouyu", "Zy#0715")
        ids = []
        for _ in range(2):
            ids.append(
                sandbox.place_food_order(
                    merchant_id="M-107", items=[{"item_id": "I-107-02", "quantity": 1}], address_id="A-4"
                )["order_id"]
            )
        ids.append(sandbox.food_top_up(amount=20, payment_method="bank_card")["transaction_id"])
        return ids, sandbox.state

    first, second = run(), run()
    assert first[0] == ["FO1008", "FO1009", "T1014"]
    assert first == second


def test_results_are_json_and_match_returns_schemas() -> None:
    sandbox = fresh()
    login(sandbox)
    calls = [
        ("search_merchants", {}),
        ("get_menu", {"merchant_id": "M-102"}),
        ("food_get_balance", {}),
        ("food_list_wallet_transactions", {}),
        ("list_delivery_addresses", {}),
        ("list_food_coupons", {"include_unusable": True}),
        ("list_food_orders", {}),
        ("get_food_order", {"order_id": "FO1002"}),
        ("get_food_order", {"order_id": "FO1001"}),
    ]
    for api, args in calls:
        result = getattr(sandbox, api)(**args)
        assert json.loads(json.dumps(result)) == result
        jsonschema.validate(result, SPECS[api]["returns"])
        # results are copies: changing them does not change the state
    result = sandbox.get_food_order(order_id="FO1002")
    result["items"].clear()
    assert sandbox.data["orders"]["FO1002"]["items"]


# ============================================================================= scenarios


def test_there_are_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 11
    modes = {scenario["mode"] for scenario in SCENARIOS.values()}
    assert modes == {"multi_turn", "multi_step"}
    assert sum(bool(s.get("no_change")) for s in SCENARIOS.values()) <= 1


@pytest.mark.parametrize("scenario_id", sorted(SCENARIOS))
def test_scenario_shape(scenario_id: str) -> None:
    scenario = SCENARIOS[scenario_id]
    assert scenario["id"] == scenario_id
    assert scenario["sandboxes"] == ["food"]
    assert set(scenario.get("initial_state") or {}) <= {"food"}
    for lang in LANGS:
        script = scenario["user"][lang]["script"]
        if scenario["mode"] == "multi_step":
            assert len(script) == 1, lang
        else:
            assert len(script) >= 2, lang
    assert len(scenario["user"]["en"]["script"]) == len(scenario["user"]["zh"]["script"])
    outputs = scenario.get("outputs") or {"en": [], "zh": []}
    assert len(outputs["en"]) == len(outputs["zh"])
    ids = [milestone["id"] for milestone in scenario["milestones"]]
    assert len(ids) == len(set(ids))
    for milestone in scenario["milestones"]:
        assert set(milestone.get("after", [])) <= set(ids) - {milestone["id"]}
    for call in scenario["reference_calls"] + scenario["milestones"] + scenario["minefields"]:
        assert call["api"] in SPECS, call["api"]
    if scenario.get("no_change"):
        assert scenario["minefields"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("scenario_id", sorted(SCENARIOS))
def test_scenario_replays(scenario_id: str, lang: str) -> None:
    scenario = SCENARIOS[scenario_id]
    end, results, calls = replay(scenario, lang)
    again, _, _ = replay(scenario, lang)
    assert end == again, "two replays must reach the same end state"
    json.dumps(end)
    for call, result in zip(calls, results):
        spec = SPECS[call["api"]]
        jsonschema.validate(call["args"], _render(spec["parameters"], lang))
        jsonschema.validate(result, spec["returns"])
        assert json.loads(json.dumps(result)) == result
    start = {"food": fresh((scenario.get("initial_state") or {}).get("food")).data}
    if scenario.get("no_change"):
        assert end == start
    else:
        assert end != start
    # milestones: each satisfied by a reference call, in an order compatible with `after`
    first_hit: dict[str, int] = {}
    for milestone in scenario["milestones"]:
        hits = [i for i, call in enumerate(calls) if _call_matches(milestone, call, lang)]
        assert hits, f"milestone {milestone['id']} matches no reference call"
        first_hit[milestone["id"]] = hits[0]
    for milestone in scenario["milestones"]:
        for before in milestone.get("after", []):
            assert first_hit[before] < first_hit[milestone["id"]], (milestone["id"], before)
    for minefield in scenario["minefields"]:
        assert not any(_call_matches(minefield, call, lang) for call in calls), minefield


def test_scenario_outputs_state_facts() -> None:
    """Spot-check the end states the scenarios' outputs talk about."""
    end = {sid: replay(SCENARIOS[sid], "en")[0]["food"] for sid in SCENARIOS}
    assert end["food-0001"]["orders"]["FO1008"]["total"] == 66.0
    assert end["food-0001"]["users"]["U-1"]["balance"] == 20.5
    assert end["food-0002"]["orders"]["FO1004"]["refund_amount"] == 62.0
    assert end["food-0002"]["users"]["U-1"]["balance"] == 148.5
    assert end["food-0003"]["orders"]["FO1001"]["rating"]["stars"] == 4
    assert end["food-0003"]["orders"]["FO1003"]["status"] == "dispatched"
    assert end["food-0005"]["orders"]["FO1008"]["total"] == 81.0
    assert end["food-0006"]["orders"]["FO1008"]["total"] == 85.0
    assert end["food-0006"]["users"]["U-2"]["balance"] == 38.0
    assert end["food-0007"]["orders"]["FO1008"]["total"] == 63.0
    assert end["food-0007"]["orders"]["FO1008"]["address_id"] == "A-6"
    assert end["food-0008"]["users"]["U-1"]["balance"] == 28.5
    assert end["food-0009"]["orders"]["FO1005"]["refund_amount"] == 73.0
    assert end["food-0009"]["orders"]["FO1008"]["total"] == 43.0
    assert end["food-0009"]["coupons"]["DIMSUM6"]["used_order_id"] is None
    assert end["food-0010"]["orders"]["FO1008"]["total"] == 49.0
    assert end["food-0011"]["session"]["user_id"] == "U-2"
    assert end["food-0011"]["users"]["U-2"]["balance"] == 73.0
    assert end["food-0012"]["orders"]["FO1008"]["total"] == 72.0
