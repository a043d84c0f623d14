"""The food sandbox's own rules: log-in, menus and opening hours, pricing, coupons, cancelling.

The generic contract (spec parity, declared errors, bilingual text, determinism, scenario
replays in both languages) is checked for every sandbox in test_contract.py.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

import pytest

from tests.sandboxes import support
from validator.sandbox.base import ApiError

NAME = "food"


def fresh(patch: dict[str, Any] | None = None) -> Any:
    return support.fresh(NAME, patch)


def login(sandbox: Any, account: str = "linxiao", password: str = "Lx-2024!") -> None:
    sandbox.food_login(account=account, password=password)


# ============================================================================= specs


def test_api_style() -> None:
    assert len(support.specs(NAME)) >= 15
    assert support.parameter_kinds(NAME) == {inspect.Parameter.KEYWORD_ONLY}
    assert not any(support.raised_error_kinds(NAME)[1].values()), "every ApiError kind is a literal"


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
        support.call(sandbox, api, **args)  # JSON data, valid against the spec's returns
    # results are copies: changing them does not change the state
    result = sandbox.get_food_order(order_id="FO1002")
    result["items"].clear()
    assert sandbox.data["orders"]["FO1002"]["items"]


# ============================================================================= scenarios


def test_scenario_outputs_state_facts() -> None:
    """Spot-check the end states the scenarios' outputs talk about."""
    end = {sid: support.end_state(NAME, sid) for sid in support.scenarios(NAME)}
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


# ============================================================================= pickup, pre-orders, other cities

LONDON_EVENING = "2024-07-15T18:30:00+01:00"


def london(patch: dict[str, Any] | None = None) -> Any:
    sandbox = support.fresh(NAME, patch, clock=LONDON_EVENING)
    login(sandbox, "hprice", "Hp-London9")
    return sandbox


def test_pickup_order_has_no_fee_no_minimum_and_a_code() -> None:
    sandbox = fresh()
    login(sandbox)
    quote = support.call(sandbox, "quote_food_order", merchant_id="M-101", items=[{"item_id": "I-101-05", "quantity": 2}], fulfilment="pickup")
    assert (quote["subtotal"], quote["delivery_fee"], quote["total"]) == (6.0, 0.0, 6.0), "below the 20 minimum, fine for pickup"
    order = support.call(sandbox, "place_pickup_order", merchant_id="M-101", items=[{"item_id": "I-101-03", "quantity": 1}], note="不要香菜")
    assert order == {
        "order_id": "FO1008", "status": "pending", "fulfilment": "pickup", "subtotal": 22.0, "discount": 0.0, "total": 22.0,
        "balance": 64.5, "ready_at": "2024-07-15T11:50", "pickup_code": "3101", "pickup_address": "杭州市西湖区文三路218号",
    }
    listed = support.call(sandbox, "list_food_orders")["orders"][0]
    assert listed["order_id"] == "FO1008" and listed["fulfilment"] == "pickup"
    detail = support.call(sandbox, "get_food_order", order_id="FO1008")
    assert detail["address_id"] is None and detail["estimated_delivery_at"] is None and detail["pickup_code"] == "3101"
    later = support.call(sandbox, "place_pickup_order", merchant_id="M-105", items=[{"item_id": "I-105-03", "quantity": 1}], pickup_time="12:45")
    assert later["ready_at"] == "2024-07-15T12:45"
    assert support.error_kind(sandbox, "place_pickup_order", merchant_id="M-105", items=[{"item_id": "I-105-03", "quantity": 1}], pickup_time="11:35") == "invalid_pickup_time"
    assert support.error_kind(sandbox, "place_pickup_order", merchant_id="M-105", items=[{"item_id": "I-105-03", "quantity": 1}], pickup_time="20:30") == "invalid_pickup_time"
    assert support.error_kind(sandbox, "place_pickup_order", merchant_id="M-104", items=[{"item_id": "I-104-01", "quantity": 1}]) == "merchant_closed"
    assert support.call(sandbox, "cancel_food_order", order_id="FO1008")["refund_amount"] == 22.0


def test_pickup_order_errors_keep_the_state() -> None:
    sandbox = fresh({"users": {"U-1": {"balance": 5}}})
    login(sandbox)
    items = [{"item_id": "I-101-01", "quantity": 1}]
    assert support.error_kind(sandbox, "place_pickup_order", merchant_id="M-101", items=items) == "insufficient_balance"
    assert support.error_kind(sandbox, "place_pickup_order", merchant_id="M-101", items=[{"item_id": "I-101-04", "quantity": 1}]) == "item_sold_out"
    assert support.error_kind(sandbox, "place_pickup_order", merchant_id="M-999", items=items) == "merchant_not_found"
    assert support.error_kind(sandbox, "place_pickup_order", merchant_id="M-201", items=[{"item_id": "I-201-01", "quantity": 1}]) == "merchant_in_another_city"
    assert support.error_kind(sandbox, "place_pickup_order", merchant_id="M-101", items=[{"item_id": "I-102-01", "quantity": 1}]) == "item_not_on_menu"
    assert support.error_kind(sandbox, "place_pickup_order", merchant_id="M-101", items=items, coupon_code="LUNCH10") == "coupon_min_spend_not_met"


