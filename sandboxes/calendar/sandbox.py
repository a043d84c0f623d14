"""The calendar sandbox: Lin Yue's work calendar at Northpeak, with colleagues and meeting rooms.

Events are keyed by id (``E-…``) and belong to the owner's calendar: those the owner organises and
those other people invited the owner to. Colleagues' busy times are known (for finding free
slots) and meeting rooms can be booked (``RB-…``), on their own or for an event. Every public
method implements the spec ``specs/calendar/<method>.yaml``.

Times are local wall-clock strings ``YYYY-MM-DDTHH:MM`` in the zone of the sandbox clock.
A repeating event is stored as one event per occurrence sharing a ``series_id`` (``SR-…``). A
colleague abroad has a ``utc_offset`` and ``working_hours`` in their own time: outside them they
count as busy when looking for free slots.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any, ClassVar

from validator.sandbox.base import ApiError, Sandbox

_MINUTE = "%Y-%m-%dT%H:%M"
_RESPONSES = {"accept": "accepted", "decline": "declined", "tentative": "tentative"}
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
MAX_OCCURRENCES = 52


def _offset_minutes(offset: str) -> int:
    sign = -1 if offset.startswith("-") else 1
    hours, minutes = offset.lstrip("+-").split(":")
    return sign * (int(hours) * 60 + int(minutes))


def _fmt(moment: datetime) -> str:
    return moment.strftime(_MINUTE)


def _at(stored: str) -> datetime:
    """A time read from the state, which is always well-formed (arguments go through _parse_minute)."""
    return datetime.strptime(stored, _MINUTE)


class CalendarSandbox(Sandbox):
    """``self.data``: ``owner``, ``working_hours``, ``people``, ``rooms``, ``events``, ``room_bookings``."""

    name: ClassVar[str] = "calendar"

    # ------------------------------------------------------------------ helpers (private)

    def _local_now(self) -> datetime:
        return self.now().replace(tzinfo=None, second=0, microsecond=0)

    def _parse_minute(self, value: str) -> datetime:
        try:
            return datetime.strptime(value, _MINUTE)
        except (TypeError, ValueError):
            raise ApiError("invalid_time", time=value) from None

    def _future(self, value: str) -> datetime:
        moment = self._parse_minute(value)
        if moment <= self._local_now():
            raise ApiError("time_in_past", time=value, now=_fmt(self._local_now()))
        return moment

    def _parse_day(self, value: str) -> datetime:
        try:
            return datetime.strptime(value, "%Y-%m-%d")
        except (TypeError, ValueError):
            raise ApiError("invalid_date", date=value) from None

    @property
    def _owner_email(self) -> str:
        return self.data["owner"]["email"]

    def _person(self, label: str) -> dict[str, Any]:
        """A colleague by exact name, alias or email (case-insensitive); any other email is an outside guest."""
        wanted = label.strip().casefold()
        found = self.find_named("person", label)  # a name (state.yaml `names.person`) …
        if found is None:  # … or an email, an identifier
            found = next(((key, p) for key, p in self.data["people"].items() if wanted == p["email"].casefold()), None)
        if found is not None:
            person = found[1]
            return {"name": person["name"], "email": person["email"]}
        if wanted == self._owner_email:
            return {"name": self.data["owner"]["name"], "email": self._owner_email}
        local, _, domain = wanted.partition("@")
        if local and "." in domain and " " not in wanted:
            return {"name": label.strip(), "email": label.strip().lower()}
        raise ApiError("unknown_person", person=label)

    def _people(self, labels: list[str] | None) -> list[dict[str, Any]]:
        resolved: list[dict[str, Any]] = []
        for label in labels or []:
            person = self._person(label)
            if all(p["email"] != person["email"] for p in resolved):
                resolved.append(person)
        return resolved

    def _event(self, event_id: str) -> dict[str, Any]:
        event = self.data["events"].get(event_id)
        if event is None:
            raise ApiError("event_not_found", event_id=event_id)
        return event

    def _own_open_event(self, event_id: str) -> dict[str, Any]:
        event = self._event(event_id)
        if event["organizer"] != self._owner_email:
            raise ApiError("not_organizer", event_id=event_id, organizer=event["organizer"])
        if event["status"] == "cancelled":
            raise ApiError("event_cancelled", event_id=event_id)
        return event

    def _room(self, label: str) -> tuple[str, dict[str, Any]]:
        wanted = label.strip().casefold()
        found = next(((key, room) for key, room in self.data["rooms"].items() if wanted == key.casefold()), None)  # an id …
        found = found or self.find_named("room", label)  # … or a name (state.yaml `names.room`)
        if found is None:
            raise ApiError("unknown_room", room=label)
        return str(found[0]), found[1]

    def _room_free(self, room_id: str, start: datetime, end: datetime, ignore: str | None = None) -> dict[str, Any] | None:
        """The first active booking of the room that overlaps [start, end), if any."""
        for booking_id, booking in sorted(self.data["room_bookings"].items()):
            if booking_id == ignore or booking["room"] != room_id or booking["status"] != "active":
                continue
            if _at(booking["start"]) < end and start < _at(booking["end"]):
                return {"booking_id": booking_id, "start": booking["start"], "end": booking["end"]}
        return None

    def _busy_events(self, ignore: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """Events that take the owner's time: confirmed, and not declined by the owner."""
        return [
            (event_id, event)
            for event_id, event in sorted(self.data["events"].items())
            if event_id != ignore and event["status"] == "confirmed" and event["my_response"] != "declined"
        ]

    def _conflicts(self, start: datetime, end: datetime, ignore: str | None = None) -> list[dict[str, Any]]:
        return [
            {"event_id": event_id, "title": event["title"], "start": event["start"], "end": event["end"]}
            for event_id, event in self._busy_events(ignore)
            if _at(event["start"]) < end and start < _at(event["end"])
        ]

    def _view(self, event_id: str, event: dict[str, Any]) -> dict[str, Any]:
        return {"event_id": event_id, **copy.deepcopy(event)}

    def _sorted_views(self, rows: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        return [self._view(i, e) for i, e in sorted(rows, key=lambda pair: (pair[1]["start"], pair[0]))]

    def _off_hours(self, person: dict[str, Any], day: datetime) -> list[tuple[datetime, datetime]]:
        """A colleague abroad is busy outside their working hours (Monday to Friday in their own
        time zone); the blocks, in the owner's local time, around one day."""
        offset = self.now().utcoffset()
        own = int(offset.total_seconds() // 60) if offset is not None else 0
        shift = timedelta(minutes=own - _offset_minutes(person["utc_offset"]))
        hours = person["working_hours"]
        working = []
        for days in (-1, 0, 1):  # their working days around this one, moved to the owner's clock
            local = (day + timedelta(days=days)).date()
            if local.weekday() >= 5:
                continue
            start = datetime.strptime(f"{local.isoformat()}T{hours['start']}", _MINUTE) + shift
            end = datetime.strptime(f"{local.isoformat()}T{hours['end']}", _MINUTE) + shift
            working.append((start, end))
        edges = [day - timedelta(days=1), *(t for block in working for t in block), day + timedelta(days=2)]
        return [(edges[i], edges[i + 1]) for i in range(0, len(edges), 2) if edges[i] < edges[i + 1]]

    # ------------------------------------------------------------------ calendar.events

    def create_event(
        self,
        title: str,
        start: str,
        duration_minutes: int = 60,
        location: str | None = None,
        attendees: list[str] | None = None,
        notes: str | None = None,
    ) -> dict[str, Any]:
        begin = self._future(start)
        end = begin + timedelta(minutes=duration_minutes)
        guests = [p for p in self._people(attendees) if p["email"] != self._owner_email]
        conflicts = self._conflicts(begin, end)
        event = {
            "title": title.strip(),
            "title_zh": None,
            "start": _fmt(begin),
            "end": _fmt(end),
            "location": location,
            "room": None,
            "room_booking": None,
            "organizer": self._owner_email,
            "attendees": [{**p, "response": "pending"} for p in guests],
            "my_response": "accepted",
            "status": "confirmed",
            "notes": notes,
        }
        event_id = self.new_id("event", "E-")
        self.data["events"][event_id] = event
        return {**self._view(event_id, event), "conflicts": conflicts}

    def list_events(self, date: str, include_cancelled: bool = False) -> dict[str, Any]:
        day = self._parse_day(date).date().isoformat()
        rows = [
            (event_id, event)
            for event_id, event in self.data["events"].items()
            if event["start"][:10] == day and (include_cancelled or event["status"] != "cancelled")
        ]
        return {"date": day, "events": self._sorted_views(rows), "count": len(rows)}

    def search_events(self, query: str, start_date: str | None = None, end_date: str | None = None) -> dict[str, Any]:
        wanted = query.strip().casefold()
        first = self._parse_day(start_date).date().isoformat() if start_date is not None else None
        last = self._parse_day(end_date).date().isoformat() if end_date is not None else None
        if first and last and first > last:
            raise ApiError("invalid_range", start_date=start_date, end_date=end_date)
        rows = []
        for event_id, event in self.data["events"].items():
            day = event["start"][:10]
            if (first and day < first) or (last and day > last):
                continue
            haystack = " ".join(
                [event["title"], event.get("title_zh") or "", event["location"] or "", event["notes"] or "", *(a["name"] for a in event["attendees"])]
            ).casefold()
            if wanted in haystack:
                rows.append((event_id, event))
        return {"events": self._sorted_views(rows), "count": len(rows)}

    def move_event(self, event_id: str, new_start: str, duration_minutes: int | None = None) -> dict[str, Any]:
        event = self._own_open_event(event_id)
        begin = self._future(new_start)
        old_begin, old_end = _at(event["start"]), _at(event["end"])
        length = timedelta(minutes=duration_minutes) if duration_minutes is not None else old_end - old_begin
        end = begin + length
        booking_id = event["room_booking"]
        if booking_id is not None:
            clash = self._room_free(event["room"], begin, end, ignore=booking_id)
            if clash is not None:
                raise ApiError("room_unavailable", room=event["room"], **clash)
            booking = self.data["room_bookings"][booking_id]
            booking["start"], booking["end"] = _fmt(begin), _fmt(end)
        event["start"], event["end"] = _fmt(begin), _fmt(end)
        for attendee in event["attendees"]:
            attendee["response"] = "pending"  # a new time needs a new answer from everyone invited
        return {**self._view(event_id, event), "conflicts": self._conflicts(begin, end, ignore=event_id)}

    def cancel_event(self, event_id: str, notify_attendees: bool = True, message: str | None = None) -> dict[str, Any]:
        event = self._own_open_event(event_id)
        event["status"] = "cancelled"
        released = None
        if event["room_booking"] is not None:
            self.data["room_bookings"][event["room_booking"]]["status"] = "cancelled"
            released = event["room_booking"]
        notified = [a["email"] for a in event["attendees"]] if notify_attendees else []
        return {
            "event_id": event_id,
            "status": "cancelled",
            "notified": notified,
            "message": message if notify_attendees else None,
            "released_room_booking": released,
        }

    def invite_attendees(self, event_id: str, attendees: list[str], message: str | None = None) -> dict[str, Any]:
        event = self._own_open_event(event_id)
        people = self._people(attendees)
        added, already = [], []
        for person in people:
            if person["email"] == self._owner_email or any(a["email"] == person["email"] for a in event["attendees"]):
                already.append(person["email"])
                continue
            event["attendees"].append({**person, "response": "pending"})
            added.append(person["email"])
        if event["room"] is not None:
            capacity = self.data["rooms"][event["room"]]["capacity"]
            if len(event["attendees"]) + 1 > capacity:
                # Roll back: the room would be over capacity with the new guests.
                event["attendees"] = [a for a in event["attendees"] if a["email"] not in added]
                raise ApiError("room_over_capacity", room=event["room"], capacity=capacity, people=len(event["attendees"]) + len(added) + 1)
        return {"event_id": event_id, "added": added, "already_invited": already, "message": message, "attendees": copy.deepcopy(event["attendees"])}

    def respond_to_invitation(self, event_id: str, response: str, comment: str | None = None) -> dict[str, Any]:
        event = self._event(event_id)
        if event["organizer"] == self._owner_email:
            raise ApiError("not_invited", event_id=event_id)
        if event["status"] == "cancelled":
            raise ApiError("event_cancelled", event_id=event_id)
        event["my_response"] = _RESPONSES[response]
        return {"event_id": event_id, "title": event["title"], "my_response": event["my_response"], "comment": comment}

    def find_free_slots(
        self,
        date: str,
        duration_minutes: int,
        attendees: list[str] | None = None,
        earliest: str = "09:00",
        latest: str = "18:00",
    ) -> dict[str, Any]:
        day = self._parse_day(date)
        try:
            lower = datetime.strptime(f"{date}T{earliest}", _MINUTE)
            upper = datetime.strptime(f"{date}T{latest}", _MINUTE)
        except ValueError:
            raise ApiError("invalid_window", earliest=earliest, latest=latest) from None
        if upper <= lower:
            raise ApiError("invalid_window", earliest=earliest, latest=latest)
        people = self._people(attendees)
        busy: list[tuple[datetime, datetime]] = [
            (_at(e["start"]), _at(e["end"])) for _, e in self._busy_events()
        ]
        for person in people:
            record = next((p for p in self.data["people"].values() if p["email"] == person["email"]), None)
            for block in (record or {}).get("busy", []):
                busy.append((_at(block["start"]), _at(block["end"])))
            if record is not None and "utc_offset" in record:
                busy.extend(self._off_hours(record, day))
        # Nothing can start in the past: today, slots begin at the next full or half hour.
        now = self._local_now()
        if day.date() < now.date():
            cursor = upper
        elif day.date() == now.date():
            minutes = now.hour * 60 + now.minute
            rounded = day + timedelta(minutes=-(-minutes // 30) * 30)
            cursor = max(lower, rounded)
        else:
            cursor = lower
        slots = []
        for begin, end in sorted(busy):
            if end <= cursor or begin >= upper:
                continue
            if begin - cursor >= timedelta(minutes=duration_minutes):
                slots.append({"start": _fmt(cursor), "end": _fmt(begin)})
            cursor = max(cursor, end)
        if upper - cursor >= timedelta(minutes=duration_minutes):
            slots.append({"start": _fmt(cursor), "end": _fmt(upper)})
        return {
            "date": day.date().isoformat(),
            "duration_minutes": duration_minutes,
            "attendees": [p["email"] for p in people],
            "free_slots": slots,
        }

    def _occurrences(
        self, first: datetime, frequency: str, weekdays: list[str] | None, count: int | None, until: str | None
    ) -> list[datetime]:
        if (count is None) == (until is None):
            raise ApiError("invalid_recurrence", reason="give either count or until")
        if weekdays and frequency != "weekly":
            raise ApiError("invalid_recurrence", reason="weekdays go with a weekly frequency")
        last = self._parse_day(until).replace(hour=23, minute=59) if until is not None else None
        if last is not None and last < first:
            raise ApiError("invalid_recurrence", reason="until is before the first occurrence")
        days = set(weekdays or [_WEEKDAYS[first.weekday()]])
        if frequency == "weekly" and _WEEKDAYS[first.weekday()] not in days:
            raise ApiError("invalid_recurrence", reason="the first occurrence is not on one of the weekdays")
        found: list[datetime] = []
        cursor, month_step = first, 0
        while (count is None or len(found) < count) and (last is None or cursor <= last):
            if len(found) == MAX_OCCURRENCES:
                raise ApiError("too_many_occurrences", maximum=MAX_OCCURRENCES)
            found.append(cursor)
            if frequency == "daily":
                cursor += timedelta(days=1)
            elif frequency == "weekdays":
                cursor += timedelta(days=3 if cursor.weekday() == 4 else 1)
            elif frequency == "weekly":
                cursor += timedelta(days=1)
                while _WEEKDAYS[cursor.weekday()] not in days:
                    cursor += timedelta(days=1)
            elif frequency == "every_two_weeks":
                cursor += timedelta(days=14)
            else:  # monthly, on the same day of the month; months without that day are skipped
                while True:
                    month_step += 1
                    year, month = divmod(first.month - 1 + month_step, 12)
                    try:
                        cursor = first.replace(year=first.year + year, month=month + 1)
                        break
                    except ValueError:
                        continue
        return found

    def create_recurring_event(
        self,
        title: str,
        start: str,
        frequency: str,
        duration_minutes: int = 60,
        weekdays: list[str] | None = None,
        count: int | None = None,
        until: str | None = None,
        location: str | None = None,
        attendees: list[str] | None = None,
        notes: str | None = None,
    ) -> dict[str, Any]:
        first = self._future(start)
        if first.weekday() >= 5 and frequency == "weekdays":
            raise ApiError("invalid_recurrence", reason="a weekday series must start on a weekday")
        starts = self._occurrences(first, frequency, weekdays, count, until)
        guests = [p for p in self._people(attendees) if p["email"] != self._owner_email]
        series_id = self.new_id("series", "SR-")
        length = timedelta(minutes=duration_minutes)
        created, conflicts = [], []
        for begin in starts:
            event = {
                "title": title.strip(),
                "title_zh": None,
                "start": _fmt(begin),
                "end": _fmt(begin + length),
                "location": location,
                "room": None,
                "room_booking": None,
                "organizer": self._owner_email,
                "attendees": [{**p, "response": "pending"} for p in guests],
                "my_response": "accepted",
                "status": "confirmed",
                "notes": notes,
                "series_id": series_id,
            }
            clash = self._conflicts(begin, begin + length)
            event_id = self.new_id("event", "E-")
            self.data["events"][event_id] = event
            created.append(event_id)
            conflicts += [{**c, "occurrence": event_id} for c in clash]
        return {
            "series_id": series_id,
            "title": title.strip(),
            "frequency": frequency,
            "event_ids": created,
            "starts": [_fmt(b) for b in starts],
            "count": len(created),
            "attendees": [{**p, "response": "pending"} for p in guests],
            "conflicts": conflicts,
        }

    def cancel_event_series(
        self, event_id: str, scope: str = "all", notify_attendees: bool = True, message: str | None = None
    ) -> dict[str, Any]:
        event = self._own_open_event(event_id)
        series_id = event.get("series_id")
        if series_id is None:
            raise ApiError("not_a_series", event_id=event_id)
        now = self._local_now()
        cancelled, released = [], []
        for other_id, other in sorted(self.data["events"].items(), key=lambda pair: (pair[1]["start"], pair[0])):
            if other.get("series_id") != series_id or other["status"] == "cancelled" or _at(other["start"]) <= now:
                continue
            if scope == "this_and_following" and other["start"] < event["start"]:
                continue
            other["status"] = "cancelled"
            cancelled.append(other_id)
            if other["room_booking"] is not None:
                self.data["room_bookings"][other["room_booking"]]["status"] = "cancelled"
                released.append(other["room_booking"])
        notified = sorted({a["email"] for i in cancelled for a in self.data["events"][i]["attendees"]}) if notify_attendees else []
        return {
            "series_id": series_id,
            "scope": scope,
            "cancelled": cancelled,
            "notified": notified,
            "message": message if notify_attendees else None,
            "released_room_bookings": released,
        }

    def propose_new_time(self, event_id: str, new_start: str, comment: str | None = None, response: str = "tentative") -> dict[str, Any]:
        event = self._event(event_id)
        if event["organizer"] == self._owner_email:
            raise ApiError("own_event", event_id=event_id)
        if event["status"] == "cancelled":
            raise ApiError("event_cancelled", event_id=event_id)
        begin = self._future(new_start)
        end = begin + (_at(event["end"]) - _at(event["start"]))
        event["my_response"] = _RESPONSES[response]
        event["proposed_time"] = {"start": _fmt(begin), "end": _fmt(end), "comment": comment}
        return {
            "event_id": event_id,
            "title": event["title"],
            "organizer": event["organizer"],
            "current_start": event["start"],
            "proposed_start": _fmt(begin),
            "proposed_end": _fmt(end),
            "my_response": event["my_response"],
            "comment": comment,
            "conflicts": self._conflicts(begin, end, ignore=event_id),
        }

    # ------------------------------------------------------------------ calendar.rooms

    def list_meeting_rooms(self, floor: int | None = None, min_capacity: int = 1, equipment: list[str] | None = None) -> dict[str, Any]:
        needs = set(equipment or [])
        rooms = [
            {"room_id": room_id, **{key: copy.deepcopy(value) for key, value in room.items() if key != "aliases"}}  # names beyond the two shown are for resolving
            for room_id, room in sorted(self.data["rooms"].items())
            if (floor is None or room["floor"] == floor) and room["capacity"] >= min_capacity and needs <= set(room["equipment"])
        ]
        return {"rooms": rooms, "count": len(rooms)}

    def find_available_rooms(
        self, start: str, duration_minutes: int, min_capacity: int = 1, equipment: list[str] | None = None
    ) -> dict[str, Any]:
        begin = self._future(start)
        end = begin + timedelta(minutes=duration_minutes)
        listed = self.list_meeting_rooms(min_capacity=min_capacity, equipment=equipment)["rooms"]
        free = [room for room in listed if self._room_free(room["room_id"], begin, end) is None]
        return {"start": _fmt(begin), "end": _fmt(end), "rooms": free, "count": len(free)}

    def book_meeting_room(
        self,
        room: str,
        start: str,
        duration_minutes: int,
        event_id: str | None = None,
        purpose: str | None = None,
    ) -> dict[str, Any]:
        room_id, record = self._room(room)
        begin = self._future(start)
        end = begin + timedelta(minutes=duration_minutes)
        event = None
        if event_id is not None:
            event = self._own_open_event(event_id)
            if event["room_booking"] is not None:
                raise ApiError("event_has_room", event_id=event_id, room=event["room"], booking_id=event["room_booking"])
            if len(event["attendees"]) + 1 > record["capacity"]:
                raise ApiError("room_over_capacity", room=room_id, capacity=record["capacity"], people=len(event["attendees"]) + 1)
        clash = self._room_free(room_id, begin, end)
        if clash is not None:
            raise ApiError("room_busy", room=room_id, **clash)
        booking_id = self.new_id("room_booking", "RB-")
        self.data["room_bookings"][booking_id] = {
            "room": room_id,
            "start": _fmt(begin),
            "end": _fmt(end),
            "event_id": event_id,
            "booked_by": self._owner_email,
            "purpose": purpose,
            "status": "active",
        }
        if event is not None:
            event["room"], event["room_booking"] = room_id, booking_id
            event["location"] = f"{record['name']} ({record['name_zh']}), floor {record['floor']}"
        return {
            "booking_id": booking_id,
            "room_id": room_id,
            "room_name": record["name"],
            "start": _fmt(begin),
            "end": _fmt(end),
            "event_id": event_id,
            "purpose": purpose,
        }

    def cancel_room_booking(self, booking_id: str) -> dict[str, Any]:
        booking = self.data["room_bookings"].get(booking_id)
        if booking is None:
            raise ApiError("booking_not_found", booking_id=booking_id)
        if booking["booked_by"] != self._owner_email:
            raise ApiError("not_your_booking", booking_id=booking_id)
        if booking["status"] == "cancelled":
            raise ApiError("already_cancelled", booking_id=booking_id)
        booking["status"] = "cancelled"
        if booking["event_id"] is not None:
            event = self.data["events"][booking["event_id"]]
            event["room"], event["room_booking"] = None, None
        return {"booking_id": booking_id, "status": "cancelled", "room_id": booking["room"], "start": booking["start"]}
