"""The travel sandbox: business rules, spec ↔ implementation parity, and scenario replays."""

from __future__ import annotations

import copy
import importlib.util
import inspect
import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from validator.loading import load_file
from validator.sandbox.base import ApiError, Sandbox

ROOT = Path(__file__).resolve().parents[2]
SANDBOX_DIR = ROOT / "sandboxes" / "travel"
SPEC_DIR = ROOT / "specs" / "travel"
SCENARIO_PATHS = sorted((SANDBOX_DIR / "scenarios").glob("*.yaml"))
LANGS = ("en", "zh")


# ----------------------------------------------------------------------------- loading


def _load(path: Path, kind: str) -> Any:
    document, problems = load_file(ROOT, path.relative_to(ROOT).as_posix(), kind)
    assert not problems, f"{path}: {problems}"
    assert document is not None
    return document


def _sandbox_class() -> type[Sandbox]:
    spec = importlib.util.spec_from_file_location("callbank_sandbox_travel", SANDBOX_DIR / "sandbox.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.TravelSandbox


TravelSandbox = _sandbox_class()
STATE: dict[str, Any] = _load(SANDBOX_DIR / "state.yaml", "state").data
SPECS: dict[str, dict[str, Any]] = {p.stem: _load(p, "api").data for p in sorted(SPEC_DIR.glob("*.yaml"))}


def _registry() -> Registry:
    resources = []
    for path in sorted((ROOT / "schemas").glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


REGISTRY = _registry()


def _schema_validator(name: str) -> Draft202012Validator:
    schema = json.loads((ROOT / "schemas" / name).read_text(encoding="utf-8"))
    return Draft202012Validator(schema, registry=REGISTRY)


def fresh(patch: dict[str, Any] | None = None) -> Any:
    state = copy.deepcopy(STATE)
    if patch:
        deep_merge(state["data"], copy.deepcopy(patch))
    return TravelSandbox(state)


def deep_merge(base: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            deep_merge(base[key], value)
        else:
            base[key] = value


def login(sandbox: Any, who: str = "chenyu") -> None:
    passwords = {"chenyu": "Lotus#2024", "zhoulan": "Maple@88"}
    sandbox.travel_login(username=who, password=passwords[who])


CHEN = {"name": "Chen Yu", "id_number": "310104199003152218"}
LIN = {"name": "Lin Xiao", "id_number": "310104199108204026"}


def raises(kind: str, method: Any, **args: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        method(**args)
    assert caught.value.kind == kind, caught.value.details
    assert kind in SPECS[method.__name__].get("errors", {}), f"{method.__name__} does not declare {kind}"
    json.dumps(caught.value.details)
    return caught.value


# ----------------------------------------------------------------------------- files and parity


def test_state_matches_schema() -> None:
    errors = list(_schema_validator("state.schema.json").iter_errors(STATE))
    assert not errors, [e.message for e in errors]
    assert STATE["sandbox"] == "travel"
    assert (SANDBOX_DIR / "state.yaml").read_text(encoding="utf-8").startswith(
        "# yaml-language-server: $schema=../../schemas/state.schema.json\n"
    )


@pytest.mark.parametrize("name", sorted(SPECS))
def test_spec_matches_schema_and_method(name: str) -> None:
    spec = SPECS[name]
    errors = list(_schema_validator("api.schema.json").iter_errors(spec))
    assert not errors, [e.message for e in errors]
    assert (SPEC_DIR / f"{name}.yaml").read_text(encoding="utf-8").startswith(
        "# yaml-language-server: $schema=../../schemas/api.schema.json\n"
    )
    assert spec["name"] == name and spec["sandbox"] == "travel" and spec["domain"].startswith("travel.")
    Draft202012Validator.check_schema(spec["returns"])
    method = getattr(TravelSandbox, name)
    parameters = {k: v for k, v in inspect.signature(method).parameters.items() if k != "self"}
    properties = spec["parameters"]["properties"]
    required = set(spec["parameters"].get("required", []))
    assert set(parameters) == set(properties)
    assert required <= set(properties)
    for key, parameter in parameters.items():
        assert parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert (parameter.default is inspect.Parameter.empty) == (key in required), key
        if "default" in properties[key]:
            assert parameter.default == properties[key]["default"], key


def test_every_method_has_a_spec() -> None:
    assert set(TravelSandbox.api_names()) == set(SPECS)
    assert len(SPECS) >= 15
    assert TravelSandbox.name == "travel"


def _descriptions(schema: dict[str, Any], where: str) -> list[str]:
    """Paths of properties (at any depth) lacking a bilingual description."""
    missing = []
    for key, prop in schema.get("properties", {}).items():
        description = prop.get("description")
        if not (isinstance(description, dict) and description.get("en") and re.search(r"[\u4e00-\u9fff]", description.get("zh", ""))):
            missing.append(f"{where}.{key}")
        missing += _descriptions(prop, f"{where}.{key}")
        if "items" in prop:
            items = prop["items"]
            if not isinstance(items.get("description"), dict):
                missing.append(f"{where}.{key}[]")
            missing += _descriptions(items, f"{where}.{key}[]")
    return missing


@pytest.mark.parametrize("name", sorted(SPECS))
def test_spec_is_bilingual_everywhere(name: str) -> None:
    spec = SPECS[name]
    assert re.search(r"[\u4e00-\u9fff]", spec["description"]["zh"])
    assert _descriptions(spec["parameters"], "parameters") == []
    for kind, message in spec.get("errors", {}).items():
        assert message["en"] and re.search(r"[\u4e00-\u9fff]", message["zh"]), kind


def test_declared_errors_cover_raised_kinds() -> None:
    source = (SANDBOX_DIR / "sandbox.py").read_text(encoding="utf-8")
    raised = set(re.findall(r'ApiError\(\s*"([a-z_]+)"', source)) | {"flight_not_found", "train_not_found"}
    raised |= {"cabin_not_offered", "seat_class_not_offered"}
    declared = {kind for spec in SPECS.values() for kind in spec.get("errors", {})}
    assert raised <= declared, raised - declared


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


def resolve(value: Any, lang: str) -> Any:
    """A reference-call value for one language: `$lang` picked, other matchers rendered."""
    if isinstance(value, dict):
        if "$lang" in value:
            return resolve(value["$lang"][lang], lang)
        if "$any" in value:
            return resolve(value["$any"][0], lang)
        for key in ("$optional", "$text", "$approx", "$unordered", "$literal"):
            if key in value:
                return resolve(value[key], lang) if key != "$literal" else value[key]
        if "$regex" in value:
            return value["$example"]
        return {k: resolve(v, lang) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, lang) for v in value]
    return value


def matches(pattern: Any, value: Any, lang: str) -> bool:
    """Does a concrete value match a pattern (literal or matcher)?"""
    if isinstance(pattern, dict) and pattern and all(k.startswith("$") for k in pattern):
        if "$lang" in pattern:
            return matches(pattern["$lang"][lang], value, lang)
        if "$any" in pattern:
            return any(matches(p, value, lang) for p in pattern["$any"])
        if "$optional" in pattern:
            return matches(pattern["$optional"], value, lang)
        if "$literal" in pattern:
            return pattern["$literal"] == value
        if "$regex" in pattern:
            return isinstance(value, str) and re.fullmatch(pattern["$regex"], value) is not None
        if "$approx" in pattern:
            return abs(value - pattern["$approx"]) <= pattern["$tol"]
        if "$text" in pattern:
            return isinstance(value, str) and pattern["$text"].casefold() == value.casefold()
        raise AssertionError(f"matcher not handled here: {pattern}")
    if isinstance(pattern, dict):
        return isinstance(value, dict) and pattern.keys() == value.keys() and all(matches(p, value[k], lang) for k, p in pattern.items())
    if isinstance(pattern, list):
        return isinstance(value, list) and len(pattern) == len(value) and all(matches(p, v, lang) for p, v in zip(pattern, value))
    return pattern == value


def call_matches(pattern: dict[str, Any], call: dict[str, Any], lang: str) -> bool:
    if pattern["api"] != call["api"]:
        return False
    args = resolve(call["args"], lang)
    return all(key in args and matches(value, args[key], lang) for key, value in pattern.get("args", {}).items())


def drop_paths(state: dict[str, Any], paths: list[str]) -> dict[str, Any]:
    state = copy.deepcopy(state)

    def walk(node: Any, parts: list[str]) -> None:
        if not parts:
            return
        head, rest = parts[0], parts[1:]
        if isinstance(node, dict):
            keys = list(node) if head == "*" else [head] if head in node else []
            for key in keys:
                if rest:
                    walk(node[key], rest)
                else:
                    del node[key]
        elif isinstance(node, list) and rest:
            for item in node if head == "*" else [node[int(head)]] if head.isdigit() and int(head) < len(node) else []:
                walk(item, rest)

    for path in paths:
        walk(state, path.split("."))
    return state


SCENARIOS = {path.stem: _load(path, "scenario").data for path in SCENARIO_PATHS}


def replay(scenario: dict[str, Any], lang: str) -> tuple[dict[str, Any], list[Any]]:
    sandbox = fresh(scenario.get("initial_state", {}).get("travel"))
    results = []
    for index, call in enumerate(scenario["reference_calls"]):
        args = resolve(call["args"], lang)
        try:
            result = getattr(sandbox, call["api"])(**args)
        except ApiError as error:  # pragma: no cover - the failure message is the point
            pytest.fail(f"reference call {index} {call['api']} raised {error.kind} {error.details}")
        errors = list(Draft202012Validator(SPECS[call["api"]]["returns"]).iter_errors(result))
        assert not errors, (index, call["api"], [e.message for e in errors])
        json.dumps(result)
        results.append(result)
    return {"travel": sandbox.data}, results


def test_enough_scenarios_of_both_modes() -> None:
    modes = [s["mode"] for s in SCENARIOS.values()]
    assert len(modes) >= 11 and "multi_turn" in modes and "multi_step" in modes
    assert sum(1 for s in SCENARIOS.values() if s.get("no_change")) <= 1


@pytest.mark.parametrize("scenario_id", sorted(SCENARIOS))
def test_scenario_file(scenario_id: str) -> None:
    scenario = SCENARIOS[scenario_id]
    errors = list(_schema_validator("scenario.schema.json").iter_errors(scenario))
    assert not errors, [e.message for e in errors]
    path = SANDBOX_DIR / "scenarios" / f"{scenario_id}.yaml"
    assert path.read_text(encoding="utf-8").startswith("# yaml-language-server: $schema=../../../schemas/scenario.schema.json\n")
    assert scenario["id"] == scenario_id and scenario["sandboxes"] == ["travel"]
    assert set(scenario.get("initial_state", {})) <= {"travel"}
    for lang in LANGS:
        script = scenario["user"][lang]["script"]
        assert len(script) == 1 if scenario["mode"] == "multi_step" else len(script) >= 2
        if lang == "zh":
            assert all(re.search(r"[\u4e00-\u9fff]", line) for line in script)
    assert len(scenario["user"]["en"]["script"]) == len(scenario["user"]["zh"]["script"])
    outputs = scenario.get("outputs", {"en": [], "zh": []})
    assert len(outputs["en"]) == len(outputs["zh"])
    for call in scenario["reference_calls"]:
        assert call["api"] in SPECS, call["api"]
        for lang in LANGS:
            errors = list(Draft202012Validator(SPECS[call["api"]]["parameters"]).iter_errors(resolve(call["args"], lang)))
            assert not errors, (call["api"], lang, [e.message for e in errors])
    ids = [m["id"] for m in scenario["milestones"]]
    assert len(ids) == len(set(ids))
    for milestone in scenario["milestones"]:
        assert set(milestone.get("after", [])) <= set(ids) - {milestone["id"]}
        for lang in LANGS:
            assert any(call_matches(milestone, call, lang) for call in scenario["reference_calls"]), (milestone["id"], lang)
    assert scenario["minefields"]
    for minefield in scenario["minefields"]:
        assert minefield["api"] in SPECS
        for lang in LANGS:
            assert not any(call_matches(minefield, call, lang) for call in scenario["reference_calls"]), minefield


def _order_respected(scenario: dict[str, Any], lang: str) -> bool:
    """The first reference call matching each milestone comes after those of its `after` list."""
    first: dict[str, int] = {}
    for milestone in scenario["milestones"]:
        first[milestone["id"]] = next(i for i, c in enumerate(scenario["reference_calls"]) if call_matches(milestone, c, lang))
    return all(first[m["id"]] > first[a] for m in scenario["milestones"] for a in m.get("after", []))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("scenario_id", sorted(SCENARIOS))
def test_scenario_replays(scenario_id: str, lang: str) -> None:
    scenario = SCENARIOS[scenario_id]
    assert _order_respected(scenario, lang)
    first_state, first_results = replay(scenario, lang)
    second_state, second_results = replay(scenario, lang)
    assert first_state == second_state and first_results == second_results
    ignore = scenario.get("compare", {}).get("ignore", [])
    initial = {"travel": fresh(scenario.get("initial_state", {}).get("travel")).data}
    changed = drop_paths(first_state, ignore) != drop_paths(initial, ignore)
    assert changed != bool(scenario.get("no_change")), "no_change must hold exactly when the end state is unchanged"


def test_languages_reach_the_same_state_apart_from_names() -> None:
    for scenario in SCENARIOS.values():
        names = ["travel.bookings.*.passengers.*.name"]
        en = drop_paths(replay(scenario, "en")[0], names)
        zh = drop_paths(replay(scenario, "zh")[0], names)
        assert en == zh, scenario["id"]
