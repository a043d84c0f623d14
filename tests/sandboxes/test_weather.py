"""The weather sandbox's own business rules (the contract of every sandbox: test_contract.py)."""

from __future__ import annotations

from typing import Any

from tests.sandboxes import support
from validator.sandbox.base import Sandbox

NAME = "weather"
STATE = support.state(NAME)
run, error_kind = support.call, support.error_kind


def fresh(patch: dict[str, Any] | None = None, clock: str | None = None) -> Sandbox:
    return support.fresh(NAME, patch, clock=clock)


def test_catalogue_size() -> None:
    support.check_catalogue(NAME, 8, (1, 2))


# ----------------------------------------------------------------------------- data


def test_every_city_has_fifteen_consecutive_days() -> None:
    for key, city in STATE["data"]["cities"].items():
        dates = [row["date"] for row in city["days"]]
        assert dates == sorted(dates) and len(dates) == len(set(dates)) == 15, key
        assert dates[0] == "2024-07-10" and dates[-1] == "2024-07-24", key
        for row in city["days"]:
            assert row["low"] < row["high"], (key, row["date"])
            assert 0 <= row["rain_chance"] <= 100 and 0 <= row["humidity"] <= 100
            assert isinstance(row["wind_dir"], str)


def test_every_alert_names_a_city_and_a_window() -> None:
    cities = STATE["data"]["cities"]
    for alert_id, alert in STATE["data"]["alerts"].items():
        assert alert["city"] in cities, alert_id
        assert alert["starts"] < alert["ends"], alert_id
        assert alert["level"] in ("blue", "yellow", "orange", "red")


# ----------------------------------------------------------------------------- business rules


def test_city_names_in_either_language_reach_the_same_city() -> None:
    sandbox = fresh()
    for name in ("Xi'an", "Xian", "西安", "西安市", "xi an"):
        assert run(sandbox, "get_current_weather", city=name)["city"] == "Xi'an"
    assert run(sandbox, "get_air_quality", city="香港")["city"] == "Hong Kong"
    assert error_kind(sandbox, "get_current_weather", city="Atlantis") == "unknown_city"


def test_current_hourly_and_daily_agree() -> None:
    sandbox = fresh()
    now = run(sandbox, "get_current_weather", city="Hangzhou")
    hourly = run(sandbox, "get_hourly_forecast", city="Hangzhou", hours=1)["hours"][0]
    assert hourly["time"] == now["observed_at"] == "2024-07-15T09:00"
    assert hourly["temperature"] == now["temperature"]
    day = run(sandbox, "get_weather_forecast", city="Hangzhou")["days"]
    assert len(day) == 1 and day[0]["date"] == "2024-07-15" and day[0]["weekday"] == "mon"
    assert day[0]["low"] <= now["temperature"] <= day[0]["high"]


def test_forecast_window_is_seven_days_from_the_clock() -> None:
    sandbox = fresh()
    week = run(sandbox, "get_weather_forecast", city="Beijing", days=7)["days"]
    assert [d["date"] for d in week][-1] == "2024-07-21"
    assert run(sandbox, "get_weather_forecast", city="Beijing", start_date="2024-07-19", days=3)["days"][2]["date"] == "2024-07-21"
    assert error_kind(sandbox, "get_weather_forecast", city="Beijing", start_date="2024-07-20", days=3) == "date_out_of_range"
    assert error_kind(sandbox, "get_weather_forecast", city="Beijing", start_date="2024-07-14") == "date_out_of_range"
    assert error_kind(sandbox, "get_weather_forecast", city="Beijing", start_date="2024-02-30") == "invalid_date"
    later = fresh(clock="2024-07-18T08:00:00+08:00")
    assert run(later, "get_weather_forecast", city="Beijing", days=7)["days"][-1]["date"] == "2024-07-24"


def test_history_is_for_past_days_only() -> None:
    sandbox = fresh()
    observed = run(sandbox, "get_weather_history", city="Chengdu", date="2024-07-13")["observed"]
    assert observed["date"] == "2024-07-13" and observed["weekday"] == "sat"
    assert error_kind(sandbox, "get_weather_history", city="Chengdu", date="2024-07-15") == "date_not_in_past"
    assert error_kind(sandbox, "get_weather_history", city="Chengdu", date="2024-07-01") == "no_history"


