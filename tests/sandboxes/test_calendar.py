"""The calendar sandbox's own business rules (the contract of every sandbox: test_contract.py)."""

from __future__ import annotations

import copy
from typing import Any

from tests.sandboxes import support
from validator.sandbox.base import Sandbox

NAME = "calendar"
STATE = support.state(NAME)
run, error_kind = support.call, support.error_kind


def fresh(patch: dict[str, Any] | None = None, clock: str | None = None) -> Sandbox:
    return support.fresh(NAME, patch, clock=clock)


def test_catalogue_size() -> None:
    support.check_catalogue(NAME, 8, (1, 2))


# ----------------------------------------------------------------------------- data


def test_ids_and_references_are_consistent() -> None:
    data = STATE["data"]
    for table, counter, prefix in [("events", "event", "E-"), ("room_bookings", "room_booking", "RB-")]:
        ids = [int(key.removeprefix(prefix)) for key in data[table]]
        assert max(ids) <= STATE["counters"][counter], f"counter {counter} would reissue an id"
    for event_id, event in data["events"].items():
        assert event["start"] < event["end"], event_id
        if event["room_booking"] is not None:
            booking = data["room_bookings"][event["room_booking"]]
            assert booking["event_id"] == event_id and booking["room"] == event["room"]
            assert (booking["start"], booking["end"]) == (event["start"], event["end"]), event_id
    for booking_id, booking in data["room_bookings"].items():
        assert booking["room"] in data["rooms"], booking_id


# ----------------------------------------------------------------------------- business rules


def test_list_and_search_events() -> None:
    sandbox = fresh()
    monday = run(sandbox, "list_events", date="2024-07-15")
    assert [e["event_id"] for e in monday["events"]] == ["E-202", "E-203"]
    assert run(sandbox, "list_events", date="2024-07-17")["count"] == 2
    assert run(sandbox, "list_events", date="2024-07-17", include_cancelled=True)["count"] == 3
    assert [e["event_id"] for e in run(sandbox, "search_events", query="budget")["events"]] == ["E-207", "E-214"]
    assert [e["event_id"] for e in run(sandbox, "search_events", query="预算", start_date="2024-07-18")["events"]] == ["E-214"]
    assert error_kind(sandbox, "search_events", query="x", start_date="2024-07-20", end_date="2024-07-19") == "invalid_range"
    assert error_kind(sandbox, "list_events", date="2024-02-30") == "invalid_date"


def test_create_event_resolves_people_and_reports_conflicts() -> None:
    sandbox = fresh()
    event = run(
        sandbox, "create_event", title="Pricing sync", start="2024-07-16T15:30", duration_minutes=30,
        attendees=["张伟", "Zhang Wei", "ana@studio.example"],
    )
    assert event["event_id"] == "E-215"
    assert [a["email"] for a in event["attendees"]] == ["zhang.wei@northpeak.example", "ana@studio.example"]
    assert [c["event_id"] for c in event["conflicts"]] == ["E-205"]
    assert error_kind(sandbox, "create_event", title="x", start="2024-07-15T08:00") == "time_in_past"
    assert error_kind(sandbox, "create_event", title="x", start="2024-07-16T25:00") == "invalid_time"
    assert error_kind(sandbox, "create_event", title="x", start="2024-07-16T10:00", attendees=["Zhang"]) == "unknown_person"


def test_only_the_organiser_moves_cancels_or_invites() -> None:
    sandbox = fresh()
    for api, extra in [("move_event", {"new_start": "2024-07-16T09:00"}), ("cancel_event", {}), ("invite_attendees", {"attendees": ["Ma Jun"]})]:
        assert error_kind(sandbox, api, event_id="E-205", **extra) == "not_organizer"
        assert error_kind(sandbox, api, event_id="E-207", **extra) == "event_cancelled"
        assert error_kind(sandbox, api, event_id="E-999", **extra) == "event_not_found"
    assert error_kind(sandbox, "respond_to_invitation", event_id="E-204", response="accept") == "not_invited"
    answer = run(sandbox, "respond_to_invitation", event_id="E-213", response="tentative", comment="Might be late")
    assert answer["my_response"] == "tentative"


def test_moving_an_event_moves_its_room_when_free() -> None:
    sandbox = fresh()
    moved = run(sandbox, "move_event", event_id="E-202", new_start="2024-07-16T14:00", duration_minutes=45)
    assert (moved["start"], moved["end"]) == ("2024-07-16T14:00", "2024-07-16T14:45")
    assert sandbox.data["room_bookings"]["RB-551"]["start"] == "2024-07-16T14:00"
    assert {a["response"] for a in moved["attendees"]} == {"pending"}
    # Bamboo is taken on Wednesday afternoon by a campaign planning booking.
    assert error_kind(sandbox, "move_event", event_id="E-202", new_start="2024-07-17T14:00") == "room_unavailable"


