"""The entertainment sandbox: Wen Jia's app for cinema tickets, music playlists and concerts.

State (``data``): cities, movies, cinemas and showtimes (with sold seats), movie bookings, snack
prices, a music catalogue, playlists, playback devices and settings, concerts with price zones and
seats left, and concert orders. Every public method implements ``specs/entertainment/<method>.yaml``.

Names (cities, cinemas, movies, tracks, artists, playlists) are matched case-insensitively on the
English name, the Chinese name or a listed alias, never by guessing between several candidates.
Moments are local ``YYYY-MM-DDTHH:MM`` wall-clock times of the venue's city; a city abroad has its
own ``utc_offset`` and ``currency`` (results then carry ``currency``; CNY is never written). The
clock never moves here. Seats can be held without paying (``seat_holds``), sold-out concert zones
keep a waitlist (``concert_waitlists``) and songs can be queued to play next (``queue``).
"""

from __future__ import annotations

import copy
from datetime import date, datetime, timedelta, timezone
from typing import Any, ClassVar

from validator.sandbox.base import ApiError, Sandbox

_MINUTE_FORMAT = "%Y-%m-%dT%H:%M"
_ROWS = "ABCDEFGH"
_SEATS_PER_ROW = 12
_TICKET_SHARE = {"adult": 1.0, "student": 0.8, "child": 0.5, "senior": 0.5}
_CANCEL_CUTOFF = timedelta(minutes=60)
_HOLD_MINUTES = 15
_MAX_QUEUE = 50


def _zone(offset: str) -> timezone:
    sign = -1 if offset.startswith("-") else 1
    hours, minutes = offset.lstrip("+-").split(":")
    return timezone(sign * timedelta(hours=int(hours), minutes=int(minutes)))


def _fold(text: str) -> str:
    return text.strip().strip("《》\"'“”").strip().casefold()


