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
LIN = ("C300518", "731526")
LIN_CHECKING, LIN_SAVINGS = "6214830518000101", "6214830518000102"
PUBLIC_APIS = {"bank_login", "get_exchange_rate"}  # everything else acts for a logged-in customer
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
    for table in ("cards", "payees", "loans", "scheduled_transfers", "international_transfers"):
        for record in data[table].values():
            assert record["customer_id"] in data["customers"]
    for payee in data["payees"].values():  # a payee abroad banks in a supported country, in its currency
        if payee.get("country"):
            assert payee["currency"] == {"GB": "GBP", "CA": "CAD", "US": "USD", "AU": "AUD"}[payee["country"]]
            assert payee["swift_code"][4:6] == payee["country"]
    for bill in data["bills"].values():
        assert bill["biller"] in data["billers"] and bill["amount_due"] >= 0
    assert max(int(k[3:]) for k in data["scheduled_transfers"]) <= STATE["counters"]["scheduled_transfer"]
    assert max(int(k[3:]) for k in data["international_transfers"]) <= STATE["counters"]["international_transfer"]


# ----------------------------------------------------------------------------- rules


@pytest.mark.parametrize("api", sorted(n for n in SPECS if n not in PUBLIC_APIS))
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


def test_schedule_a_transfer_for_later() -> None:
    sandbox = fresh()
    login(sandbox, LIN)
    before = sandbox.data["accounts"][LIN_CHECKING]["balance"]
    once = call(sandbox, "schedule_transfer", from_account_id=LIN_CHECKING, payee_id="P-184", amount=300, first_date="2024-07-19", memo="Concert ticket")
    assert once["schedule_id"] == "ST-13" and once["run_dates"] == ["2024-07-19"] and once["total_amount"] == 300.0
    assert sandbox.data["accounts"][LIN_CHECKING]["balance"] == before, "nothing leaves the account today"
    assert call(sandbox, "get_transfer_limit")["used_today"] == 0.0
    monthly = call(sandbox, "schedule_transfer", from_account_id=LIN_SAVINGS, payee_id="P-181", amount=1500,
                   first_date="2024-10-31", frequency="monthly", occurrences=4)
    assert monthly["run_dates"] == ["2024-10-31", "2024-11-28", "2024-12-28", "2025-01-28"] and monthly["total_amount"] == 6000.0
    weekly = call(sandbox, "schedule_transfer", from_account_id=LIN_CHECKING, payee_id="P-184", amount=50, first_date="2024-07-16", frequency="weekly", occurrences=3)
    assert weekly["run_dates"] == ["2024-07-16", "2024-07-23", "2024-07-30"]
    listed = call(sandbox, "list_scheduled_transfers")
    assert [s["schedule_id"] for s in listed["scheduled_transfers"]] == ["ST-12", "ST-13", "ST-14", "ST-15"]
    assert call(sandbox, "list_scheduled_transfers", include_cancelled=True)["count"] == 5
    cancelled = call(sandbox, "cancel_scheduled_transfer", schedule_id="ST-12")
    assert cancelled["status"] == "cancelled" and cancelled["payments_cancelled"] == 5
    expect_error("schedule_already_cancelled", sandbox, "cancel_scheduled_transfer", schedule_id="ST-12")


def test_scheduled_transfer_rules() -> None:
    sandbox = fresh()
    login(sandbox, LIN)
    base = {"from_account_id": LIN_CHECKING, "payee_id": "P-181", "amount": 100}
    expect_error("date_not_in_future", sandbox, "schedule_transfer", **base, first_date="2024-07-15")
    expect_error("date_too_far", sandbox, "schedule_transfer", **base, first_date="2025-07-16")
    expect_error("invalid_date", sandbox, "schedule_transfer", **base, first_date="2024-02-30")
    expect_error("invalid_occurrences", sandbox, "schedule_transfer", **base, first_date="2024-08-01", frequency="monthly")
    expect_error("invalid_occurrences", sandbox, "schedule_transfer", **base, first_date="2024-08-01", occurrences=3)
    expect_error("invalid_frequency", sandbox, "schedule_transfer", **base, first_date="2024-08-01", frequency="daily", occurrences=2)
    expect_error("payee_abroad", sandbox, "schedule_transfer", **{**base, "payee_id": "P-183"}, first_date="2024-08-01")
    expect_error("daily_limit_exceeded", sandbox, "schedule_transfer", **{**base, "amount": 50000.01}, first_date="2024-08-01")
    expect_error("unknown_payee", sandbox, "schedule_transfer", **{**base, "payee_id": "P-201"}, first_date="2024-08-01")
    expect_error("invalid_amount", sandbox, "schedule_transfer", **{**base, "amount": 0}, first_date="2024-08-01")
    login(sandbox, HUANG)
    expect_error("account_frozen", sandbox, "schedule_transfer", from_account_id="6214830389000103", payee_id="P-206", amount=10, first_date="2024-08-01")
    expect_error("unknown_schedule", sandbox, "cancel_scheduled_transfer", schedule_id="ST-12")  # Lin Yue's, not Huang Min's


