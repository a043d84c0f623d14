"""The ``shopping`` sandbox: one customer's account at an online store.

Data layout (``state.yaml`` → ``data``):

- ``settings``: free-shipping threshold, shipping fee, return window (days after delivery) and
  the most units of one item a cart may hold.
- ``account``: the customer, store credit, usable payment methods and shipping addresses
  (``{address_id: {label, recipient, phone, address}}``).
- ``coupons``: ``{code: {title, title_zh, discount, min_spend, category, expires_at, used}}``;
  ``category`` (a list, or null for any) limits which items count towards ``min_spend``.
- ``products``: ``{product_id: {name, name_zh, brand, category, price, rating, reviews, stock,
  returnable, variants: {code: Chinese label}, tags}}``.
- ``cart``: a list of ``{product_id, variant, quantity}`` lines.
- ``orders``: ``{order_id: {...}}`` with status ``processing → shipped → delivered`` or
  ``cancelled``; only ``processing`` orders can be cancelled, only delivered items returned.
- ``returns``: ``{return_id: {...}}``; ``exchanges``: ``{exchange_id: {...}}`` (another variant of a
  delivered item, same rules as a return); ``restock_alerts``: ``{alert_id: {...}}``.
- ``settings.international_shipping``: the flat fee per country, the delivery days and the
  categories that cannot be sent abroad; an address with a ``country`` other than CN is abroad.

Money is computed in integer cents and returned with two decimals. The clock never moves; new
orders are stamped with it and promised three days later. A failed call changes nothing.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

from validator.sandbox.base import ApiError, Sandbox

ORDER_STATUSES = ("processing", "shipped", "delivered", "cancelled")
FREE_RETURN_REASONS = ("defective", "wrong_item", "not_as_described")
RETURN_PICKUP_FEE = 1000  # cents, deducted from the refund when the customer changed their mind
DELIVERY_DAYS = 3


def _cents(amount: float | int) -> int:
    return int(round(float(amount) * 100))


def _money(cents: int) -> float:
    return round(cents / 100, 2)


def _is_cjk(char: str) -> bool:
    return "\u3400" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"


class ShoppingSandbox(Sandbox):
    """An online store account: catalogue, cart, checkout, orders, tracking and returns."""

    name = "shopping"

    # ------------------------------------------------------------------ helpers (private)

    def _product(self, product_id: str) -> dict[str, Any]:
        product = self.data["products"].get(product_id)
        if product is None:
            raise ApiError("product_not_found", product_id=product_id)
        return product

    def _order(self, order_id: str) -> dict[str, Any]:
        order = self.data["orders"].get(order_id)
        if order is None:
            raise ApiError("order_not_found", order_id=order_id)
        return order

    def _haystack(self, product: dict[str, Any]) -> str:
        fields = [product["name"], product["name_zh"], product["brand"], product["category"], *product["tags"], *product["variants"].values()]
        return " ".join(fields).casefold()

    @staticmethod
    def _word_in(word: str, text: str) -> bool:
        """An English word (or its singular), or a Chinese phrase covered by pieces of the text."""
        if word in text:
            return True
        if not any(_is_cjk(ch) for ch in word):
            return len(word) > 3 and word.endswith("s") and word[:-1] in text  # plural
        # Cover the phrase greedily with the longest pieces found in the text; a single
        # character may close it ("龙井茶" = "龙井" + "茶"), but the phrase needs one longer piece.
        rest = word
        longest = 0
        while rest:
            for size in range(len(rest), 0, -1):
                if rest[:size] in text:
                    longest = max(longest, size)
                    rest = rest[size:]
                    break
            else:
                return False
        return longest >= 2

    def _matches(self, product: dict[str, Any], query: str) -> int:
        """0 if the product does not match the query; 2 if it matches its name, 1 otherwise."""
        words = query.casefold().split()
        text = self._haystack(product)
        if not words or not all(self._word_in(word, text) for word in words):
            return 0
        names = f"{product['name']} {product['name_zh']}".casefold()
        return 2 if all(self._word_in(word, names) for word in words) else 1

    def _listing(self, product_id: str) -> dict[str, Any]:
        product = self.data["products"][product_id]
        return {
            "product_id": product_id,
            "name": product["name"],
            "name_zh": product["name_zh"],
            "brand": product["brand"],
            "category": product["category"],
            "price": product["price"],
            "rating": product["rating"],
            "in_stock": product["stock"] > 0,
        }

    def _check_variant(self, product_id: str, product: dict[str, Any], variant: str | None) -> str | None:
        options = list(product["variants"])
        if variant is None:
            if options:
                raise ApiError("variant_required", product_id=product_id, variants=options)
            return None
        if variant not in options:
            raise ApiError("unknown_variant", product_id=product_id, variant=variant, variants=options)
        return variant

    def _cart_lines(self) -> list[dict[str, Any]]:
        products = self.data["products"]
        lines = []
        for line in self.data["cart"]:
            product = products[line["product_id"]]
            price = _cents(product["price"])
            lines.append(
                {
                    "product_id": line["product_id"],
                    "name": product["name"],
                    "name_zh": product["name_zh"],
                    "variant": line["variant"],
                    "quantity": line["quantity"],
                    "unit_price": _money(price),
                    "line_total": _money(price * line["quantity"]),
                }
            )
        return lines

    def _cart_subtotal(self) -> int:
        products = self.data["products"]
        return sum(_cents(products[line["product_id"]]["price"]) * line["quantity"] for line in self.data["cart"])

    def _shipping(self, subtotal: int) -> int:
        settings = self.data["settings"]
        if subtotal == 0 or subtotal >= _cents(settings["free_shipping_from"]):
            return 0
        return _cents(settings["shipping_fee"])

    def _expired(self, timestamp: str) -> bool:
        return datetime.fromisoformat(timestamp) < self.now()

    def _order_items(self, order: dict[str, Any]) -> list[dict[str, Any]]:
        products = self.data["products"]
        return [
            {
                "product_id": item["product_id"],
                "name": products[item["product_id"]]["name"],
                "name_zh": products[item["product_id"]]["name_zh"],
                "variant": item["variant"],
                "quantity": item["quantity"],
                "price": item["price"],
            }
            for item in order["items"]
        ]

    def _returned(self, order_id: str, product_id: str) -> int:
        return sum(r["quantity"] for r in self.data["returns"].values() if r["order_id"] == order_id and r["product_id"] == product_id)

    # ------------------------------------------------------------------ shopping.catalog

    def search_products(
        self,
        query: str | None = None,
        category: str | None = None,
        brand: str | None = None,
        min_price: float | None = None,
        max_price: float | None = None,
        min_rating: float | None = None,
        in_stock_only: bool = False,
        sort_by: str = "relevance",
        limit: int = 10,
    ) -> dict[str, Any]:
        if min_price is not None and max_price is not None and min_price > max_price:
            raise ApiError("invalid_price_range", min_price=min_price, max_price=max_price)
        found: list[tuple[int, dict[str, Any]]] = []
        for product_id, product in self.data["products"].items():
            score = self._matches(product, query) if query else 1
            if not score:
                continue
            if category is not None and product["category"] != category:
                continue
            if brand is not None and product["brand"].casefold() != brand.strip().casefold():
                continue
            if min_price is not None and _cents(product["price"]) < _cents(min_price):
                continue
            if max_price is not None and _cents(product["price"]) > _cents(max_price):
                continue
            if min_rating is not None and product["rating"] < min_rating:
                continue
            if in_stock_only and product["stock"] <= 0:
                continue
            found.append((score, product_id))
        products = self.data["products"]
        keys = {
            "relevance": lambda sp: (-sp[0], -products[sp[1]]["reviews"], sp[1]),
            "price_asc": lambda sp: (products[sp[1]]["price"], sp[1]),
            "price_desc": lambda sp: (-products[sp[1]]["price"], sp[1]),
            "rating": lambda sp: (-products[sp[1]]["rating"], -products[sp[1]]["reviews"], sp[1]),
        }
        found.sort(key=keys[sort_by])
        return {"results": [self._listing(pid) for _, pid in found[:limit]], "count": len(found)}

    def get_product_details(self, product_id: str) -> dict[str, Any]:
        product = self._product(product_id)
        details = self._listing(product_id)
        details.update(
            {
                "reviews": product["reviews"],
                "stock": product["stock"],
                "variants": [{"code": code, "label_zh": label} for code, label in product["variants"].items()],
                "returnable": product["returnable"],
                "return_window_days": self.data["settings"]["return_window_days"] if product["returnable"] else 0,
            }
        )
        return details

    # ------------------------------------------------------------------ shopping.cart

    def add_to_cart(self, product_id: str, quantity: int = 1, variant: str | None = None) -> dict[str, Any]:
        product = self._product(product_id)
        chosen = self._check_variant(product_id, product, variant)
        if quantity < 1:
            raise ApiError("invalid_quantity", quantity=quantity)
        if product["stock"] <= 0:
            raise ApiError("out_of_stock", product_id=product_id)
        line = next((l for l in self.data["cart"] if l["product_id"] == product_id and l["variant"] == chosen), None)
        total = quantity + (line["quantity"] if line else 0)
        limit = self.data["settings"]["max_quantity_per_item"]
        if total > limit:
            raise ApiError("quantity_limit", product_id=product_id, maximum=limit, in_cart=line["quantity"] if line else 0)
        if total > product["stock"]:
            raise ApiError("insufficient_stock", product_id=product_id, stock=product["stock"], in_cart=line["quantity"] if line else 0)
        if line is None:
            self.data["cart"].append({"product_id": product_id, "variant": chosen, "quantity": quantity})
        else:
            line["quantity"] = total
        return {
            "product_id": product_id,
            "name": product["name"],
            "name_zh": product["name_zh"],
            "variant": chosen,
            "quantity_in_cart": total,
            "cart_items": sum(l["quantity"] for l in self.data["cart"]),
            "cart_subtotal": _money(self._cart_subtotal()),
        }

    def remove_from_cart(self, product_id: str, variant: str | None = None, quantity: int | None = None) -> dict[str, Any]:
        lines = [l for l in self.data["cart"] if l["product_id"] == product_id and (variant is None or l["variant"] == variant)]
        if not lines:
            raise ApiError("not_in_cart", product_id=product_id, variant=variant)
        if len(lines) > 1:
            raise ApiError("ambiguous_item", product_id=product_id, variants=[l["variant"] for l in lines])
        line = lines[0]
        if quantity is not None and quantity < 1:
            raise ApiError("invalid_quantity", quantity=quantity)
        removed = line["quantity"] if quantity is None else min(quantity, line["quantity"])
        line["quantity"] -= removed
        if line["quantity"] == 0:
            self.data["cart"].remove(line)
        return {
            "product_id": product_id,
            "variant": line["variant"],
            "removed": removed,
            "quantity_left": line["quantity"],
            "cart_items": sum(l["quantity"] for l in self.data["cart"]),
            "cart_subtotal": _money(self._cart_subtotal()),
        }

    def view_cart(self) -> dict[str, Any]:
        subtotal = self._cart_subtotal()
        shipping = self._shipping(subtotal)
        return {
            "items": self._cart_lines(),
            "subtotal": _money(subtotal),
            "shipping_fee": _money(shipping),
            "total": _money(subtotal + shipping),
        }

    # ------------------------------------------------------------------ shopping.orders

    def add_shipping_address(
        self, label: str, recipient: str, phone: str, address: str, country: str = "CN"
    ) -> dict[str, Any]:
        account = self.data["account"]
        wanted = label.strip().casefold()
        if any(row["label"].casefold() == wanted for row in account["addresses"].values()):
            raise ApiError("label_taken", label=label)
        if len(account["addresses"]) >= self.data["settings"]["max_addresses"]:
            raise ApiError("too_many_addresses", maximum=self.data["settings"]["max_addresses"])
        if country != "CN" and country not in self.data["settings"]["international_shipping"]["fee_cny"]:
            raise ApiError("country_not_served", country=country, served=["CN", *sorted(self.data["settings"]["international_shipping"]["fee_cny"])])
        row = {"label": label.strip(), "recipient": recipient.strip(), "phone": phone, "address": address.strip()}
        if country != "CN":
            row["country"] = country
        address_id = self.new_id("address", "SA-")
        account["addresses"][address_id] = row
        return {"address_id": address_id, **copy.deepcopy(row)}

    def list_shipping_addresses(self) -> dict[str, Any]:
        addresses = [{"address_id": aid, **copy.deepcopy(row)} for aid, row in self.data["account"]["addresses"].items()]
        return {"addresses": addresses, "count": len(addresses)}

    def _place_order(
        self, lines: list[dict[str, Any]], address_id: str, payment_method: str, coupon_code: str | None
    ) -> dict[str, Any]:
        """Order some lines ({product_id, variant, quantity}): every check first, then the order (the caller empties nothing)."""
        account = self.data["account"]
        products = self.data["products"]
        if address_id not in account["addresses"]:
            raise ApiError("address_not_found", address_id=address_id, known=sorted(account["addresses"]))
        if payment_method not in account["payment_methods"]:
            raise ApiError("payment_method_unavailable", payment_method=payment_method, available=list(account["payment_methods"]))
        for line in lines:
            if line["quantity"] > products[line["product_id"]]["stock"]:
                raise ApiError("insufficient_stock", product_id=line["product_id"], stock=products[line["product_id"]]["stock"])
        country = account["addresses"][address_id].get("country", "CN")
        abroad = self.data["settings"]["international_shipping"]
        if country != "CN":
            barred = [l["product_id"] for l in lines if products[l["product_id"]]["category"] in abroad["excluded_categories"]]
            if barred:
                raise ApiError("cannot_ship_abroad", country=country, product_ids=barred, excluded_categories=list(abroad["excluded_categories"]))
        subtotal = sum(_cents(products[l["product_id"]]["price"]) * l["quantity"] for l in lines)
        discount = 0
        code = None
        if coupon_code is not None:
            code = coupon_code.strip().upper()
            coupon = self.data["coupons"].get(code)
            if coupon is None:
                raise ApiError("coupon_not_found", coupon_code=coupon_code)
            if coupon["used"]:
                raise ApiError("coupon_used", coupon_code=code)
            if self._expired(coupon["expires_at"]):
                raise ApiError("coupon_expired", coupon_code=code, expires_at=coupon["expires_at"])
            eligible = sum(
                _cents(products[l["product_id"]]["price"]) * l["quantity"]
                for l in lines
                if coupon["category"] is None or products[l["product_id"]]["category"] in coupon["category"]
            )
            if eligible < _cents(coupon["min_spend"]):
                raise ApiError("coupon_not_applicable", coupon_code=code, min_spend=coupon["min_spend"], eligible_amount=_money(eligible))
            discount = _cents(coupon["discount"])
        shipping = _cents(abroad["fee_cny"][country]) if country != "CN" else self._shipping(subtotal)
        total = subtotal - discount + shipping
        if payment_method == "store_credit" and total > _cents(account["store_credit"]):
            raise ApiError("insufficient_store_credit", store_credit=account["store_credit"], total=_money(total))
        # Everything checked: from here on the call succeeds.
        if payment_method == "store_credit":
            account["store_credit"] = _money(_cents(account["store_credit"]) - total)
        if code is not None:
            self.data["coupons"][code]["used"] = True
        now = self.now()
        order_id = self.new_id("order", "SO-")
        items = []
        for line in lines:
            product = products[line["product_id"]]
            product["stock"] -= line["quantity"]
            items.append({"product_id": line["product_id"], "variant": line["variant"], "quantity": line["quantity"], "price": product["price"]})
        days = abroad["delivery_days"] if country != "CN" else DELIVERY_DAYS
        self.data["orders"][order_id] = {
            "placed_at": now.isoformat(),
            "status": "processing",
            "items": items,
            "subtotal": _money(subtotal),
            "discount": _money(discount),
            "shipping_fee": _money(shipping),
            "total": _money(total),
            "coupon_code": code,
            "payment_method": payment_method,
            "address_id": address_id,
            "carrier": None,
            "carrier_zh": None,
            "tracking_number": None,
            "estimated_delivery": (now + timedelta(days=days)).date().isoformat(),
            "delivered_at": None,
            "events": [],
        }
        order = self.data["orders"][order_id]
        return {
            "order_id": order_id,
            "status": "processing",
            "items": self._order_items(order),
            "subtotal": order["subtotal"],
            "discount": order["discount"],
            "shipping_fee": order["shipping_fee"],
            "total": order["total"],
            "payment_method": payment_method,
            "address_id": address_id,
            "estimated_delivery": order["estimated_delivery"],
        }

    def checkout(self, address_id: str, payment_method: str, coupon_code: str | None = None) -> dict[str, Any]:
        if not self.data["cart"]:
            raise ApiError("cart_empty")
        result = self._place_order(self.data["cart"], address_id, payment_method, coupon_code)
        self.data["cart"] = []
        return result

    def buy_now(
        self,
        product_id: str,
        address_id: str,
        payment_method: str,
        quantity: int = 1,
        variant: str | None = None,
        coupon_code: str | None = None,
    ) -> dict[str, Any]:
        product = self._product(product_id)
        chosen = self._check_variant(product_id, product, variant)
        if quantity < 1 or quantity > self.data["settings"]["max_quantity_per_item"]:
            raise ApiError("invalid_quantity", quantity=quantity, maximum=self.data["settings"]["max_quantity_per_item"])
        if product["stock"] <= 0:
            raise ApiError("out_of_stock", product_id=product_id)
        line = {"product_id": product_id, "variant": chosen, "quantity": quantity}
        return {**self._place_order([line], address_id, payment_method, coupon_code), "cart_items": sum(l["quantity"] for l in self.data["cart"])}

    def list_shopping_orders(self, status: str | None = None, limit: int = 10) -> dict[str, Any]:
        orders = self.data["orders"]
        chosen = [oid for oid, order in orders.items() if status is None or order["status"] == status]
        chosen.sort(key=lambda oid: (orders[oid]["placed_at"], oid), reverse=True)
        rows = [
            {
                "order_id": oid,
                "placed_at": orders[oid]["placed_at"],
                "status": orders[oid]["status"],
                "total": orders[oid]["total"],
                "items": self._order_items(orders[oid]),
            }
            for oid in chosen[:limit]
        ]
        return {"orders": rows, "count": len(chosen)}

    def track_order(self, order_id: str) -> dict[str, Any]:
        order = self._order(order_id)
        return {
            "order_id": order_id,
            "status": order["status"],
            "carrier": order["carrier"],
            "carrier_zh": order["carrier_zh"],
            "tracking_number": order["tracking_number"],
            "estimated_delivery": order["estimated_delivery"],
            "delivered_at": order["delivered_at"],
            "events": copy.deepcopy(order["events"]),
        }

    def cancel_shopping_order(self, order_id: str, reason: str = "other") -> dict[str, Any]:
        order = self._order(order_id)
        if order["status"] == "cancelled":
            raise ApiError("order_already_cancelled", order_id=order_id)
        if order["status"] != "processing":
            raise ApiError("order_not_cancellable", order_id=order_id, status=order["status"])
        order["status"] = "cancelled"
        order["cancel_reason"] = reason
        for item in order["items"]:
            self.data["products"][item["product_id"]]["stock"] += item["quantity"]
        if order["payment_method"] == "store_credit":
            account = self.data["account"]
            account["store_credit"] = _money(_cents(account["store_credit"]) + _cents(order["total"]))
        coupon_returned = False
        if order["coupon_code"]:
            coupon = self.data["coupons"].get(order["coupon_code"])
            if coupon is not None and not self._expired(coupon["expires_at"]):
                coupon["used"] = False
                coupon_returned = True
        return {
            "order_id": order_id,
            "status": "cancelled",
            "refund_amount": order["total"],
            "refund_to": order["payment_method"],
            "coupon_returned": coupon_returned,
        }

    def request_return(self, order_id: str, product_id: str, reason: str, quantity: int = 1) -> dict[str, Any]:
        order, item, _ = self._delivered_item(order_id, product_id, quantity)
        paid = _cents(item["price"]) * quantity
        share = round(_cents(order["discount"]) * paid / _cents(order["subtotal"])) if _cents(order["subtotal"]) else 0
        fee = 0 if reason in FREE_RETURN_REASONS else RETURN_PICKUP_FEE
        return_id = self.new_id("return", "RT-")
        pickup = (self.now() + timedelta(days=1)).date().isoformat()
        record = {
            "order_id": order_id,
            "product_id": product_id,
            "quantity": quantity,
            "reason": reason,
            "status": "pickup_scheduled",
            "pickup_date": pickup,
            "refund_amount": _money(paid - share - fee),
            "pickup_fee": _money(fee),
            "refund_to": order["payment_method"],
            "requested_at": self.now().isoformat(),
        }
        self.data["returns"][return_id] = record
        return {"return_id": return_id, **{k: v for k, v in record.items() if k != "requested_at"}}

    # ------------------------------------------------------------------ shopping.returns (exchanges)

    def _delivered_item(self, order_id: str, product_id: str, quantity: int) -> tuple[dict[str, Any], dict[str, Any], int]:
        """The delivered, returnable item of an order within its return window; how many units are left to send back."""
        order = self._order(order_id)
        if order["status"] != "delivered":
            raise ApiError("order_not_delivered", order_id=order_id, status=order["status"])
        item = next((i for i in order["items"] if i["product_id"] == product_id), None)
        if item is None:
            raise ApiError("item_not_in_order", order_id=order_id, product_id=product_id)
        product = self.data["products"][product_id]
        if not product["returnable"]:
            raise ApiError("not_returnable", product_id=product_id, name=product["name"])
        deadline = datetime.fromisoformat(order["delivered_at"]) + timedelta(days=self.data["settings"]["return_window_days"])
        if self.now() > deadline:
            raise ApiError("return_window_closed", order_id=order_id, deadline=deadline.isoformat())
        exchanged = sum(x["quantity"] for x in self.data["exchanges"].values() if x["order_id"] == order_id and x["product_id"] == product_id)
        left = item["quantity"] - self._returned(order_id, product_id) - exchanged
        if quantity < 1 or quantity > left:
            raise ApiError("invalid_quantity", quantity=quantity, returnable_quantity=left)
        return order, item, left

    def request_exchange(self, order_id: str, product_id: str, new_variant: str, reason: str, quantity: int = 1) -> dict[str, Any]:
        order, item, _ = self._delivered_item(order_id, product_id, quantity)
        product = self.data["products"][product_id]
        if not product["variants"]:
            raise ApiError("no_variants", product_id=product_id)
        if new_variant not in product["variants"]:
            raise ApiError("unknown_variant", product_id=product_id, variant=new_variant, variants=list(product["variants"]))
        if new_variant == item["variant"]:
            raise ApiError("same_variant", variant=new_variant)
        if product["stock"] < quantity:
            raise ApiError("out_of_stock", product_id=product_id, variant=new_variant)
        product["stock"] -= quantity
        exchange_id = self.new_id("exchange", "EX-")
        record = {
            "order_id": order_id,
            "product_id": product_id,
            "quantity": quantity,
            "old_variant": item["variant"],
            "new_variant": new_variant,
            "reason": reason,
            "status": "pickup_scheduled",
            "pickup_date": (self.now() + timedelta(days=1)).date().isoformat(),
            "replacement_delivery": (self.now() + timedelta(days=1 + DELIVERY_DAYS)).date().isoformat(),
            "fee": 0.0,
            "requested_at": self.now().isoformat(),
        }
        self.data["exchanges"][exchange_id] = record
        return {"exchange_id": exchange_id, **{k: v for k, v in record.items() if k != "requested_at"}}

    # ------------------------------------------------------------------ shopping.catalog (restock alerts)

    def subscribe_restock_alert(self, product_id: str, variant: str | None = None, channel: str = "app") -> dict[str, Any]:
        product = self._product(product_id)
        chosen = self._check_variant(product_id, product, variant)
        if product["stock"] > 0:
            raise ApiError("in_stock", product_id=product_id, stock=product["stock"])
        for alert_id, alert in sorted(self.data["restock_alerts"].items()):
            if alert["product_id"] == product_id and alert["variant"] == chosen and alert["channel"] == channel:
                raise ApiError("already_subscribed", alert_id=alert_id)
        alert_id = self.new_id("restock_alert", "RA-")
        self.data["restock_alerts"][alert_id] = {
            "product_id": product_id,
            "variant": chosen,
            "channel": channel,
            "created_at": self.now().isoformat(),
        }
        return {"alert_id": alert_id, "product_id": product_id, "name": product["name"], "name_zh": product["name_zh"],
                "variant": chosen, "channel": channel, "expected_restock": product.get("expected_restock")}