def test_cancel_releases_the_room() -> None:
    sandbox = fresh()
    result = run(sandbox, "cancel_event", event_id="E-209", notify_attendees=False)
    assert result["notified"] == [] and result["released_room_booking"] == "RB-554"
    assert sandbox.data["room_bookings"]["RB-554"]["status"] == "cancelled"
    free = run(sandbox, "find_available_rooms", start="2024-07-17T16:00", duration_minutes=60)
    assert "RM-3B" in [r["room_id"] for r in free["rooms"]]
    notified = run(sandbox, "cancel_event", event_id="E-211", message="Moving to next week")
    assert notified["notified"] == ["tom.becker@harborlog.example", "ma.jun@northpeak.example"]


def test_invite_respects_room_capacity() -> None:
    sandbox = fresh()
    added = run(sandbox, "invite_attendees", event_id="E-209", attendees=["Guo Ming", "wang.hao@northpeak.example"])
    assert added["added"] == ["guo.ming@northpeak.example"] and added["already_invited"] == ["wang.hao@northpeak.example"]
    before = copy.deepcopy(sandbox.state)
    assert error_kind(sandbox, "invite_attendees", event_id="E-209", attendees=["Li Nan", "Zhao Min"]) == "room_over_capacity"
    assert sandbox.state == before


def test_free_slots() -> None:
    sandbox = fresh()
    slots = run(sandbox, "find_free_slots", date="2024-07-15", duration_minutes=30, attendees=["Zhang Wei", "李楠"])["free_slots"]
    assert slots == [
        {"start": "2024-07-15T09:00", "end": "2024-07-15T10:00"},
        {"start": "2024-07-15T11:00", "end": "2024-07-15T12:30"},
        {"start": "2024-07-15T16:00", "end": "2024-07-15T18:00"},
    ]
    later = fresh(clock="2024-07-15T11:10:00+08:00")
    assert run(later, "find_free_slots", date="2024-07-15", duration_minutes=60)["free_slots"][0]["start"] == "2024-07-15T11:30"
    evening = run(sandbox, "find_free_slots", date="2024-07-16", duration_minutes=60, earliest="17:00", latest="21:00")
    assert evening["free_slots"] == [{"start": "2024-07-16T17:00", "end": "2024-07-16T19:00"}, {"start": "2024-07-16T20:00", "end": "2024-07-16T21:00"}]
    assert error_kind(sandbox, "find_free_slots", date="2024-07-16", duration_minutes=30, earliest="18:00", latest="09:00") == "invalid_window"
    assert run(sandbox, "find_free_slots", date="2024-07-12", duration_minutes=30)["free_slots"] == []


def test_rooms() -> None:
    sandbox = fresh()
    assert [r["room_id"] for r in run(sandbox, "list_meeting_rooms", min_capacity=8)["rooms"]] == ["RM-3A", "RM-4A", "RM-5A"]
    assert [r["room_id"] for r in run(sandbox, "list_meeting_rooms", floor=3, equipment=["video"])["rooms"]] == ["RM-3A"]
    free = run(sandbox, "find_available_rooms", start="2024-07-16T10:00", duration_minutes=60, min_capacity=6)
    assert [r["room_id"] for r in free["rooms"]] == ["RM-3A", "RM-4B", "RM-5A"]
    assert error_kind(sandbox, "book_meeting_room", room="Pine", start="2024-07-16T11:00", duration_minutes=30) == "room_busy"
    assert error_kind(sandbox, "book_meeting_room", room="Cedar", start="2024-07-16T11:00", duration_minutes=30) == "unknown_room"
    assert error_kind(sandbox, "book_meeting_room", room="幽兰", start="2024-07-16T11:00", duration_minutes=30, event_id="E-202") == "event_has_room"
    booked = run(sandbox, "book_meeting_room", room="青松", start="2024-07-16T13:00", duration_minutes=60, event_id="E-204")
    assert booked["booking_id"] == "RB-561" and booked["room_id"] == "RM-4A"
    assert sandbox.data["events"]["E-204"]["room"] == "RM-4A"
    assert error_kind(sandbox, "cancel_room_booking", booking_id="RB-556") == "not_your_booking"
    run(sandbox, "cancel_room_booking", booking_id="RB-561")
    assert sandbox.data["events"]["E-204"]["room"] is None
    assert error_kind(sandbox, "cancel_room_booking", booking_id="RB-561") == "already_cancelled"


def test_same_calls_same_results() -> None:
    def script() -> tuple[list[Any], dict[str, Any]]:
        sandbox = fresh()
        results = [
            run(sandbox, "create_event", title="Offsite prep", start="2024-07-18T13:00", attendees=["Xu Qing"]),
            run(sandbox, "book_meeting_room", room="Maple", start="2024-07-18T13:00", duration_minutes=60, event_id="E-215"),
            run(sandbox, "move_event", event_id="E-215", new_start="2024-07-18T14:30"),
        ]
        return results, sandbox.state

    first, second = script(), script()
    assert first == second
    assert first[0][1]["event_id"] == "E-215" and first[0][1]["booking_id"] == "RB-561"


