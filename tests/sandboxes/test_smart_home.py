"""The smart_home sandbox's own business rules (the contract of every sandbox: test_contract.py)."""

from __future__ import annotations

from typing import Any

from tests.sandboxes import support
from validator.sandbox.base import Sandbox

NAME = "smart_home"
STATE = support.state(NAME)
SPECS = support.specs(NAME)
run, error_kind = support.call, support.error_kind


def fresh(patch: dict[str, Any] | None = None, clock: str | None = None) -> Sandbox:
    return support.fresh(NAME, patch, clock=clock)


def test_catalogue_size() -> None:
    support.check_catalogue(NAME, 8, (1, 2))


def test_english_descriptions_have_no_chinese() -> None:
    assert support.chinese_in_english(NAME) == []


# ----------------------------------------------------------------------------- state and specs


def test_state_shape() -> None:
    assert STATE["sandbox"] == "smart_home"
    data = STATE["data"]
    assert {"home", "devices", "appliances", "guest_codes", "scenes", "automations", "security"} <= data.keys()
    for table, counter in [("guest_codes", "guest_code"), ("scenes", "scene"), ("automations", "automation"), ("device_schedules", "device_schedule")]:
        ids = [int(row["id"].split("-")[1]) for row in data[table]]
        assert len(ids) == len(set(ids)), table
        assert max(ids) <= STATE["counters"][counter], f"counter {counter} would reissue an id"


def test_scene_device_enum_is_the_device_table() -> None:
    item = SPECS["create_scene"]["parameters"]["properties"]["actions"]["items"]
    assert sorted(item["properties"]["device"]["enum"]) == sorted(STATE["data"]["devices"])
    auto = SPECS["create_automation"]["parameters"]["properties"]["actions"]
    assert auto == SPECS["create_scene"]["parameters"]["properties"]["actions"] | {"description": auto["description"]}


# ----------------------------------------------------------------------------- business rules


def test_lights() -> None:
    home = fresh()
    result = run(home, "set_room_lights", room="bedroom", power=True, brightness=25, color="purple", transition_seconds=3)
    assert result == {"room": "bedroom", "power": True, "brightness": 25, "color": "purple", "transition_seconds": 3}
    assert error_kind(home, "set_room_lights", room="kitchen", power=True, color="red") == "color_not_supported"
    assert run(home, "set_room_lights", room="kitchen", power=True, color="warm_white")["color"] == "warm_white"
    assert error_kind(home, "set_room_lights", room="study", power=False, brightness=10) == "lights_off_with_settings"
    assert run(home, "set_room_lights", room="study", power=False)["power"] is False
    assert run(home, "set_curtains", room="study", position_percent=35) == {"room": "study", "position_percent": 35, "previous_percent": 100}


def test_thermostat() -> None:
    home = fresh()
    result = run(home, "set_thermostat", zone="bedroom", mode="heat", target_temperature_c=22.3)
    assert result["thermostats"][0]["target_temperature_c"] == 22.5  # steps of 0.5
    everywhere = run(home, "set_thermostat", zone="whole_home", mode="off")
    assert [t["device"] for t in everywhere["thermostats"]] == [
        "bedroom_thermostat", "kids_room_thermostat", "living_room_thermostat", "study_thermostat",
    ]
    assert all(t["power"] is False for t in everywhere["thermostats"])
    patched = fresh({"devices": {"study_thermostat": {"state": {"target_temperature_c": None}}}})
    assert error_kind(patched, "set_thermostat", zone="study", mode="heat") == "target_required"


def test_thermostat_schedule() -> None:
    home = fresh()
    schedule = {"wake": {"time": "07:00", "temperature_c": 21}, "sleep": {"time": "23:00", "temperature_c": 18.5}}
    result = run(home, "set_thermostat_schedule", zone="kids_room", days="every_day", schedule=schedule)
    assert result["days"] == ["weekdays", "weekend"]
    assert home.data["thermostat_schedules"]["kids_room"]["weekend"]["sleep"] == {"time": "23:00", "temperature_c": 18.5}
    wrong = {"wake": {"time": "07:00", "temperature_c": 21}, "leave": {"time": "06:00", "temperature_c": 16}, "sleep": {"time": "23:00", "temperature_c": 18}}
    assert error_kind(home, "set_thermostat_schedule", zone="study", days="weekdays", schedule=wrong) == "periods_out_of_order"


