"""The weather sandbox: a weather service answering from lookup tables over eighteen cities.

Each city in ``state.yaml`` has one row per day from 2024-07-10 to 2024-07-24 (observations before
"today", forecasts from "today" on), its sunrise and sunset on the base date with a daily drift,
and its seasonal pollen levels. Alerts carry a start and an end; subscriptions are the only thing
the APIs write. Every public method implements the spec ``specs/weather/<method>.yaml``.

"Today" is the date of the sandbox clock; forecasts reach six days past it (seven days in all).
Hourly values are derived from the day's row with one fixed diurnal curve, so the current
conditions, the hourly forecast and the daily forecast always agree with each other.
"""

from __future__ import annotations

import copy
from datetime import date as Date
from datetime import datetime, timedelta
from typing import Any, ClassVar

from validator.sandbox.base import ApiError, Sandbox

# Share of the day's temperature range reached at each hour (0 = the low near 05:00, 1 = the high at 14:00).
_CURVE = (
    0.25, 0.18, 0.12, 0.07, 0.03, 0.00, 0.05, 0.15, 0.30, 0.45, 0.60, 0.73,
    0.84, 0.93, 1.00, 0.98, 0.92, 0.82, 0.70, 0.58, 0.48, 0.40, 0.34, 0.29,
)
_LEVELS = ("blue", "yellow", "orange", "red")
_POLLEN = ("none", "low", "moderate", "high", "very_high")
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_AFTERNOON = {"thunderstorm": range(14, 20), "showers": range(12, 18)}
# A personal alert: which row value it watches, and whether it fires above (True) or below the threshold.
_CONDITIONS = {
    "rain": ("rain_chance", True),
    "temperature_above": ("high", True),
    "temperature_below": ("low", False),
    "uv_above": ("uv", True),
    "aqi_above": ("aqi", True),
    "wind_above": ("wind_kph", True),
}
_RAIN_CHANCE = 50  # a day counts as rainy from this chance of rain


def _normalise(name: str) -> str:
    text = name.strip().casefold()
    for ch in " '’-_.":
        text = text.replace(ch, "")
    return text[:-1] if len(text) > 1 and text.endswith("市") else text