# ----------------------------------------------------------------------------- repeating events, proposals, time zones


def test_create_a_repeating_event() -> None:
    sandbox = fresh()
    weekly = run(sandbox, "create_recurring_event", title="1:1 with Priya", start="2024-07-16T11:00", frequency="weekly",
                 duration_minutes=30, weekdays=["tue", "thu"], count=4, attendees=["Priya"])
    assert weekly["series_id"] == "SR-3" and weekly["event_ids"] == ["E-215", "E-216", "E-217", "E-218"]
    assert weekly["starts"] == ["2024-07-16T11:00", "2024-07-18T11:00", "2024-07-23T11:00", "2024-07-25T11:00"]
    assert [c["occurrence"] for c in weekly["conflicts"]] == ["E-215"], "E-204 at 11:00 on Tuesday"
    assert sandbox.data["events"]["E-217"]["attendees"] == [{"name": "Priya Raman", "email": "priya.raman@northpeak.example", "response": "pending"}]
    daily = run(sandbox, "create_recurring_event", title="Stretch", start="2024-07-19T17:50", frequency="weekdays", duration_minutes=10, until="2024-07-24")
    assert daily["starts"] == ["2024-07-19T17:50", "2024-07-22T17:50", "2024-07-23T17:50", "2024-07-24T17:50"]
    monthly = run(sandbox, "create_recurring_event", title="Rent", start="2024-07-31T09:00", frequency="monthly", count=3)
    assert monthly["starts"] == ["2024-07-31T09:00", "2024-08-31T09:00", "2024-10-31T09:00"], "September has no 31st"
    fortnight = run(sandbox, "create_recurring_event", title="Book club", start="2024-07-20T10:00", frequency="every_two_weeks", until="2024-08-31")
    assert fortnight["count"] == 4
    assert run(sandbox, "list_events", date="2024-07-18")["count"] == 3


def test_repeating_event_rules() -> None:
    sandbox = fresh()
    base = {"title": "X", "start": "2024-07-16T11:00", "frequency": "weekly"}
    assert error_kind(sandbox, "create_recurring_event", **base) == "invalid_recurrence"
    assert error_kind(sandbox, "create_recurring_event", **base, count=3, until="2024-08-01") == "invalid_recurrence"
    assert error_kind(sandbox, "create_recurring_event", **base, count=3, weekdays=["wed"]) == "invalid_recurrence"
    assert error_kind(sandbox, "create_recurring_event", **{**base, "frequency": "daily"}, count=3, weekdays=["tue"]) == "invalid_recurrence"
    assert error_kind(sandbox, "create_recurring_event", **base, until="2024-07-01") == "invalid_recurrence"
    assert error_kind(sandbox, "create_recurring_event", **{**base, "frequency": "weekdays", "start": "2024-07-20T09:00"}, count=3) == "invalid_recurrence"
    assert error_kind(sandbox, "create_recurring_event", **{**base, "frequency": "daily"}, until="2024-12-31") == "too_many_occurrences"
    # an impossible date breaks `format: date`: the runtime refuses it before the method runs
    # (with the validator `callbank check` uses too), and the method still refuses it when called
    assert support.runtime().argument_errors("create_recurring_event", {**base, "until": "2024-02-30"}) == ['until: "2024-02-30" is not a "date"']
    assert error_kind(sandbox, "create_recurring_event", **base, until="2024-02-30") == "invalid_date"
    assert error_kind(sandbox, "create_recurring_event", **{**base, "start": "2024-07-15T08:00"}, count=2) == "time_in_past"
    assert error_kind(sandbox, "create_recurring_event", **{**base, "start": "2024-07-16T25:00"}, count=2) == "invalid_time"
    assert error_kind(sandbox, "create_recurring_event", **base, count=2, attendees=["Nobody Known"]) == "unknown_person"
    assert sandbox.state["counters"] == STATE["counters"], "failed calls take no id"


