"""The shopping sandbox's own business rules (the contract of every sandbox: test_contract.py)."""

from __future__ import annotations

import re
from typing import Any

from tests.sandboxes import support
from validator.sandbox.base import Sandbox

NAME = "shopping"
STATE = support.state(NAME)
run, error_kind = support.call, support.error_kind


def fresh(patch: dict[str, Any] | None = None, clock: str | None = None) -> Sandbox:
    return support.fresh(NAME, patch, clock=clock)


def test_catalogue_size() -> None:
    support.check_catalogue(NAME, 9)


# ----------------------------------------------------------------------------- state and specs


def test_state_shape() -> None:
    assert STATE["sandbox"] == "shopping"
    data = STATE["data"]
    assert {"settings", "account", "coupons", "products", "cart", "orders", "returns"} <= data.keys()
    for pid, product in data["products"].items():
        assert re.fullmatch(r"SKU-[0-9]+", pid)
        assert re.search(r"[\u4e00-\u9fff]", product["name_zh"]), pid
        assert all(isinstance(code, str) for code in product["variants"]), pid
    for oid, order in data["orders"].items():
        assert int(oid.split("-")[1]) <= STATE["counters"]["order"]
        cents = sum(round(i["price"] * 100) * i["quantity"] for i in order["items"])
        assert cents == round(order["subtotal"] * 100), oid
        assert round((order["subtotal"] - order["discount"] + order["shipping_fee"]) * 100) == round(order["total"] * 100), oid
        assert order["address_id"] in data["account"]["addresses"]
    for line in data["cart"]:
        assert line["product_id"] in data["products"]


# ----------------------------------------------------------------------------- catalogue


def test_search_in_both_languages() -> None:
    sandbox = fresh()
    assert [r["product_id"] for r in run(sandbox, "search_products", query="降噪耳机")["results"]] == ["SKU-1001"]
    assert [r["product_id"] for r in run(sandbox, "search_products", query="noise-cancelling earbuds")["results"]] == ["SKU-1001"]
    both = run(sandbox, "search_products", query="蓝牙耳机")
    assert {r["product_id"] for r in both["results"]} == {"SKU-1001", "SKU-1002"}
    assert run(sandbox, "search_products", query="air fryers")["results"][0]["product_id"] == "SKU-2001"
    # a Chinese phrase is covered by pieces of the product text: 龙井 + 茶 (as in 绿茶)
    assert [r["product_id"] for r in run(sandbox, "search_products", query="龙井茶")["results"]] == ["SKU-6001"]
    assert run(sandbox, "search_products", query="红色键盘")["count"] == 0  # no piece covers 红色
    assert run(sandbox, "search_products", query="flying carpet")["count"] == 0


def test_search_filters_and_sorting() -> None:
    sandbox = fresh()
    cheap = run(sandbox, "search_products", query="earbuds", max_price=300)
    assert [r["product_id"] for r in cheap["results"]] == ["SKU-1002"]
    kitchen = run(sandbox, "search_products", category="kitchen", sort_by="price_asc")
    prices = [r["price"] for r in kitchen["results"]]
    assert prices == sorted(prices) and len(prices) == 3
    rated = run(sandbox, "search_products", category="sports", min_rating=4.6, sort_by="rating")
    assert [r["rating"] for r in rated["results"]] == sorted((r["rating"] for r in rated["results"]), reverse=True)
    assert all(r["rating"] >= 4.6 for r in rated["results"])
    assert "SKU-2004" not in [r["product_id"] for r in run(sandbox, "search_products", query="vacuum", in_stock_only=True)["results"]]
    assert run(sandbox, "search_products", brand="chefmate")["count"] == 2
    assert error_kind(sandbox, "search_products", min_price=500, max_price=100) == "invalid_price_range"


def test_product_details() -> None:
    sandbox = fresh()
    shoes = run(sandbox, "get_product_details", product_id="SKU-3002")
    assert [v["code"] for v in shoes["variants"]] == ["39", "40", "41", "42", "43", "44"]
    assert shoes["returnable"] is True and shoes["return_window_days"] == 7
    tea = run(sandbox, "get_product_details", product_id="SKU-6001")
    assert tea["returnable"] is False and tea["return_window_days"] == 0
    assert error_kind(sandbox, "get_product_details", product_id="SKU-9999") == "product_not_found"