def test_pre_order_for_later_even_when_closed_now() -> None:
    sandbox = fresh()
    login(sandbox)
    items = [{"item_id": "I-104-01", "quantity": 2}]
    assert support.error_kind(sandbox, "place_food_order", merchant_id="M-104", items=items, address_id="A-1") == "merchant_closed"
    quote = support.call(sandbox, "quote_food_order", merchant_id="M-104", items=items, deliver_at="2024-07-15T19:30")
    assert quote["total"] == 56.0
    order = support.call(sandbox, "schedule_food_order", merchant_id="M-104", items=items, address_id="A-1", deliver_at="2024-07-15T19:30", note="Ring twice")
    assert order["status"] == "scheduled" and order["deliver_at"] == "2024-07-15T19:30" and order["total"] == 56.0 and order["balance"] == 30.5
    assert support.call(sandbox, "list_food_orders", status="scheduled")["orders"][0]["order_id"] == order["order_id"]
    for when, kind in [
        ("2024-07-15T12:00", "invalid_delivery_time"),  # less than an hour from now
        ("2024-07-17T12:00", "invalid_delivery_time"),  # more than two days ahead
        ("2024-07-15T17:20", "merchant_closed_at_time"),  # it would have to cook before it opens at 17:00
        ("2024-07-16T02:30", "merchant_closed_at_time"),  # after closing
        ("2024-07-15 19:30", "invalid_delivery_time"),
    ]:
        assert support.error(sandbox, "schedule_food_order", strict_args=False, merchant_id="M-104", items=items, address_id="A-1", deliver_at=when).kind == kind, when
    assert support.error_kind(sandbox, "schedule_food_order", merchant_id="M-104", items=items, address_id="A-3", deliver_at="2024-07-15T21:00") == "address_not_found"
    assert support.error_kind(sandbox, "quote_food_order", merchant_id="M-104", items=items, fulfilment="pickup", deliver_at="2024-07-15T21:00") == "delivery_time_for_pickup"
    cancelled = support.call(sandbox, "cancel_food_order", order_id=order["order_id"])
    assert cancelled["refund_amount"] == 56.0 and cancelled["balance"] == 86.5
    poor = fresh({"users": {"U-1": {"balance": 10}}})
    login(poor)
    assert support.error_kind(poor, "schedule_food_order", merchant_id="M-104", items=items, address_id="A-1", deliver_at="2024-07-15T21:00") == "insufficient_balance"


def test_london_and_toronto_serve_their_own_accounts_in_their_currency() -> None:
    sandbox = support.fresh(NAME, clock=LONDON_EVENING)
    assert support.call(sandbox, "search_merchants", cuisine="italian")["merchants"][0]["merchant_id"] == "M-103", "Hangzhou without a login"
    found = support.call(sandbox, "search_merchants", city="伦敦", open_now=True)
    assert [m["merchant_id"] for m in found["merchants"]] == ["M-201", "M-202", "M-203", "M-204"], "the salad bar closes at 16:00"
    assert all(m["currency"] == "GBP" for m in found["merchants"])
    assert support.call(sandbox, "search_merchants", keyword="tiramisu", city="London")["merchants"][0]["matched_items"] == ["I-204-04"]
    assert support.error_kind(sandbox, "search_merchants", city="Paris") == "city_not_served"
    login(sandbox, "hprice", "Hp-London9")
    assert [m["merchant_id"] for m in support.call(sandbox, "search_merchants", cuisine="cantonese")["merchants"]] == ["M-203"], "the account's city by default"
    assert support.call(sandbox, "food_get_balance")["currency"] == "GBP"
    menu = support.call(sandbox, "get_menu", merchant_id="M-201")
    assert menu["currency"] == "GBP" and menu["is_open"] is True
    order = support.call(sandbox, "place_food_order", merchant_id="M-201", items=[{"item_id": "I-201-01", "quantity": 1}], address_id="A-91")
    assert (order["total"], order["balance"], order["currency"]) == (17.49, 0.91, "GBP")
    assert order["estimated_delivery_at"] == "2024-07-15T19:05:00+01:00"
    assert support.error_kind(sandbox, "place_food_order", merchant_id="M-101", items=[{"item_id": "I-101-01", "quantity": 1}], address_id="A-91") == "merchant_in_another_city"
    assert support.error_kind(sandbox, "food_top_up", amount=300, payment_method="apple_pay") == "invalid_amount"
    assert support.call(sandbox, "food_top_up", amount=250, payment_method="apple_pay")["balance"] == 250.91
    coupons = support.call(sandbox, "list_food_coupons")["coupons"]
    assert [(c["code"], c["currency"]) for c in coupons] == [("SPICE5", "GBP"), ("FRIDAY3", "GBP")]
    assert [o["order_id"] for o in support.call(sandbox, "list_food_orders")["orders"]] == ["FO1008", "FO0902", "FO0901"]


def test_opening_hours_are_local_to_the_restaurant() -> None:
    sandbox = fresh()  # 11:30 in Hangzhou is 04:30 in London and 23:30 on Sunday in Toronto
    assert support.call(sandbox, "get_menu", merchant_id="M-202")["is_open"] is False
    assert support.call(sandbox, "get_menu", merchant_id="M-301")["is_open"] is True
    assert support.call(sandbox, "get_menu", merchant_id="M-302")["is_open"] is False
    login(sandbox, "kwong", "Kw_Tor2024")
    order = support.call(sandbox, "place_pickup_order", merchant_id="M-301", items=[{"item_id": "I-301-01", "quantity": 2}])
    assert order["ready_at"] == "2024-07-14T23:50" and order["currency"] == "CAD" and order["total"] == 21.9
