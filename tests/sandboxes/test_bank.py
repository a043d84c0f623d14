"""The bank sandbox's own rules: log-in and lockout, accounts, transfers, payees, loans, cards.

The generic contract (spec parity, declared errors, bilingual text, determinism, scenario
replays in both languages) is checked for every sandbox in test_contract.py.
"""

from __future__ import annotations

import inspect
import itertools
import math
from typing import Any

import pytest

from tests.sandboxes import support
from validator.sandbox.base import ApiError, Sandbox

NAME = "bank"
STATE = support.state(NAME)
SPECS = support.specs(NAME)

CHEN = ("C300117", "482913")
ZHAO = ("C300245", "605128")
HUANG = ("C300389", "917346")
WU = ("C300452", "230871")
call = support.call


def fresh(patch: dict[str, Any] | None = None) -> Sandbox:
    return support.fresh(NAME, patch)


def login(sandbox: Sandbox, who: tuple[str, str]) -> None:
    call(sandbox, "bank_login", customer_id=who[0], pin=who[1])


def expect_error(kind: str, sandbox: Sandbox, api: str, **args: Any) -> ApiError:
    """Rules tests pass out-of-schema values on purpose; a failed log-in counts an attempt."""
    error = support.error(sandbox, api, strict_args=False, keeps_state=api != "bank_login", **args)
    assert error.kind == kind
    return error


# ----------------------------------------------------------------------------- specs


def test_api_style() -> None:
    assert len(SPECS) >= 15 and not support.distractors(NAME)
    assert support.parameter_kinds(NAME) == {inspect.Parameter.POSITIONAL_OR_KEYWORD}
    assert support.signature_order_mismatches(NAME) == [], "parameters in the spec's order"
    assert support.undeclared_defaults(NAME) == [], "a Python default only where the spec declares one"
    assert not any(support.raised_error_kinds(NAME)[1].values()), "every ApiError kind is a literal"


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
        for before, after in itertools.pairwise(postings):
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


# ----------------------------------------------------------------------------- scenarios


def test_money_is_rounded() -> None:
    for scenario_id in support.scenarios(NAME):
        data = support.end_state(NAME, scenario_id)
        for account in data["accounts"].values():
            assert account["balance"] == round(account["balance"], 2) and not math.isnan(account["balance"])
        for entry in data["transactions"]:
            assert entry["amount"] == round(entry["amount"], 2)