# ----------------------------------------------------------------------------- cart and checkout


def test_cart_rules() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "add_to_cart", product_id="SKU-3002") == "variant_required"
    assert error_kind(sandbox, "add_to_cart", product_id="SKU-3002", variant="45") == "unknown_variant"
    assert error_kind(sandbox, "add_to_cart", product_id="SKU-1005", variant="black") == "unknown_variant"
    assert error_kind(sandbox, "add_to_cart", product_id="SKU-2004") == "out_of_stock"
    assert error_kind(sandbox, "add_to_cart", product_id="SKU-3003", quantity=9) == "insufficient_stock"
    added = run(sandbox, "add_to_cart", product_id="SKU-1005", quantity=2)
    assert added["quantity_in_cart"] == 3 and added["cart_subtotal"] == 387.0
    assert error_kind(sandbox, "add_to_cart", product_id="SKU-1005", quantity=8) == "quantity_limit"
    run(sandbox, "add_to_cart", product_id="SKU-1002", variant="white")
    run(sandbox, "add_to_cart", product_id="SKU-1002", variant="green")
    assert error_kind(sandbox, "remove_from_cart", product_id="SKU-1002") == "ambiguous_item"
    assert run(sandbox, "remove_from_cart", product_id="SKU-1002", variant="green")["quantity_left"] == 0
    assert run(sandbox, "remove_from_cart", product_id="SKU-1005", quantity=1)["quantity_left"] == 2
    assert error_kind(sandbox, "remove_from_cart", product_id="SKU-7001") == "not_in_cart"
    cart = run(sandbox, "view_cart")
    assert [(i["product_id"], i["quantity"]) for i in cart["items"]] == [("SKU-1005", 2), ("SKU-1002", 1)]
    assert cart["subtotal"] == 457.0 and cart["shipping_fee"] == 0.0


def test_shipping_fee_below_threshold() -> None:
    sandbox = fresh({"cart": [{"product_id": "SKU-3001", "variant": "blue", "quantity": 1}]})
    cart = run(sandbox, "view_cart")
    assert cart["subtotal"] == 89.0 and cart["shipping_fee"] == 8.0 and cart["total"] == 97.0


def test_checkout() -> None:
    sandbox = fresh()
    run(sandbox, "add_to_cart", product_id="SKU-2001")
    # the air fryer alone (359) does not reach HOME50's 400 of home and kitchen items
    assert error_kind(sandbox, "checkout", address_id="SA-2", payment_method="wechat_pay", coupon_code="HOME50") == "coupon_not_applicable"
    run(sandbox, "add_to_cart", product_id="SKU-2005")
    order = run(sandbox, "checkout", address_id="SA-2", payment_method="wechat_pay", coupon_code="home50")
    assert order["order_id"] == "SO-5007" and order["discount"] == 50.0
    assert order["subtotal"] == 647.0 and order["total"] == 597.0 and order["estimated_delivery"] == "2024-07-18"
    assert run(sandbox, "view_cart")["items"] == []
    assert sandbox.data["products"]["SKU-2001"]["stock"] == 44
    assert error_kind(sandbox, "checkout", address_id="SA-1", payment_method="alipay") == "cart_empty"


def test_checkout_errors() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "checkout", address_id="SA-9", payment_method="alipay") == "address_not_found"
    assert error_kind(sandbox, "checkout", address_id="SA-1", payment_method="alipay", coupon_code="JUNE20") == "coupon_expired"
    assert error_kind(sandbox, "checkout", address_id="SA-1", payment_method="alipay", coupon_code="SUMMER30") == "coupon_not_applicable"
    assert error_kind(sandbox, "checkout", address_id="SA-1", payment_method="alipay", coupon_code="FREE100") == "coupon_not_found"
    run(sandbox, "add_to_cart", product_id="SKU-1003")
    assert error_kind(sandbox, "checkout", address_id="SA-1", payment_method="store_credit") == "insufficient_store_credit"
    # HOME50 counts only home and kitchen items towards its minimum spend
    assert error_kind(sandbox, "checkout", address_id="SA-1", payment_method="alipay", coupon_code="HOME50") == "coupon_not_applicable"
    paid = run(sandbox, "checkout", address_id="SA-1", payment_method="alipay", coupon_code="SUMMER30")
    assert paid["total"] == 1998.0
    run(sandbox, "add_to_cart", product_id="SKU-4002")
    assert error_kind(sandbox, "checkout", address_id="SA-1", payment_method="alipay", coupon_code="SUMMER30") == "coupon_used"


