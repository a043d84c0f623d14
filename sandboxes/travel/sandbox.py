"""The travel sandbox: one online travel agency selling flights and high-speed train tickets.

State (``state.yaml`` → ``data``):

- ``session.username``: the traveller logged in, or null;
- ``cities``: code → English / Chinese name, region (``mainland`` or ``international_regional``)
  and airport aliases (PEK → BJS);
- ``flights`` / ``trains``: ``<number>-<yyyymmdd>`` → one departure with its fares per cabin or
  seat class (price per adult, seats left);
- ``rules``: payment window, child fare, refund percentages, fare-class rules, baggage fees;
- ``accounts``: username → password, names, wallet balance, stored cards, saved passengers;
- ``bookings``: booking id → one booking (see ``_new_booking``).

Every rule the agent is told in ``policy.*.md`` is read from ``data.rules`` here, so a scenario
may patch a rule and the sandbox follows. An unpaid booking whose ``pay_by`` has passed reads as
``expired``; the stored status is never rewritten by a read, so looking at a booking changes
nothing.
"""

from __future__ import annotations

from datetime import date as Date
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from validator.sandbox.base import ApiError, Sandbox

FLIGHT_CABINS = ("basic_economy", "economy", "business", "first")  # lowest to highest
MIN_CONNECTION = timedelta(hours=2)  # a return flight leaves at least this long after the outbound lands
TRAIN_SEAT_CLASSES = ("second_class", "first_class", "business_class")


