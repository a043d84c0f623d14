"""The smart_home sandbox: the Gao family's connected house in Shunyi, Beijing, on a winter evening.

One state holds every device (``data.devices``: device id → kind, room, names and current
settings), the washing machine, robot vacuum and fridge (``data.appliances``), guest door codes,
scenes, automations, one-off timed switches (``data.device_schedules``), heating schedules, frost
protection and the alarm system (``data.security``).
Every public method implements the spec ``specs/smart_home/<method>.yaml``.

Times handled by the APIs are local wall-clock strings: ``YYYY-MM-DDTHH:MM`` for moments and
``HH:MM`` for times of day, in the zone of the sandbox clock. The clock never moves here, so a
replay of the same calls always gives the same results.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any, ClassVar

from validator.sandbox.base import ApiError, Sandbox

_MINUTE_FORMAT = "%Y-%m-%dT%H:%M"
WHITE_COLORS = ("warm_white", "neutral_white", "cool_white")
_WEEKDAY_ORDER = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
SWITCHABLE = ("plug", "media", "humidifier")  # kinds switched on and off by power alone
MAX_SCHEDULE_DAYS = 7

# Which settings a scene or automation action may give each kind of device.
SETTINGS_BY_KIND: dict[str, frozenset[str]] = {
    "light": frozenset({"power", "brightness", "color"}),
    "thermostat": frozenset({"power", "mode", "target_temperature_c"}),
    "curtains": frozenset({"position_percent"}),
    "media": frozenset({"power", "volume"}),
    "lock": frozenset({"locked"}),
    "plug": frozenset({"power"}),
    "humidifier": frozenset({"power", "target_humidity_percent"}),
}

# Trigger types and the trigger fields each one needs (besides `type`) or allows.
TRIGGER_NEEDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "time": (frozenset({"time"}), frozenset({"time"})),
    "sunrise": (frozenset(), frozenset({"offset_minutes"})),
    "sunset": (frozenset(), frozenset({"offset_minutes"})),
    "outdoor_temperature_below": (frozenset({"threshold"}), frozenset({"threshold"})),
    "outdoor_temperature_above": (frozenset({"threshold"}), frozenset({"threshold"})),
    "indoor_humidity_below": (frozenset({"threshold"}), frozenset({"threshold"})),
    "indoor_humidity_above": (frozenset({"threshold"}), frozenset({"threshold"})),
    "door_unlocked": (frozenset({"door"}), frozenset({"door"})),
    "door_left_open": (frozenset({"door", "duration_minutes"}), frozenset({"door", "duration_minutes"})),
    "everyone_left": (frozenset(), frozenset()),
    "first_arrival": (frozenset(), frozenset()),
}

# Washing programmes: the hottest water and fastest spin each one allows.
WASH_LIMITS: dict[str, tuple[int, int]] = {
    "cotton": (90, 1400),
    "synthetics": (60, 1200),
    "wool": (30, 800),
    "delicates": (30, 600),
    "bedding": (60, 1000),
    "quick_15": (30, 800),
    "eco_40_60": (60, 1400),
    "baby_care": (90, 1200),
}


def _half_step(value: float) -> float:
    """Thermostats work in steps of 0.5 °C."""
    return round(value * 2) / 2


class SmartHomeSandbox(Sandbox):
    """The house; ``self.data`` holds ``home``, ``devices``, ``appliances``, ``guest_codes``, ``scenes``, …"""

    name: ClassVar[str] = "smart_home"

    # ------------------------------------------------------------------ helpers (private)

    def _local_now(self) -> datetime:
        return self.now().replace(tzinfo=None, second=0, microsecond=0)

    def _device(self, device_id: str) -> dict[str, Any]:
        device = self.data["devices"].get(device_id)
        if device is None:
            raise ApiError("unknown_device", device=device_id)
        return device

    def _parse_minute(self, value: str, field: str) -> datetime:
        try:
            return datetime.strptime(value, _MINUTE_FORMAT)
        except (TypeError, ValueError):
            raise ApiError("invalid_time", field=field, value=value) from None

    def _check_actions(self, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Validate scene / automation actions against what each device supports."""
        seen: set[str] = set()
        checked = []
        for action in actions:
            device_id = action["device"]
            device = self._device(device_id)
            if device_id in seen:
                raise ApiError("duplicate_device", device=device_id)
            seen.add(device_id)
            settings = action["settings"]
            if not settings:
                raise ApiError("empty_settings", device=device_id)
            unsupported = sorted(set(settings) - SETTINGS_BY_KIND[device["kind"]])
            if unsupported:
                raise ApiError("unsupported_setting", device=device_id, settings=unsupported)
            if "color" in settings and not device.get("color_capable") and settings["color"] not in WHITE_COLORS:
                raise ApiError("color_not_supported", device=device_id, color=settings["color"])
            if settings.get("locked") is False:
                raise ApiError("unlock_not_allowed", device=device_id)
            checked.append({"device": device_id, "settings": dict(settings)})
        return checked

    def _apply(self, actions: list[dict[str, Any]]) -> None:
        for action in actions:
            device = self.data["devices"][action["device"]]
            for key, value in action["settings"].items():
                device["state"][key] = _half_step(value) if key == "target_temperature_c" else value

    def _door_lock(self, door: str) -> dict[str, Any]:
        return self._device(f"{door}_lock")

    # ------------------------------------------------------------------ smart_home.devices

    def list_home_devices(self, room: str | None = None, kind: str | None = None) -> dict[str, Any]:
        rows = []
        for device_id, device in sorted(self.data["devices"].items()):
            if room is not None and device["room"] != room:
                continue
            if kind is not None and device["kind"] != kind:
                continue
            rows.append(
                {
                    "device": device_id,
                    "kind": device["kind"],
                    "room": device["room"],
                    "name": device["name"],
                    "state": copy.deepcopy(device["state"]),
                }
            )
        return {"devices": rows, "count": len(rows)}

    # ------------------------------------------------------------------ smart_home.lighting

    def set_room_lights(
        self,
        room: str,
        power: bool,
        brightness: int | None = None,
        color: str | None = None,
        transition_seconds: float = 0,
    ) -> dict[str, Any]:
        device = self._device(f"{room}_lights")
        if not power and (brightness is not None or color is not None):
            raise ApiError("lights_off_with_settings", room=room)
        if color is not None and not device["color_capable"] and color not in WHITE_COLORS:
            raise ApiError("color_not_supported", device=f"{room}_lights", color=color)
        state = device["state"]
        state["power"] = power
        if brightness is not None:
            state["brightness"] = brightness
        if color is not None:
            state["color"] = color
        return {"room": room, **copy.deepcopy(state), "transition_seconds": transition_seconds}

    def set_curtains(self, room: str, position_percent: int) -> dict[str, Any]:
        device = self._device(f"{room}_curtains")
        previous = device["state"]["position_percent"]
        device["state"]["position_percent"] = position_percent
        return {"room": room, "position_percent": position_percent, "previous_percent": previous}

    # ------------------------------------------------------------------ smart_home.climate

    def set_thermostat(
        self,
        zone: str,
        mode: str,
        target_temperature_c: float | None = None,
        fan_speed: str = "auto",
        eco_mode: bool = False,
    ) -> dict[str, Any]:
        zones = [name for name, d in sorted(self.data["devices"].items()) if d["kind"] == "thermostat"]
        if zone != "whole_home":
            zones = [f"{zone}_thermostat"]
            self._device(zones[0])
        if mode in ("heat", "cool", "auto") and target_temperature_c is None:
            if any(self.data["devices"][z]["state"]["target_temperature_c"] is None for z in zones):
                raise ApiError("target_required", mode=mode)
        changed = []
        for name in zones:
            state = self.data["devices"][name]["state"]
            state["power"] = mode != "off"
            state["mode"] = mode
            state["fan_speed"] = fan_speed
            state["eco_mode"] = eco_mode
            if target_temperature_c is not None:
                state["target_temperature_c"] = _half_step(target_temperature_c)
            changed.append({"device": name, **copy.deepcopy(state)})
        return {"zone": zone, "thermostats": changed}

    def set_thermostat_schedule(self, zone: str, days: str, schedule: dict[str, Any]) -> dict[str, Any]:
        self._device(f"{zone}_thermostat")
        periods = []
        for period in ("wake", "leave", "return", "sleep"):
            entry = schedule.get(period)
            if entry is not None:
                periods.append((entry["time"], period, _half_step(entry["temperature_c"])))
        times = [time for time, _, _ in periods]
        if times != sorted(times) or len(set(times)) != len(times):
            raise ApiError("periods_out_of_order", times=times)
        stored = {period: {"time": time, "temperature_c": temp} for time, period, temp in periods}
        schedules = self.data["thermostat_schedules"].setdefault(zone, {})
        targets = ("weekdays", "weekend") if days == "every_day" else (days,)
        for target in targets:
            schedules[target] = copy.deepcopy(stored)
        return {"zone": zone, "days": list(targets), "schedule": stored}

    def set_frost_protection(
        self,
        enabled: bool,
        outdoor_threshold_c: float | None = None,
        minimum_indoor_c: float | None = None,
    ) -> dict[str, Any]:
        settings = self.data["frost_protection"]
        if enabled and outdoor_threshold_c is None and settings["outdoor_threshold_c"] is None:
            raise ApiError("threshold_required")
        settings["enabled"] = enabled
        if outdoor_threshold_c is not None:
            settings["outdoor_threshold_c"] = outdoor_threshold_c
        if minimum_indoor_c is not None:
            settings["minimum_indoor_c"] = _half_step(minimum_indoor_c)
        outdoor = self.data["home"]["outdoor_temperature_c"]
        active = bool(enabled and outdoor < settings["outdoor_threshold_c"])
        return {**copy.deepcopy(settings), "outdoor_temperature_c": outdoor, "active_now": active}

    # ------------------------------------------------------------------ smart_home.security

    def set_door_lock(self, door: str, locked: bool, auto_relock_minutes: int | None = None) -> dict[str, Any]:
        state = self._door_lock(door)["state"]
        if locked and state["door_open"]:
            raise ApiError("door_open", door=door)
        state["locked"] = locked
        if auto_relock_minutes is not None:
            state["auto_relock_minutes"] = auto_relock_minutes
        return {"door": door, **copy.deepcopy(state)}

    def create_guest_code(
        self,
        door: str,
        guest: dict[str, Any],
        code: str,
        access: dict[str, Any],
        one_time: bool = False,
    ) -> dict[str, Any]:
        self._door_lock(door)
        start = self._parse_minute(access["valid_from"], "valid_from")
        end = self._parse_minute(access["valid_until"], "valid_until")
        if end <= start:
            raise ApiError("invalid_period", valid_from=access["valid_from"], valid_until=access["valid_until"])
        if end <= self._local_now():
            raise ApiError("period_in_past", valid_until=access["valid_until"])
        hours = access.get("hours")
        if hours is not None and hours["end"] <= hours["start"]:
            raise ApiError("invalid_period", start=hours["start"], end=hours["end"])
        for existing in self.data["guest_codes"]:
            if existing["door"] == door and existing["code"] == code:
                raise ApiError("code_in_use", door=door)
        entry = {
            "id": self.new_id("guest_code", "GC-"),
            "door": door,
            "guest": copy.deepcopy(guest),
            "code": code,
            "access": {
                "valid_from": start.strftime(_MINUTE_FORMAT),
                "valid_until": end.strftime(_MINUTE_FORMAT),
                "weekdays": sorted(access.get("weekdays", []), key=_WEEKDAY_ORDER.index),
                "hours": copy.deepcopy(hours),
            },
            "one_time": one_time,
        }
        self.data["guest_codes"].append(entry)
        return copy.deepcopy(entry)

    def set_security_mode(
        self,
        mode: str,
        entry_delay_seconds: int = 30,
        notify_channels: list[str] | None = None,
        siren: bool = True,
    ) -> dict[str, Any]:
        if mode == "away":
            open_doors = sorted(
                name[: -len("_lock")]
                for name, d in self.data["devices"].items()
                if d["kind"] == "lock" and (not d["state"]["locked"] or d["state"]["door_open"])
            )
            if open_doors:
                raise ApiError("doors_not_secured", doors=open_doors)
        security = self.data["security"]
        security["mode"] = mode
        security["entry_delay_seconds"] = entry_delay_seconds
        if notify_channels is not None:
            security["notify_channels"] = sorted(dict.fromkeys(notify_channels))
        security["siren"] = siren
        return copy.deepcopy(security)

    # ------------------------------------------------------------------ smart_home.appliances

    def start_washing_machine(
        self,
        program: str,
        temperature_c: int,
        spin_rpm: int,
        extra_rinse: bool = False,
        steam: bool = False,
        delay_start_minutes: int = 0,
    ) -> dict[str, Any]:
        washer = self.data["appliances"]["washing_machine"]
        if washer["status"] != "idle":
            raise ApiError("appliance_busy", appliance="washing_machine", status=washer["status"])
        max_temp, max_spin = WASH_LIMITS[program]
        if temperature_c > max_temp or spin_rpm > max_spin:
            raise ApiError("invalid_combination", program=program, max_temperature_c=max_temp, max_spin_rpm=max_spin)
        if steam and program in ("wool", "delicates"):
            raise ApiError("invalid_combination", program=program, steam=True)
        job = self.new_id("job", "W-")
        washer.update(
            {
                "status": "scheduled" if delay_start_minutes else "running",
                "job": job,
                "program": program,
                "temperature_c": temperature_c,
                "spin_rpm": spin_rpm,
                "extra_rinse": extra_rinse,
                "steam": steam,
                "delay_start_minutes": delay_start_minutes,
            }
        )
        return copy.deepcopy(washer)

    def start_robot_vacuum(
        self,
        rooms: list[str],
        mode: str = "vacuum",
        suction: str = "standard",
        water_level: str | None = None,
        passes: int = 1,
        avoid_carpets: bool = False,
    ) -> dict[str, Any]:
        robot = self.data["appliances"]["robot_vacuum"]
        if robot["status"] != "docked":
            raise ApiError("appliance_busy", appliance="robot_vacuum", status=robot["status"])
        mopping = mode in ("mop", "vacuum_then_mop")
        if mopping and not robot["mop_pad_attached"]:
            raise ApiError("mop_pad_missing")
        if water_level is not None and not mopping:
            raise ApiError("water_level_needs_mop", mode=mode)
        if robot["battery_percent"] < 20:
            raise ApiError("battery_low", battery_percent=robot["battery_percent"])
        unreachable = sorted(set(rooms) - set(robot["mapped_rooms"]))
        if unreachable:
            raise ApiError("room_not_mapped", rooms=unreachable)
        job = self.new_id("job", "V-")
        ordered = [room for room in robot["mapped_rooms"] if room in rooms]
        robot.update(
            {
                "status": "cleaning",
                "job": job,
                "rooms": ordered,
                "mode": mode,
                "suction": suction,
                "water_level": (water_level or "medium") if mopping else None,
                "passes": passes,
                "avoid_carpets": avoid_carpets,
            }
        )
        return copy.deepcopy(robot)

    def set_fridge(
        self,
        fridge_c: float | None = None,
        freezer_c: float | None = None,
        super_freeze: bool | None = None,
        vacation_mode: bool | None = None,
    ) -> dict[str, Any]:
        if fridge_c is None and freezer_c is None and super_freeze is None and vacation_mode is None:
            raise ApiError("nothing_to_change")
        fridge = self.data["appliances"]["fridge"]
        if fridge_c is not None:
            fridge["fridge_c"] = _half_step(fridge_c)
        if freezer_c is not None:
            fridge["freezer_c"] = _half_step(freezer_c)
        if super_freeze is not None:
            fridge["super_freeze"] = super_freeze
        if vacation_mode is not None:
            fridge["vacation_mode"] = vacation_mode
        return copy.deepcopy(fridge)

    # ------------------------------------------------------------------ smart_home.automation

    def create_scene(self, name: str, actions: list[dict[str, Any]], icon: str = "home") -> dict[str, Any]:
        wanted = name.strip().casefold()
        if any(scene["name"].casefold() == wanted for scene in self.data["scenes"]):
            raise ApiError("scene_exists", name=name)
        checked = self._check_actions(actions)
        scene = {"id": self.new_id("scene", "SC-"), "name": name.strip(), "icon": icon, "actions": checked}
        self.data["scenes"].append(scene)
        return copy.deepcopy(scene)

    def run_scene(self, name: str) -> dict[str, Any]:
        found = self.find_named("scene", name)  # state.yaml `names.scene`
        if found is None:
            raise ApiError("scene_not_found", name=name)
        scene = found[1]
        self._apply(scene["actions"])
        return {"scene": scene["id"], "name": scene["name"], "devices_changed": [a["device"] for a in scene["actions"]]}

    def create_automation(
        self,
        name: str,
        trigger: dict[str, Any],
        actions: list[dict[str, Any]],
        condition: dict[str, Any] | None = None,
        active_days: list[str] | None = None,
        notify: bool = False,
        enabled: bool = True,
    ) -> dict[str, Any]:
        kind = trigger["type"]
        needed, allowed = TRIGGER_NEEDS[kind]
        given = set(trigger) - {"type"}
        if needed - given:
            raise ApiError("trigger_incomplete", type=kind, missing=sorted(needed - given))
        if given - allowed:
            raise ApiError("trigger_field_not_allowed", type=kind, fields=sorted(given - allowed))
        if kind.startswith("indoor_humidity") and not 0 <= trigger["threshold"] <= 100:
            raise ApiError("threshold_out_of_range", threshold=trigger["threshold"])
        wanted = name.strip().casefold()
        if any(rule["name"].casefold() == wanted for rule in self.data["automations"]):
            raise ApiError("automation_exists", name=name)
        window = (condition or {}).get("time_window")
        if window is not None and window["start"] == window["end"]:
            raise ApiError("invalid_period", start=window["start"], end=window["end"])
        checked = self._check_actions(actions)
        automation = {
            "id": self.new_id("automation", "AU-"),
            "name": name.strip(),
            "trigger": copy.deepcopy(trigger),
            "condition": copy.deepcopy(condition),
            "actions": checked,
            "active_days": sorted(dict.fromkeys(active_days or _WEEKDAY_ORDER), key=_WEEKDAY_ORDER.index),
            "notify": notify,
            "enabled": enabled,
        }
        self.data["automations"].append(automation)
        return copy.deepcopy(automation)

    # ------------------------------------------------------------------ smart_home.devices (power)

    def _switchable(self, device_id: str) -> dict[str, Any]:
        device = self._device(device_id)
        if device["kind"] not in SWITCHABLE:
            raise ApiError("not_switchable", device=device_id, device_kind=device["kind"])
        return device

    def set_device_power(self, device: str, power: bool) -> dict[str, Any]:
        record = self._switchable(device)
        previous = record["state"]["power"]
        record["state"]["power"] = power
        return {"device": device, "kind": record["kind"], "power": power, "changed": previous != power}

    def schedule_device_power(self, device: str, power: bool, at: str) -> dict[str, Any]:
        record = self._switchable(device)
        when = self._parse_minute(at, "at")
        now = self._local_now()
        if when <= now:
            raise ApiError("time_in_past", at=at, now=now.strftime(_MINUTE_FORMAT))
        if (when - now).days >= MAX_SCHEDULE_DAYS:
            raise ApiError("too_far_ahead", at=at, max_days=MAX_SCHEDULE_DAYS)
        for existing in self.data["device_schedules"]:
            if existing["device"] == device and existing["at"] == when.strftime(_MINUTE_FORMAT):
                raise ApiError("schedule_exists", schedule_id=existing["id"])
        entry = {
            "id": self.new_id("device_schedule", "DS-"),
            "device": device,
            "power": power,
            "at": when.strftime(_MINUTE_FORMAT),
            "in_minutes": int((when - now).total_seconds() // 60),
        }
        self.data["device_schedules"].append(entry)
        return {**copy.deepcopy(entry), "kind": record["kind"], "power_now": record["state"]["power"]}

    # ------------------------------------------------------------------ smart_home.security (guest codes)

    def _code_view(self, entry: dict[str, Any]) -> dict[str, Any]:
        access = entry["access"]
        now = self._local_now()
        in_period = datetime.strptime(access["valid_from"], _MINUTE_FORMAT) <= now <= datetime.strptime(access["valid_until"], _MINUTE_FORMAT)
        return {
            "id": entry["id"],
            "door": entry["door"],
            "guest": copy.deepcopy(entry["guest"]),
            "code_hint": "*" * (len(entry["code"]) - 2) + entry["code"][-2:],
            "access": copy.deepcopy(access),
            "one_time": entry["one_time"],
            "expired": now > datetime.strptime(access["valid_until"], _MINUTE_FORMAT),
            "in_period_now": in_period,
        }

    def list_guest_codes(self, door: str | None = None) -> dict[str, Any]:
        rows = [self._code_view(entry) for entry in self.data["guest_codes"] if door is None or entry["door"] == door]
        return {"guest_codes": rows, "count": len(rows)}

    def revoke_guest_code(self, code_id: str) -> dict[str, Any]:
        entry = next((e for e in self.data["guest_codes"] if e["id"] == code_id), None)
        if entry is None:
            raise ApiError("guest_code_not_found", code_id=code_id)
        self.data["guest_codes"].remove(entry)
        return {"revoked": code_id, "door": entry["door"], "guest": copy.deepcopy(entry["guest"])}