# ----------------------------------------------------------------------------- orders and returns


def test_orders_and_tracking() -> None:
    sandbox = fresh()
    listed = run(sandbox, "list_shopping_orders")
    assert [o["order_id"] for o in listed["orders"]] == ["SO-5003", "SO-5002", "SO-5006", "SO-5001", "SO-5005", "SO-5004"]
    assert run(sandbox, "list_shopping_orders", status="delivered")["count"] == 3
    tracking = run(sandbox, "track_order", order_id="SO-5002")
    assert tracking["status"] == "shipped" and tracking["estimated_delivery"] == "2024-07-16" and len(tracking["events"]) == 3
    assert run(sandbox, "track_order", order_id="SO-5003")["tracking_number"] is None
    assert error_kind(sandbox, "track_order", order_id="SO-1") == "order_not_found"


def test_cancel_rules() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "cancel_shopping_order", order_id="SO-5002") == "order_not_cancellable"
    assert error_kind(sandbox, "cancel_shopping_order", order_id="SO-5005") == "order_already_cancelled"
    stock = sandbox.data["products"]["SKU-6001"]["stock"]
    cancelled = run(sandbox, "cancel_shopping_order", order_id="SO-5003", reason="changed_mind")
    assert cancelled == {"order_id": "SO-5003", "status": "cancelled", "refund_amount": 397.0, "refund_to": "alipay", "coupon_returned": False}
    assert sandbox.data["products"]["SKU-6001"]["stock"] == stock + 1


def test_cancel_gives_back_store_credit_and_coupon() -> None:
    sandbox = fresh({"cart": []})
    run(sandbox, "add_to_cart", product_id="SKU-4002")
    order = run(sandbox, "checkout", address_id="SA-1", payment_method="store_credit")
    assert sandbox.data["account"]["store_credit"] == 120.0 - order["total"]
    run(sandbox, "cancel_shopping_order", order_id=order["order_id"])
    assert sandbox.data["account"]["store_credit"] == 120.0
    run(sandbox, "add_to_cart", product_id="SKU-3005")
    with_coupon = run(sandbox, "checkout", address_id="SA-1", payment_method="alipay", coupon_code="SUMMER30")
    assert sandbox.data["coupons"]["SUMMER30"]["used"] is True
    assert run(sandbox, "cancel_shopping_order", order_id=with_coupon["order_id"])["coupon_returned"] is True
    assert sandbox.data["coupons"]["SUMMER30"]["used"] is False


def test_return_rules() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "request_return", order_id="SO-5002", product_id="SKU-1001", reason="defective") == "order_not_delivered"
    assert error_kind(sandbox, "request_return", order_id="SO-5004", product_id="SKU-4001", reason="changed_mind") == "return_window_closed"
    assert error_kind(sandbox, "request_return", order_id="SO-5006", product_id="SKU-6003", reason="changed_mind") == "not_returnable"
    assert error_kind(sandbox, "request_return", order_id="SO-5006", product_id="SKU-1001", reason="changed_mind") == "item_not_in_order"
    assert error_kind(sandbox, "request_return", order_id="SO-5006", product_id="SKU-2005", reason="changed_mind", quantity=3) == "invalid_quantity"
    shoes = run(sandbox, "request_return", order_id="SO-5001", product_id="SKU-3002", reason="wrong_size")
    assert shoes["return_id"] == "RT-301" and shoes["pickup_date"] == "2024-07-16"
    assert shoes["refund_amount"] == 423.87 and shoes["pickup_fee"] == 10.0  # 459 - 25.13 discount share - 10
    mat = run(sandbox, "request_return", order_id="SO-5001", product_id="SKU-3001", reason="defective")
    assert mat["refund_amount"] == 84.13 and mat["pickup_fee"] == 0.0
    assert error_kind(sandbox, "request_return", order_id="SO-5001", product_id="SKU-3001", reason="defective") == "invalid_quantity"
    pillows = run(sandbox, "request_return", order_id="SO-5006", product_id="SKU-2005", reason="not_as_described", quantity=2)
    assert pillows["refund_amount"] == 318.0