def test_pay_a_bill_by_its_reference() -> None:
    sandbox = fresh()
    login(sandbox, LIN)
    paid = call(sandbox, "pay_bill", biller="city_power", reference="3300-518-821", amount=186.5, from_account_id=LIN_CHECKING)
    assert paid["amount_still_due"] == 0.0 and paid["balance"] == 25376.12 and paid["transaction_id"] == "T87028"
    assert sandbox.data["transactions"][-1]["type"] == "bill_payment"
    expect_error("bill_already_paid", sandbox, "pay_bill", biller="city_power", reference="3300518821", amount=1, from_account_id=LIN_CHECKING)
    part = call(sandbox, "pay_bill", biller="city_water", reference="5507211846", amount=100, from_account_id=LIN_CHECKING)
    assert part["amount_still_due"] == 43.8, "anyone's bill can be paid, partly"
    expect_error("amount_exceeds_due", sandbox, "pay_bill", biller="brightbank_card", reference="4392260011047731", amount=2356.41, from_account_id=LIN_CHECKING)
    expect_error("bill_not_found", sandbox, "pay_bill", biller="city_gas", reference="3300518821", amount=10, from_account_id=LIN_CHECKING)
    expect_error("unknown_biller", sandbox, "pay_bill", biller="city_heating", reference="3300518821", amount=10, from_account_id=LIN_CHECKING)
    expect_error("unknown_account", sandbox, "pay_bill", biller="city_gas", reference="8801172093", amount=10, from_account_id="6214830117000101")
    expect_error("invalid_amount", sandbox, "pay_bill", biller="city_gas", reference="8801172093", amount=-1, from_account_id=LIN_CHECKING)
    assert call(sandbox, "get_transfer_limit")["used_today"] == 0.0, "bills do not use the transfer limit"
    poor = fresh({"accounts": {"6214830452000101": {"balance": 2000.0}}})
    login(poor, WU)
    expect_error("insufficient_funds", poor, "pay_bill", biller="brightbank_card", reference="4392260011047731", amount=2356.4, from_account_id="6214830452000101")
    login(sandbox, HUANG)
    expect_error("account_frozen", sandbox, "pay_bill", biller="city_gas", reference="8801172093", amount=10, from_account_id="6214830389000103")


def test_exchange_rates_need_no_login() -> None:
    sandbox = fresh()
    assert call(sandbox, "get_exchange_rate", currency="GBP", amount=500) == {
        "currency": "GBP", "cny_per_unit": 9.381, "foreign_amount": 500.0, "cny_amount": 4690.5, "rate_date": "2024-07-15",
    }
    assert call(sandbox, "get_exchange_rate", currency="CAD", amount=10000, amount_in="CNY")["foreign_amount"] == 1881.47
    expect_error("unsupported_currency", sandbox, "get_exchange_rate", currency="CHF")
    expect_error("invalid_amount", sandbox, "get_exchange_rate", currency="USD", amount=-5)


