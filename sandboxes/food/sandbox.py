"""The ``food`` sandbox: a food delivery platform with a wallet.

Data layout (``state.yaml`` → ``data``), every table keyed by its id so a scenario's
``initial_state`` patch can change one row by deep merge:

- ``session``: ``{user_id, logged_in_at}`` — the one account logged in on this device, or null.
- ``users``: ``{user_id: {username, name, name_zh, phone, password, login_code, balance,
  payment_methods, addresses: {address_id: {...}}, last_login_at}}``.
- ``merchants``: ``{merchant_id: {name, name_zh, cuisine, rating, opens_at, closes_at, paused,
  delivery_fee, min_order, delivery_minutes, menu: {item_id: {...}}}}``; a merchant outside
  Hangzhou also has ``city`` (a key of ``cities``), and so may a user.
- ``cities``: ``{name: {name_zh, utc_offset, currency}}``. Opening hours are the merchant's local
  time; prices and a user's wallet are in the city's currency. Rows without ``city`` are in
  Hangzhou (CNY, UTC+8), and results show a ``currency`` only when it is not CNY.
- ``orders``: ``{order_id: {...}}`` with status ``pending → accepted → dispatched → delivered``
  or ``cancelled``; only orders not yet dispatched can be cancelled. A pickup order
  (``fulfilment: pickup``) has no address and no delivery fee; a pre-order for a later time
  (``fulfilment: scheduled``) waits in status ``scheduled``.
- ``coupons``: ``{code: {user_id, discount, min_spend, merchant_id, expires_at, used_order_id}}``.
- ``transactions``: the wallet ledger, a list in the order the entries were made.

Money is handled in integer cents internally and returned as numbers with two decimals.
Time comes only from the sandbox clock, which no API moves: new orders stay ``pending``.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta, timezone
from typing import Any

from validator.sandbox.base import ApiError, Sandbox

LOGIN_CODE_MINUTES = 5
MAX_ADDRESSES = 5
MAX_TOP_UP = {"CNY": 2000, "GBP": 250, "CAD": 400}  # per top-up, in the wallet's currency
ORDER_STATUSES = ("scheduled", "pending", "accepted", "dispatched", "delivered", "cancelled")
CANCELLABLE = ("scheduled", "pending", "accepted")
HOME_CITY = "Hangzhou"
SCHEDULE_MIN_MINUTES = 60  # a pre-order is for at least an hour from now …
SCHEDULE_MAX_DAYS = 2  # … and at most two days ahead
_MINUTE_FORMAT = "%Y-%m-%dT%H:%M"


def _cents(amount: float | int) -> int:
    return int(round(float(amount) * 100))


def _money(cents: int) -> float:
    return round(cents / 100, 2)


def _minutes(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def _zone(offset: str) -> timezone:
    sign = -1 if offset.startswith("-") else 1
    hours, minutes = offset.lstrip("+-").split(":")
    return timezone(sign * timedelta(hours=int(hours), minutes=int(minutes)))


class FoodSandbox(Sandbox):
    """A food delivery platform: account, wallet, addresses, merchants, orders, coupons."""

    name = "food"

    # ------------------------------------------------------------------ helpers

    def _current_user(self) -> dict[str, Any]:
        user_id = (self.data.get("session") or {}).get("user_id")
        if not user_id or user_id not in self.data["users"]:
            raise ApiError("not_logged_in")
        return self.data["users"][user_id]

    def _current_user_id(self) -> str:
        self._current_user()
        return self.data["session"]["user_id"]

    def _find_account(self, account: str) -> tuple[str, dict[str, Any]]:
        wanted = account.strip().lower()
        for user_id, user in self.data["users"].items():
            if user["username"].lower() == wanted or user["phone"] == wanted:
                return user_id, user
        raise ApiError("account_not_found", account=account)

    def _merchant(self, merchant_id: str) -> dict[str, Any]:
        merchant = self.data["merchants"].get(merchant_id)
        if merchant is None:
            raise ApiError("merchant_not_found", merchant_id=merchant_id)
        return merchant

    def _city(self, row: dict[str, Any]) -> str:
        return row.get("city", HOME_CITY)

    def _currency(self, row: dict[str, Any]) -> str:
        return self.data["cities"][self._city(row)]["currency"]

    def _currency_field(self, row: dict[str, Any]) -> dict[str, str]:
        """{"currency": …} for a merchant or user outside the CNY area, else nothing (results stay as they were)."""
        currency = self._currency(row)
        return {} if currency == "CNY" else {"currency": currency}

    def _local_now(self, row: dict[str, Any]) -> datetime:
        """The clock in the local time of a merchant's (or user's) city, without its offset."""
        offset = self.data["cities"][self._city(row)]["utc_offset"]
        return self.now().astimezone(_zone(offset)).replace(tzinfo=None, second=0, microsecond=0)

    def _is_open(self, merchant: dict[str, Any], at: datetime | None = None) -> bool:
        if merchant.get("paused"):
            return False
        now = at if at is not None else self._local_now(merchant)
        current = now.hour * 60 + now.minute
        opens, closes = _minutes(merchant["opens_at"]), _minutes(merchant["closes_at"])
        if opens < closes:
            return opens <= current < closes
        return current >= opens or current < closes  # open past midnight

    def _require_open(self, merchant_id: str, merchant: dict[str, Any]) -> None:
        if not self._is_open(merchant):
            raise ApiError(
                "merchant_closed",
                merchant_id=merchant_id,
                opens_at=merchant["opens_at"],
                closes_at=merchant["closes_at"],
                now=self._local_now(merchant).strftime("%H:%M"),
            )

    def _delivery_time(self, merchant_id: str, merchant: dict[str, Any], deliver_at: str) -> datetime:
        """A pre-order's delivery time (merchant's local time): an hour to two days ahead, the kitchen open when it cooks."""
        try:
            moment = datetime.strptime(deliver_at, _MINUTE_FORMAT)
        except (TypeError, ValueError):
            raise ApiError("invalid_delivery_time", deliver_at=deliver_at) from None
        now = self._local_now(merchant)
        if not now + timedelta(minutes=SCHEDULE_MIN_MINUTES) <= moment <= now + timedelta(days=SCHEDULE_MAX_DAYS):
            raise ApiError(
                "invalid_delivery_time",
                deliver_at=deliver_at,
                earliest=(now + timedelta(minutes=SCHEDULE_MIN_MINUTES)).strftime(_MINUTE_FORMAT),
                latest=(now + timedelta(days=SCHEDULE_MAX_DAYS)).strftime(_MINUTE_FORMAT),
            )
        cooking = moment - timedelta(minutes=merchant["delivery_minutes"])
        if not self._is_open(merchant, cooking) or not self._is_open(merchant, moment - timedelta(minutes=1)):
            raise ApiError("merchant_closed_at_time", merchant_id=merchant_id, deliver_at=deliver_at,
                           opens_at=merchant["opens_at"], closes_at=merchant["closes_at"])
        return moment

    @staticmethod
    def _prep_minutes(merchant: dict[str, Any]) -> int:
        return merchant.get("prep_minutes", merchant["delivery_minutes"] - 15)

    def _own_order(self, order_id: str) -> dict[str, Any]:
        user_id = self._current_user_id()
        order = self.data["orders"].get(order_id)
        if order is None or order["user_id"] != user_id:
            raise ApiError("order_not_found", order_id=order_id)
        return order

    def _expired(self, timestamp: str) -> bool:
        return self.now() > datetime.fromisoformat(timestamp)

    def _coupon(self, code: str, user_id: str, merchant_id: str, subtotal: int) -> tuple[str, dict[str, Any]]:
        wanted = code.strip().upper()
        coupon = self.data["coupons"].get(wanted)
        if coupon is None or coupon["user_id"] != user_id:
            raise ApiError("coupon_not_found", coupon_code=code)
        if coupon.get("used_order_id"):
            raise ApiError("coupon_already_used", coupon_code=wanted, order_id=coupon["used_order_id"])
        if self._expired(coupon["expires_at"]):
            raise ApiError("coupon_expired", coupon_code=wanted, expires_at=coupon["expires_at"])
        if coupon.get("merchant_id") and coupon["merchant_id"] != merchant_id:
            raise ApiError("coupon_not_applicable", coupon_code=wanted, merchant_id=coupon["merchant_id"])
        if subtotal < _cents(coupon["min_spend"]):
            raise ApiError(
                "coupon_min_spend_not_met",
                coupon_code=wanted,
                min_spend=_money(_cents(coupon["min_spend"])),
                subtotal=_money(subtotal),
            )
        return wanted, coupon

    def _ordering_merchant(self, merchant_id: str) -> dict[str, Any]:
        """The merchant of a new order: someone is logged in, it exists and serves the account's city."""
        user_id = self._current_user_id()
        merchant = self._merchant(merchant_id)
        user = self.data["users"][user_id]
        if self._city(merchant) != self._city(user):
            raise ApiError("merchant_in_another_city", merchant_id=merchant_id, merchant_city=self._city(merchant), account_city=self._city(user))
        return merchant

    def _price(
        self,
        merchant_id: str,
        items: list[dict[str, Any]],
        coupon_code: str | None,
        *,
        pickup: bool = False,
    ) -> dict[str, Any]:
        """Validate a cart and price it; raises the first business error found. Changes nothing.

        Callers check first that the merchant takes the order (now, or at a pre-order's time). A
        pickup has no delivery fee and no minimum order.
        """
        user_id = self._current_user_id()
        merchant = self._merchant(merchant_id)
        if not items:
            raise ApiError("invalid_quantity", item_id=None, quantity=0)
        quantities: dict[str, int] = {}
        for entry in items:
            item_id = entry.get("item_id")
            quantity = entry.get("quantity")
            if item_id not in merchant["menu"]:
                raise ApiError("item_not_on_menu", item_id=item_id, merchant_id=merchant_id)
            if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= 20:
                raise ApiError("invalid_quantity", item_id=item_id, quantity=quantity)
            if not merchant["menu"][item_id].get("available", True):
                raise ApiError("item_sold_out", item_id=item_id, name=merchant["menu"][item_id]["name"])
            quantities[item_id] = quantities.get(item_id, 0) + quantity
        lines = []
        subtotal = 0
        for item_id, quantity in quantities.items():
            item = merchant["menu"][item_id]
            line = _cents(item["price"]) * quantity
            subtotal += line
            lines.append(
                {
                    "item_id": item_id,
                    "name": item["name"],
                    "name_zh": item["name_zh"],
                    "unit_price": _money(_cents(item["price"])),
                    "quantity": quantity,
                    "line_total": _money(line),
                }
            )
        if not pickup and subtotal < _cents(merchant["min_order"]):
            raise ApiError(
                "below_minimum_order",
                merchant_id=merchant_id,
                min_order=_money(_cents(merchant["min_order"])),
                subtotal=_money(subtotal),
            )
        discount = 0
        code = None
        if coupon_code:
            code, coupon = self._coupon(coupon_code, user_id, merchant_id, subtotal)
            discount = min(_cents(coupon["discount"]), subtotal)
        delivery_fee = 0 if pickup else _cents(merchant["delivery_fee"])
        return {
            **self._currency_field(merchant),
            "merchant_id": merchant_id,
            "merchant_name": merchant["name"],
            "merchant_name_zh": merchant["name_zh"],
            "items": lines,
            "subtotal": subtotal,
            "delivery_fee": delivery_fee,
            "discount": discount,
            "total": subtotal + delivery_fee - discount,
            "coupon_code": code,
        }

    def _record(self, user: dict[str, Any], user_id: str, kind: str, cents: int, **extra: Any) -> str:
        transaction_id = self.new_id("transaction", "T")
        self.data["transactions"].append(
            {
                "transaction_id": transaction_id,
                "user_id": user_id,
                "type": kind,
                "amount": _money(cents),
                "order_id": extra.get("order_id"),
                "payment_method": extra.get("payment_method"),
                "created_at": self.now().isoformat(),
                "balance_after": user["balance"],
            }
        )
        return transaction_id

    @staticmethod
    def _order_summary(order_id: str, order: dict[str, Any]) -> dict[str, Any]:
        return {
            "order_id": order_id,
            "merchant_id": order["merchant_id"],
            "merchant_name": order["merchant_name"],
            "merchant_name_zh": order["merchant_name_zh"],
            "status": order["status"],
            "items": [
                {"item_id": line["item_id"], "name": line["name"], "name_zh": line["name_zh"], "quantity": line["quantity"]}
                for line in order["items"]
            ],
            "total": order["total"],
            "placed_at": order["placed_at"],
            **{key: order[key] for key in ("fulfilment", "currency") if key in order},
        }

    # ------------------------------------------------------------------ account

    def food_send_login_code(self, *, account: str) -> dict[str, Any]:
        user_id, user = self._find_account(account)
        pending = user.get("login_code")
        resent = bool(pending) and not self._expired(pending["expires_at"])
        if not resent:
            pending = {
                "code": self.new_id("login_code"),
                "expires_at": (self.now() + timedelta(minutes=LOGIN_CODE_MINUTES)).isoformat(),
            }
            user["login_code"] = pending
        phone = user["phone"]
        return {
            "sent_to": f"{phone[:3]}****{phone[-4:]}",
            "expires_at": pending["expires_at"],
            "resent": resent,
        }

    def food_login(self, *, account: str, password: str | None = None, login_code: str | None = None) -> dict[str, Any]:
        if not password and not login_code:
            raise ApiError("missing_credentials")
        user_id, user = self._find_account(account)
        current = (self.data.get("session") or {}).get("user_id")
        if current and current != user_id:
            raise ApiError("already_logged_in", logged_in_as=self.data["users"][current]["username"])
        if password and password != user["password"]:
            raise ApiError("wrong_password", account=account)
        if login_code:
            pending = user.get("login_code")
            if not pending or pending["code"] != login_code.strip() or self._expired(pending["expires_at"]):
                raise ApiError("invalid_login_code", account=account)
        if current != user_id:  # logging in again to the account already logged in changes nothing
            if login_code:
                user["login_code"] = None  # a code works once
            now = self.now().isoformat()
            self.data["session"] = {"user_id": user_id, "logged_in_at": now}
            user["last_login_at"] = now
        return {
            "user_id": user_id,
            "username": user["username"],
            "name": user["name"],
            "name_zh": user["name_zh"],
            "balance": _money(_cents(user["balance"])),
        }

    def food_logout(self) -> dict[str, Any]:
        user = self._current_user()
        self.data["session"] = {"user_id": None, "logged_in_at": None}
        return {"logged_out": True, "username": user["username"]}

    # ------------------------------------------------------------------ wallet

    def food_get_balance(self) -> dict[str, Any]:
        user = self._current_user()
        return {
            "username": user["username"],
            "balance": _money(_cents(user["balance"])),
            "currency": self._currency(user),
            "payment_methods": list(user["payment_methods"]),
        }

    def food_top_up(self, *, amount: float, payment_method: str) -> dict[str, Any]:
        user_id = self._current_user_id()
        user = self.data["users"][user_id]
        maximum = MAX_TOP_UP[self._currency(user)]
        if (
            isinstance(amount, bool)
            or not isinstance(amount, (int, float))
            or amount < 1
            or amount > maximum
            or abs(amount * 100 - round(amount * 100)) > 1e-6
        ):
            raise ApiError("invalid_amount", amount=amount, minimum=1, maximum=maximum)
        if payment_method not in user["payment_methods"]:
            raise ApiError("payment_method_not_linked", payment_method=payment_method, linked=list(user["payment_methods"]))
        cents = _cents(amount)
        user["balance"] = _money(_cents(user["balance"]) + cents)
        transaction_id = self._record(user, user_id, "top_up", cents, payment_method=payment_method)
        return {"transaction_id": transaction_id, "amount": _money(cents), "balance": user["balance"]}

    def food_list_wallet_transactions(self, *, limit: int = 10) -> dict[str, Any]:
        user_id = self._current_user_id()
        mine = [dict(entry) for entry in self.data["transactions"] if entry["user_id"] == user_id]
        mine.reverse()  # newest first
        for entry in mine:
            entry.pop("user_id", None)
        return {"transactions": mine[: max(1, min(int(limit), 50))]}

    # ------------------------------------------------------------------ addresses

    def list_delivery_addresses(self) -> dict[str, Any]:
        user = self._current_user()
        return {
            "addresses": [
                {"address_id": address_id, **copy.deepcopy(address)} for address_id, address in user["addresses"].items()
            ]
        }

    def add_delivery_address(self, *, label: str, address: str, contact_name: str, contact_phone: str) -> dict[str, Any]:
        user = self._current_user()
        if len(user["addresses"]) >= MAX_ADDRESSES:
            raise ApiError("too_many_addresses", maximum=MAX_ADDRESSES)
        address_id = self.new_id("address", "A-")
        user["addresses"][address_id] = {
            "label": label,
            "address": address,
            "contact_name": contact_name,
            "contact_phone": contact_phone,
        }
        return {"address_id": address_id, **copy.deepcopy(user["addresses"][address_id])}

    # ------------------------------------------------------------------ merchants

    def _served_city(self, city: str | None) -> str:
        """A city named in English or Chinese; by default the logged-in account's city, else Hangzhou."""
        if city is None:
            user_id = (self.data.get("session") or {}).get("user_id")
            user = self.data["users"].get(user_id) if user_id else None
            return self._city(user) if user else HOME_CITY
        found = self.find_named("city", city)  # state.yaml `names.city`
        if found is None:
            raise ApiError("city_not_served", city=city, cities=sorted(self.data["cities"]))
        return str(found[0])

    def search_merchants(
        self, *, keyword: str | None = None, cuisine: str | None = None, open_now: bool = False, city: str | None = None
    ) -> dict[str, Any]:
        needle = keyword.strip().casefold() if keyword else ""
        where = self._served_city(city)
        found = []
        for merchant_id, merchant in self.data["merchants"].items():
            if self._city(merchant) != where:
                continue
            if cuisine and merchant["cuisine"] != cuisine:
                continue
            is_open = self._is_open(merchant)
            if open_now and not is_open:
                continue
            matched_items: list[str] = []
            if needle:
                names = (merchant["name"].casefold(), merchant["name_zh"].casefold(), merchant["cuisine"])
                name_hit = any(needle in name for name in names)
                matched_items = [
                    item_id
                    for item_id, item in merchant["menu"].items()
                    if needle in item["name"].casefold() or needle in item["name_zh"].casefold()
                ]
                if not name_hit and not matched_items:
                    continue
            found.append(
                {
                    **self._currency_field(merchant),
                    "merchant_id": merchant_id,
                    "name": merchant["name"],
                    "name_zh": merchant["name_zh"],
                    "cuisine": merchant["cuisine"],
                    "rating": merchant["rating"],
                    "is_open": is_open,
                    "opens_at": merchant["opens_at"],
                    "closes_at": merchant["closes_at"],
                    "delivery_fee": _money(_cents(merchant["delivery_fee"])),
                    "min_order": _money(_cents(merchant["min_order"])),
                    "matched_items": matched_items,
                }
            )
        return {"merchants": found, "count": len(found)}

    def get_menu(self, *, merchant_id: str) -> dict[str, Any]:
        merchant = self._merchant(merchant_id)
        return {
            **self._currency_field(merchant),
            "merchant_id": merchant_id,
            "name": merchant["name"],
            "name_zh": merchant["name_zh"],
            "cuisine": merchant["cuisine"],
            "is_open": self._is_open(merchant),
            "opens_at": merchant["opens_at"],
            "closes_at": merchant["closes_at"],
            "delivery_fee": _money(_cents(merchant["delivery_fee"])),
            "min_order": _money(_cents(merchant["min_order"])),
            "delivery_minutes": merchant["delivery_minutes"],
            "items": [
                {
                    "item_id": item_id,
                    "name": item["name"],
                    "name_zh": item["name_zh"],
                    "category": item["category"],
                    "price": _money(_cents(item["price"])),
                    "available": bool(item.get("available", True)),
                }
                for item_id, item in merchant["menu"].items()
            ],
        }

    # ------------------------------------------------------------------ orders

    def quote_food_order(
        self,
        *,
        merchant_id: str,
        items: list[dict[str, Any]],
        coupon_code: str | None = None,
        fulfilment: str = "delivery",
        deliver_at: str | None = None,
    ) -> dict[str, Any]:
        if fulfilment == "pickup" and deliver_at is not None:
            raise ApiError("delivery_time_for_pickup")
        merchant = self._ordering_merchant(merchant_id)
        if deliver_at is None:
            self._require_open(merchant_id, merchant)
        else:
            self._delivery_time(merchant_id, merchant, deliver_at)
        quote = self._price(merchant_id, items, coupon_code, pickup=fulfilment == "pickup")
        balance = _cents(self._current_user()["balance"])
        return {
            **quote,
            "subtotal": _money(quote["subtotal"]),
            "delivery_fee": _money(quote["delivery_fee"]),
            "discount": _money(quote["discount"]),
            "total": _money(quote["total"]),
            "balance": _money(balance),
            "balance_sufficient": balance >= quote["total"],
        }

    def place_food_order(
        self,
        *,
        merchant_id: str,
        items: list[dict[str, Any]],
        address_id: str,
        note: str | None = None,
        coupon_code: str | None = None,
    ) -> dict[str, Any]:
        self._require_open(merchant_id, self._ordering_merchant(merchant_id))
        quote = self._price(merchant_id, items, coupon_code)
        user_id = self._current_user_id()
        user = self.data["users"][user_id]
        address = user["addresses"].get(address_id)
        if address is None:
            raise ApiError("address_not_found", address_id=address_id)
        self._require_balance(user, quote["total"])
        order_id = self.new_id("order", "FO")
        merchant = self.data["merchants"][merchant_id]
        now = self.now()
        order = {
            "user_id": user_id,
            "merchant_id": merchant_id,
            "merchant_name": quote["merchant_name"],
            "merchant_name_zh": quote["merchant_name_zh"],
            "items": quote["items"],
            "subtotal": _money(quote["subtotal"]),
            "delivery_fee": _money(quote["delivery_fee"]),
            "discount": _money(quote["discount"]),
            "total": _money(quote["total"]),
            "coupon_code": quote["coupon_code"],
            "address_id": address_id,
            "delivery_address": address["address"],
            "note": note or None,
            "status": "pending",
            "placed_at": now.isoformat(),
            "estimated_delivery_at": (now + timedelta(minutes=merchant["delivery_minutes"])).isoformat(),
            "cancelled_at": None,
            "cancel_reason": None,
            "refund_amount": None,
            "rating": None,
            **self._currency_field(merchant),
        }
        self._charge(user_id, order_id, order, quote)
        return {
            **self._currency_field(merchant),
            "order_id": order_id,
            "status": "pending",
            "subtotal": order["subtotal"],
            "delivery_fee": order["delivery_fee"],
            "discount": order["discount"],
            "total": order["total"],
            "balance": user["balance"],
            "estimated_delivery_at": order["estimated_delivery_at"],
        }

    def _charge(self, user_id: str, order_id: str, order: dict[str, Any], quote: dict[str, Any]) -> None:
        """Store a new order, use its coupon and pay its total from the wallet (the balance was checked)."""
        user = self.data["users"][user_id]
        self.data["orders"][order_id] = order
        if quote["coupon_code"]:
            self.data["coupons"][quote["coupon_code"]]["used_order_id"] = order_id
        user["balance"] = _money(_cents(user["balance"]) - quote["total"])
        self._record(user, user_id, "payment", quote["total"], order_id=order_id)

    def _require_balance(self, user: dict[str, Any], total: int) -> None:
        balance = _cents(user["balance"])
        if balance < total:
            raise ApiError(
                "insufficient_balance",
                total=_money(total),
                balance=_money(balance),
                shortfall=_money(total - balance),
            )

    def place_pickup_order(
        self,
        *,
        merchant_id: str,
        items: list[dict[str, Any]],
        pickup_time: str | None = None,
        note: str | None = None,
        coupon_code: str | None = None,
    ) -> dict[str, Any]:
        self._require_open(merchant_id, self._ordering_merchant(merchant_id))
        quote = self._price(merchant_id, items, coupon_code, pickup=True)
        user_id = self._current_user_id()
        user = self.data["users"][user_id]
        merchant = self.data["merchants"][merchant_id]
        now = self._local_now(merchant)
        ready = now + timedelta(minutes=self._prep_minutes(merchant))
        if pickup_time is not None:
            try:
                wanted = datetime.strptime(f"{now.date().isoformat()}T{pickup_time}", _MINUTE_FORMAT)
            except ValueError:
                raise ApiError("invalid_pickup_time", pickup_time=pickup_time) from None
            if wanted < ready or not self._is_open(merchant, wanted):
                raise ApiError("invalid_pickup_time", pickup_time=pickup_time, earliest=ready.strftime("%H:%M"), closes_at=merchant["closes_at"])
            ready = wanted
        self._require_balance(user, quote["total"])
        order_id = self.new_id("order", "FO")
        order = {
            "user_id": user_id,
            "merchant_id": merchant_id,
            "merchant_name": quote["merchant_name"],
            "merchant_name_zh": quote["merchant_name_zh"],
            "items": quote["items"],
            "subtotal": _money(quote["subtotal"]),
            "delivery_fee": 0.0,
            "discount": _money(quote["discount"]),
            "total": _money(quote["total"]),
            "coupon_code": quote["coupon_code"],
            "address_id": None,
            "delivery_address": None,
            "note": note or None,
            "status": "pending",
            "placed_at": self.now().isoformat(),
            "estimated_delivery_at": None,
            "cancelled_at": None,
            "cancel_reason": None,
            "refund_amount": None,
            "rating": None,
            "fulfilment": "pickup",
            "ready_at": ready.strftime(_MINUTE_FORMAT),
            "pickup_code": self.new_id("pickup_code"),
            **self._currency_field(merchant),
        }
        self._charge(user_id, order_id, order, quote)
        return {
            **self._currency_field(merchant),
            "order_id": order_id,
            "status": "pending",
            "fulfilment": "pickup",
            "subtotal": order["subtotal"],
            "discount": order["discount"],
            "total": order["total"],
            "balance": user["balance"],
            "ready_at": order["ready_at"],
            "pickup_code": order["pickup_code"],
            "pickup_address": merchant["address"],
        }

    def schedule_food_order(
        self,
        *,
        merchant_id: str,
        items: list[dict[str, Any]],
        address_id: str,
        deliver_at: str,
        note: str | None = None,
        coupon_code: str | None = None,
    ) -> dict[str, Any]:
        self._delivery_time(merchant_id, self._ordering_merchant(merchant_id), deliver_at)
        quote = self._price(merchant_id, items, coupon_code)
        user_id = self._current_user_id()
        user = self.data["users"][user_id]
        address = user["addresses"].get(address_id)
        if address is None:
            raise ApiError("address_not_found", address_id=address_id)
        self._require_balance(user, quote["total"])
        merchant = self.data["merchants"][merchant_id]
        order_id = self.new_id("order", "FO")
        order = {
            "user_id": user_id,
            "merchant_id": merchant_id,
            "merchant_name": quote["merchant_name"],
            "merchant_name_zh": quote["merchant_name_zh"],
            "items": quote["items"],
            "subtotal": _money(quote["subtotal"]),
            "delivery_fee": _money(quote["delivery_fee"]),
            "discount": _money(quote["discount"]),
            "total": _money(quote["total"]),
            "coupon_code": quote["coupon_code"],
            "address_id": address_id,
            "delivery_address": address["address"],
            "note": note or None,
            "status": "scheduled",
            "placed_at": self.now().isoformat(),
            "estimated_delivery_at": None,
            "cancelled_at": None,
            "cancel_reason": None,
            "refund_amount": None,
            "rating": None,
            "fulfilment": "scheduled",
            "deliver_at": deliver_at,
            **self._currency_field(merchant),
        }
        self._charge(user_id, order_id, order, quote)
        return {
            **self._currency_field(merchant),
            "order_id": order_id,
            "status": "scheduled",
            "fulfilment": "scheduled",
            "deliver_at": deliver_at,
            "subtotal": order["subtotal"],
            "delivery_fee": order["delivery_fee"],
            "discount": order["discount"],
            "total": order["total"],
            "balance": user["balance"],
        }

    def cancel_food_order(self, *, order_id: str, reason: str = "other") -> dict[str, Any]:
        order = self._own_order(order_id)
        if order["status"] == "cancelled":
            raise ApiError("order_already_cancelled", order_id=order_id)
        if order["status"] not in CANCELLABLE:
            raise ApiError("order_already_dispatched", order_id=order_id, status=order["status"])
        user_id = order["user_id"]
        user = self.data["users"][user_id]
        refund = _cents(order["total"])
        order["status"] = "cancelled"
        order["cancelled_at"] = self.now().isoformat()
        order["cancel_reason"] = reason
        order["refund_amount"] = _money(refund)
        coupon_returned = False
        code = order.get("coupon_code")
        if code and code in self.data["coupons"] and not self._expired(self.data["coupons"][code]["expires_at"]):
            self.data["coupons"][code]["used_order_id"] = None
            coupon_returned = True
        user["balance"] = _money(_cents(user["balance"]) + refund)
        self._record(user, user_id, "refund", refund, order_id=order_id)
        return {
            "order_id": order_id,
            "status": "cancelled",
            "refund_amount": _money(refund),
            "balance": user["balance"],
            "coupon_returned": coupon_returned,
        }

    def get_food_order(self, *, order_id: str) -> dict[str, Any]:
        order = copy.deepcopy(self._own_order(order_id))
        order.pop("user_id", None)
        return {"order_id": order_id, **order}

    def list_food_orders(self, *, status: str | None = None, limit: int = 10) -> dict[str, Any]:
        user_id = self._current_user_id()
        mine = [
            (order_id, order)
            for order_id, order in self.data["orders"].items()
            if order["user_id"] == user_id and (status is None or order["status"] == status)
        ]
        mine.sort(key=lambda pair: (pair[1]["placed_at"], pair[0]), reverse=True)
        summaries = [self._order_summary(order_id, order) for order_id, order in mine]
        return {"orders": copy.deepcopy(summaries[: max(1, min(int(limit), 50))]), "count": len(summaries)}

    def rate_food_order(self, *, order_id: str, stars: int, comment: str | None = None) -> dict[str, Any]:
        order = self._own_order(order_id)
        if order["status"] != "delivered":
            raise ApiError("order_not_delivered", order_id=order_id, status=order["status"])
        if order.get("rating"):
            raise ApiError("order_already_rated", order_id=order_id)
        if isinstance(stars, bool) or not isinstance(stars, int) or not 1 <= stars <= 5:
            raise ApiError("invalid_stars", stars=stars)
        order["rating"] = {"stars": stars, "comment": comment or None, "rated_at": self.now().isoformat()}
        return {"order_id": order_id, **copy.deepcopy(order["rating"])}

    # ------------------------------------------------------------------ coupons

    def list_food_coupons(self, *, include_unusable: bool = False) -> dict[str, Any]:
        user_id = self._current_user_id()
        coupons = []
        for code, coupon in self.data["coupons"].items():
            if coupon["user_id"] != user_id:
                continue
            if coupon.get("used_order_id"):
                state = "used"
            elif self._expired(coupon["expires_at"]):
                state = "expired"
            else:
                state = "available"
            if state != "available" and not include_unusable:
                continue
            coupons.append(
                {
                    "code": code,
                    **self._currency_field(self.data["users"][user_id]),
                    "title": coupon["title"],
                    "title_zh": coupon["title_zh"],
                    "discount": _money(_cents(coupon["discount"])),
                    "min_spend": _money(_cents(coupon["min_spend"])),
                    "merchant_id": coupon.get("merchant_id"),
                    "expires_at": coupon["expires_at"],
                    "state": state,
                }
            )
        return {"coupons": coupons}
