"""The ``maps`` sandbox: a map of Hangzhou (and of central London) with places, routes, traffic and saved places.

Data layout (``state.yaml`` → ``data``):

- ``settings``: the numbers every estimate is computed from — detour factors (straight-line
  distance to road distance), speeds per mode, the driving speed by time of day (weekday and
  weekend), transit service hours and overhead, the toll rule and the walking / cycling limits.
- ``places``: ``{place_id: {name, name_zh, aliases, category, address, address_zh, latitude,
  longitude, hours, rating, phone, tags}}``. ``hours`` is ``"HH:MM-HH:MM"`` local time; a closing
  time earlier than the opening time means the place closes after midnight.
- ``saved_places``: ``{saved_id: {label, aliases, place_id, note}}``; labels and aliases are
  unique, case-insensitive, and can be used wherever a location is asked for ("Home", "公司").
- ``roads``: current traffic per road (``level`` smooth / slow / congested, average speed,
  incidents with an English and a Chinese text).

A location given to an API is resolved, in order, as a place id, a saved-place label or alias,
an exact (case-insensitive) name or alias in English or Chinese, and finally a unique substring
of a name, alias or address; several substring matches are an ``ambiguous_place`` error listing
the candidates, never a guess. Distances are great-circle distances times the mode's detour
factor; nothing here reads the wall clock, so the same calls always give the same numbers.

A place with a ``city`` other than the home city (``settings.city``) belongs to that city of
``cities``: its opening hours and a route's times are read in that city's local time, the city's
``settings`` override the home ones (speeds, transit hours, tolls, fares), and routes never join
two cities. Costs in another currency are reported as ``local_costs``.
"""

from __future__ import annotations

import copy
import math
from datetime import datetime, timedelta, timezone
from typing import Any

from validator.sandbox.base import ApiError, Sandbox

MINUTE_FORMAT = "%Y-%m-%dT%H:%M"
EARTH_RADIUS_KM = 6371.0
MODES = ("driving", "walking", "cycling", "transit")
LEVEL_ORDER = {"congested": 0, "slow": 1, "smooth": 2}
MAX_SAVED_PLACES = 20


def _half_up(value: float, digits: int = 0) -> float:
    """Round half away from zero (Python's round() is banker's rounding)."""
    factor = 10**digits
    return math.floor(abs(value) * factor + 0.5) / factor * (1 if value >= 0 else -1)


def _to_ten(value: float) -> int:
    """Metres rounded half up to the nearest ten."""
    return int(math.floor(value / 10 + 0.5)) * 10