def test_frost_protection_and_fridge() -> None:
    home = fresh()
    assert error_kind(home, "set_frost_protection", enabled=True) == "threshold_required"
    result = run(home, "set_frost_protection", enabled=True, outdoor_threshold_c=-3, minimum_indoor_c=10)
    assert result["active_now"] is True and result["minimum_indoor_c"] == 10
    assert run(home, "set_frost_protection", enabled=True, outdoor_threshold_c=-10)["active_now"] is False
    assert error_kind(home, "set_fridge") == "nothing_to_change"
    assert run(home, "set_fridge", freezer_c=-21.2, super_freeze=True) == {
        "fridge_c": 4.0, "freezer_c": -21.0, "super_freeze": True, "vacation_mode": False,
    }


def test_doors_and_security() -> None:
    home = fresh({"devices": {"back_door_lock": {"state": {"door_open": True, "locked": False}}}})
    assert error_kind(home, "set_door_lock", door="back_door", locked=True) == "door_open"
    assert error_kind(home, "set_security_mode", mode="away") == "doors_not_secured"
    assert run(home, "set_security_mode", mode="night", notify_channels=["sms", "app"])["notify_channels"] == ["app", "sms"]
    ok = fresh()
    assert run(ok, "set_door_lock", door="front_door", locked=False, auto_relock_minutes=2)["locked"] is False
    assert run(ok, "set_security_mode", mode="home", entry_delay_seconds=45, siren=False)["siren"] is False


def test_guest_codes() -> None:
    home = fresh()
    access = {"valid_from": "2024-12-20T08:00", "valid_until": "2024-12-27T20:00", "weekdays": ["sun", "fri"], "hours": {"start": "09:00", "end": "18:00"}}
    code = run(home, "create_guest_code", door="front_door", guest={"name": "Grandma Wu"}, code="250312", access=access)
    assert code["id"] == "GC-3" and code["access"]["weekdays"] == ["fri", "sun"]
    assert error_kind(home, "create_guest_code", door="front_door", guest={"name": "X"}, code="482615", access=access) == "code_in_use"
    assert run(home, "create_guest_code", door="back_door", guest={"name": "X"}, code="482615", access=access)["id"] == "GC-4"
    backwards = {"valid_from": "2024-12-20T08:00", "valid_until": "2024-12-19T08:00"}
    assert error_kind(home, "create_guest_code", door="front_door", guest={"name": "X"}, code="1111", access=backwards) == "invalid_period"
    past = {"valid_from": "2024-11-01T08:00", "valid_until": "2024-11-02T08:00"}
    assert error_kind(home, "create_guest_code", door="front_door", guest={"name": "X"}, code="1111", access=past) == "period_in_past"
    bad = {"valid_from": "2024-12-20T08:00", "valid_until": "2024-12-31T25:00"}
    assert error_kind(home, "create_guest_code", door="front_door", guest={"name": "X"}, code="1111", access=bad) == "invalid_time"


def test_washing_machine() -> None:
    home = fresh()
    assert error_kind(home, "start_washing_machine", program="wool", temperature_c=40, spin_rpm=800) == "invalid_combination"
    assert error_kind(home, "start_washing_machine", program="delicates", temperature_c=30, spin_rpm=600, steam=True) == "invalid_combination"
    job = run(home, "start_washing_machine", program="cotton", temperature_c=60, spin_rpm=1400, delay_start_minutes=90)
    assert job["status"] == "scheduled" and job["job"] == "W-41"
    assert error_kind(home, "start_washing_machine", program="cotton", temperature_c=40, spin_rpm=1000) == "appliance_busy"


