"""The phone sandbox: the device owner's smartphone.

Six areas share one state: the device (Wi-Fi, the owner's cloud account), contacts, text
messages (with a fixed storage capacity, plus messages scheduled to go out later), reminders
(kept in the cloud account, so they need a login), alarms and countdown timers. Every public method implements the spec ``specs/phone/<method>.yaml``.

Times handled by the APIs are local wall-clock strings ``YYYY-MM-DDTHH:MM`` (alarms: ``HH:MM``)
in the time zone of the sandbox clock; the clock itself never moves here, so a replay of the same
calls always stamps the same times.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any, ClassVar

from validator.sandbox.base import ApiError, Sandbox

_MINUTE_FORMAT = "%Y-%m-%dT%H:%M"
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_SCHEDULE_DAYS = 30  # a message can be scheduled up to this many days ahead
_MAX_TIMERS = 5


class PhoneSandbox(Sandbox):
    """The owner's phone; ``self.data`` holds ``device``, ``contacts``, ``messages``, ``reminders``, ``alarms``."""

    name: ClassVar[str] = "phone"

    # ------------------------------------------------------------------ helpers (private)

    @property
    def _device(self) -> dict[str, Any]:
        return self.data["device"]

    def _local_now(self) -> datetime:
        # API times carry no offset: they are read in the clock's own zone, so drop it.
        return self.now().replace(tzinfo=None, second=0, microsecond=0)

    def _parse_minute(self, value: str) -> datetime:
        # The spec pattern only checks the shape; 2024-02-30T25:00 must still be refused.
        try:
            return datetime.strptime(value, _MINUTE_FORMAT)
        except (TypeError, ValueError):
            raise ApiError("invalid_time", time=value) from None

    def _require_wifi(self) -> None:
        if not self._device["wifi"]:
            raise ApiError("wifi_off")

    def _require_login(self) -> None:
        if not self._device["logged_in"]:
            raise ApiError("not_logged_in")

    def _contact_by_name(self, name: str) -> dict[str, Any] | None:
        """Exact (case-insensitive) match on a declared name (state.yaml `names.contact`): never a guess between people."""
        found = self.find_named("contact", name)
        return found[1] if found else None

    def _storage(self) -> dict[str, int]:
        return {"used": len(self.data["messages"]), "capacity": self._device["message_capacity"]}

    def _find(self, table: str, item_id: str) -> dict[str, Any] | None:
        return next((row for row in self.data[table] if row["id"] == item_id), None)

    # ------------------------------------------------------------------ phone.device

    def get_device_status(self) -> dict[str, Any]:
        device = self._device
        now = self._local_now()
        return {
            "owner": device["owner"],
            "phone_number": device["phone_number"],
            "wifi": device["wifi"],
            "logged_in": device["logged_in"],
            "account": device["account"],
            "message_storage": self._storage(),
            "time": now.strftime(_MINUTE_FORMAT),
            "weekday": _WEEKDAYS[now.weekday()],
        }

    def turn_on_wifi(self) -> dict[str, Any]:
        changed = not self._device["wifi"]
        self._device["wifi"] = True
        return {"wifi": True, "changed": changed}

    def turn_off_wifi(self) -> dict[str, Any]:
        changed = self._device["wifi"]
        self._device["wifi"] = False
        return {"wifi": False, "changed": changed}

    def log_in(self, password: str) -> dict[str, Any]:
        device = self._device
        if device["logged_in"]:
            raise ApiError("already_logged_in", account=device["account"])
        # Signing in talks to the cloud account, so it needs the network first.
        self._require_wifi()
        if password != device["password"]:
            raise ApiError("wrong_password", account=device["account"])
        device["logged_in"] = True
        return {"logged_in": True, "account": device["account"]}

    def log_out(self) -> dict[str, Any]:
        device = self._device
        self._require_login()
        device["logged_in"] = False
        return {"logged_in": False, "account": device["account"]}

    # ------------------------------------------------------------------ phone.contacts

    def find_contacts(self, query: str) -> dict[str, Any]:
        wanted = query.strip().casefold()
        matches = [
            copy.deepcopy(contact)
            for index, contact in enumerate(self.data["contacts"])
            if any(wanted in name.casefold() for name in self.names_of("contact", index, contact)) or (wanted and wanted in contact["phone"])
        ]
        return {"contacts": matches, "count": len(matches)}

    def add_contact(
        self,
        name: str,
        phone: str,
        aliases: list[str] | None = None,
        email: str | None = None,
        note: str | None = None,
    ) -> dict[str, Any]:
        new_aliases = list(dict.fromkeys(aliases or []))
        for label in [name, *new_aliases]:
            existing = self._contact_by_name(label)
            if existing is not None:
                raise ApiError("contact_exists", name=label, contact_id=existing["id"])
        holder = next((c for c in self.data["contacts"] if c["phone"] == phone), None)
        if holder is not None:
            raise ApiError("phone_in_use", phone=phone, contact=holder["name"])
        contact = {
            "id": self.new_id("contact", "C-"),
            "name": name.strip(),
            "aliases": new_aliases,
            "phone": phone,
            "email": email,
            "note": note,
        }
        self.data["contacts"].append(contact)
        return copy.deepcopy(contact)

    def update_contact(
        self,
        name: str,
        phone: str | None = None,
        email: str | None = None,
        note: str | None = None,
    ) -> dict[str, Any]:
        contact = self._contact_by_name(name)
        if contact is None:
            raise ApiError("unknown_contact", name=name)
        if phone is None and email is None and note is None:
            raise ApiError("nothing_to_update")
        if phone is not None:
            holder = next((c for c in self.data["contacts"] if c["phone"] == phone and c is not contact), None)
            if holder is not None:
                raise ApiError("phone_in_use", phone=phone, contact=holder["name"])
            contact["phone"] = phone
        if email is not None:
            contact["email"] = email
        if note is not None:
            contact["note"] = note
        return copy.deepcopy(contact)

    def delete_contact(self, name: str) -> dict[str, Any]:
        contact = self._contact_by_name(name)
        if contact is None:
            raise ApiError("unknown_contact", name=name)
        self.data["contacts"].remove(contact)
        return {"deleted": contact["id"], "name": contact["name"]}

    # ------------------------------------------------------------------ phone.messaging

    def send_message(self, receiver: str, content: str) -> dict[str, Any]:
        # Order of checks: no network makes everything else moot; then who; then room to store it.
        self._require_wifi()
        contact = self._contact_by_name(receiver)
        if contact is None:
            raise ApiError("unknown_contact", name=receiver)
        storage = self._storage()
        if storage["used"] >= storage["capacity"]:
            raise ApiError("storage_full", **storage)
        message = {
            "id": self.new_id("message", "M-"),
            "contact": contact["name"],
            "number": contact["phone"],
            "direction": "out",
            "text": content,
            "time": self._local_now().strftime(_MINUTE_FORMAT),
        }
        self.data["messages"].append(message)
        return {
            "message_id": message["id"],
            "receiver": contact["name"],
            "number": contact["phone"],
            "time": message["time"],
            "storage": self._storage(),
        }

    def list_messages(
        self,
        contact: str | None = None,
        keyword: str | None = None,
        direction: str | None = None,
        limit: int = 20,
    ) -> dict[str, Any]:
        rows = self.data["messages"]
        if contact is not None:
            known = self._contact_by_name(contact)
            if known is not None:
                rows = [m for m in rows if m["contact"] == known["name"]]
            elif contact.strip().lstrip("+").isdigit():
                # Service senders (banks, couriers) are not contacts: they are found by number.
                rows = [m for m in rows if m["number"] == contact.strip()]
            else:
                raise ApiError("unknown_contact", name=contact)
        if keyword is not None:
            wanted = keyword.casefold()
            rows = [m for m in rows if wanted in m["text"].casefold()]
        if direction is not None:
            rows = [m for m in rows if m["direction"] == direction]
        # Newest first, ties broken by id order so the listing is stable.
        ordered = sorted(rows, key=lambda m: (m["time"], int(m["id"].split("-")[1])), reverse=True)
        return {
            "messages": copy.deepcopy(ordered[:limit]),
            "total": len(ordered),
            "storage": self._storage(),
        }

    def delete_message(self, message_id: str) -> dict[str, Any]:
        message = self._find("messages", message_id)
        if message is None:
            raise ApiError("message_not_found", message_id=message_id)
        self.data["messages"].remove(message)
        return {"deleted": message_id, "storage": self._storage()}

    # ------------------------------------------------------------------ phone.reminders

    def add_reminder(self, title: str, time: str, note: str | None = None) -> dict[str, Any]:
        self._require_login()
        when = self._parse_minute(time)
        if when <= self._local_now():
            raise ApiError("time_in_past", time=time, now=self._local_now().strftime(_MINUTE_FORMAT))
        reminder = {
            "id": self.new_id("reminder", "R-"),
            "title": title,
            "time": when.strftime(_MINUTE_FORMAT),
            "note": note,
            "done": False,
        }
        self.data["reminders"].append(reminder)
        return copy.deepcopy(reminder)

    def list_reminders(self, date: str | None = None, include_done: bool = False) -> dict[str, Any]:
        self._require_login()
        if date is not None:
            try:
                day = datetime.strptime(date, "%Y-%m-%d").date()
            except (TypeError, ValueError):
                raise ApiError("invalid_date", date=date) from None
        rows = [
            r
            for r in self.data["reminders"]
            if (include_done or not r["done"]) and (date is None or r["time"][:10] == day.isoformat())
        ]
        ordered = sorted(rows, key=lambda r: (r["time"], int(r["id"].split("-")[1])))
        return {"reminders": copy.deepcopy(ordered), "count": len(ordered)}

    def update_reminder(
        self,
        reminder_id: str,
        title: str | None = None,
        time: str | None = None,
        note: str | None = None,
    ) -> dict[str, Any]:
        self._require_login()
        reminder = self._find("reminders", reminder_id)
        if reminder is None:
            raise ApiError("reminder_not_found", reminder_id=reminder_id)
        if title is None and time is None and note is None:
            raise ApiError("nothing_to_update")
        if time is not None:
            when = self._parse_minute(time)
            if when <= self._local_now():
                raise ApiError("time_in_past", time=time, now=self._local_now().strftime(_MINUTE_FORMAT))
            reminder["time"] = when.strftime(_MINUTE_FORMAT)
        if title is not None:
            reminder["title"] = title
        if note is not None:
            reminder["note"] = note
        return copy.deepcopy(reminder)

    def complete_reminder(self, reminder_id: str) -> dict[str, Any]:
        self._require_login()
        reminder = self._find("reminders", reminder_id)
        if reminder is None:
            raise ApiError("reminder_not_found", reminder_id=reminder_id)
        if reminder["done"]:
            raise ApiError("already_done", reminder_id=reminder_id)
        reminder["done"] = True
        return copy.deepcopy(reminder)

    def delete_reminder(self, reminder_id: str) -> dict[str, Any]:
        self._require_login()
        reminder = self._find("reminders", reminder_id)
        if reminder is None:
            raise ApiError("reminder_not_found", reminder_id=reminder_id)
        self.data["reminders"].remove(reminder)
        return {"deleted": reminder_id, "title": reminder["title"]}

    # ------------------------------------------------------------------ phone.alarms

    def set_alarm(self, time: str, label: str | None = None, repeat_days: list[str] | None = None) -> dict[str, Any]:
        try:
            clock = datetime.strptime(time, "%H:%M")
        except (TypeError, ValueError):
            raise ApiError("invalid_time", time=time) from None
        normalised = clock.strftime("%H:%M")
        days = list(repeat_days or [])
        unknown = [d for d in days if d not in _WEEKDAYS]
        if unknown:
            raise ApiError("invalid_day", repeat_days=unknown)
        existing = next((a for a in self.data["alarms"] if a["time"] == normalised), None)
        if existing is not None:
            # Two alarms at one minute ring as one; the owner should edit or cancel the old one.
            raise ApiError("alarm_exists", alarm_id=existing["id"], time=normalised)
        alarm = {
            "id": self.new_id("alarm", "A-"),
            "time": normalised,
            "label": label,
            # Week order, not call order: the same set of days gives the same stored alarm.
            "repeat_days": [d for d in _WEEKDAYS if d in days],
        }
        self.data["alarms"].append(alarm)
        return copy.deepcopy(alarm)

    def list_alarms(self) -> dict[str, Any]:
        ordered = sorted(self.data["alarms"], key=lambda a: (a["time"], int(a["id"].split("-")[1])))
        return {"alarms": copy.deepcopy(ordered), "count": len(ordered)}

    def cancel_alarm(self, alarm_id: str) -> dict[str, Any]:
        alarm = self._find("alarms", alarm_id)
        if alarm is None:
            raise ApiError("alarm_not_found", alarm_id=alarm_id)
        self.data["alarms"].remove(alarm)
        return {"cancelled": alarm_id, "time": alarm["time"]}

    # ------------------------------------------------------------------ phone.messaging (scheduled)

    def schedule_message(self, receiver: str, content: str, send_at: str) -> dict[str, Any]:
        contact = self._contact_by_name(receiver)
        if contact is None:
            raise ApiError("unknown_contact", name=receiver)
        when = self._parse_minute(send_at)
        now = self._local_now()
        if when <= now:
            raise ApiError("time_in_past", time=send_at, now=now.strftime(_MINUTE_FORMAT))
        if when > now + timedelta(days=_SCHEDULE_DAYS):
            raise ApiError("too_far_ahead", time=send_at, latest=(now + timedelta(days=_SCHEDULE_DAYS)).strftime(_MINUTE_FORMAT))
        scheduled = {
            "id": self.new_id("scheduled_message", "SM-"),
            "contact": contact["name"],
            "number": contact["phone"],
            "text": content,
            "send_at": when.strftime(_MINUTE_FORMAT),
            "status": "scheduled",
        }
        self.data["scheduled_messages"].append(scheduled)
        return copy.deepcopy(scheduled)

    def list_scheduled_messages(self, include_cancelled: bool = False) -> dict[str, Any]:
        rows = [m for m in self.data["scheduled_messages"] if include_cancelled or m["status"] == "scheduled"]
        ordered = sorted(rows, key=lambda m: (m["send_at"], int(m["id"].split("-")[1])))
        return {"scheduled_messages": copy.deepcopy(ordered), "count": len(ordered)}

    def cancel_scheduled_message(self, scheduled_id: str) -> dict[str, Any]:
        scheduled = self._find("scheduled_messages", scheduled_id)
        if scheduled is None:
            raise ApiError("scheduled_message_not_found", scheduled_id=scheduled_id)
        if scheduled["status"] == "cancelled":
            raise ApiError("already_cancelled", scheduled_id=scheduled_id)
        scheduled["status"] = "cancelled"
        return copy.deepcopy(scheduled)

    # ------------------------------------------------------------------ phone.timers

    def set_timer(self, duration_seconds: int, label: str | None = None) -> dict[str, Any]:
        running = [t for t in self.data["timers"] if t["status"] == "running"]
        if len(running) >= _MAX_TIMERS:
            raise ApiError("too_many_timers", maximum=_MAX_TIMERS)
        now = self.now().replace(tzinfo=None, microsecond=0)
        timer = {
            "id": self.new_id("timer", "TM-"),
            "label": label,
            "duration_seconds": duration_seconds,
            "started_at": now.strftime("%Y-%m-%dT%H:%M:%S"),
            "ends_at": (now + timedelta(seconds=duration_seconds)).strftime("%Y-%m-%dT%H:%M:%S"),
            "status": "running",
        }
        self.data["timers"].append(timer)
        return {**copy.deepcopy(timer), "running_timers": len(running) + 1}