def test_ids_and_results_are_deterministic() -> None:
    def script() -> tuple[list[Any], dict[str, Any]]:
        sandbox = fresh()
        out = [
            run(sandbox, "add_to_cart", product_id="SKU-1007", variant="silver"),
            run(sandbox, "checkout", address_id="SA-3", payment_method="bank_card", coupon_code="SUMMER30"),
            run(sandbox, "request_return", order_id="SO-5006", product_id="SKU-2005", reason="changed_mind"),
            run(sandbox, "search_products", query="耳机", sort_by="price_desc"),
        ]
        return out, sandbox.state

    assert script() == script()


# ----------------------------------------------------------------------------- buy now, exchanges, restock alerts, addresses abroad


def test_buy_now_leaves_the_cart_alone() -> None:
    sandbox = fresh()
    order = run(sandbox, "buy_now", product_id="SKU-3001", variant="blue", quantity=2, address_id="SA-2", payment_method="wechat_pay")
    assert order["order_id"] == "SO-5007" and order["total"] == 178.0 and order["shipping_fee"] == 0.0 and order["cart_items"] == 1
    assert sandbox.data["cart"] == STATE["data"]["cart"]
    assert sandbox.data["products"]["SKU-3001"]["stock"] == 118
    small = run(sandbox, "buy_now", product_id="SKU-4001", address_id="SA-1", payment_method="store_credit")
    assert (small["shipping_fee"], small["total"]) == (8.0, 76.0)
    assert error_kind(sandbox, "buy_now", product_id="SKU-3002", address_id="SA-1", payment_method="alipay") == "variant_required"
    assert error_kind(sandbox, "buy_now", product_id="SKU-2004", address_id="SA-1", payment_method="alipay") == "out_of_stock"
    assert error_kind(sandbox, "buy_now", product_id="SKU-3003", quantity=9, address_id="SA-1", payment_method="alipay") == "insufficient_stock"
    assert error_kind(sandbox, "buy_now", product_id="SKU-1003", address_id="SA-1", payment_method="alipay", coupon_code="HOME50") == "coupon_not_applicable"
    assert error_kind(sandbox, "buy_now", product_id="SKU-1003", address_id="SA-9", payment_method="alipay") == "address_not_found"
    assert error_kind(sandbox, "buy_now", product_id="SKU-1003", address_id="SA-1", payment_method="store_credit") == "insufficient_store_credit"
    assert error_kind(sandbox, "buy_now", product_id="SKU-9999", address_id="SA-1", payment_method="alipay") == "product_not_found"
    assert error(sandbox, "buy_now", product_id="SKU-1003", quantity=11, address_id="SA-1", payment_method="alipay") == "invalid_quantity"


def error(sandbox: Sandbox, api: str, **args: Any) -> str:
    return support.error(sandbox, api, strict_args=False, **args).kind


