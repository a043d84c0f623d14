"""The bank sandbox: business rules, spec <-> implementation parity, scenario replays."""

from __future__ import annotations

import ast
import copy
import importlib.util
import inspect
import json
import math
import re
import unicodedata
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from validator.loading import load_file
from validator.sandbox.base import ApiError, Sandbox

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT / "sandboxes" / "bank"
SPEC_DIR = ROOT / "specs" / "bank"
SCENARIO_DIR = BANK / "scenarios"


def _load(path: Path, kind: str) -> Any:
    doc, problems = load_file(ROOT, path.relative_to(ROOT).as_posix(), kind)
    assert not problems, f"{path}: {problems}"
    assert doc is not None
    return doc.data


def _import_sandbox() -> type[Sandbox]:
    spec = importlib.util.spec_from_file_location("callbank_sandbox_bank", BANK / "sandbox.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.BankSandbox


BankSandbox = _import_sandbox()
STATE: dict[str, Any] = _load(BANK / "state.yaml", "state")
SPECS: dict[str, dict[str, Any]] = {p.stem: _load(p, "api") for p in sorted(SPEC_DIR.glob("*.yaml"))}
SCENARIOS: dict[str, dict[str, Any]] = {p.stem: _load(p, "scenario") for p in sorted(SCENARIO_DIR.glob("*.yaml"))}

CHEN = ("C300117", "482913")
ZHAO = ("C300245", "605128")
HUANG = ("C300389", "917346")
WU = ("C300452", "230871")


# ----------------------------------------------------------------------------- helpers


def fresh(patch: dict[str, Any] | None = None) -> Sandbox:
    state = copy.deepcopy(STATE)
    if patch:
        _deep_merge(state["data"], copy.deepcopy(patch))
    return BankSandbox(state)


def _deep_merge(target: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _deep_merge(target[key], value)
        else:
            target[key] = value


def call(sandbox: Sandbox, api: str, **args: Any) -> Any:
    """Call an API; its result must satisfy the spec's `returns`, its errors must be declared."""
    spec = SPECS[api]
    try:
        result = getattr(sandbox, api)(**args)
    except ApiError as error:
        assert error.kind in spec.get("errors", {}), f"{api} raised undeclared error {error.kind!r}"
        json.dumps(error.details)
        raise
    json.dumps(result, allow_nan=False)
    jsonschema.validate(result, spec["returns"], cls=jsonschema.Draft202012Validator)
    return result


def login(sandbox: Sandbox, who: tuple[str, str]) -> None:
    call(sandbox, "bank_login", customer_id=who[0], pin=who[1])


def expect_error(kind: str, sandbox: Sandbox, api: str, **args: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        call(sandbox, api, **args)
    assert caught.value.kind == kind
    return caught.value


def resolve_lang(value: Any, lang: str) -> Any:
    """Render reference-call arguments for one language: `$lang` picks, other matchers render."""
    if isinstance(value, list):
        return [resolve_lang(v, lang) for v in value]
    if isinstance(value, dict):
        if "$lang" in value:
            return resolve_lang(value["$lang"][lang], lang)
        if "$literal" in value:
            return value["$literal"]
        if any(k.startswith("$") for k in value):
            raise AssertionError(f"reference calls must hold concrete values, not {value}")
        return {k: resolve_lang(v, lang) for k, v in value.items()}
    return value


def render(schema: Any, lang: str) -> Any:
    """A parameters schema for one language: every bilingual description becomes a string."""
    if isinstance(schema, list):
        return [render(item, lang) for item in schema]
    if isinstance(schema, dict):
        return {
            key: value[lang] if key == "description" and isinstance(value, dict) else render(value, lang)
            for key, value in schema.items()
        }
    return schema


def _norm_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))
    return " ".join(text.split())


def matches(pattern: Any, value: Any, lang: str) -> bool:
    """A small reading of docs/data-model.md's matchers, enough to check our own scenarios."""
    if isinstance(pattern, dict) and pattern and all(k.startswith("$") for k in pattern):
        if "$lang" in pattern:
            return matches(pattern["$lang"][lang], value, lang)
        if "$any" in pattern:
            return any(matches(p, value, lang) for p in pattern["$any"])
        if "$optional" in pattern:
            return matches(pattern["$optional"], value, lang)
        if "$text" in pattern:
            return isinstance(value, str) and _norm_text(value) == _norm_text(pattern["$text"])
        if "$approx" in pattern:
            return isinstance(value, (int, float)) and abs(value - pattern["$approx"]) <= pattern["$tol"]
        if "$regex" in pattern:
            return isinstance(value, str) and re.fullmatch(pattern["$regex"], value) is not None
        if "$literal" in pattern:
            return value == pattern["$literal"]
        if "$unordered" in pattern:
            items = list(pattern["$unordered"])
            return isinstance(value, list) and len(value) == len(items) and all(
                any(matches(p, v, lang) for p in items) for v in value
            )
        raise AssertionError(f"unknown matcher {pattern}")
    if isinstance(pattern, dict):
        return isinstance(value, dict) and pattern.keys() == value.keys() and all(
            matches(p, value[k], lang) for k, p in pattern.items()
        )
    if isinstance(pattern, list):
        return isinstance(value, list) and len(pattern) == len(value) and all(
            matches(p, v, lang) for p, v in zip(pattern, value)
        )
    if isinstance(pattern, bool) or isinstance(value, bool):
        return pattern is value
    return pattern == value


def call_matches(pattern: dict[str, Any], api: str, args: dict[str, Any], lang: str) -> bool:
    if pattern["api"] != api:
        return False
    return all(k in args and matches(p, args[k], lang) for k, p in pattern.get("args", {}).items())


def _drop(node: Any, parts: list[str]) -> None:
    if not parts:
        return
    head, rest = parts[0], parts[1:]
    if isinstance(node, dict):
        keys = list(node) if head == "*" else [head] if head in node else []
        for key in keys:
            if rest:
                _drop(node[key], rest)
            else:
                del node[key]
    elif isinstance(node, list):
        indexes = range(len(node)) if head == "*" else [int(head)] if head.isdigit() and int(head) < len(node) else []
        for index in sorted(indexes, reverse=True):
            if rest:
                _drop(node[index], rest)
            else:
                node[index] = None


def comparable(end_state: dict[str, Any], compare: dict[str, Any]) -> Any:
    """Apply a scenario's `compare` options: drop ignored paths, sort unordered lists."""
    state = copy.deepcopy(end_state)
    for path in compare.get("ignore", []):
        _drop(state, path.split("."))
    for path in compare.get("unordered", []):
        node: Any = state
        for part in path.split("."):
            node = node[int(part)] if isinstance(node, list) else node[part]
        node.sort(key=lambda item: json.dumps(item, sort_keys=True, ensure_ascii=False))
    return state


def replay(scenario: dict[str, Any], lang: str) -> tuple[Sandbox, list[tuple[str, dict[str, Any], Any]]]:
    sandbox = fresh(scenario.get("initial_state", {}).get("bank"))
    trace = []
    for step in scenario["reference_calls"]:
        args = resolve_lang(step["args"], lang)
        try:
            result = call(sandbox, step["api"], **args)
        except ApiError as error:  # pragma: no cover - the assertion message is the point
            raise AssertionError(f"{scenario['id']} ({lang}): {step['api']} failed with {error.kind} {error.details}")
        trace.append((step["api"], args, result))
    return sandbox, trace


# ----------------------------------------------------------------------------- state


def test_state_is_consistent() -> None:
    data = STATE["data"]
    assert STATE["sandbox"] == "bank"
    assert data["session"]["customer_id"] is None
    for account_id, account in data["accounts"].items():
        assert account["account_id"] == account_id and account["customer_id"] in data["customers"]
        postings = [t for t in data["transactions"] if t["account_id"] == account_id]
        if postings:
            assert postings[-1]["balance_after"] == account["balance"], account_id
        for before, after in zip(postings, postings[1:]):
            assert round(before["balance_after"] + after["amount"], 2) == after["balance_after"]
    ids = [t["transaction_id"] for t in data["transactions"]]
    assert len(ids) == len(set(ids))
    assert max(int(i[1:]) for i in ids) <= STATE["counters"]["transaction"]
    assert max(int(p[2:]) for p in data["payees"]) <= STATE["counters"]["payee"]
    assert max(int(k[2:]) for k in data["loans"]) <= STATE["counters"]["loan"]
    for table in ("cards", "payees", "loans"):
        for record in data[table].values():
            assert record["customer_id"] in data["customers"]


# ----------------------------------------------------------------------------- rules


@pytest.mark.parametrize("api", sorted(n for n in SPECS if n != "bank_login"))
def test_every_api_needs_a_login(api: str) -> None:
    sandbox = fresh()
    method = getattr(sandbox, api)
    args = {
        name: {"number": 1000, "integer": 12}.get(SPECS[api]["parameters"]["properties"][name]["type"], "x")
        for name, p in inspect.signature(method).parameters.items()
        if p.default is inspect.Parameter.empty
    }
    expect_error("not_logged_in", sandbox, api, **args)


def test_login_and_lockout() -> None:
    sandbox = fresh()
    expect_error("invalid_credentials", sandbox, "bank_login", customer_id="C999999", pin="000000")
    error = expect_error("invalid_credentials", sandbox, "bank_login", customer_id=CHEN[0], pin="111111")
    assert error.details["attempts_left"] == 2
    login(sandbox, CHEN)  # a correct PIN resets the count
    assert sandbox.data["session"]["customer_id"] == CHEN[0]
    for _ in range(2):
        expect_error("invalid_credentials", sandbox, "bank_login", customer_id=ZHAO[0], pin="000000")
    expect_error("login_locked", sandbox, "bank_login", customer_id=ZHAO[0], pin="000000")
    expect_error("login_locked", sandbox, "bank_login", customer_id=ZHAO[0], pin=ZHAO[1])
    call(sandbox, "bank_logout")
    expect_error("not_logged_in", sandbox, "bank_list_accounts")


def test_accounts_are_private_to_the_customer() -> None:
    sandbox = fresh()
    login(sandbox, CHEN)
    accounts = call(sandbox, "bank_list_accounts")["accounts"]
    assert [a["account_id"] for a in accounts] == ["6214830117000101", "6214830117000102"]
    assert call(sandbox, "bank_list_accounts", account_type="savings")["accounts"] == [accounts[1]]
    expect_error("unknown_account", sandbox, "bank_get_balance", account_id="6214830245000101")
    expect_error("unknown_payee", sandbox, "transfer_to_payee", from_account_id="6214830117000101", payee_id="P-204", amount=10)
    expect_error("unknown_card", sandbox, "bank_freeze_card", card_id="CARD-5502", reason="lost")
    expect_error("unknown_loan", sandbox, "repay_loan", loan_id="L-5001", amount=10, from_account_id="6214830117000101")


def test_deposit_withdraw_and_funds() -> None:
    sandbox = fresh()
    login(sandbox, WU)
    assert call(sandbox, "bank_deposit", account_id="6214830452000102", amount=3500)["balance"] == 12650.0
    assert call(sandbox, "bank_withdraw", account_id="6214830452000101", amount=800.5)["balance"] == 5580.1
    expect_error("insufficient_funds", sandbox, "bank_withdraw", account_id="6214830452000101", amount=6000)
    expect_error("withdrawal_limit_exceeded", sandbox, "bank_withdraw", account_id="6214830452000102", amount=20000.01)
    expect_error("invalid_amount", sandbox, "bank_deposit", account_id="6214830452000102", amount=0)
    expect_error("invalid_amount", sandbox, "bank_deposit", account_id="6214830452000102", amount=10.005)
    expect_error("insufficient_funds", sandbox, "transfer_between_accounts",
                 from_account_id="6214830452000101", to_account_id="6214830452000102", amount=5580.11)
    expect_error("same_account", sandbox, "transfer_between_accounts",
                 from_account_id="6214830452000101", to_account_id="6214830452000101", amount=1)


def test_frozen_account_blocks_money_in_and_out() -> None:
    sandbox = fresh()
    login(sandbox, HUANG)
    frozen = "6214830389000103"
    assert call(sandbox, "bank_get_balance", account_id=frozen)["status"] == "frozen"
    expect_error("account_frozen", sandbox, "bank_withdraw", account_id=frozen, amount=100)
    expect_error("account_frozen", sandbox, "bank_deposit", account_id=frozen, amount=100)
    expect_error("account_frozen", sandbox, "transfer_between_accounts",
                 from_account_id="6214830389000101", to_account_id=frozen, amount=100)
    expect_error("account_frozen", sandbox, "apply_for_loan",
                 amount=5000, term_months=12, purpose="other", deposit_account_id=frozen)
    assert sandbox.data == fresh().data | {"session": sandbox.data["session"]}


def test_daily_limit_counts_only_payee_transfers() -> None:
    sandbox = fresh()
    login(sandbox, ZHAO)
    assert call(sandbox, "get_transfer_limit") == {"daily_limit": 20000.0, "used_today": 15000.0, "remaining_today": 5000.0, "currency": "CNY"}
    error = expect_error("daily_limit_exceeded", sandbox, "transfer_to_payee",
                         from_account_id="6214830245000101", payee_id="P-205", amount=5000.01)
    assert error.details["remaining_today"] == 5000.0
    call(sandbox, "transfer_between_accounts", from_account_id="6214830245000102", to_account_id="6214830245000101", amount=6000)
    result = call(sandbox, "transfer_to_payee", from_account_id="6214830245000101", payee_id="P-205", amount=5000)
    assert result["remaining_today"] == 0.0
    expect_error("daily_limit_exceeded", sandbox, "transfer_to_payee", from_account_id="6214830245000101", payee_id="P-204", amount=1)
    expect_error("limit_out_of_range", sandbox, "set_transfer_limit", daily_limit=999)
    expect_error("limit_out_of_range", sandbox, "set_transfer_limit", daily_limit=200000.5)
    assert call(sandbox, "set_transfer_limit", daily_limit=30000)["remaining_today"] == 10000.0


def test_insufficient_funds_checked_after_limit() -> None:
    sandbox = fresh()
    login(sandbox, WU)
    expect_error("insufficient_funds", sandbox, "transfer_to_payee", from_account_id="6214830452000101", payee_id="P-207", amount=7000)
    expect_error("daily_limit_exceeded", sandbox, "transfer_to_payee", from_account_id="6214830452000102", payee_id="P-207", amount=20000.01)


def test_transfer_to_a_payee_at_this_bank_credits_them() -> None:
    sandbox = fresh()
    login(sandbox, CHEN)
    call(sandbox, "transfer_to_payee", from_account_id="6214830117000101", payee_id="P-202", amount=680, memo="Dinner split")
    assert sandbox.data["accounts"]["6214830117000101"]["balance"] == 22880.8
    assert sandbox.data["accounts"]["6214830245000101"]["balance"] == 7100.35
    last = sandbox.data["transactions"][-2:]
    assert [t["type"] for t in last] == ["transfer_out", "transfer_in"]
    assert [t["transaction_id"] for t in last] == ["T87028", "T87029"]
    assert all(t["posted_at"] == "2024-07-15T10:00:00+08:00" and t["memo"] == "Dinner split" for t in last)


def test_payees() -> None:
    sandbox = fresh()
    login(sandbox, CHEN)
    added = call(sandbox, "bank_add_payee", name="Sun Hao", account_number="6227003814409921", bank_name="China Construction Bank")
    assert added["payee_id"] == "P-208"
    expect_error("payee_already_exists", sandbox, "bank_add_payee", name="S. Hao", account_number="6227003814409921", bank_name="CCB")
    expect_error("own_account_as_payee", sandbox, "bank_add_payee", name="Me", account_number="6214830117000102", bank_name="Riverside Bank")
    expect_error("invalid_payee", sandbox, "bank_add_payee", name="X", account_number="1234", bank_name="Y")
    assert [p["payee_id"] for p in call(sandbox, "bank_list_payees")["payees"]] == ["P-201", "P-202", "P-203", "P-208"]
    call(sandbox, "bank_remove_payee", payee_id="P-203")
    expect_error("unknown_payee", sandbox, "bank_remove_payee", payee_id="P-203")
    assert "P-203" not in sandbox.data["payees"]


def test_statement() -> None:
    sandbox = fresh()
    login(sandbox, ZHAO)
    statement = call(sandbox, "get_statement", account_id="6214830245000101", start_date="2024-07-01", end_date="2024-07-15", direction="debit")
    assert [t["amount"] for t in statement["transactions"]] == [-3200.0, -420.5, -15000.0]
    assert statement["total_debits"] == 18620.5 and statement["total_credits"] == 0.0
    everything = call(sandbox, "get_statement", account_id="6214830245000101", start_date="2024-06-01", end_date="2024-07-31")
    assert len(everything["transactions"]) == 6 and everything["total_credits"] == 24500.0
    expect_error("invalid_date_range", sandbox, "get_statement", account_id="6214830245000101", start_date="2024-07-15", end_date="2024-07-01")
    expect_error("invalid_date", sandbox, "get_statement", account_id="6214830245000101", start_date="2024-02-30", end_date="2024-03-01")


def test_loan_rules() -> None:
    sandbox = fresh()
    login(sandbox, WU)
    quote = call(sandbox, "get_loan_quote", amount=50000, term_months=24)
    assert quote["eligible"] is False and quote["reasons"] == ["credit_score_too_low"] and quote["monthly_payment"] is None
    expect_error("credit_score_too_low", sandbox, "apply_for_loan", amount=50000, term_months=24, purpose="wedding", deposit_account_id="6214830452000101")

    login(sandbox, ZHAO)  # limit 15 x 9,500 minus 39,483.81 still owed
    quote = call(sandbox, "get_loan_quote", amount=110000, term_months=36)
    assert quote["max_amount"] == 103016.19 and quote["reasons"] == ["amount_above_limit"] and quote["annual_rate"] == 5.6
    expect_error("loan_amount_above_limit", sandbox, "apply_for_loan", amount=103016.20, term_months=36, purpose="car", deposit_account_id="6214830245000101")
    expect_error("invalid_term", sandbox, "get_loan_quote", amount=5000, term_months=18)
    expect_error("invalid_amount", sandbox, "get_loan_quote", amount=999, term_months=12)
    expect_error("invalid_purpose", sandbox, "apply_for_loan", amount=5000, term_months=12, purpose="gambling", deposit_account_id="6214830245000101")

    login(sandbox, HUANG)
    loan = call(sandbox, "apply_for_loan", amount=200000, term_months=60, purpose="home_renovation", deposit_account_id="6214830389000101")
    r = 3.85 / 1200
    assert loan["monthly_payment"] == round(200000 * r / (1 - (1 + r) ** -60), 2) == 3669.78
    assert loan["loan_id"] == "L-5002" and loan["next_due_date"] == "2024-08-15" and loan["balance"] == 248210.0
    quote = call(sandbox, "get_loan_quote", amount=190000.01, term_months=12)
    assert quote["max_amount"] == 190000.0 and not quote["eligible"]
    assert [x["loan_id"] for x in call(sandbox, "list_loans", status="all")["loans"]] == ["L-4870", "L-5002"]


def test_repayment_closes_a_loan() -> None:
    sandbox = fresh({"accounts": {"6214830245000102": {"balance": 50000.0}}})
    login(sandbox, ZHAO)
    expect_error("amount_exceeds_outstanding", sandbox, "repay_loan", loan_id="L-5001", amount=39483.82, from_account_id="6214830245000102")
    expect_error("insufficient_funds", sandbox, "repay_loan", loan_id="L-5001", amount=39483.81, from_account_id="6214830245000101")
    result = call(sandbox, "repay_loan", loan_id="L-5001", amount=39483.81, from_account_id="6214830245000102")
    assert result["outstanding"] == 0.0 and result["status"] == "closed" and result["balance"] == 10516.19
    expect_error("loan_closed", sandbox, "repay_loan", loan_id="L-5001", amount=1, from_account_id="6214830245000102")
    assert call(sandbox, "list_loans")["loans"] == []


def test_cards() -> None:
    sandbox = fresh()
    login(sandbox, HUANG)
    expect_error("card_reported_stolen", sandbox, "bank_unfreeze_card", card_id="CARD-7721")
    assert call(sandbox, "bank_unfreeze_card", card_id="CARD-7720")["status"] == "active"
    expect_error("card_not_frozen", sandbox, "bank_unfreeze_card", card_id="CARD-7720")
    expect_error("invalid_reason", sandbox, "bank_freeze_card", card_id="CARD-7720", reason="bored")
    assert call(sandbox, "bank_freeze_card", card_id="CARD-7720", reason="travel")["freeze_reason"] == "travel"
    expect_error("card_already_frozen", sandbox, "bank_freeze_card", card_id="CARD-7720", reason="lost")


def test_ids_and_results_are_deterministic() -> None:
    def run() -> tuple[list[Any], dict[str, Any]]:
        sandbox = fresh()
        login(sandbox, CHEN)
        results = [
            call(sandbox, "bank_add_payee", name="Sun Hao", account_number="6227003814409921", bank_name="China Construction Bank"),
            call(sandbox, "transfer_to_payee", from_account_id="6214830117000101", payee_id="P-208", amount=1500),
            call(sandbox, "bank_deposit", account_id="6214830117000102", amount=12.34),
            call(sandbox, "apply_for_loan", amount=10000, term_months=6, purpose="travel", deposit_account_id="6214830117000101"),
        ]
        return results, sandbox.state

    first, second = run(), run()
    assert first == second
    assert [r.get("transaction_id") for r in first[0]] == [None, "T87028", "T87029", "T87030"]
    assert first[1]["clock"] == STATE["clock"]


# ----------------------------------------------------------------------------- spec parity


def test_every_public_method_has_a_spec_and_vice_versa() -> None:
    assert BankSandbox.name == "bank"
    assert sorted(BankSandbox.api_names()) == sorted(SPECS)
    assert len(SPECS) >= 15


@pytest.mark.parametrize("api", sorted(SPECS))
def test_spec_matches_signature(api: str) -> None:
    spec = SPECS[api]
    assert spec["name"] == api and spec["sandbox"] == "bank" and spec["domain"].startswith("bank.")
    params = spec["parameters"]
    assert params["type"] == "object" and params["additionalProperties"] is False
    signature = inspect.signature(getattr(BankSandbox, api))
    keywords = {n: p for n, p in signature.parameters.items() if n != "self"}
    assert list(keywords) == list(params["properties"]), "parameter names and order"
    required = set(params.get("required", []))
    for name, parameter in keywords.items():
        assert parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        has_default = parameter.default is not inspect.Parameter.empty
        assert has_default == (name not in required), name
        if "default" in params["properties"][name]:
            assert parameter.default == params["properties"][name]["default"], name
        elif has_default:
            pytest.fail(f"{api}.{name} has a Python default but the spec declares none")
    jsonschema.Draft202012Validator.check_schema(spec["returns"])


def _descriptions_everywhere(schema: dict[str, Any], where: str) -> None:
    for name, prop in schema.get("properties", {}).items():
        assert set(prop["description"]) == {"en", "zh"}, f"{where}.{name}"
        assert re.search(r"[\u4e00-\u9fff]", prop["description"]["zh"]), f"{where}.{name} zh"
        if prop["type"] == "array":
            assert "items" in prop
            _descriptions_everywhere(prop["items"], f"{where}.{name}[]")
        _descriptions_everywhere(prop, f"{where}.{name}")


@pytest.mark.parametrize("api", sorted(SPECS))
def test_spec_is_bilingual(api: str) -> None:
    spec = SPECS[api]
    assert re.search(r"[\u4e00-\u9fff]", spec["description"]["zh"])
    _descriptions_everywhere(spec["parameters"], api)
    for kind, message in spec.get("errors", {}).items():
        assert message["en"] and re.search(r"[\u4e00-\u9fff]", message["zh"]), kind


def _raised_kinds() -> dict[str, set[str]]:
    """Every ApiError kind each public method can raise, following calls to helpers."""
    tree = ast.parse((BANK / "sandbox.py").read_text(encoding="utf-8"))
    functions: dict[str, ast.AST] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = node
    direct: dict[str, set[str]] = {}
    calls: dict[str, set[str]] = {}
    for name, node in functions.items():
        direct[name], calls[name] = set(), set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                func = sub.func
                if isinstance(func, ast.Name) and func.id == "ApiError":
                    assert isinstance(sub.args[0], ast.Constant), f"{name}: ApiError kind must be a literal"
                    direct[name].add(sub.args[0].value)
                elif isinstance(func, ast.Name) and func.id in functions:
                    calls[name].add(func.id)
                elif isinstance(func, ast.Attribute) and func.attr in functions:
                    calls[name].add(func.attr)

    def closure(name: str, seen: set[str]) -> set[str]:
        kinds = set(direct[name])
        for callee in calls[name] - seen:
            kinds |= closure(callee, seen | {callee})
        return kinds

    return {api: closure(api, {api}) for api in BankSandbox.api_names()}


def test_every_raised_error_is_declared() -> None:
    for api, kinds in _raised_kinds().items():
        declared = set(SPECS[api].get("errors", {}))
        assert kinds == declared, f"{api}: raises {sorted(kinds - declared)}, declares unused {sorted(declared - kinds)}"


def test_sandbox_source_is_pure() -> None:
    source = (BANK / "sandbox.py").read_text(encoding="utf-8")
    for banned in ("import random", "import time", "datetime.now", "date.today", "open(", "import os", "requests", "socket", "subprocess", "uuid"):
        assert banned not in source, banned


# ----------------------------------------------------------------------------- scenarios


def test_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 11
    modes = {s["mode"] for s in SCENARIOS.values()}
    assert modes == {"multi_turn", "multi_step"}
    assert sum(bool(s.get("no_change")) for s in SCENARIOS.values()) <= 1


@pytest.mark.parametrize("sid", sorted(SCENARIOS))
def test_scenario_shape(sid: str) -> None:
    scenario = SCENARIOS[sid]
    assert scenario["id"] == sid and scenario["sandboxes"] == ["bank"]
    first = (SCENARIO_DIR / f"{sid}.yaml").read_text(encoding="utf-8").split("\n", 1)[0]
    assert first == "# yaml-language-server: $schema=../../../schemas/scenario.schema.json"
    en, zh = scenario["user"]["en"], scenario["user"]["zh"]
    assert len(en["script"]) == len(zh["script"])
    assert len(en.get("known", [])) == len(zh.get("known", [])) and len(en.get("unknown", [])) == len(zh.get("unknown", []))
    if scenario["mode"] == "multi_step":
        assert len(en["script"]) == 1
    else:
        assert len(en["script"]) >= 2
    if "outputs" in scenario:
        assert len(scenario["outputs"]["en"]) == len(scenario["outputs"]["zh"])
    ids = [m["id"] for m in scenario["milestones"]]
    assert len(ids) == len(set(ids))
    for milestone in scenario["milestones"]:
        assert set(milestone.get("after", [])) <= set(ids)
    for step in scenario["reference_calls"]:
        assert step["api"] in SPECS
        for lang in ("en", "zh"):
            args = resolve_lang(step["args"], lang)
            schema = render(SPECS[step["api"]]["parameters"], lang)
            jsonschema.Draft202012Validator.check_schema(schema)
            jsonschema.Draft202012Validator(schema).validate(args)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sid", sorted(SCENARIOS))
def test_scenario_replays(sid: str, lang: str) -> None:
    scenario = SCENARIOS[sid]
    compare = scenario.get("compare", {})
    first, trace = replay(scenario, lang)
    second, trace_again = replay(scenario, lang)
    assert trace == trace_again
    end = {"bank": first.data}
    assert end == {"bank": second.data}, "two replays must reach the same end state"

    start = {"bank": fresh(scenario.get("initial_state", {}).get("bank")).data}
    if scenario.get("no_change"):
        assert comparable(end, compare) == comparable(start, compare)
        assert scenario["minefields"]
    else:
        assert comparable(end, compare) != comparable(start, compare), "the scenario must change the end state"

    # milestones: each satisfied by a reference call, in an order that respects `after`
    position: dict[str, int] = {}
    for milestone in scenario["milestones"]:
        hits = [i for i, (api, args, _) in enumerate(trace) if call_matches(milestone, api, args, lang)]
        assert hits, f"milestone {milestone['id']} is not satisfied by any reference call"
        position[milestone["id"]] = hits[0]
    for milestone in scenario["milestones"]:
        for before in milestone.get("after", []):
            assert position[before] < position[milestone["id"]], f"{before} must come before {milestone['id']}"
    for mine in scenario["minefields"]:
        assert not any(call_matches(mine, api, args, lang) for api, args, _ in trace), f"reference call hits minefield {mine}"

    # compare paths must reach something, or they hide nothing
    for path in compare.get("ignore", []):
        assert _reaches(end, path.split(".")), path


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


def test_money_is_rounded() -> None:
    for scenario in SCENARIOS.values():
        sandbox, _ = replay(scenario, "en")
        for account in sandbox.data["accounts"].values():
            assert account["balance"] == round(account["balance"], 2) and not math.isnan(account["balance"])
        for entry in sandbox.data["transactions"]:
            assert entry["amount"] == round(entry["amount"], 2)