def test_robot_vacuum() -> None:
    home = fresh()
    assert error_kind(home, "start_robot_vacuum", rooms=["bathroom"]) == "room_not_mapped"
    assert error_kind(home, "start_robot_vacuum", rooms=["kitchen"], water_level="high") == "water_level_needs_mop"
    job = run(home, "start_robot_vacuum", rooms=["study", "kitchen"], mode="vacuum_then_mop", passes=2)
    assert job["rooms"] == ["kitchen", "study"] and job["water_level"] == "medium"
    assert error_kind(home, "start_robot_vacuum", rooms=["kitchen"]) == "appliance_busy"
    low = fresh({"appliances": {"robot_vacuum": {"battery_percent": 12}}})
    assert error_kind(low, "start_robot_vacuum", rooms=["kitchen"]) == "battery_low"
    padless = fresh({"appliances": {"robot_vacuum": {"mop_pad_attached": False}}})
    assert error_kind(padless, "start_robot_vacuum", rooms=["kitchen"], mode="mop") == "mop_pad_missing"


def test_scenes() -> None:
    home = fresh()
    actions = [
        {"device": "study_lights", "settings": {"power": True, "brightness": 90, "color": "neutral_white"}},
        {"device": "study_thermostat", "settings": {"mode": "heat", "target_temperature_c": 21.5}},
        {"device": "study_curtains", "settings": {"position_percent": 40}},
    ]
    scene = run(home, "create_scene", name="Homework", actions=actions, icon="book")
    assert scene["id"] == "SC-4"
    assert error_kind(home, "create_scene", name="homework", actions=actions) == "scene_exists"
    assert error_kind(home, "create_scene", name="A", actions=[{"device": "study_curtains", "settings": {"power": True}}]) == "unsupported_setting"
    assert error_kind(home, "create_scene", name="A", actions=[{"device": "hallway_lights", "settings": {"color": "red"}}]) == "color_not_supported"
    assert error_kind(home, "create_scene", name="A", actions=[{"device": "front_door_lock", "settings": {"locked": False}}]) == "unlock_not_allowed"
    assert error_kind(home, "create_scene", name="A", actions=[actions[0], actions[0]]) == "duplicate_device"
    run(home, "run_scene", name="homework")
    assert home.data["devices"]["study_curtains"]["state"]["position_percent"] == 40
    assert run(home, "run_scene", name="电影之夜")["scene"] == "SC-1"
    assert error_kind(home, "run_scene", name="Party") == "scene_not_found"


def test_automations() -> None:
    home = fresh()
    actions = [{"device": "bedroom_thermostat", "settings": {"mode": "heat", "target_temperature_c": 23}}]
    rule = run(
        home, "create_automation", name="Cold snap", trigger={"type": "outdoor_temperature_below", "threshold": -10},
        condition={"time_window": {"start": "22:00", "end": "06:00"}, "someone_home": True}, actions=actions,
        active_days=["sun", "mon"], notify=True,
    )
    assert rule["id"] == "AU-3" and rule["active_days"] == ["mon", "sun"] and rule["enabled"] is True
    assert error_kind(home, "create_automation", name="x", trigger={"type": "time"}, actions=actions) == "trigger_incomplete"
    assert error_kind(home, "create_automation", name="x", trigger={"type": "sunset", "time": "18:00"}, actions=actions) == "trigger_field_not_allowed"
    assert error_kind(home, "create_automation", name="cold snap", trigger={"type": "everyone_left"}, actions=actions) == "automation_exists"
    assert error_kind(home, "create_automation", name="x", trigger={"type": "indoor_humidity_below", "threshold": -5}, actions=actions) == "threshold_out_of_range"


def test_list_devices() -> None:
    home = fresh()
    assert run(home, "list_home_devices")["count"] == len(STATE["data"]["devices"])
    locks = run(home, "list_home_devices", kind="lock")["devices"]
    assert [d["device"] for d in locks] == ["back_door_lock", "front_door_lock", "garage_door_lock"]
    assert run(home, "list_home_devices", room="study", kind="light")["devices"][0]["state"]["power"] is False