def test_cancel_a_series_or_its_later_part() -> None:
    sandbox = fresh(clock="2024-07-24T12:00:00+08:00")
    one = run(sandbox, "cancel_event", event_id="E-184")
    assert one["status"] == "cancelled"
    following = run(sandbox, "cancel_event_series", event_id="E-187", scope="this_and_following", message="Moving to async updates")
    assert following["cancelled"] == ["E-187", "E-188", "E-189"] and following["notified"] == [
        "guo.ming@northpeak.example", "li.nan@northpeak.example", "zhang.wei@northpeak.example"]
    rest = run(sandbox, "cancel_event_series", event_id="E-180", notify_attendees=False)
    assert rest["cancelled"] == ["E-183", "E-185", "E-186"] and rest["notified"] == [] and rest["message"] is None, "past ones stay, cancelled ones are skipped"
    assert sandbox.data["events"]["E-180"]["status"] == "confirmed"
    assert error_kind(sandbox, "cancel_event_series", event_id="E-190") == "not_organizer"
    assert error_kind(sandbox, "cancel_event_series", event_id="E-214") == "not_a_series"
    assert error_kind(sandbox, "cancel_event_series", event_id="E-187") == "event_cancelled"
    assert error_kind(sandbox, "cancel_event_series", event_id="E-999") == "event_not_found"


def test_cancelling_a_series_releases_its_rooms() -> None:
    sandbox = fresh()
    series = run(sandbox, "create_recurring_event", title="Retro", start="2024-07-19T16:00", frequency="weekly", count=2)
    booking = run(sandbox, "book_meeting_room", room="Pine", start="2024-07-26T16:00", duration_minutes=60, event_id=series["event_ids"][1])
    result = run(sandbox, "cancel_event_series", event_id=series["event_ids"][0])
    assert result["released_room_bookings"] == [booking["booking_id"]]
    assert sandbox.data["room_bookings"][booking["booking_id"]]["status"] == "cancelled"


def test_propose_a_new_time_for_someone_elses_meeting() -> None:
    sandbox = fresh()
    proposal = run(sandbox, "propose_new_time", event_id="E-205", new_start="2024-07-17T10:00", comment="Clashes with a customer call")
    assert proposal == {
        "event_id": "E-205", "title": "Q3 roadmap review", "organizer": "guo.ming@northpeak.example",
        "current_start": "2024-07-16T15:00", "proposed_start": "2024-07-17T10:00", "proposed_end": "2024-07-17T11:30",
        "my_response": "tentative", "comment": "Clashes with a customer call", "conflicts": [],
    }
    assert sandbox.data["events"]["E-205"]["start"] == "2024-07-16T15:00", "only the organiser moves it"
    declined = run(sandbox, "propose_new_time", event_id="E-190", new_start="2024-07-23T17:00", response="decline")
    assert declined["my_response"] == "declined"
    assert error_kind(sandbox, "propose_new_time", event_id="E-204", new_start="2024-07-17T10:00") == "own_event"
    assert error_kind(sandbox, "propose_new_time", event_id="E-205", new_start="2024-07-15T08:00") == "time_in_past"
    assert error_kind(sandbox, "propose_new_time", event_id="E-205", new_start="2024-07-32T08:00") == "invalid_time"
    assert error_kind(sandbox, "propose_new_time", event_id="E-999", new_start="2024-07-17T10:00") == "event_not_found"
    cancelled = fresh({"events": {"E-205": {"status": "cancelled"}}})
    assert error_kind(cancelled, "propose_new_time", event_id="E-205", new_start="2024-07-17T10:00") == "event_cancelled"


def test_free_slots_respect_working_hours_abroad() -> None:
    sandbox = fresh()
    london = run(sandbox, "find_free_slots", date="2024-07-17", duration_minutes=30, attendees=["Oliver Grant"])
    assert london["free_slots"] == [{"start": "2024-07-17T17:00", "end": "2024-07-17T18:00"}], "09:00 in London is 16:00 here, and 16:00 is an interview"
    evening = run(sandbox, "find_free_slots", date="2024-07-16", duration_minutes=60, attendees=["Oliver"], latest="23:00")
    assert evening["free_slots"] == [{"start": "2024-07-16T18:00", "end": "2024-07-16T19:00"}, {"start": "2024-07-16T20:00", "end": "2024-07-16T23:00"}]
    toronto = run(sandbox, "find_free_slots", date="2024-07-17", duration_minutes=45, attendees=["Sophie"], earliest="06:00", latest="23:59")
    assert toronto["free_slots"] == [{"start": "2024-07-17T20:30", "end": "2024-07-17T23:59"}], "Tuesday in Toronto ends at 05:00 here"
    weekend = run(sandbox, "find_free_slots", date="2024-07-20", duration_minutes=30, attendees=["Oliver Grant"], earliest="00:00", latest="23:59")
    assert weekend["free_slots"] == [{"start": "2024-07-20T00:00", "end": "2024-07-20T00:30"}], "only the tail of Friday in London"
    in_london = fresh(clock="2024-07-17T08:00:00+01:00")
    slots = run(in_london, "find_free_slots", date="2024-07-17", duration_minutes=30, attendees=["Oliver Grant"])["free_slots"]
    assert slots[0] == {"start": "2024-07-17T09:00", "end": "2024-07-17T14:00"} and slots[-1] == {"start": "2024-07-17T17:00", "end": "2024-07-17T17:30"}