class WeatherSandbox(Sandbox):
    """``self.data`` holds ``cities``, ``alerts``, ``subscriptions`` and the ``forecast_days`` horizon."""

    name: ClassVar[str] = "weather"
    name_folds = {"city": _normalise}  # "Xi'an" = "xian", "北京市" = "北京"

    # ------------------------------------------------------------------ helpers (private)

    def _today(self) -> Date:
        return self.now().date()

    def _city(self, name: str) -> tuple[str, dict[str, Any]]:
        """A city by a name state.yaml declares (`names.city`), or by its key (``hong_kong``)."""
        found = self.find_named("city", name)
        wanted = _normalise(name)
        found = found or next(((key, city) for key, city in self.data["cities"].items() if wanted and wanted == _normalise(key)), None)
        if found is None:
            raise ApiError("unknown_city", city=name)
        return str(found[0]), found[1]

    def _parse_date(self, value: str) -> Date:
        try:
            return datetime.strptime(value, "%Y-%m-%d").date()
        except (TypeError, ValueError):
            raise ApiError("invalid_date", date=value) from None

    def _row(self, city: dict[str, Any], day: Date) -> dict[str, Any] | None:
        wanted = day.isoformat()
        return next((row for row in city["days"] if row["date"] == wanted), None)

    def _forecast_day(self, city: dict[str, Any], value: str | None) -> tuple[Date, dict[str, Any]]:
        """A date given as text (or today), from today to the end of the forecast horizon, with its row."""
        return self._forecast_row(city, self._today() if value is None else self._parse_date(value))

    def _forecast_row(self, city: dict[str, Any], day: Date) -> tuple[Date, dict[str, Any]]:
        today = self._today()
        last = today + timedelta(days=self.data["forecast_days"] - 1)
        row = self._row(city, day)
        if day < today or day > last or row is None:
            raise ApiError("date_out_of_range", date=day.isoformat(), available_from=today.isoformat(), available_to=last.isoformat())
        return day, row

    @staticmethod
    def _temp(celsius: float, units: str) -> int:
        return round(celsius * 9 / 5 + 32) if units == "imperial" else round(celsius)

    @staticmethod
    def _speed(kph: float, units: str) -> int:
        return round(kph * 0.621371) if units == "imperial" else round(kph)

    @staticmethod
    def _precip(mm: float, units: str) -> float:
        return round(mm / 25.4, 2) if units == "imperial" else round(mm, 1)

    @staticmethod
    def _unit_labels(units: str) -> dict[str, str]:
        if units == "imperial":
            return {"temperature": "°F", "wind_speed": "mph", "precipitation": "in"}
        return {"temperature": "°C", "wind_speed": "km/h", "precipitation": "mm"}

    @staticmethod
    def _hour_celsius(row: dict[str, Any], hour: int) -> float:
        return row["low"] + (row["high"] - row["low"]) * _CURVE[hour]

    @staticmethod
    def _feels_like(celsius: float, humidity: int, kph: float) -> float:
        # A simple, fixed rule: humid heat feels hotter, wind makes the cold feel colder.
        if celsius >= 26:
            return celsius + max(0.0, (humidity - 40) * 0.1)
        if celsius <= 10:
            return celsius - kph / 10
        return celsius

    @staticmethod
    def _hour_condition(row: dict[str, Any], hour: int) -> tuple[str, int]:
        condition, chance = row["condition"], row["rain_chance"]
        if condition in _AFTERNOON:
            if hour in _AFTERNOON[condition]:
                return condition, chance
            return "cloudy", chance // 3
        if condition == "fog" and hour >= 10:
            return "cloudy", chance
        if condition in ("sunny", "partly_cloudy") and (hour < 6 or hour >= 19):
            return ("clear" if condition == "sunny" else "partly_cloudy_night"), chance
        return condition, chance

    def _day_view(self, day: Date, row: dict[str, Any], units: str) -> dict[str, Any]:
        return {
            "date": day.isoformat(),
            "weekday": _WEEKDAYS[day.weekday()],
            "condition": row["condition"],
            "high": self._temp(row["high"], units),
            "low": self._temp(row["low"], units),
            "rain_chance": row["rain_chance"],
            "precipitation": self._precip(row["precip_mm"], units),
            "humidity": row["humidity"],
            "wind_speed": self._speed(row["wind_kph"], units),
            "wind_dir": row["wind_dir"],
        }

    # ------------------------------------------------------------------ weather.conditions

    def get_current_weather(self, city: str, units: str = "metric") -> dict[str, Any]:
        key, record = self._city(city)
        now = self.now()
        _, row = self._forecast_row(record, now.date())
        celsius = self._hour_celsius(row, now.hour)
        condition, _ = self._hour_condition(row, now.hour)
        return {
            "city": record["name"],
            "observed_at": now.strftime("%Y-%m-%dT%H:%M"),
            "condition": condition,
            "temperature": self._temp(celsius, units),
            "feels_like": self._temp(self._feels_like(celsius, row["humidity"], row["wind_kph"]), units),
            "humidity": row["humidity"],
            "wind_speed": self._speed(row["wind_kph"], units),
            "wind_dir": row["wind_dir"],
            "units": self._unit_labels(units),
        }

    def get_weather_forecast(
        self, city: str, start_date: str | None = None, days: int = 1, units: str = "metric"
    ) -> dict[str, Any]:
        key, record = self._city(city)
        first, _ = self._forecast_day(record, start_date)
        rows = []
        for offset in range(days):
            day = first + timedelta(days=offset)
            day, row = self._forecast_row(record, day)
            rows.append(self._day_view(day, row, units))
        return {"city": record["name"], "days": rows, "units": self._unit_labels(units)}

    def get_hourly_forecast(self, city: str, hours: int = 12, units: str = "metric") -> dict[str, Any]:
        key, record = self._city(city)
        start = self.now().replace(minute=0, second=0, microsecond=0)
        rows = []
        for offset in range(hours):
            moment = start + timedelta(hours=offset)
            _, row = self._forecast_row(record, moment.date())
            celsius = self._hour_celsius(row, moment.hour)
            condition, chance = self._hour_condition(row, moment.hour)
            rows.append(
                {
                    "time": moment.strftime("%Y-%m-%dT%H:%M"),
                    "condition": condition,
                    "temperature": self._temp(celsius, units),
                    "rain_chance": chance,
                    "wind_speed": self._speed(row["wind_kph"], units),
                }
            )
        return {"city": record["name"], "hours": rows, "units": self._unit_labels(units)}

    def get_weather_history(self, city: str, date: str, units: str = "metric") -> dict[str, Any]:
        key, record = self._city(city)
        day = self._parse_date(date)
        today = self._today()
        if day >= today:
            raise ApiError("date_not_in_past", date=date, today=today.isoformat())
        row = self._row(record, day)
        if row is None:
            first = min(r["date"] for r in record["days"])
            raise ApiError("no_history", date=date, earliest=first)
        observed = self._day_view(day, row, units)
        return {"city": record["name"], "observed": observed, "units": self._unit_labels(units)}

    def get_sun_times(self, city: str, date: str | None = None) -> dict[str, Any]:
        key, record = self._city(city)
        today = self._today()
        day = today if date is None else self._parse_date(date)
        if abs((day - today).days) > 30:
            raise ApiError(
                "date_out_of_range",
                date=day.isoformat(),
                available_from=(today - timedelta(days=30)).isoformat(),
                available_to=(today + timedelta(days=30)).isoformat(),
            )
        sun = record["sun"]
        shift = (day - self._parse_date(self.data["sun_base_date"])).days
        base = datetime.combine(day, datetime.min.time())
        rise = base + timedelta(minutes=self._minutes(sun["sunrise"]) + sun["sunrise_shift"] * shift)
        fall = base + timedelta(minutes=self._minutes(sun["sunset"]) + sun["sunset_shift"] * shift)
        length = int((fall - rise).total_seconds() // 60)
        return {
            "city": record["name"],
            "date": day.isoformat(),
            "sunrise": rise.strftime("%H:%M"),
            "sunset": fall.strftime("%H:%M"),
            "day_length": f"{length // 60:02d}:{length % 60:02d}",
        }

    @staticmethod
    def _minutes(hhmm: str) -> int:
        hours, minutes = hhmm.split(":")
        return int(hours) * 60 + int(minutes)

    # ------------------------------------------------------------------ weather.health

    def get_air_quality(self, city: str, date: str | None = None) -> dict[str, Any]:
        key, record = self._city(city)
        day, row = self._forecast_day(record, date)
        aqi = row["aqi"]
        bands = ((50, "excellent"), (100, "good"), (150, "light_pollution"), (200, "moderate_pollution"), (300, "heavy_pollution"))
        category = next((name for limit, name in bands if aqi <= limit), "severe_pollution")
        return {
            "city": record["name"],
            "date": day.isoformat(),
            "aqi": aqi,
            "category": category,
            # Under the Chinese AQI standard a primary pollutant is named only above 50.
            "main_pollutant": row["pollutant"] if aqi > 50 else None,
            "sensitive_groups_should_limit_outdoor_activity": aqi > 100,
        }

    def get_uv_index(self, city: str, date: str | None = None) -> dict[str, Any]:
        key, record = self._city(city)
        day, row = self._forecast_day(record, date)
        uv = row["uv"]
        bands = ((2, "low", "none"), (5, "moderate", "sunscreen"), (7, "high", "sunscreen_and_hat"), (10, "very_high", "avoid_midday_sun"))
        level, protection = next(((lv, pr) for limit, lv, pr in bands if uv <= limit), ("extreme", "stay_indoors_at_midday"))
        return {
            "city": record["name"],
            "date": day.isoformat(),
            "uv_index": uv,
            "level": level,
            "protection": protection,
            "peak_hours": "11:00-15:00" if uv >= 3 else None,
        }

    def get_pollen_forecast(self, city: str, date: str | None = None) -> dict[str, Any]:
        key, record = self._city(city)
        day, row = self._forecast_day(record, date)
        # Rain washes pollen out of the air: a wet day is one step lower for every type.
        drop = 1 if row["rain_chance"] >= 60 else 0
        levels = {kind: _POLLEN[max(0, _POLLEN.index(level) - drop)] for kind, level in record["pollen"].items()}
        overall = max(levels.values(), key=_POLLEN.index)
        return {"city": record["name"], "date": day.isoformat(), "levels": levels, "overall": overall}

    # ------------------------------------------------------------------ weather.alerts

    def get_weather_alerts(self, city: str, include_upcoming: bool = False) -> dict[str, Any]:
        key, record = self._city(city)
        now = self.now()
        active, upcoming = [], []
        for alert_id, alert in sorted(self.data["alerts"].items()):
            if alert["city"] != key:
                continue
            starts, ends = datetime.fromisoformat(alert["starts"]), datetime.fromisoformat(alert["ends"])
            view = {"id": alert_id, **{k: copy.deepcopy(v) for k, v in alert.items() if k != "city"}}
            if starts <= now < ends:
                active.append(view)
            elif now < starts and include_upcoming:
                upcoming.append(view)
        result: dict[str, Any] = {"city": record["name"], "active": active}
        if include_upcoming:
            result["upcoming"] = upcoming
        return result

    def subscribe_weather_alerts(
        self, city: str, channel: str, min_level: str = "yellow", alert_types: list[str] | None = None
    ) -> dict[str, Any]:
        key, record = self._city(city)
        for sub_id, sub in sorted(self.data["subscriptions"].items()):
            if sub["city"] == key and sub["channel"] == channel:
                raise ApiError("already_subscribed", subscription_id=sub_id, city=record["name"], channel=channel)
        kinds = sorted(set(alert_types)) if alert_types else []
        subscription = {
            "city": key,
            "channel": channel,
            "min_level": min_level,
            "alert_types": kinds,
            "created_at": self.now().strftime("%Y-%m-%dT%H:%M"),
        }
        sub_id = self.new_id("subscription", "WS-")
        self.data["subscriptions"][sub_id] = subscription
        return {
            "subscription_id": sub_id,
            "city": record["name"],
            "channel": channel,
            "min_level": min_level,
            "alert_types": kinds,
            "all_types": not kinds,
        }

    # ------------------------------------------------------------------ weather.alerts (personal alerts, subscriptions)

    def set_weather_condition_alert(
        self, city: str, condition: str, channel: str, threshold: float | None = None, date: str | None = None
    ) -> dict[str, Any]:
        key, record = self._city(city)
        field, above = _CONDITIONS[condition]
        if condition == "rain":
            if threshold is not None:
                raise ApiError("threshold_not_used", condition=condition)
            limit: float = _RAIN_CHANCE
        elif threshold is None:
            raise ApiError("threshold_required", condition=condition)
        else:
            limit = threshold
        today = self._today()
        days = [today + timedelta(days=n) for n in range(self.data["forecast_days"])]
        if date is not None:
            day = self._parse_date(date)
            if not today <= day <= today + timedelta(days=14):
                raise ApiError("date_out_of_range", date=date, available_from=today.isoformat(), available_to=(today + timedelta(days=14)).isoformat())
            days = [d for d in days if d == day]
        for alert_id, alert in sorted(self.data["condition_alerts"].items()):
            if (alert["city"], alert["condition"], alert["threshold"], alert["date"], alert["channel"]) == (key, condition, threshold, date, channel):
                raise ApiError("already_subscribed", subscription_id=alert_id)
        firing = []
        for day in days:
            row = self._row(record, day)
            # rain counts from the limit up; a temperature, UV, AQI or wind threshold must be passed
            if row is not None and (row[field] >= limit if condition == "rain" else row[field] > limit if above else row[field] < limit):
                firing.append(day.isoformat())
        alert_id = self.new_id("condition_alert", "CA-")
        self.data["condition_alerts"][alert_id] = {
            "city": key,
            "condition": condition,
            "threshold": threshold,
            "date": date,
            "channel": channel,
            "created_at": self.now().strftime("%Y-%m-%dT%H:%M"),
        }
        return {
            "alert_id": alert_id,
            "city": record["name"],
            "condition": condition,
            "threshold": threshold,
            "date": date,
            "channel": channel,
            "fires_on_forecast_days": firing,
        }

    def list_weather_subscriptions(self) -> dict[str, Any]:
        cities = self.data["cities"]
        official = [
            {"subscription_id": sub_id, "kind": "official_warnings", "city": cities[sub["city"]]["name"], "channel": sub["channel"],
             "min_level": sub["min_level"], "alert_types": list(sub["alert_types"])}
            for sub_id, sub in sorted(self.data["subscriptions"].items())
        ]
        personal = [
            {"subscription_id": alert_id, "kind": "condition_alert", "city": cities[alert["city"]]["name"], "channel": alert["channel"],
             "condition": alert["condition"], "threshold": alert["threshold"], "date": alert["date"]}
            for alert_id, alert in sorted(self.data["condition_alerts"].items())
        ]
        return {"subscriptions": official + personal, "count": len(official) + len(personal)}

    def unsubscribe_weather_alerts(self, subscription_id: str) -> dict[str, Any]:
        for table, kind in (("subscriptions", "official_warnings"), ("condition_alerts", "condition_alert")):
            entry = self.data[table].pop(subscription_id, None)
            if entry is not None:
                return {"subscription_id": subscription_id, "kind": kind, "city": self.data["cities"][entry["city"]]["name"],
                        "channel": entry["channel"], "removed": True}
        raise ApiError("subscription_not_found", subscription_id=subscription_id)