def test_imperial_units_convert() -> None:
    sandbox = fresh()
    metric = run(sandbox, "get_weather_forecast", city="London", days=2)
    imperial = run(sandbox, "get_weather_forecast", city="London", days=2, units="imperial")
    assert imperial["units"]["temperature"] == "°F" and metric["units"]["temperature"] == "°C"
    for m, i in zip(metric["days"], imperial["days"], strict=True):
        assert abs(i["high"] - (m["high"] * 9 / 5 + 32)) <= 1


def test_hourly_forecast_crosses_midnight_and_stops_at_the_horizon() -> None:
    sandbox = fresh()
    hours = run(sandbox, "get_hourly_forecast", city="Shenzhen", hours=48)["hours"]
    assert hours[0]["time"] == "2024-07-15T09:00" and hours[-1]["time"] == "2024-07-17T08:00"
    late = fresh(clock="2024-07-23T20:00:00+08:00")
    assert error_kind(late, "get_hourly_forecast", city="Shenzhen", hours=48) == "date_out_of_range"


def test_air_uv_pollen_and_sun() -> None:
    sandbox = fresh()
    air = run(sandbox, "get_air_quality", city="Xi'an")
    assert air["category"] == "light_pollution" and air["main_pollutant"] == "o3"
    assert air["sensitive_groups_should_limit_outdoor_activity"] is True
    uv = run(sandbox, "get_uv_index", city="Shanghai", date="2024-07-16")
    assert uv["uv_index"] == 10 and uv["level"] == "very_high"
    assert run(sandbox, "get_uv_index", city="Sydney")["level"] in ("low", "moderate")
    pollen = run(sandbox, "get_pollen_forecast", city="Harbin")
    assert pollen["overall"] == "high"
    sun = run(sandbox, "get_sun_times", city="London", date="2024-07-20")
    assert sun == {"city": "London", "date": "2024-07-20", "sunrise": "05:06", "sunset": "21:06", "day_length": "16:00"}
    assert error_kind(sandbox, "get_sun_times", city="London", date="2024-09-01") == "date_out_of_range"
    assert error_kind(sandbox, "get_uv_index", city="Shanghai", date="2024-07-22") == "date_out_of_range"


def test_rain_lowers_pollen_by_one_step() -> None:
    sandbox = fresh()
    wet = next(r for r in STATE["data"]["cities"]["kunming"]["days"] if r["date"] >= "2024-07-15" and r["rain_chance"] >= 60)
    dry = fresh({"cities": {"kunming": {"days": [{**wet, "rain_chance": 10}]}}}, clock=f"{wet['date']}T09:00:00+08:00")
    wet_run = fresh(clock=f"{wet['date']}T09:00:00+08:00")
    assert run(dry, "get_pollen_forecast", city="Kunming")["levels"]["grass"] == "high"
    assert run(wet_run, "get_pollen_forecast", city="Kunming")["levels"]["grass"] == "moderate"
    del sandbox


def test_alerts_active_and_upcoming() -> None:
    sandbox = fresh()
    assert [a["id"] for a in run(sandbox, "get_weather_alerts", city="Chongqing")["active"]] == ["WA-301"]
    beijing = run(sandbox, "get_weather_alerts", city="Beijing")
    assert beijing == {"city": "Beijing", "active": []}
    ahead = run(sandbox, "get_weather_alerts", city="Beijing", include_upcoming=True)
    assert [a["id"] for a in ahead["upcoming"]] == ["WA-306"]
    # An expired warning is neither active nor upcoming.
    xian = run(sandbox, "get_weather_alerts", city="Xian", include_upcoming=True)
    assert xian["active"] == [] and xian["upcoming"] == []
    afternoon = fresh(clock="2024-07-15T15:00:00+08:00")
    assert [a["level"] for a in run(afternoon, "get_weather_alerts", city="北京")["active"]] == ["yellow"]


def test_subscriptions() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "subscribe_weather_alerts", city="上海", channel="push") == "already_subscribed"
    first = run(sandbox, "subscribe_weather_alerts", city="Shanghai", channel="email", min_level="orange")
    assert first["subscription_id"] == "WS-3" and first["all_types"] is True
    second = run(sandbox, "subscribe_weather_alerts", city="深圳", channel="sms", alert_types=["typhoon", "rainstorm"])
    assert second["alert_types"] == ["rainstorm", "typhoon"] and second["subscription_id"] == "WS-4"
    assert sandbox.data["subscriptions"]["WS-4"]["city"] == "shenzhen"