def test_exchange_for_another_size() -> None:
    sandbox = fresh()
    exchange = run(sandbox, "request_exchange", order_id="SO-5001", product_id="SKU-3002", new_variant="43", reason="wrong_size")
    assert exchange == {
        "exchange_id": "EX-41", "order_id": "SO-5001", "product_id": "SKU-3002", "quantity": 1, "old_variant": "42", "new_variant": "43",
        "reason": "wrong_size", "status": "pickup_scheduled", "pickup_date": "2024-07-16", "replacement_delivery": "2024-07-19", "fee": 0.0,
    }
    assert sandbox.data["products"]["SKU-3002"]["stock"] == 49 and sandbox.data["returns"] == {}
    assert error_kind(sandbox, "request_return", order_id="SO-5001", product_id="SKU-3002", reason="changed_mind") == "invalid_quantity", "already sent back"
    assert error_kind(sandbox, "request_exchange", order_id="SO-5001", product_id="SKU-3001", new_variant="purple", reason="other") == "same_variant"
    assert error_kind(sandbox, "request_exchange", order_id="SO-5001", product_id="SKU-3001", new_variant="green", reason="other") == "unknown_variant"
    assert error_kind(sandbox, "request_exchange", order_id="SO-5006", product_id="SKU-2005", new_variant="x", reason="other") == "no_variants"
    assert error_kind(sandbox, "request_exchange", order_id="SO-5006", product_id="SKU-6003", new_variant="x", reason="other") == "not_returnable"
    assert error_kind(sandbox, "request_exchange", order_id="SO-5004", product_id="SKU-4001", new_variant="x", reason="other") == "return_window_closed"
    assert error_kind(sandbox, "request_exchange", order_id="SO-5002", product_id="SKU-1001", new_variant="white", reason="other") == "order_not_delivered"
    assert error_kind(sandbox, "request_exchange", order_id="SO-5001", product_id="SKU-1001", new_variant="white", reason="other") == "item_not_in_order"
    assert error_kind(sandbox, "request_exchange", order_id="SO-9999", product_id="SKU-1001", new_variant="white", reason="other") == "order_not_found"
    empty = fresh({"products": {"SKU-3001": {"stock": 0}}})
    assert error_kind(empty, "request_exchange", order_id="SO-5001", product_id="SKU-3001", new_variant="blue", reason="wrong_colour") == "out_of_stock"


def test_restock_alerts_only_for_what_is_out_of_stock() -> None:
    sandbox = fresh()
    alert = run(sandbox, "subscribe_restock_alert", product_id="SKU-2004")
    assert alert == {"alert_id": "RA-13", "product_id": "SKU-2004", "name": "Tidy R5 Robot Vacuum", "name_zh": "整洁R5扫地机器人",
                     "variant": None, "channel": "app", "expected_restock": "2024-07-22"}
    assert sandbox.data["cart"] == STATE["data"]["cart"], "nothing is bought"
    assert error_kind(sandbox, "subscribe_restock_alert", product_id="SKU-2004", channel="sms") == "already_subscribed"
    assert error_kind(sandbox, "subscribe_restock_alert", product_id="SKU-1005") == "in_stock"
    assert error_kind(sandbox, "subscribe_restock_alert", product_id="SKU-0001") == "product_not_found"
    sold_out = fresh({"products": {"SKU-3002": {"stock": 0}}})
    assert error_kind(sold_out, "subscribe_restock_alert", product_id="SKU-3002") == "variant_required"
    assert error_kind(sold_out, "subscribe_restock_alert", product_id="SKU-3002", variant="46") == "unknown_variant"
    assert run(sold_out, "subscribe_restock_alert", product_id="SKU-3002", variant="41", channel="email")["variant"] == "41"


def test_shipping_abroad() -> None:
    sandbox = fresh()
    address = run(sandbox, "add_shipping_address", label="Lin Chen Toronto", recipient="Lin Chen", phone="+14165550127",
                  address="Unit 1507, 33 Charles Street East, Toronto, ON M4Y 0A2", country="CA")
    assert address["address_id"] == "SA-4" and address["country"] == "CA"
    assert run(sandbox, "list_shipping_addresses")["addresses"][-1]["country"] == "CA"
    run(sandbox, "add_to_cart", product_id="SKU-4003")
    order = run(sandbox, "checkout", address_id="SA-4", payment_method="alipay")
    assert (order["subtotal"], order["shipping_fee"], order["total"], order["estimated_delivery"]) == (327.0, 158.0, 485.0, "2024-07-25")
    assert error_kind(sandbox, "buy_now", product_id="SKU-6001", address_id="SA-4", payment_method="alipay") == "cannot_ship_abroad"
    local = run(sandbox, "add_shipping_address", label="gym", recipient="林悦", phone="13700001234", address="杭州市滨江区网商路66号江畔健身前台")
    assert "country" not in local
    assert error_kind(sandbox, "add_shipping_address", label="GYM", recipient="x", phone="13700001234", address="somewhere 1") == "label_taken"
    assert error(sandbox, "add_shipping_address", label="Paris", recipient="x", phone="+33612345678", address="1 rue de Rivoli", country="FR") == "country_not_served"
    full = fresh({"settings": {"max_addresses": 3}})
    assert error_kind(full, "add_shipping_address", label="x", recipient="x", phone="13700001234", address="somewhere 1") == "too_many_addresses"