def _minutes(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def _zone(offset: str) -> timezone:
    sign = -1 if offset.startswith("-") else 1
    hours, minutes = offset.lstrip("+-").split(":")
    return timezone(sign * timedelta(hours=int(hours), minutes=int(minutes)))


def _eu_summer_time(moment: datetime) -> bool:
    """Whether European summer time is on at this moment: from 01:00 UTC on the last Sunday of
    March until 01:00 UTC on the last Sunday of October (London: BST, +01:00; GMT otherwise)."""
    moment = moment.astimezone(timezone.utc)

    def last_sunday(month: int) -> datetime:
        last = datetime(moment.year, month, 31, 1, 0, tzinfo=timezone.utc)
        return last - timedelta(days=(last.weekday() - 6) % 7)

    return last_sunday(3) <= moment < last_sunday(10)


def _haversine_km(a: dict[str, Any], b: dict[str, Any]) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (a["latitude"], a["longitude"], b["latitude"], b["longitude"]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(h))


class MapsSandbox(Sandbox):
    """A city map: geocoding, nearby search, routes, travel times, traffic, saved places."""

    name = "maps"

    # ------------------------------------------------------------------ helpers (private)

    @property
    def _settings(self) -> dict[str, Any]:
        return self.data["settings"]

    def _local_now(self) -> datetime:
        return self.now().replace(tzinfo=None, second=0, microsecond=0)

    def _city_of(self, place_id: str) -> str:
        return self.data["places"][place_id].get("city", self._settings["city"])

    def _cfg(self, city: str) -> dict[str, Any]:
        """The settings a route in this city runs on: the home settings, overridden by the city's own."""
        if city == self._settings["city"]:
            return self._settings
        return {**self._settings, **self.data["cities"][city]["settings"]}

    def _city_now(self, city: str) -> datetime:
        """The clock in a city's local time, without offset (the home city reads the clock as it is)."""
        if city == self._settings["city"]:
            return self._local_now()
        info = self.data["cities"][city]
        zone = _zone(info["utc_offset"])
        if info.get("summer_time") == "eu" and _eu_summer_time(self.now()):
            zone = timezone(timedelta(hours=1) + zone.utcoffset(None))
        return self.now().astimezone(zone).replace(tzinfo=None, second=0, microsecond=0)

    def _route_city(self, stops: list[str]) -> str:
        cities = sorted({self._city_of(pid) for pid in stops})
        if len(cities) > 1:
            raise ApiError("different_cities", cities=cities)
        return cities[0]

    def _costs(self, city: str, toll: float | None, fare: float | None) -> dict[str, Any]:
        """toll_cny / fare_cny for the home city; elsewhere those are null and local_costs carries them."""
        if city == self._settings["city"]:
            return {"toll_cny": toll, "fare_cny": fare}
        currency = self.data["cities"][city]["currency"]
        return {"toll_cny": None, "fare_cny": None, "local_costs": {"currency": currency, "toll": toll, "fare": fare}}

    def _summary(self, place_id: str) -> dict[str, Any]:
        place = self.data["places"][place_id]
        return {
            "place_id": place_id,
            "name": place["name"],
            "name_zh": place["name_zh"],
            "category": place["category"],
            "address": place["address"],
            "address_zh": place["address_zh"],
            "latitude": place["latitude"],
            "longitude": place["longitude"],
        }

    def _short(self, place_id: str) -> dict[str, Any]:
        place = self.data["places"][place_id]
        return {"place_id": place_id, "name": place["name"], "name_zh": place["name_zh"]}

    def _nearby_row(self, place_id: str, distance_m: int, is_open: bool) -> dict[str, Any]:
        place = self.data["places"][place_id]
        return {
            "place_id": place_id,
            "name": place["name"],
            "name_zh": place["name_zh"],
            "category": place["category"],
            "address": place["address"],
            "address_zh": place["address_zh"],
            "distance_m": distance_m,
            "rating": place["rating"],
            "open_now": is_open,
        }

    def _is_open(self, place: dict[str, Any], at: datetime) -> bool:
        opens, closes = (_minutes(part) for part in place["hours"].split("-"))
        now = at.hour * 60 + at.minute
        if opens == closes or (opens == 0 and closes == 24 * 60):
            return True
        if opens < closes:
            return opens <= now < closes
        return now >= opens or now < closes  # open past midnight

    def _saved_by_label(self, label: str) -> tuple[str, dict[str, Any]] | None:
        """A saved place by its label or an alias (state.yaml `names.saved_place`)."""
        found = self.find_named("saved_place", label)
        return (str(found[0]), found[1]) if found else None

    def _names(self, pid: str, place: dict[str, Any]) -> list[str]:
        """A place's names in both languages (state.yaml `names.place`); its id is not a name."""
        return list(self.names_of("place", pid, place))

    def _resolve(self, text: str) -> str:
        """A location given by id, saved label, exact name, or a unique substring → place id."""
        query = text.strip()
        wanted = query.casefold()
        places = self.data["places"]
        if query in places:
            return query
        saved = self._saved_by_label(query)
        if saved is not None:
            return saved[1]["place_id"]
        exact = [pid for pid, place in places.items() if self.is_named("place", pid, place, query)]
        if len(exact) == 1:
            return exact[0]
        if not wanted:
            raise ApiError("place_not_found", query=text)
        partial = exact or [
            pid
            for pid, place in places.items()
            if any(wanted in field.casefold() for field in [*self._names(pid, place), place["address"], place["address_zh"]])
        ]
        if len(partial) == 1:
            return partial[0]
        if not partial:
            raise ApiError("place_not_found", query=text)
        candidates = [{"place_id": pid, "name": places[pid]["name"], "name_zh": places[pid]["name_zh"]} for pid in sorted(partial)]
        raise ApiError("ambiguous_place", query=text, candidates=candidates)

    def _parse_time(self, value: str, now: datetime) -> datetime:
        try:
            when = datetime.strptime(value, MINUTE_FORMAT)
        except (TypeError, ValueError):
            raise ApiError("invalid_time", time=value) from None
        if when < now:
            raise ApiError("time_in_past", time=value, now=now.strftime(MINUTE_FORMAT))
        return when

    def _bands(self, day: datetime, cfg: dict[str, Any]) -> list[tuple[int, float]]:
        """(start minute of the day, km/h) of the driving-speed bands of that day."""
        profile = cfg["driving_speed"]["weekend" if day.weekday() >= 5 else "weekday"]
        return [(_minutes(band["from"]), float(band["kmh"])) for band in profile]

    def _driving_kmh(self, at: datetime, cfg: dict[str, Any]) -> float:
        minute = at.hour * 60 + at.minute
        speed = 0.0
        for start, kmh in self._bands(at, cfg):
            if start <= minute:
                speed = kmh
        return speed

    def _drive_minutes(self, legs: list[tuple[float, bool]], start: datetime, cfg: dict[str, Any]) -> float:
        """Minutes to drive the legs leaving at start, the speed changing as the clock crosses bands."""
        speedup = cfg["expressway_speedup"]
        elapsed = float(cfg["driving_start_min"])
        for km, fast in legs:
            left = km
            while left > 1e-9:
                at = start + timedelta(minutes=elapsed)
                minute = at.hour * 60 + at.minute + at.second / 60
                bands = self._bands(at, cfg)
                kmh = self._driving_kmh(at, cfg) * (speedup if fast else 1)
                later = [band_start for band_start, _ in bands if band_start > minute]
                to_boundary = (later[0] if later else 24 * 60) - minute  # minutes until the speed changes
                reach = kmh * to_boundary / 60
                if left <= reach:
                    elapsed += left / kmh * 60
                    left = 0.0
                else:
                    elapsed += to_boundary
                    left -= reach
        return elapsed

    def _check_transit(self, at: datetime, cfg: dict[str, Any]) -> None:
        hours = cfg["transit_hours"]
        minute = at.hour * 60 + at.minute
        if not _minutes(hours["open"]) <= minute < _minutes(hours["close"]):
            raise ApiError("no_transit_service", time=at.strftime(MINUTE_FORMAT), service_hours=f"{hours['open']}-{hours['close']}")

    def _legs(self, stops: list[str], mode: str, avoid_tolls: bool, cfg: dict[str, Any]) -> tuple[list[tuple[float, bool]], float | None]:
        """Each leg's road distance in km and whether it runs on a tolled expressway; the toll."""
        settings = cfg
        places = self.data["places"]
        legs: list[tuple[float, bool]] = []
        toll = 0.0 if mode == "driving" else None
        for start, end in zip(stops, stops[1:]):
            straight = _haversine_km(places[start], places[end])
            km = straight * settings["detour_factor"][mode]
            expressway = mode == "driving" and straight >= settings["toll_min_straight_km"] and not avoid_tolls
            if mode == "driving" and straight >= settings["toll_min_straight_km"]:
                if avoid_tolls:
                    km *= 1 + settings["avoid_tolls_extra"]
                else:
                    toll = (toll or 0.0) + settings["toll_cny"]
            legs.append((km, expressway))
        total = sum(km for km, _ in legs)
        limit = settings["max_km"].get(mode)
        if limit is not None and total > limit:
            raise ApiError("route_too_long", mode=mode, distance_km=_half_up(total, 1), limit_km=limit)
        return legs, toll

    def _duration_min(self, legs: list[tuple[float, bool]], mode: str, at: datetime, cfg: dict[str, Any]) -> int:
        settings = cfg
        km = sum(length for length, _ in legs)
        if mode == "driving":
            minutes = self._drive_minutes(legs, at, cfg)
        elif mode == "transit":
            minutes = km / settings["speed_kmh"]["transit"] * 60 + settings["transit_overhead_min"] * len(legs)
        else:
            minutes = km / settings["speed_kmh"][mode] * 60
        return max(1, int(_half_up(minutes)))

    @staticmethod
    def _transit_fare(km: float, cfg: dict[str, Any]) -> float:
        fare = cfg["transit_fare"]
        if km <= fare["base_km"]:
            return float(fare["base"])
        return round(float(min(fare["max"], fare["base"] + fare["step"] * math.ceil((km - fare["base_km"]) / fare["step_km"]))), 2)

    def _check_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ApiError("unsupported_mode", mode=mode, modes=list(MODES))

    # ------------------------------------------------------------------ maps.places

    def geocode_place(self, query: str, limit: int = 5) -> dict[str, Any]:
        wanted = query.strip().casefold()
        if not wanted:
            raise ApiError("empty_query")
        ranked: list[tuple[int, str]] = []
        for pid, place in self.data["places"].items():
            names = [n.casefold() for n in self._names(pid, place)]
            if wanted in names:
                rank = 0
            elif any(n.startswith(wanted) for n in names):
                rank = 1
            elif any(wanted in n for n in names):
                rank = 2
            elif any(wanted in f.casefold() for f in [place["address"], place["address_zh"], *place["tags"]]):
                rank = 3
            else:
                continue
            ranked.append((rank, pid))
        ranked.sort()
        return {"results": [self._summary(pid) for _, pid in ranked[:limit]], "count": len(ranked)}

    def reverse_geocode(self, latitude: float, longitude: float) -> dict[str, Any]:
        point = {"latitude": latitude, "longitude": longitude}
        distances = sorted((_haversine_km(point, place), pid) for pid, place in self.data["places"].items())
        km, pid = distances[0]
        if km > 2.0:
            raise ApiError("no_place_nearby", latitude=latitude, longitude=longitude)
        return {"place": self._summary(pid), "distance_m": _to_ten(km * 1000)}

    def search_nearby(
        self,
        location: str,
        category: str | None = None,
        keyword: str | None = None,
        radius_m: int = 1000,
        open_now: bool = False,
        sort_by: str = "distance",
        limit: int = 5,
    ) -> dict[str, Any]:
        center_id = self._resolve(location)
        places = self.data["places"]
        center = places[center_id]
        now = self._city_now(self._city_of(center_id))
        wanted = keyword.strip().casefold() if keyword else None
        found = []
        for pid, place in places.items():
            if pid == center_id:
                continue
            distance = _haversine_km(center, place) * 1000
            if distance > radius_m:
                continue
            if category is not None and place["category"] != category:
                continue
            if wanted and not any(wanted in f.casefold() for f in [*self._names(pid, place), *place["tags"]]):
                continue
            is_open = self._is_open(place, now)
            if open_now and not is_open:
                continue
            found.append(self._nearby_row(pid, _to_ten(distance), is_open))
        if sort_by == "rating":
            found.sort(key=lambda r: (-(r["rating"] or 0), r["distance_m"], r["place_id"]))
        else:
            found.sort(key=lambda r: (r["distance_m"], r["place_id"]))
        return {"center": self._short(center_id), "results": found[:limit], "count": len(found)}

    def get_place_details(self, place_id: str) -> dict[str, Any]:
        place = self.data["places"].get(place_id)
        if place is None:
            raise ApiError("place_not_found", query=place_id)
        details = self._summary(place_id)
        details.update(
            {
                "aliases": list(place["aliases"]),
                "hours": place["hours"],
                "open_now": self._is_open(place, self._city_now(self._city_of(place_id))),
                "rating": place["rating"],
                "phone": place["phone"],
                "tags": list(place["tags"]),
            }
        )
        return details

    # ------------------------------------------------------------------ maps.routes

    def plan_route(
        self,
        origin: str,
        destination: str,
        mode: str = "driving",
        waypoints: list[str] | None = None,
        avoid_tolls: bool = False,
    ) -> dict[str, Any]:
        self._check_mode(mode)
        stops = [self._resolve(origin), *(self._resolve(w) for w in waypoints or []), self._resolve(destination)]
        if any(a == b for a, b in zip(stops, stops[1:])):
            raise ApiError("same_place", place_id=next(a for a, b in zip(stops, stops[1:]) if a == b))
        city = self._route_city(stops)
        cfg, now = self._cfg(city), self._city_now(city)
        if mode == "transit":
            self._check_transit(now, cfg)
        legs, toll = self._legs(stops, mode, avoid_tolls, cfg)
        minutes = self._duration_min(legs, mode, now, cfg)
        distance = _half_up(sum(km for km, _ in legs), 1)
        return {
            "origin": self._short(stops[0]),
            "destination": self._short(stops[-1]),
            "waypoints": [self._short(pid) for pid in stops[1:-1]],
            "mode": mode,
            "distance_km": distance,
            "duration_min": minutes,
            "depart_at": now.strftime(MINUTE_FORMAT),
            "arrive_at": (now + timedelta(minutes=minutes)).strftime(MINUTE_FORMAT),
            **self._costs(city, toll, self._transit_fare(distance, cfg) if mode == "transit" else None),
            "avoid_tolls": avoid_tolls,
        }

    def estimate_travel_time(
        self,
        origin: str,
        destination: str,
        mode: str = "driving",
        depart_at: str | None = None,
        arrive_by: str | None = None,
    ) -> dict[str, Any]:
        self._check_mode(mode)
        if depart_at is not None and arrive_by is not None:
            raise ApiError("conflicting_times", depart_at=depart_at, arrive_by=arrive_by)
        start, end = self._resolve(origin), self._resolve(destination)
        if start == end:
            raise ApiError("same_place", place_id=start)
        city = self._route_city([start, end])
        cfg, now = self._cfg(city), self._city_now(city)
        legs, _ = self._legs([start, end], mode, False, cfg)
        if arrive_by is not None:
            target = self._parse_time(arrive_by, now)
            # The latest departure minute from which the trip (at that minute's speed) arrives in time.
            leave = target
            minutes = self._duration_min(legs, mode, target, cfg)
            for back in range(1, 24 * 60 + 1):
                leave = target - timedelta(minutes=back)
                minutes = self._duration_min(legs, mode, leave, cfg)
                if leave + timedelta(minutes=minutes) <= target:
                    break
            if leave < now:
                earliest = now + timedelta(minutes=self._duration_min(legs, mode, now, cfg))
                raise ApiError("cannot_arrive_in_time", arrive_by=arrive_by, earliest_arrival=earliest.strftime(MINUTE_FORMAT))
        else:
            leave = self._parse_time(depart_at, now) if depart_at is not None else now
            minutes = self._duration_min(legs, mode, leave, cfg)
        if mode == "transit":
            self._check_transit(leave, cfg)
        return {
            "origin": self._short(start),
            "destination": self._short(end),
            "mode": mode,
            "distance_km": _half_up(sum(km for km, _ in legs), 1),
            "duration_min": minutes,
            "depart_at": leave.strftime(MINUTE_FORMAT),
            "arrive_at": (leave + timedelta(minutes=minutes)).strftime(MINUTE_FORMAT),
            "rush_hour": mode == "driving"
            and any(self._driving_kmh(leave + timedelta(minutes=m), cfg) < cfg["rush_hour_kmh"] for m in range(minutes)),
        }

    def find_along_route(
        self,
        origin: str,
        destination: str,
        category: str | None = None,
        keyword: str | None = None,
        mode: str = "driving",
        max_detour_m: int = 1000,
        open_now: bool = False,
        limit: int = 5,
    ) -> dict[str, Any]:
        self._check_mode(mode)
        start, end = self._resolve(origin), self._resolve(destination)
        if start == end:
            raise ApiError("same_place", place_id=start)
        city = self._route_city([start, end])
        cfg, now = self._cfg(city), self._city_now(city)
        places = self.data["places"]
        direct = _haversine_km(places[start], places[end])
        wanted = keyword.strip().casefold() if keyword else None
        found = []
        for pid, place in places.items():
            if pid in (start, end) or self._city_of(pid) != city:
                continue
            if category is not None and place["category"] != category:
                continue
            if wanted and not any(wanted in f.casefold() for f in [*self._names(pid, place), *place["tags"]]):
                continue
            extra = (_haversine_km(places[start], place) + _haversine_km(place, places[end]) - direct) * cfg["detour_factor"][mode] * 1000
            if extra > max_detour_m:
                continue
            is_open = self._is_open(place, now)
            if open_now and not is_open:
                continue
            row = self._nearby_row(pid, _to_ten(_haversine_km(places[start], place) * 1000), is_open)
            row["detour_m"] = _to_ten(extra)
            found.append(row)
        found.sort(key=lambda r: (r["detour_m"], r["distance_m"], r["place_id"]))
        return {"origin": self._short(start), "destination": self._short(end), "mode": mode, "results": found[:limit], "count": len(found)}

    # ------------------------------------------------------------------ maps.traffic

    def get_traffic(self, road: str | None = None) -> dict[str, Any]:
        roads = self.data["roads"]
        if road is not None:
            wanted = road.strip().casefold()
            exact = [r for _, r in self.records_named("road", road)]
            chosen = exact or [r for i, r in enumerate(roads) if wanted and any(wanted in n.casefold() for n in self.names_of("road", i, r))]
            if len(chosen) != 1:
                raise ApiError("road_not_found", road=road, known=[r["name"] for r in roads] if not chosen else [r["name"] for r in chosen])
        else:
            chosen = sorted(roads, key=lambda r: (LEVEL_ORDER[r["level"]], r["speed_kmh"], r["road_id"]))
        return {"roads": copy.deepcopy(chosen), "updated_at": self._local_now().strftime(MINUTE_FORMAT)}

    # ------------------------------------------------------------------ maps.saved

    def list_saved_places(self) -> dict[str, Any]:
        rows = []
        for saved_id in sorted(self.data["saved_places"], key=lambda s: int(s.split("-")[1])):
            saved = self.data["saved_places"][saved_id]
            rows.append(
                {
                    "saved_id": saved_id,
                    "label": saved["label"],
                    "aliases": list(saved["aliases"]),
                    "note": saved["note"],
                    "place": self._summary(saved["place_id"]),
                }
            )
        return {"saved_places": rows, "count": len(rows)}

    def save_place(self, place_id: str, label: str, note: str | None = None) -> dict[str, Any]:
        if place_id not in self.data["places"]:
            raise ApiError("place_not_found", query=place_id)
        clean = label.strip()
        existing = self._saved_by_label(clean)
        if existing is not None:
            raise ApiError("label_taken", label=clean, saved_id=existing[0])
        if len(self.data["saved_places"]) >= MAX_SAVED_PLACES:
            raise ApiError("too_many_saved_places", maximum=MAX_SAVED_PLACES)
        saved_id = self.new_id("saved_place", "SP-")
        self.data["saved_places"][saved_id] = {"label": clean, "aliases": [], "place_id": place_id, "note": note}
        return {"saved_id": saved_id, "label": clean, "note": note, "place": self._summary(place_id)}

    def remove_saved_place(self, label: str) -> dict[str, Any]:
        existing = self._saved_by_label(label)
        if existing is None:
            raise ApiError("saved_place_not_found", label=label)
        saved_id, saved = existing
        del self.data["saved_places"][saved_id]
        return {"removed": saved_id, "label": saved["label"], "place_id": saved["place_id"]}