def _money(value: Any) -> float:
    """CNY rounded half-up to fen (2 decimals), as a JSON number."""
    return float(Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _key(number: str, day: str) -> str:
    return f"{number.strip().upper()}-{day.replace('-', '')}"


class TravelSandbox(Sandbox):
    name = "travel"

    # ------------------------------------------------------------------ helpers (private)

    def _username(self) -> str:
        username = self.data["session"].get("username")
        if not username:
            raise ApiError("not_logged_in")
        return username

    def _account(self) -> dict[str, Any]:
        return self.data["accounts"][self._username()]

    def _booking(self, booking_id: str) -> dict[str, Any]:
        username = self._username()
        booking = self.data["bookings"].get(booking_id.strip().upper())
        if booking is None or booking["account"] != username:
            raise ApiError("booking_not_found", booking_id=booking_id)
        return booking

    def _status(self, booking: dict[str, Any]) -> str:
        if booking["status"] == "unpaid" and self.now() >= _time(booking["pay_by"]):
            return "expired"
        return booking["status"]

    def _departed(self, booking: dict[str, Any]) -> bool:
        return self.now() >= _time(booking["departure"])

    def _require_open(self, booking: dict[str, Any]) -> str:
        """The effective status of a booking that is neither cancelled nor expired."""
        status = self._status(booking)
        if status == "cancelled":
            raise ApiError("booking_already_cancelled", booking_id=booking["booking_id"])
        if status == "expired":
            raise ApiError("booking_expired", booking_id=booking["booking_id"], pay_by=booking["pay_by"])
        return status

    def _city(self, code: str) -> str:
        """A city by its code or an airport code (state.yaml `names.city`)."""
        found = self.find_named("city", code)
        if found is None:
            raise ApiError("unknown_city", city=code)
        return str(found[0])

    def _region(self, *cities: str) -> str:
        regions = {self.data["cities"][city]["region"] for city in cities}
        return "mainland" if regions == {"mainland"} else "international_regional"

    def _search_day(self, day: str) -> Date:
        try:
            parsed = Date.fromisoformat(day)
        except ValueError:
            raise ApiError("invalid_date", date=day) from None
        if parsed < self.now().date():
            raise ApiError("date_in_past", date=day, today=self.now().date().isoformat())
        return parsed

    def _table(self, kind: str) -> dict[str, Any]:
        return self.data["flights" if kind == "flight" else "trains"]

    def _service(self, kind: str, number: str, day: str) -> dict[str, Any]:
        service = self._table(kind).get(_key(number, day))
        if service is None:
            raise ApiError(f"{kind}_not_found", number=number, date=day)
        return service

    def _fare(self, price: float, passenger_type: str) -> float:
        if passenger_type == "child":
            return _money(Decimal(str(price)) * self.data["rules"]["child_fare_percent"] / 100)
        return _money(price)

    def _card(self, account: dict[str, Any], card_last4: str) -> dict[str, Any]:
        for card in account["cards"]:
            if card["last4"] == card_last4:
                if self._card_expired(card):
                    raise ApiError("card_expired", card_last4=card_last4, expires=card["expires"])
                return card
        raise ApiError("card_not_found", card_last4=card_last4)

    def _card_expired(self, card: dict[str, Any]) -> bool:
        year, month = (int(part) for part in card["expires"].split("-"))
        now = self.now()
        return (year, month) < (now.year, now.month)

    def _charge(self, account: dict[str, Any], method: str, card_last4: str | None, amount: float) -> None:
        """Take money from the wallet or a stored card; raises before changing anything."""
        if method == "wallet":
            balance = _money(account["wallet_balance"])
            if balance < amount:
                raise ApiError("insufficient_balance", wallet_balance=balance, amount_due=_money(amount))
            account["wallet_balance"] = _money(Decimal(str(balance)) - Decimal(str(amount)))
        else:
            self._card(account, card_last4 or "")

    def _refund(self, account: dict[str, Any], booking: dict[str, Any], amount: float) -> None:
        """Money back goes where it came from; card refunds leave no trace but the booking."""
        if amount > 0 and booking["payment_method"] == "wallet":
            account["wallet_balance"] = _money(Decimal(str(account["wallet_balance"])) + Decimal(str(amount)))

    def _refund_terms(self, booking: dict[str, Any]) -> tuple[int, str]:
        """(percent of the amount paid that comes back, the rule that decided it)."""
        if booking["status"] == "unpaid":
            return 0, "unpaid"
        if not self.data["rules"]["fare_classes"][booking["fare_class"]]["refundable"]:
            return 0, "non_refundable_fare"
        percents = self.data["rules"]["refund_percent"][booking["kind"]]
        left = _time(booking["departure"]) - self.now()
        if left <= timedelta(0):
            return percents["after_departure"], "after_departure"
        if left > timedelta(hours=24):
            return percents["more_than_24h"], "more_than_24h"
        return percents["within_24h"], "within_24h"

    def _hours_left(self, booking: dict[str, Any]) -> float:
        seconds = (_time(booking["departure"]) - self.now()).total_seconds()
        return round(seconds / 3600, 2)

    def _view(self, booking: dict[str, Any]) -> dict[str, Any]:
        status = self._status(booking)
        view: dict[str, Any] = {
            "booking_id": booking["booking_id"],
            "kind": booking["kind"],
            "number": booking["number"],
            "date": booking["date"],
            "from_city": booking["from_city"],
            "to_city": booking["to_city"],
            "departure": booking["departure"],
            "arrival": booking["arrival"],
            "fare_class": booking["fare_class"],
            "passengers": [dict(p, fare=_money(p["fare"])) for p in booking["passengers"]],
            "extra_bags": booking["extra_bags"],
            "fare_total": _money(booking["fare_total"]),
            "baggage_fee_total": _money(booking["baggage_fee_total"]),
            "total_price": _money(booking["total_price"]),
            "amount_paid": _money(booking["amount_paid"]),
            "status": status,
            "departed": self._departed(booking),
            "created_at": booking["created_at"],
            "reschedule_count": booking["reschedule_count"],
        }
        if status == "unpaid":
            view["pay_by"] = booking["pay_by"]
            view["amount_due"] = _money(Decimal(str(booking["total_price"])) - Decimal(str(booking["amount_paid"])))
        for field in ("payment_method", "card_last4", "paid_at", "cancelled_at"):
            if booking.get(field) is not None:
                view[field] = booking[field]
        if status == "cancelled":
            view["refund_amount"] = _money(booking["refund_amount"])
        return view

    def _search(
        self, kind: str, from_city: str, to_city: str, date: str, fare_class: str, depart_after: str, sort_by: str
    ) -> list[dict[str, Any]]:
        origin, destination = self._city(from_city), self._city(to_city)
        if origin == destination:
            raise ApiError("same_city", city=origin)
        day = self._search_day(date).isoformat()
        number_field = "flight_number" if kind == "flight" else "train_number"
        rules = self.data["rules"]["fare_classes"][fare_class]
        found = []
        for service in self._table(kind).values():
            if (service["from_city"], service["to_city"], service["date"]) != (origin, destination, day):
                continue
            departure = _time(service["departure"])
            if departure <= self.now() or departure.strftime("%H:%M") < depart_after:
                continue
            fare = service["fares"].get(fare_class)
            if fare is None:
                continue
            item = {
                number_field: service[number_field],
                "from_city": origin,
                "to_city": destination,
                "date": day,
                "departure": service["departure"],
                "arrival": service["arrival"],
                "duration_minutes": int((_time(service["arrival"]) - departure).total_seconds() // 60),
                "price": _money(fare["price"]),
                "seats_left": fare["seats"],
                "refundable": rules["refundable"],
                "changeable": rules["changeable"],
            }
            if kind == "flight":
                item["cabin"] = fare_class
                item["free_checked_bags"] = rules["free_checked_bags"]
            else:
                item["seat_class"] = fare_class
            found.append(item)
        if sort_by == "price":
            found.sort(key=lambda item: (item["price"], item["departure"]))
        else:
            found.sort(key=lambda item: item["departure"])
        return found

    def _book(self, kind: str, number: str, date: str, fare_class: str, passengers: list[dict[str, Any]]) -> dict[str, Any]:
        username = self._username()
        service = self._service(kind, number, date)
        fare = service["fares"].get(fare_class)
        if fare is None:
            raise ApiError(
                "cabin_not_offered" if kind == "flight" else "seat_class_not_offered",
                number=number,
                requested=fare_class,
                offered=sorted(service["fares"]),
            )
        if _time(service["departure"]) <= self.now():
            raise ApiError("departure_passed", number=number, departure=service["departure"])
        if fare["seats"] < len(passengers):
            raise ApiError("no_seats_left", number=number, fare_class=fare_class, seats_left=fare["seats"])
        tickets = []
        for passenger in passengers:
            passenger_type = passenger.get("passenger_type", "adult")
            tickets.append(
                {
                    "name": passenger["name"].strip(),
                    "id_number": passenger["id_number"].strip().upper(),
                    "passenger_type": passenger_type,
                    "fare": self._fare(fare["price"], passenger_type),
                }
            )
        fare_total = _money(sum(Decimal(str(t["fare"])) for t in tickets))
        now = self.now()
        booking_id = self.new_id("booking", "TB-")
        window = timedelta(minutes=self.data["rules"]["payment_window_minutes"])
        number_field = "flight_number" if kind == "flight" else "train_number"
        booking = {
            "booking_id": booking_id,
            "account": username,
            "kind": kind,
            "number": service[number_field],
            "date": service["date"],
            "from_city": service["from_city"],
            "to_city": service["to_city"],
            "departure": service["departure"],
            "arrival": service["arrival"],
            "fare_class": fare_class,
            "passengers": tickets,
            "extra_bags": 0,
            "fare_total": fare_total,
            "baggage_fee_total": 0.0,
            "total_price": fare_total,
            "amount_paid": 0.0,
            "status": "unpaid",
            "payment_method": None,
            "card_last4": None,
            "created_at": now.isoformat(),
            "pay_by": (now + window).isoformat(),
            "paid_at": None,
            "refund_amount": 0.0,
            "cancelled_at": None,
            "reschedule_count": 0,
        }
        fare["seats"] -= len(tickets)
        self.data["bookings"][booking_id] = booking
        return self._view(booking)

    def _release_seats(self, booking: dict[str, Any]) -> None:
        service = self._table(booking["kind"]).get(_key(booking["number"], booking["date"]))
        if service is not None and booking["fare_class"] in service["fares"]:
            service["fares"][booking["fare_class"]]["seats"] += len(booking["passengers"])

    # ------------------------------------------------------------------ account

    def travel_login(self, username: str, password: str) -> dict[str, Any]:
        account = self.data["accounts"].get(username.strip().lower())
        if account is None or account["password"] != password:
            raise ApiError("invalid_credentials")
        self.data["session"]["username"] = username.strip().lower()
        return {
            "username": username.strip().lower(),
            "name_en": account["name_en"],
            "name_zh": account["name_zh"],
            "logged_in": True,
        }

    def travel_logout(self) -> dict[str, Any]:
        username = self._username()
        self.data["session"]["username"] = None
        return {"username": username, "logged_in": False}

    def travel_get_balance(self) -> dict[str, Any]:
        account = self._account()
        return {
            "username": self._username(),
            "wallet_balance": _money(account["wallet_balance"]),
            "cards": [
                {"last4": card["last4"], "bank": card["bank"], "expires": card["expires"], "expired": self._card_expired(card)}
                for card in account["cards"]
            ],
        }

    def travel_top_up_wallet(self, amount: float, card_last4: str) -> dict[str, Any]:
        account = self._account()
        self._card(account, card_last4)
        amount = _money(amount)
        account["wallet_balance"] = _money(Decimal(str(account["wallet_balance"])) + Decimal(str(amount)))
        return {"amount": amount, "card_last4": card_last4, "wallet_balance": account["wallet_balance"]}

    def list_saved_passengers(self) -> dict[str, Any]:
        account = self._account()
        return {"passengers": [dict(p) for p in account["saved_passengers"]]}

    # ------------------------------------------------------------------ places and rules

    def find_city_code(self, name: str) -> dict[str, Any]:
        wanted = name.strip().casefold()
        matches = []
        for code, info in self.data["cities"].items():
            names = [code.casefold(), info["name_en"].casefold(), info["name_zh"], *(a.casefold() for a in info["aliases"])]
            if any(wanted == n or (len(wanted) >= 2 and (wanted in n or n in wanted)) for n in names):
                matches.append(
                    {
                        "code": code,
                        "name_en": info["name_en"],
                        "name_zh": info["name_zh"],
                        "region": info["region"],
                        "airport_codes": list(info["aliases"]),
                    }
                )
        return {"matches": matches}

    def get_fare_rules(self, fare_class: str) -> dict[str, Any]:
        rules = self.data["rules"]
        fare = rules["fare_classes"][fare_class]
        percents = rules["refund_percent"][fare["transport"]]
        result: dict[str, Any] = {
            "fare_class": fare_class,
            "transport": fare["transport"],
            "refundable": fare["refundable"],
            "changeable": fare["changeable"],
            "refund_percent": dict(percents) if fare["refundable"] else {key: 0 for key in percents},
            "child_fare_percent": rules["child_fare_percent"],
            "payment_window_minutes": rules["payment_window_minutes"],
        }
        if fare["transport"] == "flight":
            result["free_checked_bags"] = fare["free_checked_bags"]
            result["bag_weight_kg"] = fare["bag_weight_kg"]
            result["extra_bag_fee"] = {region: _money(fee) for region, fee in rules["extra_bag_fee"].items()}
            result["max_extra_bags_per_passenger"] = rules["max_extra_bags_per_passenger"]
        return result

    # ------------------------------------------------------------------ search and book

    def search_flights(
        self,
        from_city: str,
        to_city: str,
        date: str,
        cabin: str = "economy",
        depart_after: str = "00:00",
        sort_by: str = "departure",
    ) -> dict[str, Any]:
        return {"flights": self._search("flight", from_city, to_city, date, cabin, depart_after, sort_by)}

    def search_trains(
        self,
        from_city: str,
        to_city: str,
        date: str,
        seat_class: str = "second_class",
        depart_after: str = "00:00",
        sort_by: str = "departure",
    ) -> dict[str, Any]:
        return {"trains": self._search("train", from_city, to_city, date, seat_class, depart_after, sort_by)}

    def search_round_trip_flights(
        self,
        from_city: str,
        to_city: str,
        depart_date: str,
        return_date: str,
        cabin: str = "economy",
        sort_by: str = "departure",
    ) -> dict[str, Any]:
        outbound_day, back_day = self._search_day(depart_date), self._search_day(return_date)
        if back_day < outbound_day:
            raise ApiError("return_before_departure", depart_date=depart_date, return_date=return_date)
        outbound = self._search("flight", from_city, to_city, depart_date, cabin, "00:00", sort_by)
        inbound = self._search("flight", to_city, from_city, return_date, cabin, "00:00", sort_by)
        pairs = [
            (_money(Decimal(str(out["price"])) + Decimal(str(back["price"]))), out["departure"], back["departure"], out, back)
            for out in outbound
            if out["seats_left"] > 0
            for back in inbound
            if back["seats_left"] > 0 and _time(back["departure"]) >= _time(out["arrival"]) + MIN_CONNECTION
        ]
        cheapest = None
        if pairs:
            total, _, _, out, back = min(pairs, key=lambda pair: pair[:3])
            cheapest = {"outbound_flight": out["flight_number"], "return_flight": back["flight_number"], "total_price": total}
        return {"outbound": outbound, "return": inbound, "cheapest_combination": cheapest}

    def get_flight_status(self, flight_number: str, date: str) -> dict[str, Any]:
        service = self._service("flight", flight_number, date)
        live = self.data["flight_status"].get(_key(flight_number, date), {})
        delay = timedelta(minutes=live.get("delay_minutes", 0))
        departure, arrival = _time(service["departure"]) + delay, _time(service["arrival"]) + delay
        now = self.now()
        if now >= arrival:
            status = "landed"
        elif now >= departure:
            status = "departed"
        else:
            status = "delayed" if delay else "on_time"
        reason = live.get("reason")
        return {
            "flight_number": service["flight_number"],
            "date": service["date"],
            "from_city": service["from_city"],
            "to_city": service["to_city"],
            "scheduled_departure": service["departure"],
            "expected_departure": departure.isoformat(),
            "scheduled_arrival": service["arrival"],
            "expected_arrival": arrival.isoformat(),
            "status": status,
            "delay_minutes": int(delay.total_seconds() // 60),
            "terminal": live.get("terminal"),
            "gate": live.get("gate"),
            "reason": dict(reason) if reason else None,
        }

    def book_flight(self, flight_number: str, date: str, cabin: str, passengers: list[dict[str, Any]]) -> dict[str, Any]:
        return self._book("flight", flight_number, date, cabin, passengers)

    def book_train(self, train_number: str, date: str, seat_class: str, passengers: list[dict[str, Any]]) -> dict[str, Any]:
        return self._book("train", train_number, date, seat_class, passengers)

    # ------------------------------------------------------------------ bookings

    def get_booking(self, booking_id: str) -> dict[str, Any]:
        return self._view(self._booking(booking_id))

    def list_bookings(self, status: str = "all") -> dict[str, Any]:
        username = self._username()
        found = []
        for booking_id in sorted(self.data["bookings"]):
            booking = self.data["bookings"][booking_id]
            if booking["account"] != username:
                continue
            current = self._status(booking)
            if status != "all" and current != status:
                continue
            found.append(
                {
                    "booking_id": booking_id,
                    "kind": booking["kind"],
                    "number": booking["number"],
                    "from_city": booking["from_city"],
                    "to_city": booking["to_city"],
                    "departure": booking["departure"],
                    "fare_class": booking["fare_class"],
                    "passenger_count": len(booking["passengers"]),
                    "total_price": _money(booking["total_price"]),
                    "status": current,
                    "departed": self._departed(booking),
                }
            )
        return {"bookings": found}

    def pay_booking(self, booking_id: str, payment_method: str, card_last4: str | None = None) -> dict[str, Any]:
        account = self._account()
        booking = self._booking(booking_id)
        status = self._require_open(booking)
        if status == "paid":
            raise ApiError("booking_already_paid", booking_id=booking["booking_id"])
        if self._departed(booking):
            raise ApiError("departure_passed", booking_id=booking["booking_id"], departure=booking["departure"])
        if payment_method == "card" and not card_last4:
            raise ApiError("card_required")
        amount = _money(Decimal(str(booking["total_price"])) - Decimal(str(booking["amount_paid"])))
        self._charge(account, payment_method, card_last4, amount)
        booking["status"] = "paid"
        booking["amount_paid"] = _money(booking["total_price"])
        booking["payment_method"] = payment_method
        booking["card_last4"] = card_last4 if payment_method == "card" else None
        booking["paid_at"] = self.now().isoformat()
        result: dict[str, Any] = {
            "booking_id": booking["booking_id"],
            "status": "paid",
            "amount_charged": amount,
            "payment_method": payment_method,
            "wallet_balance": _money(account["wallet_balance"]),
        }
        if payment_method == "card":
            result["card_last4"] = card_last4
        return result

    def get_refund_quote(self, booking_id: str) -> dict[str, Any]:
        booking = self._booking(booking_id)
        self._require_open(booking)
        percent, rule = self._refund_terms(booking)
        paid = _money(booking["amount_paid"])
        return {
            "booking_id": booking["booking_id"],
            "status": self._status(booking),
            "amount_paid": paid,
            "hours_before_departure": self._hours_left(booking),
            "rule": rule,
            "refund_percent": percent,
            "refund_amount": _money(Decimal(str(paid)) * percent / 100),
            "can_cancel": rule not in ("non_refundable_fare", "after_departure"),
        }

    def cancel_booking(self, booking_id: str) -> dict[str, Any]:
        account = self._account()
        booking = self._booking(booking_id)
        self._require_open(booking)
        if self._departed(booking):
            raise ApiError("departure_passed", booking_id=booking["booking_id"], departure=booking["departure"])
        percent, rule = self._refund_terms(booking)
        if rule == "non_refundable_fare":
            raise ApiError("non_refundable_fare", booking_id=booking["booking_id"], fare_class=booking["fare_class"])
        refund = _money(Decimal(str(booking["amount_paid"])) * percent / 100)
        self._refund(account, booking, refund)
        self._release_seats(booking)
        booking["status"] = "cancelled"
        booking["refund_amount"] = refund
        booking["cancelled_at"] = self.now().isoformat()
        result: dict[str, Any] = {
            "booking_id": booking["booking_id"],
            "status": "cancelled",
            "rule": rule,
            "refund_percent": percent,
            "refund_amount": refund,
            "refund_to": booking["payment_method"] if refund > 0 else "none",
            "wallet_balance": _money(account["wallet_balance"]),
        }
        if refund > 0 and booking["payment_method"] == "card":
            result["card_last4"] = booking["card_last4"]
        return result

    def reschedule_booking(self, booking_id: str, new_number: str, new_date: str) -> dict[str, Any]:
        account = self._account()
        booking = self._booking(booking_id)
        status = self._require_open(booking)
        if not self.data["rules"]["fare_classes"][booking["fare_class"]]["changeable"]:
            raise ApiError("fare_not_changeable", booking_id=booking["booking_id"], fare_class=booking["fare_class"])
        if self._departed(booking):
            raise ApiError("departure_passed", booking_id=booking["booking_id"], departure=booking["departure"])
        kind = booking["kind"]
        service = self._service(kind, new_number, new_date)
        number_field = "flight_number" if kind == "flight" else "train_number"
        if (service[number_field], service["date"]) == (booking["number"], booking["date"]):
            raise ApiError("same_itinerary", number=booking["number"], date=booking["date"])
        if (service["from_city"], service["to_city"]) != (booking["from_city"], booking["to_city"]):
            raise ApiError(
                "different_route",
                booking_route=f"{booking['from_city']}-{booking['to_city']}",
                new_route=f"{service['from_city']}-{service['to_city']}",
            )
        if _time(service["departure"]) <= self.now():
            raise ApiError("new_departure_passed", number=service[number_field], departure=service["departure"])
        fare = service["fares"].get(booking["fare_class"])
        if fare is None:
            raise ApiError("fare_class_not_offered", number=service[number_field], fare_class=booking["fare_class"])
        if fare["seats"] < len(booking["passengers"]):
            raise ApiError("no_seats_left", number=service[number_field], fare_class=booking["fare_class"], seats_left=fare["seats"])
        new_fares = [self._fare(fare["price"], p["passenger_type"]) for p in booking["passengers"]]
        new_total = _money(sum(Decimal(str(f)) for f in new_fares))
        difference = _money(Decimal(str(new_total)) - Decimal(str(booking["fare_total"])))
        charged = refunded = 0.0
        if status == "paid":
            if difference > 0:
                self._charge(account, booking["payment_method"], booking["card_last4"], difference)
                charged = difference
            elif difference < 0:
                refunded = -difference
                self._refund(account, booking, refunded)
            booking["amount_paid"] = _money(Decimal(str(booking["amount_paid"])) + Decimal(str(difference)))
        old = {"number": booking["number"], "date": booking["date"], "departure": booking["departure"]}
        self._release_seats(booking)
        fare["seats"] -= len(booking["passengers"])
        for passenger, new_fare in zip(booking["passengers"], new_fares):
            passenger["fare"] = new_fare
        booking.update(
            number=service[number_field],
            date=service["date"],
            departure=service["departure"],
            arrival=service["arrival"],
            fare_total=new_total,
            total_price=_money(Decimal(str(new_total)) + Decimal(str(booking["baggage_fee_total"]))),
            reschedule_count=booking["reschedule_count"] + 1,
        )
        return {
            "booking_id": booking["booking_id"],
            "old": old,
            "new": {"number": booking["number"], "date": booking["date"], "departure": booking["departure"], "arrival": booking["arrival"]},
            "fare_difference": difference,
            "charged": charged,
            "refunded": refunded,
            "total_price": _money(booking["total_price"]),
            "status": status,
            "wallet_balance": _money(account["wallet_balance"]),
        }

    # ------------------------------------------------------------------ baggage

    def get_baggage_allowance(self, booking_id: str) -> dict[str, Any]:
        booking = self._booking(booking_id)
        if booking["kind"] != "flight":
            raise ApiError("not_a_flight", booking_id=booking["booking_id"])
        rules = self.data["rules"]
        fare = rules["fare_classes"][booking["fare_class"]]
        count = len(booking["passengers"])
        region = self._region(booking["from_city"], booking["to_city"])
        return {
            "booking_id": booking["booking_id"],
            "fare_class": booking["fare_class"],
            "passenger_count": count,
            "free_bags_per_passenger": fare["free_checked_bags"],
            "bag_weight_kg": fare["bag_weight_kg"],
            "free_bags_total": fare["free_checked_bags"] * count,
            "extra_bags": booking["extra_bags"],
            "region": region,
            "extra_bag_fee": _money(rules["extra_bag_fee"][region]),
            "max_extra_bags_total": rules["max_extra_bags_per_passenger"] * count,
        }

    def add_baggage(self, booking_id: str, bags: int) -> dict[str, Any]:
        account = self._account()
        booking = self._booking(booking_id)
        if booking["kind"] != "flight":
            raise ApiError("not_a_flight", booking_id=booking["booking_id"])
        status = self._require_open(booking)
        if self._departed(booking):
            raise ApiError("departure_passed", booking_id=booking["booking_id"], departure=booking["departure"])
        rules = self.data["rules"]
        limit = rules["max_extra_bags_per_passenger"] * len(booking["passengers"])
        if booking["extra_bags"] + bags > limit:
            raise ApiError("baggage_limit_exceeded", extra_bags=booking["extra_bags"], max_extra_bags_total=limit)
        region = self._region(booking["from_city"], booking["to_city"])
        fee = _money(Decimal(str(rules["extra_bag_fee"][region])) * bags)
        if status == "paid":
            self._charge(account, booking["payment_method"], booking["card_last4"], fee)
            booking["amount_paid"] = _money(Decimal(str(booking["amount_paid"])) + Decimal(str(fee)))
        booking["extra_bags"] += bags
        booking["baggage_fee_total"] = _money(Decimal(str(booking["baggage_fee_total"])) + Decimal(str(fee)))
        booking["total_price"] = _money(Decimal(str(booking["total_price"])) + Decimal(str(fee)))
        result: dict[str, Any] = {
            "booking_id": booking["booking_id"],
            "bags_added": bags,
            "extra_bags": booking["extra_bags"],
            "fee": fee,
            "charged_now": status == "paid",
            "total_price": booking["total_price"],
            "wallet_balance": _money(account["wallet_balance"]),
        }
        if status == "paid":
            result["payment_method"] = booking["payment_method"]
        return result

    # ------------------------------------------------------------------ cabin upgrades

    def upgrade_cabin(self, booking_id: str, new_cabin: str) -> dict[str, Any]:
        account = self._account()
        booking = self._booking(booking_id)
        if booking["kind"] != "flight":
            raise ApiError("not_a_flight", booking_id=booking["booking_id"])
        status = self._require_open(booking)
        if self._departed(booking):
            raise ApiError("departure_passed", booking_id=booking["booking_id"], departure=booking["departure"])
        old_cabin = booking["fare_class"]
        if not self.data["rules"]["fare_classes"][old_cabin]["changeable"]:
            raise ApiError("fare_not_changeable", booking_id=booking["booking_id"], fare_class=old_cabin)
        if FLIGHT_CABINS.index(new_cabin) <= FLIGHT_CABINS.index(old_cabin):
            raise ApiError("not_an_upgrade", current_cabin=old_cabin, requested=new_cabin)
        service = self._service("flight", booking["number"], booking["date"])
        fare = service["fares"].get(new_cabin)
        if fare is None:
            raise ApiError("cabin_not_offered", number=booking["number"], requested=new_cabin, offered=sorted(service["fares"]))
        if fare["seats"] < len(booking["passengers"]):
            raise ApiError("no_seats_left", number=booking["number"], fare_class=new_cabin, seats_left=fare["seats"])
        new_fares = [self._fare(fare["price"], p["passenger_type"]) for p in booking["passengers"]]
        new_total = _money(sum(Decimal(str(f)) for f in new_fares))
        difference = _money(Decimal(str(new_total)) - Decimal(str(booking["fare_total"])))
        charged = 0.0
        if status == "paid" and difference > 0:
            self._charge(account, booking["payment_method"], booking["card_last4"], difference)
            booking["amount_paid"] = _money(Decimal(str(booking["amount_paid"])) + Decimal(str(difference)))
            charged = difference
        self._release_seats(booking)
        fare["seats"] -= len(booking["passengers"])
        for passenger, new_fare in zip(booking["passengers"], new_fares):
            passenger["fare"] = new_fare
        booking.update(
            fare_class=new_cabin,
            fare_total=new_total,
            total_price=_money(Decimal(str(new_total)) + Decimal(str(booking["baggage_fee_total"]))),
        )
        result: dict[str, Any] = {
            "booking_id": booking["booking_id"],
            "number": booking["number"],
            "date": booking["date"],
            "old_cabin": old_cabin,
            "new_cabin": new_cabin,
            "fare_difference": difference,
            "charged": charged,
            "total_price": _money(booking["total_price"]),
            "status": status,
            "free_checked_bags_per_passenger": self.data["rules"]["fare_classes"][new_cabin]["free_checked_bags"],
            "wallet_balance": _money(account["wallet_balance"]),
        }
        if status == "unpaid":
            result["amount_due"] = _money(Decimal(str(booking["total_price"])) - Decimal(str(booking["amount_paid"])))
        return result
