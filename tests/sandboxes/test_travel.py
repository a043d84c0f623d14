"""The travel sandbox's own rules: search, booking, payment, refunds, rescheduling, baggage.

The generic contract (spec parity, declared errors, bilingual text, determinism, scenario
replays in both languages) is checked for every sandbox in test_contract.py.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest

from tests.sandboxes import support
from validator.sandbox import replay as replay_module
from validator.sandbox.base import ApiError

NAME = "travel"
STATE = support.state(NAME)
SPECS = support.specs(NAME)

CHEN = {"name": "Chen Yu", "id_number": "310104199003152218"}
LIN = {"name": "Lin Xiao", "id_number": "310104199108204026"}


def fresh(patch: dict[str, Any] | None = None) -> Any:
    return support.fresh(NAME, patch)


def login(sandbox: Any, who: str = "chenyu") -> None:
    passwords = {"chenyu": "Lotus#2024", "zhoulan": "Maple@88", "linyue": "Cuiyuan#56"}
    sandbox.travel_login(username=who, password=passwords[who])


def raises(kind: str, method: Any, **args: Any) -> ApiError:
    """The method fails with this declared kind (JSON details) and changes nothing."""
    error = support.error(method.__self__, method.__name__, **args)
    assert error.kind == kind, error.details
    return error


# ----------------------------------------------------------------------------- specs


def test_api_style() -> None:
    assert len(SPECS) >= 15 and not support.distractors(NAME)
    assert support.parameter_kinds(NAME) == {inspect.Parameter.POSITIONAL_OR_KEYWORD}


def test_kinds_built_at_run_time_are_declared() -> None:
    """`f"{kind}_not_found"` and the cabin / seat-class choice are read as patterns by the contract test."""
    for kind, api in (("flight_not_found", "book_flight"), ("train_not_found", "book_train"),
                      ("cabin_not_offered", "book_flight"), ("seat_class_not_offered", "book_train")):
        assert kind in SPECS[api]["errors"], (api, kind)


# ----------------------------------------------------------------------------- business rules


def test_search_needs_no_login_and_hides_departed_flights() -> None:
    sandbox = fresh()
    today = sandbox.search_flights(from_city="SHA", to_city="BJS", date="2024-07-15")["flights"]
    assert [f["flight_number"] for f in today] == ["CA1518", "HO1253", "MU5109"]  # MU5101 left at 07:00
    by_price = sandbox.search_flights(from_city="PVG", to_city="PEK", date="2024-07-17", sort_by="price")["flights"]
    assert [f["price"] for f in by_price] == sorted(f["price"] for f in by_price)
    assert by_price[0]["flight_number"] == "HO1253" and by_price[0]["price"] == 792.0
    later = sandbox.search_trains(from_city="SHA", to_city="HGH", date="2024-07-16", seat_class="first_class", depart_after="11:00")
    assert [t["train_number"] for t in later["trains"]] == ["D3125", "G7355"]


def test_search_errors() -> None:
    sandbox = fresh()
    raises("date_in_past", sandbox.search_flights, from_city="SHA", to_city="BJS", date="2024-07-14")
    raises("invalid_date", sandbox.search_trains, from_city="SHA", to_city="BJS", date="2024-02-30")
    raises("unknown_city", sandbox.search_flights, from_city="XXX", to_city="BJS", date="2024-07-16")
    raises("same_city", sandbox.search_trains, from_city="PVG", to_city="SHA", date="2024-07-16")


def test_not_logged_in_and_bad_password() -> None:
    sandbox = fresh()
    raises("not_logged_in", sandbox.book_flight, flight_number="MU5101", date="2024-07-16", cabin="economy", passengers=[CHEN])
    raises("not_logged_in", sandbox.list_bookings)
    raises("not_logged_in", sandbox.travel_logout)
    raises("invalid_credentials", sandbox.travel_login, username="chenyu", password="wrong")
    assert sandbox.data["session"]["username"] is None


def test_bookings_of_other_travellers_are_invisible() -> None:
    sandbox = fresh()
    login(sandbox, "zhoulan")
    raises("booking_not_found", sandbox.get_booking, booking_id="TB-1001")
    assert {b["booking_id"] for b in sandbox.list_bookings()["bookings"]} == {"TB-1005", "TB-1006", "TB-1007"}


def test_booking_ids_are_deterministic_and_results_json() -> None:
    results = []
    for _ in range(2):
        sandbox = fresh()
        login(sandbox)
        first = sandbox.book_train(train_number="G22", date="2024-07-16", seat_class="second_class", passengers=[CHEN])
        second = sandbox.book_flight(flight_number="MU5109", date="2024-07-16", cabin="economy", passengers=[CHEN, LIN])
        results.append((first, second, sandbox.state))
        json.dumps([first, second, sandbox.state])
    assert results[0][0]["booking_id"] == "TB-1009" and results[0][1]["booking_id"] == "TB-1010"
    assert results[0] == results[1]
    assert results[0][1]["status"] == "unpaid" and results[0][1]["pay_by"] == "2024-07-15T08:30:00+08:00"


def test_book_takes_seats_and_child_fare() -> None:
    sandbox = fresh()
    login(sandbox)
    child = {"name": "Chen Duoduo", "id_number": "310104201605120027", "passenger_type": "child"}
    booking = sandbox.book_train(train_number="G7015", date="2024-07-16", seat_class="second_class", passengers=[CHEN, LIN, child])
    assert [p["fare"] for p in booking["passengers"]] == [139.5, 139.5, 69.75]
    assert booking["total_price"] == 348.75
    assert sandbox.data["trains"]["G7015-20240716"]["fares"]["second_class"]["seats"] == 9


def test_no_seats_left_and_departed() -> None:
    sandbox = fresh()
    login(sandbox)
    raises("no_seats_left", sandbox.book_flight, flight_number="MU5112", date="2024-07-16", cabin="economy", passengers=[CHEN])
    error = raises("no_seats_left", sandbox.book_train, train_number="G14", date="2024-07-17", seat_class="first_class", passengers=[CHEN, LIN, CHEN])
    assert error.details["seats_left"] == 2
    raises("departure_passed", sandbox.book_flight, flight_number="MU5101", date="2024-07-15", cabin="economy", passengers=[CHEN])
    raises("cabin_not_offered", sandbox.book_flight, flight_number="HO1253", date="2024-07-16", cabin="business", passengers=[CHEN])
    raises("flight_not_found", sandbox.book_flight, flight_number="MU9999", date="2024-07-16", cabin="economy", passengers=[CHEN])
    raises("seat_class_not_offered", sandbox.book_train, train_number="D3125", date="2024-07-16", seat_class="business_class", passengers=[CHEN])
    assert sandbox.state["counters"]["booking"] == 1008  # failed bookings use no id


def test_payment_rules() -> None:
    sandbox = fresh()
    login(sandbox, "zhoulan")
    booking = sandbox.book_flight(flight_number="MU5101", date="2024-07-16", cabin="economy", passengers=[{"name": "Zhou Lan", "id_number": "330106198811230521"}])
    error = raises("insufficient_balance", sandbox.pay_booking, booking_id=booking["booking_id"], payment_method="wallet")
    assert error.details == {"wallet_balance": 450.0, "amount_due": 972.0}
    raises("card_required", sandbox.pay_booking, booking_id=booking["booking_id"], payment_method="card")
    raises("card_not_found", sandbox.pay_booking, booking_id=booking["booking_id"], payment_method="card", card_last4="4821")
    assert sandbox.get_booking(booking_id=booking["booking_id"])["status"] == "unpaid"
    sandbox.travel_top_up_wallet(amount=1000, card_last4="7702")
    paid = sandbox.pay_booking(booking_id=booking["booking_id"], payment_method="wallet")
    assert paid["amount_charged"] == 972.0 and paid["wallet_balance"] == 478.0
    raises("booking_already_paid", sandbox.pay_booking, booking_id=booking["booking_id"], payment_method="wallet")
    # an unpaid booking past its deadline reads as expired and cannot be paid
    raises("booking_expired", sandbox.pay_booking, booking_id="TB-1006", payment_method="card", card_last4="7702")
    assert sandbox.get_booking(booking_id="TB-1006")["status"] == "expired"
    assert sandbox.data["bookings"]["TB-1006"]["status"] == "unpaid"  # reads never rewrite state


def test_expired_card() -> None:
    sandbox = fresh()
    login(sandbox)
    raises("card_expired", sandbox.pay_booking, booking_id="TB-1003", payment_method="card", card_last4="0937")
    raises("card_expired", sandbox.travel_top_up_wallet, amount=100, card_last4="0937")
    assert sandbox.travel_get_balance()["cards"][1]["expired"] is True


def test_unpaid_booking_expires_when_the_clock_moves() -> None:
    sandbox = fresh()
    login(sandbox)
    assert sandbox.get_booking(booking_id="TB-1003")["status"] == "unpaid"
    sandbox.advance_clock(minutes=25)
    assert sandbox.get_booking(booking_id="TB-1003")["status"] == "expired"
    raises("booking_expired", sandbox.cancel_booking, booking_id="TB-1003")


@pytest.mark.parametrize(
    ("booking_id", "who", "rule", "percent", "amount"),
    [
        ("TB-1001", "chenyu", "more_than_24h", 100, 1265.0),  # flight, 73.5 h ahead
        ("TB-1002", "chenyu", "within_24h", 50, 1090.0),  # flight tonight
        ("TB-1005", "zhoulan", "within_24h", 80, 93.6),  # train, 23.5 h ahead
        ("TB-1003", "chenyu", "unpaid", 0, 0.0),
        ("TB-1004", "chenyu", "non_refundable_fare", 0, 0.0),
        ("TB-1008", "chenyu", "after_departure", 0, 0.0),
    ],
)
def test_refund_tiers(booking_id: str, who: str, rule: str, percent: int, amount: float) -> None:
    sandbox = fresh()
    login(sandbox, who)
    quote = sandbox.get_refund_quote(booking_id=booking_id)
    assert (quote["rule"], quote["refund_percent"], quote["refund_amount"]) == (rule, percent, amount)


def test_refund_tier_boundary_is_exactly_24_hours() -> None:
    sandbox = fresh()
    login(sandbox)
    sandbox.advance_clock(hours=49)  # TB-1001 leaves 2024-07-18 09:30: now exactly 24.5 h before
    assert sandbox.get_refund_quote(booking_id="TB-1001")["rule"] == "more_than_24h"
    sandbox.advance_clock(minutes=30)  # exactly 24 h: no longer "more than 24 h"
    assert sandbox.get_refund_quote(booking_id="TB-1001")["rule"] == "within_24h"


def test_cancel_refunds_to_wallet_and_releases_seats() -> None:
    sandbox = fresh()
    login(sandbox)
    seats = sandbox.data["flights"]["CA1518-20240718"]["fares"]["economy"]["seats"]
    result = sandbox.cancel_booking(booking_id="TB-1001")
    assert (result["refund_amount"], result["refund_to"], result["wallet_balance"]) == (1265.0, "wallet", 3865.0)
    assert sandbox.data["flights"]["CA1518-20240718"]["fares"]["economy"]["seats"] == seats + 1
    raises("booking_already_cancelled", sandbox.cancel_booking, booking_id="TB-1001")
    half = sandbox.cancel_booking(booking_id="TB-1002")
    assert (half["refund_amount"], half["refund_to"], half["card_last4"]) == (1090.0, "card", "4821")
    assert half["wallet_balance"] == 3865.0  # card refunds leave the wallet alone


def test_cancel_refusals() -> None:
    sandbox = fresh()
    login(sandbox)
    raises("non_refundable_fare", sandbox.cancel_booking, booking_id="TB-1004")
    raises("departure_passed", sandbox.cancel_booking, booking_id="TB-1008")
    free = sandbox.cancel_booking(booking_id="TB-1003")
    assert (free["rule"], free["refund_amount"], free["refund_to"]) == ("unpaid", 0.0, "none")
    login(sandbox, "zhoulan")
    raises("booking_already_cancelled", sandbox.cancel_booking, booking_id="TB-1007")
    raises("booking_expired", sandbox.cancel_booking, booking_id="TB-1006")


def test_reschedule_refunds_a_cheaper_fare() -> None:
    sandbox = fresh()
    login(sandbox)
    result = sandbox.reschedule_booking(booking_id="TB-1001", new_number="MU5109", new_date="2024-07-17")
    assert (result["fare_difference"], result["refunded"], result["charged"]) == (-449.0, 449.0, 0.0)
    assert result["wallet_balance"] == 3049.0
    booking = sandbox.get_booking(booking_id="TB-1001")
    assert (booking["number"], booking["departure"], booking["amount_paid"]) == ("MU5109", "2024-07-17T19:00:00+08:00", 816.0)


def test_reschedule_charges_a_dearer_fare() -> None:
    sandbox = fresh()
    login(sandbox)
    result = sandbox.reschedule_booking(booking_id="TB-1001", new_number="CA1518", new_date="2024-07-19")
    assert (result["fare_difference"], result["charged"], result["refunded"]) == (115.0, 115.0, 0.0)  # 1380 - 1265
    assert result["wallet_balance"] == 2485.0
    assert sandbox.get_booking(booking_id="TB-1001")["amount_paid"] == 1380.0


def test_reschedule_fare_difference_needs_funds() -> None:
    sandbox = fresh({"accounts": {"chenyu": {"wallet_balance": 10}}})
    login(sandbox)
    error = raises("insufficient_balance", sandbox.reschedule_booking, booking_id="TB-1001", new_number="CA1518", new_date="2024-07-19")
    assert error.details == {"wallet_balance": 10.0, "amount_due": 115.0}
    assert sandbox.get_booking(booking_id="TB-1001")["number"] == "CA1518"
    assert sandbox.get_booking(booking_id="TB-1001")["date"] == "2024-07-18"


def test_reschedule_refusals() -> None:
    sandbox = fresh()
    login(sandbox)
    raises("different_route", sandbox.reschedule_booking, booking_id="TB-1001", new_number="MU2158", new_date="2024-07-18")
    raises("same_itinerary", sandbox.reschedule_booking, booking_id="TB-1001", new_number="CA1518", new_date="2024-07-18")
    raises("fare_not_changeable", sandbox.reschedule_booking, booking_id="TB-1004", new_number="CZ3822", new_date="2024-07-18")
    raises("new_departure_passed", sandbox.reschedule_booking, booking_id="TB-1001", new_number="MU5101", new_date="2024-07-15")
    raises("flight_not_found", sandbox.reschedule_booking, booking_id="TB-1001", new_number="G14", new_date="2024-07-18")
    raises("departure_passed", sandbox.reschedule_booking, booking_id="TB-1008", new_number="CA1518", new_date="2024-07-16")
    raises("no_seats_left", sandbox.reschedule_booking, booking_id="TB-1003", new_number="G2", new_date="2024-07-16")
    first = sandbox.book_flight(flight_number="CA1518", date="2024-07-17", cabin="first", passengers=[CHEN])
    raises("fare_class_not_offered", sandbox.reschedule_booking, booking_id=first["booking_id"], new_number="MU5101", new_date="2024-07-17")
    login(sandbox, "zhoulan")
    raises("booking_already_cancelled", sandbox.reschedule_booking, booking_id="TB-1007", new_number="G7355", new_date="2024-07-16")
    raises("booking_expired", sandbox.reschedule_booking, booking_id="TB-1006", new_number="NH968", new_date="2024-07-20")


def test_reschedule_unpaid_booking_changes_amount_due_only() -> None:
    sandbox = fresh()
    login(sandbox)
    result = sandbox.reschedule_booking(booking_id="TB-1003", new_number="G28", new_date="2024-07-17")
    assert (result["status"], result["charged"], result["refunded"], result["total_price"]) == ("unpaid", 0.0, 0.0, 576.0)
    assert result["wallet_balance"] == 2600.0


def test_baggage_rules() -> None:
    sandbox = fresh()
    login(sandbox)
    allowance = sandbox.get_baggage_allowance(booking_id="TB-1002")
    assert (allowance["free_bags_total"], allowance["extra_bag_fee"], allowance["max_extra_bags_total"]) == (2, 150.0, 4)
    added = sandbox.add_baggage(booking_id="TB-1002", bags=1)
    assert (added["fee"], added["charged_now"], added["payment_method"]) == (150.0, True, "card")
    raises("baggage_limit_exceeded", sandbox.add_baggage, booking_id="TB-1002", bags=4)
    raises("not_a_flight", sandbox.add_baggage, booking_id="TB-1003", bags=1)
    raises("not_a_flight", sandbox.get_baggage_allowance, booking_id="TB-1003")
    raises("departure_passed", sandbox.add_baggage, booking_id="TB-1008", bags=1)
    basic = sandbox.get_baggage_allowance(booking_id="TB-1004")
    assert basic["free_bags_per_passenger"] == 0
    wallet = sandbox.add_baggage(booking_id="TB-1004", bags=2)
    assert wallet["wallet_balance"] == 2300.0


def test_baggage_fee_on_unpaid_international_booking_joins_amount_due() -> None:
    sandbox = fresh()
    login(sandbox, "zhoulan")
    booking = sandbox.book_flight(flight_number="NH968", date="2024-07-19", cabin="economy", passengers=[{"name": "Zhou Lan", "id_number": "E71830254"}])
    added = sandbox.add_baggage(booking_id=booking["booking_id"], bags=1)
    assert (added["fee"], added["charged_now"], added["total_price"]) == (300.0, False, 3660.0)
    assert sandbox.get_booking(booking_id=booking["booking_id"])["amount_due"] == 3660.0


def test_cities_and_rules() -> None:
    sandbox = fresh()
    assert [m["code"] for m in sandbox.find_city_code(name="西安")["matches"]] == ["SIA"]
    assert [m["code"] for m in sandbox.find_city_code(name="PEK")["matches"]] == ["BJS"]
    assert sandbox.find_city_code(name="Atlantis")["matches"] == []
    assert sandbox.get_fare_rules(fare_class="second_class")["refund_percent"]["within_24h"] == 80
    assert sandbox.get_fare_rules(fare_class="basic_economy")["refundable"] is False


# ----------------------------------------------------------------------------- scenarios


def test_languages_reach_the_same_state_apart_from_names() -> None:
    names = {"ignore": ["travel.bookings.*.passengers.*.name"]}
    for scenario_id in support.scenarios(NAME):
        en = replay_module.normalise_state({NAME: support.end_state(NAME, scenario_id, "en")}, names)
        zh = replay_module.normalise_state({NAME: support.end_state(NAME, scenario_id, "zh")}, names)
        assert en == zh, scenario_id


# ----------------------------------------------------------------------------- round trips, flight status, upgrades


def test_round_trip_search_pairs_the_cheapest_legs_that_connect() -> None:
    sandbox = fresh()
    result = support.call(sandbox, "search_round_trip_flights", from_city="LHR", to_city="NYC", depart_date="2024-07-16", return_date="2024-07-19")
    assert [f["flight_number"] for f in result["outbound"]] == ["BA117", "VS25"]
    assert [f["flight_number"] for f in result["return"]] == ["BA178", "VS4"]
    assert result["cheapest_combination"] == {"outbound_flight": "VS25", "return_flight": "VS4", "total_price": 3555.0 + 4920.0}
    same_day = support.call(sandbox, "search_round_trip_flights", from_city="LON", to_city="EDI", depart_date="2024-07-17", return_date="2024-07-17", cabin="basic_economy")
    assert same_day["outbound"][0]["seats_left"] == 0 and same_day["cheapest_combination"] is None, "the only outbound is sold out"
    business = support.call(sandbox, "search_round_trip_flights", from_city="SHA", to_city="LON", depart_date="2024-07-19", return_date="2024-07-20",
                            cabin="business", sort_by="price")
    assert business["cheapest_combination"] == {"outbound_flight": "MU551", "return_flight": "MU552", "total_price": 58800.0}
    next_morning = support.call(sandbox, "search_round_trip_flights", from_city="NYC", to_city="YTO", depart_date="2024-07-18", return_date="2024-07-18")
    assert next_morning["return"] == [] and next_morning["cheapest_combination"] is None, "no flight back from Toronto to New York"
    raises("return_before_departure", sandbox.search_round_trip_flights, from_city="SHA", to_city="LON", depart_date="2024-07-19", return_date="2024-07-18")
    raises("unknown_city", sandbox.search_round_trip_flights, from_city="SHA", to_city="PAR", depart_date="2024-07-19", return_date="2024-07-20")
    raises("date_in_past", sandbox.search_round_trip_flights, from_city="SHA", to_city="LON", depart_date="2024-07-14", return_date="2024-07-20")
    raises("invalid_date", sandbox.search_round_trip_flights, from_city="SHA", to_city="LON", depart_date="2024-07-19", return_date="2024-07-32")
    raises("same_city", sandbox.search_round_trip_flights, from_city="LHR", to_city="LGW", depart_date="2024-07-19", return_date="2024-07-20")


def test_flights_to_english_speaking_cities_keep_local_times() -> None:
    sandbox = fresh()
    flight = support.call(sandbox, "search_flights", from_city="LON", to_city="YTO", date="2024-07-18")["flights"][0]
    assert (flight["departure"], flight["arrival"], flight["duration_minutes"]) == ("2024-07-18T10:05:00+01:00", "2024-07-18T12:55:00-04:00", 470)
    assert [m["code"] for m in support.call(sandbox, "find_city_code", name="悉尼")["matches"]] == ["SYD"]
    assert [m["code"] for m in support.call(sandbox, "find_city_code", name="JFK")["matches"]] == ["NYC"]
    login(sandbox, "linyue")
    emma = {"name": "Emma Clarke", "id_number": "533829174"}
    booking = support.call(sandbox, "book_flight", flight_number="BA1436", date="2024-07-18", cabin="economy", passengers=[emma])
    assert booking["total_price"] == 858.0
    assert support.call(sandbox, "get_baggage_allowance", booking_id=booking["booking_id"])["extra_bag_fee"] == 300.0


def test_flight_status() -> None:
    sandbox = fresh()
    delayed = support.call(sandbox, "get_flight_status", flight_number="CA1857", date="2024-07-15")
    assert delayed["status"] == "delayed" and delayed["delay_minutes"] == 150
    assert delayed["expected_departure"] == "2024-07-15T22:30:00+08:00" and delayed["expected_arrival"] == "2024-07-16T00:45:00+08:00"
    assert delayed["reason"] == {"en": "Thunderstorms over Beijing", "zh": "北京雷雨天气"} and delayed["gate"] == "E12"
    assert support.call(sandbox, "get_flight_status", flight_number="MU5101", date="2024-07-15")["status"] == "departed"
    plain = support.call(sandbox, "get_flight_status", flight_number="VS4", date="2024-07-16")
    assert plain["status"] == "on_time" and plain["terminal"] is None and plain["reason"] is None
    raises("flight_not_found", sandbox.get_flight_status, flight_number="BA999", date="2024-07-16")
    sandbox.advance_clock(days=3)
    assert support.call(sandbox, "get_flight_status", flight_number="CA1857", date="2024-07-15")["status"] == "landed"


def test_upgrade_a_paid_booking_on_the_same_flight() -> None:
    sandbox = fresh({"accounts": {"chenyu": {"wallet_balance": 5000}}})
    login(sandbox)
    upgraded = support.call(sandbox, "upgrade_cabin", booking_id="TB-1001", new_cabin="business")
    assert upgraded == {
        "booking_id": "TB-1001", "number": "CA1518", "date": "2024-07-18", "old_cabin": "economy", "new_cabin": "business",
        "fare_difference": 2915.0, "charged": 2915.0, "total_price": 4180.0, "status": "paid",
        "free_checked_bags_per_passenger": 2, "wallet_balance": 2085.0,
    }
    fares = sandbox.data["flights"]["CA1518-20240718"]["fares"]
    assert (fares["economy"]["seats"], fares["business"]["seats"]) == (31, 7)
    raises("not_an_upgrade", sandbox.upgrade_cabin, booking_id="TB-1001", new_cabin="economy")
    raises("not_a_flight", sandbox.upgrade_cabin, booking_id="TB-1003", new_cabin="business")
    raises("departure_passed", sandbox.upgrade_cabin, booking_id="TB-1008", new_cabin="business")


def test_upgrade_refusals() -> None:
    sandbox = fresh({"accounts": {"chenyu": {"wallet_balance": 100}}})
    login(sandbox)
    raises("insufficient_balance", sandbox.upgrade_cabin, booking_id="TB-1001", new_cabin="first")
    raises("booking_not_found", sandbox.upgrade_cabin, booking_id="TB-1005", new_cabin="business")
    basic = sandbox.book_flight(flight_number="MU5101", date="2024-07-17", cabin="basic_economy", passengers=[CHEN])
    raises("fare_not_changeable", sandbox.upgrade_cabin, booking_id=basic["booking_id"], new_cabin="economy")
    cheap = sandbox.book_flight(flight_number="HO1253", date="2024-07-17", cabin="economy", passengers=[CHEN])
    raises("cabin_not_offered", sandbox.upgrade_cabin, booking_id=cheap["booking_id"], new_cabin="business")
    pair = sandbox.book_flight(flight_number="CA1351", date="2024-07-16", cabin="business", passengers=[CHEN, LIN])
    raises("no_seats_left", sandbox.upgrade_cabin, booking_id=pair["booking_id"], new_cabin="first")
    sandbox.cancel_booking(booking_id=cheap["booking_id"])
    raises("booking_already_cancelled", sandbox.upgrade_cabin, booking_id=cheap["booking_id"], new_cabin="business")
    login(sandbox, "zhoulan")
    raises("booking_expired", sandbox.upgrade_cabin, booking_id="TB-1006", new_cabin="business")


def test_upgrade_charges_the_card_the_booking_was_paid_with() -> None:
    sandbox = fresh()
    login(sandbox)
    upgraded = support.call(sandbox, "upgrade_cabin", booking_id="TB-1002", new_cabin="business")
    assert upgraded["charged"] == 2 * (3600 - 1090) and upgraded["wallet_balance"] == 2600.0
    expired = fresh({"bookings": {"TB-1002": {"card_last4": "0937"}}})
    login(expired)
    raises("card_expired", expired.upgrade_cabin, booking_id="TB-1002", new_cabin="business")
    lost = fresh({"bookings": {"TB-1002": {"card_last4": "1111"}}})
    login(lost)
    raises("card_not_found", lost.upgrade_cabin, booking_id="TB-1002", new_cabin="business")


def test_upgrade_an_unpaid_booking_adds_to_the_amount_due() -> None:
    sandbox = fresh()
    login(sandbox, "linyue")
    me = {"name": "Lin Yue", "id_number": "E83920417"}
    booking = sandbox.book_flight(flight_number="BA117", date="2024-07-16", cabin="economy", passengers=[me])
    upgraded = support.call(sandbox, "upgrade_cabin", booking_id=booking["booking_id"], new_cabin="business")
    assert upgraded["charged"] == 0.0 and upgraded["amount_due"] == 19620.0 and upgraded["status"] == "unpaid"
    assert sandbox.data["flights"]["BA117-20240716"]["fares"]["business"]["seats"] == 1


def test_saved_passengers_may_have_only_a_passport() -> None:
    """A foreign passenger saved with a passport only (Emma Clarke on linyue) still lists: the
    spec's result schema does not require an ID card number (it used to: internal_error)."""
    import jsonschema

    sandbox = fresh()
    login(sandbox, "linyue")
    result = sandbox.list_saved_passengers()
    jsonschema.validate(json.loads(json.dumps(result)), SPECS["list_saved_passengers"]["returns"])
    emma = next(p for p in result["passengers"] if p["name_en"] == "Emma Clarke")
    assert "id_number" not in emma and emma["passport_number"] == "533829174"