def test_same_calls_same_results() -> None:
    def script() -> tuple[list[Any], dict[str, Any]]:
        sandbox = fresh()
        results = [
            run(sandbox, "get_hourly_forecast", city="Wuhan", hours=30),
            run(sandbox, "subscribe_weather_alerts", city="Wuhan", channel="push"),
            run(sandbox, "get_weather_forecast", city="Tokyo", days=5, units="imperial"),
        ]
        return results, sandbox.state

    assert script() == script()


# ----------------------------------------------------------------------------- English-speaking cities, personal alerts, subscriptions


def test_english_speaking_cities() -> None:
    sandbox = fresh()
    nyc = run(sandbox, "get_weather_forecast", city="NYC", units="imperial")
    assert nyc["city"] == "New York" and nyc["days"][0]["high"] == 95 and nyc["units"]["temperature"] == "°F"
    assert run(sandbox, "get_weather_forecast", city="多伦多", start_date="2024-07-16")["days"][0]["condition"] == "cloudy"
    assert [a["id"] for a in run(sandbox, "get_weather_alerts", city="New York")["active"]] == ["WA-311"]
    assert run(sandbox, "get_weather_alerts", city="Toronto", include_upcoming=True)["upcoming"][0]["id"] == "WA-312", "it starts at noon in Toronto"
    assert run(sandbox, "get_weather_history", city="Edinburgh", date="2024-07-11")["observed"]["precipitation"] == 6.2


def test_personal_condition_alerts() -> None:
    sandbox = fresh()
    hot = run(sandbox, "set_weather_condition_alert", city="New York", condition="temperature_above", threshold=32, channel="sms")
    assert hot == {"alert_id": "CA-5", "city": "New York", "condition": "temperature_above", "threshold": 32, "date": None, "channel": "sms",
                   "fires_on_forecast_days": ["2024-07-15"]}
    rain = run(sandbox, "set_weather_condition_alert", city="London", condition="rain", channel="email", date="2024-07-16")
    assert rain["fires_on_forecast_days"] == ["2024-07-16"]
    assert run(sandbox, "set_weather_condition_alert", city="Toronto", condition="temperature_below", threshold=15, channel="push")["fires_on_forecast_days"] == []
    assert sandbox.data["subscriptions"] == STATE["data"]["subscriptions"], "personal alerts are not official-warning subscriptions"
    assert error_kind(sandbox, "set_weather_condition_alert", city="London", condition="rain", channel="push") == "already_subscribed"
    assert error_kind(sandbox, "set_weather_condition_alert", city="London", condition="uv_above", channel="push") == "threshold_required"
    assert error_kind(sandbox, "set_weather_condition_alert", city="London", condition="rain", threshold=60, channel="sms") == "threshold_not_used"
    assert error_kind(sandbox, "set_weather_condition_alert", city="London", condition="rain", channel="sms", date="2024-07-30") == "date_out_of_range"
    assert error_kind(sandbox, "set_weather_condition_alert", city="London", condition="rain", channel="sms", date="2024-07-32") == "invalid_date"
    assert error_kind(sandbox, "set_weather_condition_alert", city="Atlantis", condition="rain", channel="sms") == "unknown_city"


def test_list_and_remove_subscriptions() -> None:
    sandbox = fresh()
    listed = run(sandbox, "list_weather_subscriptions")
    assert [(s["subscription_id"], s["kind"]) for s in listed["subscriptions"]] == [("WS-1", "official_warnings"), ("WS-2", "official_warnings"), ("CA-4", "condition_alert")]
    assert run(sandbox, "unsubscribe_weather_alerts", subscription_id="WS-2") == {"subscription_id": "WS-2", "kind": "official_warnings", "city": "Hangzhou", "channel": "sms", "removed": True}
    assert run(sandbox, "unsubscribe_weather_alerts", subscription_id="CA-4")["kind"] == "condition_alert"
    assert error_kind(sandbox, "unsubscribe_weather_alerts", subscription_id="WS-2") == "subscription_not_found"
    assert run(sandbox, "subscribe_weather_alerts", city="Hangzhou", channel="sms")["subscription_id"] == "WS-3", "the channel is free again"
