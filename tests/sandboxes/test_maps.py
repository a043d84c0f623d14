"""The maps sandbox's own business rules (the contract of every sandbox: test_contract.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.sandboxes import support
from validator.sandbox.base import ApiError, Sandbox

NAME = "maps"
STATE = support.state(NAME)
run, error_kind = support.call, support.error_kind


def fresh(patch: dict[str, Any] | None = None, clock: str | None = None) -> Sandbox:
    return support.fresh(NAME, patch, clock=clock)


def test_catalogue_size() -> None:
    support.check_catalogue(NAME, 9)


# ----------------------------------------------------------------------------- state and specs


def test_state_shape() -> None:
    assert STATE["sandbox"] == "maps"
    data = STATE["data"]
    assert {"settings", "places", "saved_places", "roads"} <= data.keys()
    for pid, place in data["places"].items():
        assert re.fullmatch(r"PL-[0-9]+", pid)
        assert re.search(r"[\u4e00-\u9fff]", place["name_zh"]), pid
        assert re.fullmatch(r"\d\d:\d\d-\d\d:\d\d", place["hours"]), pid
    ids = [int(s.split("-")[1]) for s in data["saved_places"]]
    assert max(ids) <= STATE["counters"]["saved_place"]
    for saved in data["saved_places"].values():
        assert saved["place_id"] in data["places"]
    # every name and alias resolves to exactly one place
    labels = [n.casefold() for p in data["places"].values() for n in [p["name"], p["name_zh"], *p["aliases"]]]
    assert len(labels) == len(set(labels))


# ----------------------------------------------------------------------------- places


def test_locations_resolve_in_both_languages() -> None:
    sandbox = fresh()
    en = run(sandbox, "plan_route", origin="Home", destination="Hangzhou East Railway Station", mode="transit")
    zh = run(sandbox, "plan_route", origin="家", destination="杭州东站", mode="transit")
    by_id = run(sandbox, "plan_route", origin="PL-109", destination="PL-103", mode="transit")
    assert en == zh == by_id
    assert en["origin"]["place_id"] == "PL-109" and en["destination"]["place_id"] == "PL-103"
    assert run(sandbox, "plan_route", origin="hangzhou east station", destination="work")["destination"]["name"] == "Hengxin Tower"


def test_ambiguous_and_unknown_places_are_errors() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "plan_route", origin="Hangzhou", destination="West Lake") == "ambiguous_place"
    assert error_kind(sandbox, "plan_route", origin="Atlantis", destination="West Lake") == "place_not_found"
    assert error_kind(sandbox, "plan_route", origin="West Lake", destination="西湖") == "same_place"
    with pytest.raises(ApiError) as caught:
        run(sandbox, "search_nearby", location="Station")
    assert len(caught.value.details["candidates"]) >= 2


def test_geocode_ranks_exact_names_first() -> None:
    sandbox = fresh()
    result = run(sandbox, "geocode_place", query="西湖")
    assert result["results"][0]["place_id"] == "PL-101"
    assert run(sandbox, "geocode_place", query="Wensan Road", limit=10)["count"] >= 5
    assert run(sandbox, "geocode_place", query="Mars")["count"] == 0
    assert error_kind(sandbox, "geocode_place", query="  ") == "empty_query"


def test_reverse_geocode() -> None:
    sandbox = fresh()
    near = run(sandbox, "reverse_geocode", latitude=30.2612, longitude=120.1655)
    assert near["place"]["place_id"] == "PL-801" and near["distance_m"] == 50
    assert error_kind(sandbox, "reverse_geocode", latitude=31.23, longitude=121.47) == "no_place_nearby"


def test_search_nearby_filters_and_orders() -> None:
    sandbox = fresh()
    cafes = run(sandbox, "search_nearby", location="Home", category="cafe", radius_m=2000)
    assert [r["place_id"] for r in cafes["results"]] == ["PL-302"]
    food = run(sandbox, "search_nearby", location="West Lake", category="restaurant", radius_m=5000)
    distances = [r["distance_m"] for r in food["results"]]
    assert distances == sorted(distances) and all(d <= 5000 for d in distances)
    best = run(sandbox, "search_nearby", location="West Lake", category="restaurant", radius_m=5000, sort_by="rating")
    ratings = [r["rating"] for r in best["results"]]
    assert ratings == sorted(ratings, reverse=True)
    # 10:00: the congee shop (06:00-10:30) is open, the barbecue (17:00-02:00) is not
    everything = run(sandbox, "search_nearby", location="Wulin Square", category="restaurant", radius_m=20000, limit=20)
    state = {r["place_id"]: r["open_now"] for r in everything["results"]}
    assert state["PL-206"] is True and state["PL-204"] is False
    open_only = run(sandbox, "search_nearby", location="Wulin Square", category="restaurant", radius_m=20000, open_now=True, limit=20)
    assert "PL-204" not in [r["place_id"] for r in open_only["results"]]
    late = fresh(clock="2024-07-15T23:30:00+08:00")
    assert run(late, "get_place_details", place_id="PL-204")["open_now"] is True  # open past midnight
    keyword = run(sandbox, "search_nearby", location="Hangzhou East Railway Station", keyword="咖啡")
    assert [r["place_id"] for r in keyword["results"]] == ["PL-303"]


def test_place_details() -> None:
    sandbox = fresh()
    details = run(sandbox, "get_place_details", place_id="PL-107")
    assert details["hours"] == "09:00-17:00" and details["open_now"] is True
    assert error_kind(sandbox, "get_place_details", place_id="PL-999") == "place_not_found"


# ----------------------------------------------------------------------------- routes


def test_route_modes_and_numbers() -> None:
    sandbox = fresh()
    routes = {mode: run(sandbox, "plan_route", origin="Home", destination="Work", mode=mode) for mode in ("driving", "walking", "cycling", "transit")}
    assert routes["driving"]["distance_km"] == 14.0 and routes["driving"]["duration_min"] == 32
    assert routes["driving"]["toll_cny"] == 0.0 and routes["driving"]["fare_cny"] is None
    assert routes["transit"]["fare_cny"] == 5.0 and routes["transit"]["toll_cny"] is None
    assert routes["walking"]["duration_min"] > routes["cycling"]["duration_min"] > routes["driving"]["duration_min"]
    assert routes["driving"]["depart_at"] == "2024-07-15T10:00" and routes["driving"]["arrive_at"] == "2024-07-15T10:32"


def test_tolls_and_limits() -> None:
    sandbox = fresh()
    fast = run(sandbox, "plan_route", origin="West Lake", destination="Xiaoshan Airport")
    slow = run(sandbox, "plan_route", origin="West Lake", destination="Xiaoshan Airport", avoid_tolls=True)
    assert fast["toll_cny"] == 10.0 and slow["toll_cny"] == 0.0
    assert slow["distance_km"] > fast["distance_km"] and slow["duration_min"] > fast["duration_min"]
    assert error_kind(sandbox, "plan_route", origin="West Lake", destination="Xiaoshan Airport", mode="walking") == "route_too_long"
    night = fresh(clock="2024-07-15T23:10:00+08:00")
    assert error_kind(night, "plan_route", origin="Home", destination="Work", mode="transit") == "no_transit_service"


def test_waypoints_add_up() -> None:
    sandbox = fresh()
    direct = run(sandbox, "plan_route", origin="Home", destination="Wulin Square")
    via = run(sandbox, "plan_route", origin="Home", destination="Wulin Square", waypoints=["Slow Bean Roastery"])
    assert [w["place_id"] for w in via["waypoints"]] == ["PL-302"]
    assert via["distance_km"] >= direct["distance_km"]
    assert error_kind(sandbox, "plan_route", origin="Home", destination="Work", waypoints=["Home"]) == "same_place"


def test_travel_time_depends_on_the_hour() -> None:
    sandbox = fresh()
    rush = run(sandbox, "estimate_travel_time", origin="Home", destination="Work", depart_at="2024-07-16T08:00")
    calm = run(sandbox, "estimate_travel_time", origin="Home", destination="Work", depart_at="2024-07-16T11:00")
    weekend = run(sandbox, "estimate_travel_time", origin="Home", destination="Work", depart_at="2024-07-20T08:00")
    assert rush["rush_hour"] is True and calm["rush_hour"] is False and weekend["rush_hour"] is False
    assert rush["duration_min"] > calm["duration_min"]
    assert rush["duration_min"] > weekend["duration_min"]
    deadline = run(sandbox, "estimate_travel_time", origin="Home", destination="萧山机场", arrive_by="2024-07-15T18:00")
    assert "2024-07-15T17:50" <= deadline["arrive_at"] <= "2024-07-15T18:00" and deadline["rush_hour"] is True
    now = run(sandbox, "estimate_travel_time", origin="Home", destination="Work")
    assert now["depart_at"] == "2024-07-15T10:00"


def test_travel_time_errors() -> None:
    sandbox = fresh()
    both = {"depart_at": "2024-07-16T08:00", "arrive_by": "2024-07-16T09:00"}
    assert error_kind(sandbox, "estimate_travel_time", origin="Home", destination="Work", **both) == "conflicting_times"
    assert error_kind(sandbox, "estimate_travel_time", origin="Home", destination="Work", depart_at="2024-07-14T08:00") == "time_in_past"
    assert error_kind(sandbox, "estimate_travel_time", origin="Home", destination="Work", depart_at="2024-02-30T08:00") == "invalid_time"
    assert error_kind(sandbox, "estimate_travel_time", origin="Home", destination="Xiaoshan Airport", arrive_by="2024-07-15T10:20") == "cannot_arrive_in_time"
    assert error_kind(sandbox, "estimate_travel_time", origin="Home", destination="Work", mode="transit", depart_at="2024-07-16T05:00") == "no_transit_service"


# ----------------------------------------------------------------------------- traffic and saved places


def test_traffic() -> None:
    sandbox = fresh()
    everything = run(sandbox, "get_traffic")
    levels = [r["level"] for r in everything["roads"]]
    assert levels[0] == "congested" and levels[-1] == "smooth"
    one = run(sandbox, "get_traffic", road="天目山路")
    assert [r["road_id"] for r in one["roads"]] == ["R-3"] and one["roads"][0]["incidents"]
    assert run(sandbox, "get_traffic", road="yan'an road")["roads"][0]["level"] == "slow"
    assert error_kind(sandbox, "get_traffic", road="Route 66") == "road_not_found"


def test_saved_places_lifecycle() -> None:
    sandbox = fresh()
    assert [s["label"] for s in run(sandbox, "list_saved_places")["saved_places"]] == ["Home", "Work", "Gym"]
    saved = run(sandbox, "save_place", place_id="PL-302", label="Coffee")
    assert saved["saved_id"] == "SP-4"
    assert run(sandbox, "plan_route", origin="Home", destination="coffee")["destination"]["place_id"] == "PL-302"
    assert error_kind(sandbox, "save_place", place_id="PL-301", label="COFFEE") == "label_taken"
    assert error_kind(sandbox, "save_place", place_id="PL-301", label="家") == "label_taken"
    assert error_kind(sandbox, "save_place", place_id="PL-999", label="X") == "place_not_found"
    assert run(sandbox, "remove_saved_place", label="健身房")["removed"] == "SP-3"
    assert error_kind(sandbox, "remove_saved_place", label="Gym") == "saved_place_not_found"


def test_ids_and_results_are_deterministic() -> None:
    def script() -> tuple[list[Any], dict[str, Any]]:
        sandbox = fresh()
        out = [
            run(sandbox, "save_place", place_id="PL-203", label="Date night"),
            run(sandbox, "plan_route", origin="Date night", destination="Broken Bridge", mode="walking"),
            run(sandbox, "estimate_travel_time", origin="Work", destination="Hangzhou Railway Station", mode="transit", depart_at="2024-07-16T18:10"),
            run(sandbox, "search_nearby", location="Lakeview Hotel", radius_m=800, limit=20),
        ]
        return out, sandbox.state

    assert script() == script()


# ----------------------------------------------------------------------------- London, places along a route

LONDON_MORNING = "2024-07-15T08:30:00+01:00"


def test_london_routes_use_local_time_and_pounds() -> None:
    sandbox = fresh(clock=LONDON_MORNING)
    tube = run(sandbox, "plan_route", origin="King's Cross", destination="British Museum", mode="transit")
    assert tube["depart_at"] == "2024-07-15T08:30" and tube["toll_cny"] is None and tube["fare_cny"] is None
    assert tube["local_costs"] == {"currency": "GBP", "toll": None, "fare": 2.8}
    far = run(sandbox, "plan_route", origin="Heathrow Airport", destination="King's Cross St Pancras Station", mode="transit")
    assert far["local_costs"]["fare"] == 3.5 and far["distance_km"] > 8
    drive = run(sandbox, "plan_route", origin="LHR", destination="伦敦办公室")
    assert drive["local_costs"] == {"currency": "GBP", "toll": 0.0, "fare": None}, "no tolled motorway in the London settings"
    assert "local_costs" not in run(sandbox, "plan_route", origin="Home", destination="Work"), "Hangzhou routes keep their shape"
    assert error_kind(sandbox, "plan_route", origin="Home", destination="British Museum") == "different_cities"
    assert error_kind(sandbox, "estimate_travel_time", origin="Tower Bridge", destination="West Lake") == "different_cities"
    walk = run(sandbox, "estimate_travel_time", origin="Covent Garden", destination="Hyde Park", mode="walking", depart_at="2024-07-15T12:00")
    assert walk["depart_at"] == "2024-07-15T12:00" and walk["duration_min"] > 30
    rush = run(sandbox, "estimate_travel_time", origin="Heathrow Airport", destination="Tower Bridge", depart_at="2024-07-15T08:40")
    assert rush["rush_hour"] is True
    assert run(sandbox, "get_place_details", place_id="PL-902")["open_now"] is False, "the museum opens at 10:00 London time"
    assert run(fresh(), "get_place_details", place_id="PL-902")["open_now"] is False, "10:00 in Hangzhou is 03:00 in London"
    assert run(fresh(clock="2024-07-15T18:00:00+08:00"), "get_place_details", place_id="PL-902")["open_now"] is True


@pytest.mark.parametrize(
    ("clock", "open_now"),
    [
        ("2024-11-08T10:30:00+00:00", True),  # GMT in November: 10:30 in London, the museum is open
        ("2024-11-08T09:30:00+00:00", False),  # 09:30: not yet (summer time would make it 10:30)
        ("2024-03-31T09:30:00+00:00", True),  # summer time has begun (01:00 UTC on 31 March 2024): 10:30
        ("2024-03-30T09:30:00+00:00", False),  # the day before it began: 09:30
        ("2024-10-27T09:30:00+00:00", False),  # and ended (01:00 UTC on 27 October 2024): 09:30
        ("2024-10-26T09:30:00+00:00", True),  # the day before it ended: 10:30
    ],
)
def test_london_keeps_summer_time_and_gmt(clock: str, open_now: bool) -> None:
    """London reads the clock in BST from the last Sunday of March to the last of October and in
    GMT otherwise; the British Museum opens at 10:00 London time."""
    assert run(fresh(clock=clock), "get_place_details", place_id="PL-902")["open_now"] is open_now


def test_london_places_are_found_in_both_languages() -> None:
    sandbox = fresh(clock=LONDON_MORNING)
    assert run(sandbox, "geocode_place", query="大英博物馆")["results"][0]["place_id"] == "PL-902"
    near = run(sandbox, "search_nearby", location="Borough Market", category="cafe", radius_m=200)
    assert [r["place_id"] for r in near["results"]] == ["PL-909"] and near["results"][0]["distance_m"] == 20
    assert run(sandbox, "search_nearby", location="托特纳姆宫路站", keyword="药店", radius_m=805)["results"][0]["name"] == "Boots Piccadilly Circus"


def test_find_places_along_a_route() -> None:
    sandbox = fresh()
    along = run(sandbox, "find_along_route", origin="Home", destination="Hangzhou East Railway Station", category="cafe", max_detour_m=3000)
    assert [r["place_id"] for r in along["results"]] == ["PL-303", "PL-302"], "least detour first, not nearest first"
    assert along["results"][0]["detour_m"] <= along["results"][1]["detour_m"]
    around_home = run(sandbox, "search_nearby", location="Home", category="cafe", radius_m=3000)
    assert [r["place_id"] for r in around_home["results"]] == ["PL-302"], "search_nearby looks only around one place"
    fuel = run(sandbox, "find_along_route", origin="Work", destination="Xiaoshan International Airport", category="gas_station", max_detour_m=2000)
    assert [r["place_id"] for r in fuel["results"]] == ["PL-402"]
    assert run(sandbox, "find_along_route", origin="Home", destination="Work", keyword="pharmacy", max_detour_m=100)["count"] == 0
    london = fresh(clock=LONDON_MORNING)
    charge = run(london, "find_along_route", origin="Heathrow", destination="London office", category="charging_station", max_detour_m=3000)
    assert [r["place_id"] for r in charge["results"]] == ["PL-912"]
    assert error_kind(sandbox, "find_along_route", origin="Home", destination="家") == "same_place"
    assert error_kind(sandbox, "find_along_route", origin="Home", destination="Hyde Park") == "different_cities"
    assert error_kind(sandbox, "find_along_route", origin="Nowhere Land", destination="Work") == "place_not_found"
    assert error(sandbox, "find_along_route", origin="Home", destination="Work", mode="flying") == "unsupported_mode"


def error(sandbox: Sandbox, api: str, **args: Any) -> str:
    return support.error(sandbox, api, strict_args=False, **args).kind