def test_same_calls_same_state() -> None:
    def script() -> dict[str, Any]:
        home = fresh()
        run(home, "start_washing_machine", program="quick_15", temperature_c=30, spin_rpm=800)
        run(home, "create_scene", name="Reading", actions=[{"device": "bedroom_lights", "settings": {"power": True}}])
        run(home, "set_fridge", fridge_c=3)
        return home.state

    assert script() == script()


# ----------------------------------------------------------------------------- switching now or later, guest codes


def test_switch_a_plug_now() -> None:
    sandbox = fresh()
    assert run(sandbox, "set_device_power", device="christmas_tree_lights", power=True) == {
        "device": "christmas_tree_lights", "kind": "plug", "power": True, "changed": True}
    assert run(sandbox, "set_device_power", device="air_purifier", power=True)["changed"] is False
    assert run(sandbox, "set_device_power", device="living_room_tv", power=True)["kind"] == "media"
    assert error_kind(sandbox, "set_device_power", device="kitchen_lights", power=False) == "not_switchable"
    assert error_kind(sandbox, "set_device_power", device="front_door_lock", power=False) == "not_switchable"
    assert error_kind(sandbox, "set_device_power", device="sauna", power=True) == "unknown_device"


def test_schedule_a_switch_for_later() -> None:
    sandbox = fresh()
    entry = run(sandbox, "schedule_device_power", device="coffee_maker", power=True, at="2024-12-03T06:45")
    assert entry == {"id": "DS-5", "device": "coffee_maker", "power": True, "at": "2024-12-03T06:45", "in_minutes": 675,
                     "kind": "plug", "power_now": False}
    assert sandbox.data["devices"]["coffee_maker"]["state"]["power"] is False, "nothing changes now"
    assert error_kind(sandbox, "schedule_device_power", device="coffee_maker", power=False, at="2024-12-03T06:45") == "schedule_exists"
    assert error_kind(sandbox, "schedule_device_power", device="coffee_maker", power=True, at="2024-12-02T19:30") == "time_in_past"
    assert error_kind(sandbox, "schedule_device_power", device="coffee_maker", power=True, at="2024-12-09T19:30") == "too_far_ahead"
    assert error_kind(sandbox, "schedule_device_power", device="coffee_maker", power=True, at="2024-12-02T25:00") == "invalid_time"
    assert error_kind(sandbox, "schedule_device_power", device="bedroom_thermostat", power=True, at="2024-12-02T22:00") == "not_switchable"
    assert error_kind(sandbox, "schedule_device_power", device="toaster", power=True, at="2024-12-02T22:00") == "unknown_device"
    assert len(sandbox.data["automations"]) == 2, "a one-off switch is not an automation"


def test_list_and_revoke_guest_codes() -> None:
    sandbox = fresh()
    codes = run(sandbox, "list_guest_codes")
    assert [(c["id"], c["code_hint"], c["expired"]) for c in codes["guest_codes"]] == [("GC-1", "****15", False), ("GC-2", "**91", False)]
    assert run(sandbox, "list_guest_codes", door="garage_door")["count"] == 1
    assert run(sandbox, "revoke_guest_code", code_id="GC-2") == {"revoked": "GC-2", "door": "garage_door", "guest": {"name": "Dog walker Xiao Peng", "phone": None}}
    assert error_kind(sandbox, "revoke_guest_code", code_id="GC-2") == "guest_code_not_found"
    reused = run(sandbox, "create_guest_code", door="garage_door", guest={"name": "New walker"}, code="7391",
                 access={"valid_from": "2024-12-03T00:00", "valid_until": "2024-12-31T23:59"})
    assert reused["id"] == "GC-3", "a revoked code can be given out again"
    later = fresh(clock="2025-01-02T09:00:00+08:00")
    assert [c["expired"] for c in run(later, "list_guest_codes")["guest_codes"]] == [False, True]