def test_payees_abroad() -> None:
    sandbox = fresh()
    login(sandbox, LIN)
    payees = call(sandbox, "bank_list_payees")["payees"]
    assert payees[2] == {"payee_id": "P-183", "name": "Emma Clarke", "account_number": "GB33BUKB20201555555555",
                         "bank_name": "Barclays Bank (巴克莱银行)", "swift_code": "BUKBGB22", "country": "GB", "currency": "GBP"}
    assert set(payees[0]) == {"payee_id", "name", "account_number", "bank_name"}
    added = call(sandbox, "add_international_payee", name="Olivia Brown", account_number="062-000 12345678".replace("-", ""),
                 swift_code="ctbaau2s", bank_name="Commonwealth Bank", country="AU", currency="AUD")
    assert added["payee_id"] == "P-208" and added["swift_code"] == "CTBAAU2S" and added["account_number"] == "06200012345678"
    gb = {"name": "Tom Hale", "swift_code": "NWBKGB2L", "bank_name": "NatWest", "country": "GB", "currency": "GBP"}
    expect_error("invalid_payee", sandbox, "add_international_payee", **gb, account_number="12345678")
    expect_error("invalid_payee", sandbox, "add_international_payee", **{**gb, "swift_code": "NWBKUS33"}, account_number="GB29NWBK60161331926819")
    expect_error("currency_not_of_country", sandbox, "add_international_payee", **{**gb, "currency": "EUR"}, account_number="GB29NWBK60161331926819")
    expect_error("unsupported_country", sandbox, "add_international_payee", **{**gb, "country": "FR"}, account_number="GB29NWBK60161331926819")
    expect_error("payee_already_exists", sandbox, "add_international_payee", **{**gb, "swift_code": "BUKBGB22"}, account_number="GB33 BUKB 2020 1555 5555 55")
    expect_error("payee_abroad", sandbox, "transfer_to_payee", from_account_id=LIN_CHECKING, payee_id="P-183", amount=100)


def test_send_money_abroad() -> None:
    sandbox = fresh()
    login(sandbox, LIN)
    sent = call(sandbox, "send_international_transfer", from_account_id=LIN_CHECKING, payee_id="P-183", amount=500, purpose="family_support", memo="Happy birthday")
    assert (sent["foreign_amount"], sent["cny_amount"], sent["fee"], sent["total_debited"]) == (500.0, 4690.5, 200.0, 4890.5)
    assert sent["balance"] == 20672.12 and sent["transfer_id"] == "IT-41" and sent["expected_arrival"] == "2024-07-17"
    assert sent["fx_quota_left_usd"] == round(50000 - 12003.30 - 645.36, 2)
    assert [t["type"] for t in sandbox.data["transactions"][-2:]] == ["international_transfer_out", "fee"]
    by_cny = call(sandbox, "send_international_transfer", from_account_id=LIN_SAVINGS, payee_id="P-182", amount=100000, purpose="tuition", amount_in="CNY")
    assert by_cny["foreign_amount"] == 18814.68 and by_cny["fee"] == 250.0 and by_cny["total_debited"] == 100250.0
    assert call(sandbox, "get_transfer_limit")["used_today"] == 0.0, "transfers abroad use the yearly allowance, not the daily limit"
    error = expect_error("annual_fx_quota_exceeded", sandbox, "send_international_transfer", from_account_id=LIN_SAVINGS, payee_id="P-182", amount=40000, purpose="tuition")
    assert error.details["requested_usd"] == 29251.51
    expect_error("payee_not_abroad", sandbox, "send_international_transfer", from_account_id=LIN_CHECKING, payee_id="P-181", amount=100, purpose="other")
    expect_error("invalid_purpose", sandbox, "send_international_transfer", from_account_id=LIN_CHECKING, payee_id="P-183", amount=100, purpose="gift")
    expect_error("invalid_amount", sandbox, "send_international_transfer", from_account_id=LIN_CHECKING, payee_id="P-183", amount=5, purpose="other", amount_in="CNY")
    expect_error("insufficient_funds", sandbox, "send_international_transfer", from_account_id=LIN_CHECKING, payee_id="P-183", amount=2200, purpose="other")
    patched = fresh({"exchange_rates": {"cny_per_unit": {"GBP": None}}})
    patched.data["exchange_rates"]["cny_per_unit"].pop("GBP")
    login(patched, LIN)
    expect_error("unsupported_currency", patched, "send_international_transfer", from_account_id=LIN_CHECKING, payee_id="P-183", amount=10, purpose="other")
    login(sandbox, HUANG)
    expect_error("unknown_payee", sandbox, "send_international_transfer", from_account_id="6214830389000101", payee_id="P-183", amount=10, purpose="other")


def test_frozen_account_cannot_send_abroad() -> None:
    sandbox = fresh({"accounts": {LIN_CHECKING: {"status": "frozen"}}})
    login(sandbox, LIN)
    expect_error("account_frozen", sandbox, "send_international_transfer", from_account_id=LIN_CHECKING, payee_id="P-183", amount=10, purpose="other")


# ----------------------------------------------------------------------------- scenarios


def test_money_is_rounded() -> None:
    for scenario_id in support.scenarios(NAME):
        data = support.end_state(NAME, scenario_id)
        for account in data["accounts"].values():
            assert account["balance"] == round(account["balance"], 2) and not math.isnan(account["balance"])
        for entry in data["transactions"]:
            assert entry["amount"] == round(entry["amount"], 2)