class EntertainmentSandbox(Sandbox):
    """The app; ``self.data`` holds ``member``, ``movies``, ``cinemas``, ``showtimes``, ``tracks``, ``concerts``, …"""

    name: ClassVar[str] = "entertainment"
    # every kind of name state.yaml declares is compared without book-title marks and quotes
    name_folds = dict.fromkeys(
        ("city", "movie", "cinema", "track", "track_artist", "playlist", "concert_artist"), _fold
    )

    # ------------------------------------------------------------------ helpers (private)

    def _local_now(self) -> datetime:
        return self.now().replace(tzinfo=None, second=0, microsecond=0)

    def _city_now(self, city_key: str) -> datetime:
        """The clock in the city's local time; cities without a utc_offset read the clock as it is."""
        offset = self.data["cities"][city_key].get("utc_offset")
        if offset is None:
            return self._local_now()
        return self.now().astimezone(_zone(offset)).replace(tzinfo=None, second=0, microsecond=0)

    def _currency(self, city_key: str) -> str:
        return self.data["cities"][city_key].get("currency", "CNY")

    def _currency_field(self, city_key: str) -> dict[str, str]:
        currency = self._currency(city_key)
        return {} if currency == "CNY" else {"currency": currency}

    def _show_city(self, show: dict[str, Any]) -> str:
        return self.data["cinemas"][show["cinema"]]["city"]

    def _active_hold(self, show_id: str, seat: str) -> dict[str, Any] | None:
        now = self._city_now(self._show_city(self.data["showtimes"][show_id]))
        for hold in self.data["seat_holds"]:
            if hold["showtime"] == show_id and hold["status"] == "held" and seat in hold["seats"]:
                if datetime.strptime(hold["expires_at"], _MINUTE_FORMAT) > now:
                    return hold
        return None

    def _city(self, name: str) -> str:
        """A city by its key (``new_york``) or a name state.yaml declares (`names.city`)."""
        if _fold(name) in self.data["cities"]:
            return _fold(name)
        found = self.find_named("city", name)
        if found is None:
            raise ApiError("city_not_found", city=name)
        return str(found[0])

    def _named(self, kind: str, name: str, error: str) -> dict[str, Any]:
        """A movie or a cinema by a name state.yaml declares (`names.movie`, `names.cinema`)."""
        found = self.find_named(kind, name)
        if found is None:
            raise ApiError(error, name=name)
        return found[1]

    def _day(self, value: str, field: str) -> date:
        try:
            return date.fromisoformat(value)
        except (TypeError, ValueError):
            raise ApiError("invalid_date", field=field, value=value) from None

    def _track(self, title: str, artist: str) -> dict[str, Any]:
        for key, track in self.records_named("track", title):
            if self.is_named("track_artist", key, track, artist):
                return track
        raise ApiError("track_not_found", title=title, artist=artist)

    def _playlist(self, name: str) -> dict[str, Any]:
        found = self.find_named("playlist", name)
        if found is None:
            raise ApiError("playlist_not_found", playlist=name)
        return found[1]

    def _showtime_row(self, show: dict[str, Any]) -> dict[str, Any]:
        cinema = self.data["cinemas"][show["cinema"]]
        movie = self.data["movies"][show["movie"]]
        return {
            **self._currency_field(cinema["city"]),
            "showtime_id": show["id"],
            "cinema": cinema["name"],
            "movie": movie["title"],
            "start": show["start"],
            "hall": show["hall"],
            "format": show["format"],
            "language": show["language"],
            "price": show["price"],
            "seats_left": len(_ROWS) * _SEATS_PER_ROW - len(show["taken"]),
        }

    # ------------------------------------------------------------------ entertainment.movies

    def search_showtimes(
        self,
        city: str,
        date: str,
        movie: str | None = None,
        cinema: str | None = None,
        format: str | None = None,
        language: str | None = None,
        start_after: str = "00:00",
        max_price: float | None = None,
    ) -> dict[str, Any]:
        city_key = self._city(city)
        day = self._day(date, "date").isoformat()
        movie_id = self._named("movie", movie, "movie_not_found")["id"] if movie is not None else None
        cinema_row = self._named("cinema", cinema, "cinema_not_found") if cinema is not None else None
        rows = []
        for show in sorted(self.data["showtimes"].values(), key=lambda s: (s["start"], s["id"])):
            if self.data["cinemas"][show["cinema"]]["city"] != city_key or show["start"][:10] != day:
                continue
            if movie_id is not None and show["movie"] != movie_id:
                continue
            if cinema_row is not None and show["cinema"] != cinema_row["id"]:
                continue
            if format is not None and show["format"] != format:
                continue
            if language is not None and show["language"] != language:
                continue
            if show["start"][11:] < start_after or (max_price is not None and show["price"] > max_price):
                continue
            if datetime.strptime(show["start"], _MINUTE_FORMAT) <= self._city_now(city_key):
                continue
            rows.append(self._showtime_row(show))
        return {"showtimes": rows, "count": len(rows)}

    def get_seat_map(self, showtime_id: str) -> dict[str, Any]:
        show = self.data["showtimes"].get(showtime_id)
        if show is None:
            raise ApiError("showtime_not_found", showtime_id=showtime_id)
        taken = set(show["taken"])
        rows = {row: [n for n in range(1, _SEATS_PER_ROW + 1) if f"{row}{n}" not in taken] for row in _ROWS}
        return {**self._showtime_row(show), "free_seats_by_row": rows}

    def book_movie_tickets(
        self,
        cinema: str,
        movie: str,
        start_time: str,
        tickets: list[dict[str, Any]],
        snacks: list[dict[str, Any]] | None = None,
        use_points: bool = False,
    ) -> dict[str, Any]:
        cinema_row = self._named("cinema", cinema, "cinema_not_found")
        movie_row = self._named("movie", movie, "movie_not_found")
        show = next(
            (s for s in self.data["showtimes"].values() if s["cinema"] == cinema_row["id"] and s["movie"] == movie_row["id"] and s["start"] == start_time),
            None,
        )
        if show is None:
            raise ApiError("showtime_not_found", cinema=cinema_row["name"], movie=movie_row["title"], start_time=start_time)
        city = cinema_row["city"]
        if datetime.strptime(show["start"], _MINUTE_FORMAT) <= self._city_now(city):
            raise ApiError("showtime_started", start=show["start"])
        seats = [t["seat"] for t in tickets]
        if len(set(seats)) != len(seats):
            raise ApiError("duplicate_seat")
        holds = {seat: self._active_hold(show["id"], seat) for seat in seats}
        taken = sorted(seat for seat in set(seats) & set(show["taken"]) if holds[seat] is None)
        if taken:
            raise ApiError("seat_taken", seats=taken)
        currency = self._currency(city)
        if use_points and currency != "CNY":
            raise ApiError("points_not_accepted", currency=currency)
        prices = self.data["snack_prices"] if currency == "CNY" else self.data["local_snack_prices"][currency]

        def ticket_price(share: float) -> float:
            # yuan prices are whole yuan; other currencies keep their pence / cents
            return round(show["price"] * share) if currency == "CNY" else round(show["price"] * share, 2)

        items = [{"seat": t["seat"], "ticket_type": t["ticket_type"], "price": ticket_price(_TICKET_SHARE[t["ticket_type"]])} for t in tickets]
        snack_rows = [{"item": s["item"], "quantity": s["quantity"], "price": round(prices[s["item"]] * s["quantity"], 2)} for s in snacks or []]
        total = sum(i["price"] for i in items) + sum(s["price"] for s in snack_rows)
        if currency != "CNY":
            total = round(total, 2)
        points_used = 0
        if use_points:
            member = self.data["member"]
            discount = min(member["points"] // 100, total // 2)
            points_used = discount * 100
            member["points"] -= points_used
        for hold in {h["id"]: h for h in holds.values() if h is not None}.values():
            hold["status"] = "converted"
        show["taken"] = sorted({*show["taken"], *seats})
        booking = {
            "id": self.new_id("movie_booking", "MB-"),
            "showtime": show["id"],
            "cinema": cinema_row["name"],
            "movie": movie_row["title"],
            "start": show["start"],
            "tickets": items,
            "snacks": snack_rows,
            "total": total,
            "points_used": points_used,
            "paid": total - points_used // 100,
            "status": "confirmed",
            **self._currency_field(city),
        }
        self.data["movie_bookings"].append(booking)
        return copy.deepcopy(booking)

    def cancel_movie_booking(self, booking_id: str) -> dict[str, Any]:
        booking = next((b for b in self.data["movie_bookings"] if b["id"] == booking_id), None)
        if booking is None:
            raise ApiError("booking_not_found", booking_id=booking_id)
        if booking["status"] != "confirmed":
            raise ApiError("not_cancellable", status=booking["status"])
        show = self.data["showtimes"].get(booking["showtime"])
        now = self._city_now(self._show_city(show)) if show is not None else self._local_now()
        if datetime.strptime(booking["start"], _MINUTE_FORMAT) - now < _CANCEL_CUTOFF:
            raise ApiError("too_late_to_cancel", start=booking["start"])
        booking["status"] = "cancelled"
        show = self.data["showtimes"].get(booking["showtime"])
        if show is not None:
            freed = {t["seat"] for t in booking["tickets"]}
            show["taken"] = [seat for seat in show["taken"] if seat not in freed]
        self.data["member"]["points"] += booking["points_used"]
        return {"booking_id": booking_id, "status": "cancelled", "refund": booking["paid"], "points_returned": booking["points_used"],
                **({"currency": booking["currency"]} if "currency" in booking else {})}

    def list_movie_bookings(self, include_past: bool = False) -> dict[str, Any]:
        rows = [b for b in self.data["movie_bookings"] if include_past or b["status"] == "confirmed"]
        rows = sorted(rows, key=lambda b: (b["start"], b["id"]))
        return {"bookings": copy.deepcopy(rows), "count": len(rows)}

    # ------------------------------------------------------------------ entertainment.music

    def search_music(
        self,
        query: str,
        search_type: str = "track",
        genres: list[str] | None = None,
        released_after: int | None = None,
        released_before: int | None = None,
        include_explicit: bool = True,
        limit: int = 10,
    ) -> dict[str, Any]:
        wanted = _fold(query)
        hits = []
        for track in sorted(self.data["tracks"].values(), key=lambda t: t["id"]):
            fields = (track["title"] if search_type == "track" else track["artist"]).values()
            if wanted and not any(wanted in _fold(text) for text in fields):
                continue
            if genres is not None and track["genre"] not in genres:
                continue
            if released_after is not None and track["year"] < released_after:
                continue
            if released_before is not None and track["year"] > released_before:
                continue
            if not include_explicit and track["explicit"]:
                continue
            hits.append(copy.deepcopy(track))
        if search_type == "artist":
            artists: dict[str, dict[str, Any]] = {}
            for track in hits:
                entry = artists.setdefault(track["artist"]["en"], {"artist": track["artist"], "tracks": 0, "genres": []})
                entry["tracks"] += 1
                if track["genre"] not in entry["genres"]:
                    entry["genres"].append(track["genre"])
            results = list(artists.values())[:limit]
            return {"artists": results, "count": len(results)}
        return {"tracks": hits[:limit], "count": len(hits[:limit])}

    def create_playlist(
        self,
        name: str,
        description: str | None = None,
        public: bool = False,
        collaborative: bool = False,
        tracks: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        if public and collaborative:
            raise ApiError("collaborative_must_be_private")
        existing = self.find_named("playlist", name)
        if existing is not None:
            raise ApiError("playlist_exists", playlist=existing[1]["name"])
        ids = list(dict.fromkeys(self._track(t["title"], t["artist"])["id"] for t in tracks or []))
        playlist = {
            "id": self.new_id("playlist", "PL-"),
            "name": name.strip(),
            "aliases": [],
            "description": description,
            "public": public,
            "collaborative": collaborative,
            "tracks": ids,
        }
        self.data["playlists"].append(playlist)
        return copy.deepcopy(playlist)

    def add_to_playlist(
        self,
        playlist: str,
        tracks: list[dict[str, Any]],
        position: str = "bottom",
        allow_duplicates: bool = False,
    ) -> dict[str, Any]:
        target = self._playlist(playlist)
        found = [self._track(t["title"], t["artist"])["id"] for t in tracks]
        added, skipped = [], []
        for track_id in found:
            if not allow_duplicates and (track_id in target["tracks"] or track_id in added):
                skipped.append(track_id)
            else:
                added.append(track_id)
        target["tracks"] = [*added, *target["tracks"]] if position == "top" else [*target["tracks"], *added]
        return {"playlist": target["id"], "name": target["name"], "added": added, "skipped_duplicates": skipped, "tracks": list(target["tracks"])}

    def start_playback(
        self,
        playlist: str,
        shuffle: bool = False,
        repeat: str = "off",
        volume_percent: int | None = None,
        device: str = "phone",
        crossfade_seconds: float = 0,
        sleep_timer_minutes: int | None = None,
    ) -> dict[str, Any]:
        target = self._playlist(playlist)
        if not target["tracks"]:
            raise ApiError("playlist_empty", playlist=target["name"])
        if not self.data["devices"][device]["online"]:
            raise ApiError("device_offline", device=device)
        playback = self.data["playback"]
        playback.update(
            {
                "playlist": target["id"],
                "device": device,
                "shuffle": shuffle,
                "repeat": repeat,
                "crossfade_seconds": crossfade_seconds,
                "sleep_timer_minutes": sleep_timer_minutes,
                "playing": True,
            }
        )
        if volume_percent is not None:
            playback["volume_percent"] = volume_percent
        first = target["tracks"][0]
        return {**copy.deepcopy(playback), "now_playing": None if shuffle else first, "track_count": len(target["tracks"])}

    # ------------------------------------------------------------------ entertainment.concerts

    def search_concerts(
        self,
        city: str,
        start_date: str,
        end_date: str,
        genres: list[str] | None = None,
        artist: str | None = None,
        max_price: float | None = None,
        available_only: bool = True,
    ) -> dict[str, Any]:
        city_key = self._city(city)
        first, last = self._day(start_date, "start_date"), self._day(end_date, "end_date")
        if last < first:
            raise ApiError("invalid_range", start_date=start_date, end_date=end_date)
        rows = []
        for concert in sorted(self.data["concerts"].values(), key=lambda c: (c["start"], c["id"])):
            if concert["city"] != city_key or not first.isoformat() <= concert["start"][:10] <= last.isoformat():
                continue
            if genres is not None and concert["genre"] not in genres:
                continue
            if artist is not None and not self.is_named("concert_artist", concert["id"], concert, artist):
                continue
            zones = {
                zone: copy.deepcopy(info)
                for zone, info in concert["zones"].items()
                if (not available_only or info["left"] > 0) and (max_price is None or info["price"] <= max_price)
            }
            if not zones:
                continue
            rows.append({key: copy.deepcopy(concert[key]) for key in ("id", "artist", "title", "venue", "start", "genre")} | {"zones": zones} | self._currency_field(city_key))
        return {"concerts": rows, "count": len(rows)}

    def buy_concert_tickets(
        self,
        artist: str,
        date: str,
        zone: str,
        attendees: list[dict[str, Any]],
        delivery: dict[str, Any] | None = None,
        insurance: bool = False,
    ) -> dict[str, Any]:
        day = self._day(date, "date").isoformat()
        concert = next((c for _, c in self.records_named("concert_artist", artist) if c["start"][:10] == day), None)
        if concert is None:
            raise ApiError("concert_not_found", artist=artist, date=date)
        info = concert["zones"].get(zone)
        if info is None:
            raise ApiError("zone_not_offered", zone=zone, zones=sorted(concert["zones"]))
        ids = [a["id_number"] for a in attendees]
        if len(set(ids)) != len(ids):
            raise ApiError("duplicate_attendee")
        if info["left"] < len(attendees):
            raise ApiError("sold_out", zone=zone, left=info["left"])
        method = (delivery or {}).get("method", "e_ticket")
        address = (delivery or {}).get("address")
        currency = self._currency(concert["city"])
        if currency != "CNY" and method == "courier":
            raise ApiError("delivery_not_offered", method=method, city=concert["city"])
        if currency != "CNY" and insurance:
            raise ApiError("insurance_not_offered", city=concert["city"])
        if method == "courier" and address is None:
            raise ApiError("address_required")
        if method != "courier" and address is not None:
            raise ApiError("address_not_needed", method=method)
        info["left"] -= len(attendees)
        tickets = info["price"] * len(attendees)
        fees = (15 if method == "courier" else 0) + (20 * len(attendees) if insurance else 0)
        order = {
            "id": self.new_id("concert_order", "CT-"),
            "concert": concert["id"],
            "artist": concert["artist"]["en"],
            "venue": concert["venue"],
            "start": concert["start"],
            "zone": zone,
            "attendees": copy.deepcopy(attendees),
            "delivery": {"method": method, "address": copy.deepcopy(address)},
            "insurance": insurance,
            "tickets_total": tickets,
            "fees": fees,
            "total": tickets + fees,
            **self._currency_field(concert["city"]),
        }
        self.data["concert_orders"].append(order)
        return copy.deepcopy(order)

    # ------------------------------------------------------------------ entertainment.movies (holds)

    def reserve_movie_seats(self, cinema: str, movie: str, start_time: str, seats: list[str]) -> dict[str, Any]:
        cinema_row = self._named("cinema", cinema, "cinema_not_found")
        movie_row = self._named("movie", movie, "movie_not_found")
        show = next(
            (s for s in self.data["showtimes"].values() if s["cinema"] == cinema_row["id"] and s["movie"] == movie_row["id"] and s["start"] == start_time),
            None,
        )
        if show is None:
            raise ApiError("showtime_not_found", cinema=cinema_row["name"], movie=movie_row["title"], start_time=start_time)
        now = self._city_now(cinema_row["city"])
        start = datetime.strptime(show["start"], _MINUTE_FORMAT)
        if start <= now:
            raise ApiError("showtime_started", start=show["start"])
        if len(set(seats)) != len(seats):
            raise ApiError("duplicate_seat")
        taken = sorted(set(seats) & set(show["taken"]))
        if taken:
            raise ApiError("seat_taken", seats=taken)
        active = [h for h in self.data["seat_holds"] if h["status"] == "held" and datetime.strptime(h["expires_at"], _MINUTE_FORMAT) > now]
        if len(active) >= 2:
            raise ApiError("too_many_holds", holds=[h["id"] for h in active])
        expires = min(now + timedelta(minutes=_HOLD_MINUTES), start)
        hold = {
            "id": self.new_id("seat_hold", "SH-"),
            "showtime": show["id"],
            "cinema": cinema_row["name"],
            "movie": movie_row["title"],
            "start": show["start"],
            "seats": sorted(seats),
            "expires_at": expires.strftime(_MINUTE_FORMAT),
            "status": "held",
        }
        self.data["seat_holds"].append(hold)
        show["taken"] = sorted({*show["taken"], *seats})
        price = show["price"] * len(seats)
        return {**copy.deepcopy(hold), "price_per_adult": show["price"], "adult_total": price, **self._currency_field(cinema_row["city"])}

    # ------------------------------------------------------------------ entertainment.concerts (waitlist)

    def join_concert_waitlist(self, artist: str, date: str, zone: str, tickets: int = 1, notify: str = "app") -> dict[str, Any]:
        day = self._day(date, "date").isoformat()
        concert = next((c for _, c in self.records_named("concert_artist", artist) if c["start"][:10] == day), None)
        if concert is None:
            raise ApiError("concert_not_found", artist=artist, date=date)
        info = concert["zones"].get(zone)
        if info is None:
            raise ApiError("zone_not_offered", zone=zone, zones=sorted(concert["zones"]))
        if info["left"] >= tickets:
            raise ApiError("tickets_available", zone=zone, left=info["left"])
        waitlist = self.data["concert_waitlists"].setdefault(concert["id"], {}).setdefault(zone, [])
        if any(entry["member"] == self.data["member"]["name"] for entry in waitlist):
            raise ApiError("already_on_waitlist", concert=concert["id"], zone=zone)
        entry = {"id": self.new_id("waitlist", "WL-"), "member": self.data["member"]["name"], "tickets": tickets, "notify": notify}
        waitlist.append(entry)
        return {
            "waitlist_id": entry["id"],
            "concert": concert["id"],
            "artist": concert["artist"]["en"],
            "start": concert["start"],
            "zone": zone,
            "tickets": tickets,
            "position": len(waitlist),
            "notify": notify,
            "price_per_ticket": info["price"],
            **self._currency_field(concert["city"]),
        }

    # ------------------------------------------------------------------ entertainment.music (queue)

    def add_to_queue(self, tracks: list[dict[str, Any]], play_next: bool = False) -> dict[str, Any]:
        playback = self.data["playback"]
        if not playback["playing"]:
            raise ApiError("nothing_playing")
        found = [self._track(t["title"], t["artist"])["id"] for t in tracks]
        queue = self.data["queue"]
        if len(queue) + len(found) > _MAX_QUEUE:
            raise ApiError("queue_full", maximum=_MAX_QUEUE, queued=len(queue))
        self.data["queue"] = [*found, *queue] if play_next else [*queue, *found]
        return {"added": found, "queue": list(self.data["queue"]), "device": playback["device"], "playlist_unchanged": playback["playlist"]}
