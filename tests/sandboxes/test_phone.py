"""The phone sandbox's own rules: contacts, messages and storage, reminders, alarms, log-in.

The generic contract (spec parity, declared errors, bilingual text, determinism, scenario
replays) is checked for every sandbox in test_contract.py.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.sandboxes import support
from validator.sandbox.base import Sandbox

NAME = "phone"
STATE = support.state(NAME)
run, error_kind = support.call, support.error_kind


def fresh(patch: dict[str, Any] | None = None) -> Sandbox:
    return support.fresh(NAME, patch)


# ----------------------------------------------------------------------------- state and specs


def test_state_shape() -> None:
    assert STATE["sandbox"] == "phone"
    data = STATE["data"]
    assert {"device", "contacts", "messages", "reminders", "alarms"} <= data.keys()
    # Near capacity, so that one patch of message_capacity makes storage full.
    assert data["device"]["message_capacity"] - len(data["messages"]) == 2
    for table, counter in [("contacts", "contact"), ("messages", "message"), ("reminders", "reminder"), ("alarms", "alarm"),
                           ("scheduled_messages", "scheduled_message"), ("timers", "timer")]:
        ids = [int(row["id"].split("-")[1]) for row in data[table]]
        assert len(ids) == len(set(ids)), table
        assert max(ids) <= STATE["counters"][counter], f"counter {counter} would reissue an id"


def test_catalogue_size() -> None:
    support.check_catalogue(NAME, 16, (0, 0))


# ----------------------------------------------------------------------------- business rules


def test_send_needs_wifi() -> None:
    sandbox = fresh({"device": {"wifi": False}})
    before = copy.deepcopy(sandbox.state)
    assert error_kind(sandbox, "send_message", receiver="Zhang Wei", content="hi") == "wifi_off"
    assert sandbox.state == before  # a failed call changes nothing, not even a counter


def test_send_to_unknown_contact() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "send_message", receiver="Zhou Kai", content="hi") == "unknown_contact"
    # A bare surname is not a contact: ambiguity must be resolved by the agent, not the sandbox.
    assert error_kind(sandbox, "send_message", receiver="Li", content="hi") == "unknown_contact"


def test_storage_full_until_a_message_is_deleted() -> None:
    sandbox = fresh({"device": {"message_capacity": 18}})
    assert error_kind(sandbox, "send_message", receiver="Emma", content="hi") == "storage_full"
    run(sandbox, "delete_message", message_id="M-1007")
    sent = run(sandbox, "send_message", receiver="Emma", content="hi")
    assert sent["receiver"] == "Emma Clarke" and sent["storage"] == {"used": 18, "capacity": 18}
    assert error_kind(sandbox, "send_message", receiver="Emma", content="again") == "storage_full"


def test_sending_fills_the_last_free_slots() -> None:
    sandbox = fresh()
    run(sandbox, "send_message", receiver="张伟", content="一")
    run(sandbox, "send_message", receiver="zhang wei", content="二")
    assert error_kind(sandbox, "send_message", receiver="Zhang Wei", content="三") == "storage_full"


def test_aliases_resolve_to_the_same_contact() -> None:
    en, zh = fresh(), fresh()
    run(en, "send_message", receiver="Zhang Wei", content="x")
    run(zh, "send_message", receiver="张伟", content="x")
    assert en.state == zh.state


def test_reminders_need_login_and_a_future_time() -> None:
    sandbox = fresh({"device": {"logged_in": False}})
    assert error_kind(sandbox, "add_reminder", title="t", time="2024-07-16T20:00") == "not_logged_in"
    assert error_kind(sandbox, "list_reminders") == "not_logged_in"
    assert error_kind(sandbox, "log_in", password="lotus#2024") == "wrong_password"
    run(sandbox, "log_in", password="Lotus#2024")
    assert error_kind(sandbox, "log_in", password="Lotus#2024") == "already_logged_in"
    assert error_kind(sandbox, "add_reminder", title="t", time="2024-07-14T20:00") == "time_in_past"
    assert error_kind(sandbox, "add_reminder", title="t", time="2024-07-15T09:00") == "time_in_past"
    assert error_kind(sandbox, "add_reminder", title="t", time="2024-02-30T09:00") == "invalid_time"
    assert run(sandbox, "add_reminder", title="t", time="2024-07-15T09:01")["id"] == "R-307"


def test_login_needs_wifi() -> None:
    sandbox = fresh({"device": {"wifi": False, "logged_in": False}})
    assert error_kind(sandbox, "log_in", password="Lotus#2024") == "wifi_off"
    run(sandbox, "turn_on_wifi")
    assert run(sandbox, "log_in", password="Lotus#2024") == {"logged_in": True, "account": "linyue.cloud"}
    run(sandbox, "log_out")
    assert error_kind(sandbox, "log_out") == "not_logged_in"


def test_reminder_lifecycle() -> None:
    sandbox = fresh()
    tomorrow = run(sandbox, "list_reminders", date="2024-07-16")["reminders"]
    assert [r["id"] for r in tomorrow] == ["R-306", "R-302"]
    assert "R-304" not in [r["id"] for r in run(sandbox, "list_reminders")["reminders"]]
    assert "R-304" in [r["id"] for r in run(sandbox, "list_reminders", include_done=True)["reminders"]]
    assert error_kind(sandbox, "list_reminders", date="2024-13-01") == "invalid_date"
    assert run(sandbox, "complete_reminder", reminder_id="R-303")["done"] is True
    assert error_kind(sandbox, "complete_reminder", reminder_id="R-303") == "already_done"
    assert error_kind(sandbox, "update_reminder", reminder_id="R-301") == "nothing_to_update"
    assert error_kind(sandbox, "update_reminder", reminder_id="R-999", note="x") == "reminder_not_found"
    assert run(sandbox, "update_reminder", reminder_id="R-301", time="2024-07-18T15:00")["time"] == "2024-07-18T15:00"
    run(sandbox, "delete_reminder", reminder_id="R-302")
    assert error_kind(sandbox, "delete_reminder", reminder_id="R-302") == "reminder_not_found"


def test_alarm_rules() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "set_alarm", time="06:30") == "alarm_exists"
    assert error_kind(sandbox, "set_alarm", time="24:00", strict_args=False) == "invalid_time"  # the schema also rejects it
    alarm = run(sandbox, "set_alarm", time="07:45", label="Hiking", repeat_days=["sun", "sat"])
    assert alarm == {"id": "A-4", "time": "07:45", "label": "Hiking", "repeat_days": ["sat", "sun"]}
    assert [a["time"] for a in run(sandbox, "list_alarms")["alarms"]] == ["06:30", "07:45", "09:00", "21:30"]
    run(sandbox, "cancel_alarm", alarm_id="A-4")
    assert error_kind(sandbox, "cancel_alarm", alarm_id="A-4") == "alarm_not_found"


def test_contact_rules() -> None:
    sandbox = fresh()
    found = run(sandbox, "find_contacts", query="li")["contacts"]
    assert {"Li Na", "Li Nan"} <= {c["name"] for c in found}
    assert [c["name"] for c in run(sandbox, "find_contacts", query="李")["contacts"]] == ["Li Na", "Li Nan"]
    assert error_kind(sandbox, "add_contact", name="zhang wei", phone="10000") == "contact_exists"
    assert error_kind(sandbox, "add_contact", name="New", phone="13811112222") == "phone_in_use"
    assert error_kind(sandbox, "update_contact", name="Nobody", phone="10000") == "unknown_contact"
    assert error_kind(sandbox, "update_contact", name="Wang Fang") == "nothing_to_update"
    run(sandbox, "update_contact", name="王芳", phone="13987654321")
    assert run(sandbox, "send_message", receiver="Wang Fang", content="x")["number"] == "13987654321"
    run(sandbox, "delete_contact", name="Wang Fang")
    assert error_kind(sandbox, "delete_contact", name="Wang Fang") == "unknown_contact"


def test_list_messages_filters() -> None:
    sandbox = fresh()
    everything = run(sandbox, "list_messages", limit=100)
    assert everything["total"] == 18 and everything["messages"][0]["id"] == "M-1018"
    assert run(sandbox, "list_messages")["storage"] == {"used": 18, "capacity": 20}
    bank = run(sandbox, "list_messages", contact="106900112233")
    assert [m["id"] for m in bank["messages"]] == ["M-1018", "M-1001"]
    assert run(sandbox, "list_messages", contact="妈妈", direction="out")["total"] == 1
    assert run(sandbox, "list_messages", keyword="stridemall")["total"] == 2
    assert error_kind(sandbox, "list_messages", contact="StrideMall") == "unknown_contact"
    assert error_kind(sandbox, "delete_message", message_id="M-1") == "message_not_found"


def test_ids_are_deterministic() -> None:
    def script() -> tuple[list[str], dict[str, Any]]:
        sandbox = fresh()
        ids = [
            run(sandbox, "send_message", receiver="Mom", content="a")["message_id"],
            run(sandbox, "add_contact", name="Kevin Zhou", phone="13800001111")["id"],
            run(sandbox, "add_reminder", title="r", time="2024-08-01T08:00")["id"],
            run(sandbox, "set_alarm", time="05:00")["id"],
        ]
        return ids, sandbox.state

    first, second = script(), script()
    assert first == second
    assert first[0] == ["M-1019", "C-11", "R-307", "A-4"]


def test_every_api_returns_valid_json() -> None:
    sandbox = fresh()
    for api in ("get_device_status", "list_alarms", "list_reminders", "list_messages", "turn_on_wifi"):
        run(sandbox, api)
    status = run(sandbox, "get_device_status")
    assert status["time"] == "2024-07-15T09:00" and status["weekday"] == "mon"
    assert "password" not in json.dumps(status)
    run(sandbox, "turn_off_wifi")
    assert run(sandbox, "turn_off_wifi") == {"wifi": False, "changed": False}


# ----------------------------------------------------------------------------- scheduled messages and timers


def test_schedule_a_message_for_later() -> None:
    sandbox = fresh({"device": {"wifi": False, "message_capacity": 18}})  # neither network nor storage is needed yet
    scheduled = run(sandbox, "schedule_message", receiver="Emma", content="Happy birthday!", send_at="2024-07-16T16:00")
    assert scheduled == {"id": "SM-3", "contact": "Emma Clarke", "number": "+447700900123", "text": "Happy birthday!",
                         "send_at": "2024-07-16T16:00", "status": "scheduled"}
    assert len(sandbox.data["messages"]) == 18, "nothing is stored until it is sent"
    listed = run(sandbox, "list_scheduled_messages")
    assert [m["id"] for m in listed["scheduled_messages"]] == ["SM-3", "SM-2", "SM-1"]
    assert run(sandbox, "cancel_scheduled_message", scheduled_id="SM-2")["status"] == "cancelled"
    assert error_kind(sandbox, "cancel_scheduled_message", scheduled_id="SM-2") == "already_cancelled"
    assert error_kind(sandbox, "cancel_scheduled_message", scheduled_id="SM-9") == "scheduled_message_not_found"
    assert run(sandbox, "list_scheduled_messages")["count"] == 2
    assert run(sandbox, "list_scheduled_messages", include_cancelled=True)["count"] == 3


def test_scheduled_message_rules() -> None:
    sandbox = fresh()
    assert error_kind(sandbox, "schedule_message", receiver="Li", content="hi", send_at="2024-07-16T10:00") == "unknown_contact"
    assert error_kind(sandbox, "schedule_message", receiver="Mom", content="hi", send_at="2024-07-15T09:00") == "time_in_past"
    assert error_kind(sandbox, "schedule_message", receiver="Mom", content="hi", send_at="2024-08-14T09:01") == "too_far_ahead"
    assert error_kind(sandbox, "schedule_message", receiver="Mom", content="hi", send_at="2024-07-16T24:00") == "invalid_time"
    assert run(sandbox, "schedule_message", receiver="妈妈", content="到家了", send_at="2024-08-14T09:00")["contact"] == "Mom"


def test_timers_count_down_from_now() -> None:
    sandbox = fresh()
    timer = run(sandbox, "set_timer", duration_seconds=5400, label="Laundry")
    assert timer == {"id": "TM-8", "label": "Laundry", "duration_seconds": 5400, "started_at": "2024-07-15T09:00:00",
                     "ends_at": "2024-07-15T10:30:00", "status": "running", "running_timers": 2}
    assert run(sandbox, "set_timer", duration_seconds=90)["ends_at"] == "2024-07-15T09:01:30"
    for _ in range(2):
        run(sandbox, "set_timer", duration_seconds=60)
    assert error_kind(sandbox, "set_timer", duration_seconds=60) == "too_many_timers"
    assert sandbox.data["alarms"] == STATE["data"]["alarms"], "a timer is not an alarm"
