"""The health sandbox's own business rules (the contract of every sandbox: test_contract.py)."""

from __future__ import annotations

from typing import Any

from tests.sandboxes import support
from validator.sandbox.base import Sandbox

NAME = "health"
STATE = support.state(NAME)
run, error_kind = support.call, support.error_kind


def fresh(patch: dict[str, Any] | None = None, clock: str | None = None) -> Sandbox:
    return support.fresh(NAME, patch, clock=clock)


def test_catalogue_size() -> None:
    support.check_catalogue(NAME, 8, (1, 2))


def test_english_descriptions_have_no_chinese() -> None:
    assert support.chinese_in_english(NAME) == []


# ----------------------------------------------------------------------------- state and specs


def test_state_shape() -> None:
    assert STATE["sandbox"] == "health"
    data = STATE["data"]
    assert {"profile", "doctors", "appointments", "medication_reminders", "logs", "shares"} <= data.keys()
    for rows, counter in [(STATE["data"]["appointments"], "appointment"), (STATE["data"]["medication_reminders"], "medication"), (STATE["data"]["logs"]["heart_rate"] + STATE["data"]["logs"]["blood_pressure"] + STATE["data"]["logs"]["weight"], "reading"), (STATE["data"]["logs"]["symptom_notes"], "note"), (STATE["data"]["consultations"], "consultation")]:
        ids = [int(row["id"].split("-")[1]) for row in rows]
        assert len(ids) == len(set(ids)), counter
        assert max(ids) <= STATE["counters"][counter], f"counter {counter} would reissue an id"


# ----------------------------------------------------------------------------- business rules


def test_doctor_search_and_slots() -> None:
    app = fresh()
    found = run(app, "search_doctors", department="cardiology", date="2024-10-17")["doctors"]
    assert [d["id"] for d in found] == ["DR-102", "DR-114"]  # best rated first
    assert "14:00" not in found[0]["free_slots"] and found[0]["free_slots"][0] == "13:30"
    assert found[1]["free_slots"] == [], "Luo Jian does not work on Thursdays"
    assert run(app, "search_doctors", department="dermatology", accepts_insurance=True)["count"] == 0
    assert run(app, "search_doctors", department="psychiatry", language="english", visit_type="video")["count"] == 1
    gps = run(app, "search_doctors", department="general_practice", date="2024-10-14")["doctors"]
    assert [d["id"] for d in gps] == ["DR-112", "DR-101", "DR-111"]
    today = next(d for d in gps if d["id"] == "DR-101")["free_slots"]
    assert today[0] == "09:00"  # 08:30 now: earlier slots are gone
    assert [d["id"] for d in run(app, "search_doctors", department="general_practice", accepts_insurance=True, visit_type="video")["doctors"]] == ["DR-101"]


def test_booking_rules() -> None:
    app = fresh()
    booked = run(
        app, "book_doctor_appointment", doctor="Dr. Fang Yu", date="2024-10-15", time="10:30", visit_type="video",
        first_visit=True, use_insurance=True, symptoms=["cough", "fatigue"], reminder_minutes_before=30,
    )
    assert booked["id"] == "AP-2004" and booked["doctor_id"] == "DR-101"
    assert run(app, "book_doctor_appointment", doctor="马睿医生", date="2024-10-19", time="09:00", visit_type="phone")["doctor"] == "Ma Rui"
    assert error_kind(app, "book_doctor_appointment", doctor="Dr. Who", date="2024-10-15", time="10:00", visit_type="video") == "doctor_not_found"
    assert error_kind(app, "book_doctor_appointment", doctor="Helen Zhou", date="2024-10-17", time="14:00", visit_type="in_person") == "slot_taken"
    assert error_kind(app, "book_doctor_appointment", doctor="Helen Zhou", date="2024-10-16", time="14:00", visit_type="in_person") == "outside_hours"
    assert error_kind(app, "book_doctor_appointment", doctor="Helen Zhou", date="2024-10-17", time="15:00", visit_type="video") == "visit_type_not_offered"
    assert error_kind(app, "book_doctor_appointment", doctor="Lin Qiao", date="2024-10-16", time="11:00", visit_type="in_person", use_insurance=True) == "insurance_not_accepted"
    assert error_kind(app, "book_doctor_appointment", doctor="Fang Yu", date="2024-10-14", time="08:00", visit_type="video") == "time_in_past"
    assert error_kind(app, "book_doctor_appointment", doctor="Fang Yu", date="2024-02-30", time="10:00", visit_type="video") == "invalid_time"
    assert error_kind(app, "book_doctor_appointment", doctor="Kong Lei", date="2024-10-15", time="10:30", visit_type="phone") == "outside_hours"
    assert error_kind(app, "book_doctor_appointment", doctor="Song Jia", date="2024-10-15", time="10:30", visit_type="in_person") == "double_booked"


def test_cancel_rules() -> None:
    app = fresh()
    assert run(app, "cancel_doctor_appointment", appointment_id="AP-2001", reason="feeling_better")["status"] == "cancelled"
    assert error_kind(app, "cancel_doctor_appointment", appointment_id="AP-2001") == "not_cancellable"
    assert error_kind(app, "cancel_doctor_appointment", appointment_id="AP-9") == "appointment_not_found"
    late = fresh()
    late.state["clock"] = "2024-10-17T12:30:00+08:00"
    assert error_kind(late, "cancel_doctor_appointment", appointment_id="AP-2001") == "too_late_to_cancel"
    assert run(app, "list_doctor_appointments", status="all")["count"] == 3
    assert run(app, "list_doctor_appointments")["count"] == 0


def test_medication_reminders() -> None:
    app = fresh()
    reminder = run(
        app, "add_medication_reminder", medication="Amoxicillin", dosage={"amount": 500, "unit": "mg"},
        schedule={"times": ["20:00", "08:00", "14:00"], "meal_timing": "after_meal"}, start_date="2024-10-14", end_date="2024-10-20",
    )
    assert reminder["id"] == "MR-13" and reminder["schedule"]["times"] == ["08:00", "14:00", "20:00"]
    assert reminder["schedule"]["days"] == ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    base = {"dosage": {"amount": 1, "unit": "tablet"}, "schedule": {"times": ["08:00"]}}
    assert error_kind(app, "add_medication_reminder", medication="metformin", start_date="2024-10-15", **base) == "duplicate_reminder"
    assert error_kind(app, "add_medication_reminder", medication="X", start_date="2024-10-13", **base) == "start_in_past"
    assert error_kind(app, "add_medication_reminder", medication="X", start_date="2024-10-15", end_date="2024-10-14", **base) == "end_before_start"
    assert error_kind(app, "add_medication_reminder", medication="X", start_date="2024-10-15", refill_alert={"pills_remaining": 3, "alert_below": 5}, **base) == "refill_already_due"
    paused = run(app, "pause_medication_reminder", reminder_id="MR-11", paused=True, resume_on="2024-10-21")
    assert paused["paused"] is True and paused["resume_on"] == "2024-10-21"
    assert run(app, "list_medication_reminders", include_paused=False)["count"] == 2
    assert error_kind(app, "pause_medication_reminder", reminder_id="MR-11", paused=False, resume_on="2024-10-21") == "resume_needs_pause"
    assert error_kind(app, "pause_medication_reminder", reminder_id="MR-12", paused=True, resume_on="2024-10-14") == "resume_in_past"
    assert run(app, "pause_medication_reminder", reminder_id="MR-11", paused=False)["resume_on"] is None
    assert error_kind(app, "pause_medication_reminder", reminder_id="MR-99", paused=True) == "reminder_not_found"


def test_tracking() -> None:
    app = fresh()
    day = run(app, "log_activity", date="2024-10-13", steps=10250, distance_km=7.6, workout={"type": "cycling", "duration_minutes": 45})
    assert day["replaced"] is True and day["goal_met"] is True
    assert error_kind(app, "log_activity", date="2024-10-15", steps=100) == "date_in_future"
    night = run(app, "log_sleep", date="2024-10-14", bedtime="23:15", wake_time="06:45", quality="fair", awakenings=2)
    assert night["hours"] == 7.5 and night["replaced"] is False
    assert error_kind(app, "log_sleep", date="2024-10-14", bedtime="07:00", wake_time="07:00", quality="poor") == "invalid_time"
    hr = run(app, "log_heart_rate", bpm=108, measured_at="2024-10-14T08:10")
    assert hr["id"] == "HR-541" and hr["see_doctor_hint"] is True
    assert run(app, "log_heart_rate", bpm=150, measured_at="2024-10-14T07:00", context="exercise")["see_doctor_hint"] is False
    assert error_kind(app, "log_heart_rate", bpm=70, measured_at="2024-10-14T09:00") == "time_in_future"
    bp = run(app, "log_blood_pressure", systolic=142, diastolic=88, measured_at="2024-10-14T07:30", pulse=71, arm="right")
    assert bp["category"] == "stage_2" and bp["id"] == "BP-543"
    assert error_kind(app, "log_blood_pressure", systolic=80, diastolic=90, measured_at="2024-10-14T07:30") == "invalid_reading"


def test_symptom_notes() -> None:
    app = fresh()
    note = run(app, "add_symptom_note", symptoms=[{"name": "headache", "severity": 6}, {"name": "nausea", "severity": 3}], body_temperature_c=37.8, share_with_doctor=True)
    assert note["fever"] is True and note["shared_with_appointment"] == "AP-2001"
    assert app.data["appointments"][0]["shared_notes"] == ["SN-32"]
    assert error_kind(app, "add_symptom_note", symptoms=[{"name": "Cough", "severity": 2}, {"name": "cough", "severity": 4}]) == "duplicate_symptom"
    none_upcoming = fresh({"appointments": []})
    assert error_kind(none_upcoming, "add_symptom_note", symptoms=[{"name": "cough", "severity": 2}], share_with_doctor=True) == "no_upcoming_appointment"


def test_symptom_note_goes_to_the_next_appointment_still_to_come() -> None:
    app = fresh()
    booked = run(app, "book_doctor_appointment", doctor="Fang Yu", date="2024-10-15", time="10:00", visit_type="video")
    note = run(app, "add_symptom_note", symptoms=[{"name": "headache", "severity": 5}], share_with_doctor=True)
    assert note["shared_with_appointment"] == booked["id"] == "AP-2004", "booked in the session, earlier than AP-2001"
    later = run(app, "book_doctor_appointment", doctor="Deng Wei", date="2024-10-18", time="09:00", visit_type="video")
    assert run(app, "add_symptom_note", symptoms=[{"name": "cough", "severity": 2}], share_with_doctor=True)["shared_with_appointment"] == "AP-2004"
    assert later["shared_notes"] == [] and app.data["appointments"][0]["shared_notes"] == []
    # On Thursday evening AP-2001 (14:00) is over although its status still says upcoming.
    evening = fresh(clock="2024-10-17T18:00:00+08:00")
    assert error_kind(evening, "add_symptom_note", symptoms=[{"name": "cough", "severity": 2}], share_with_doctor=True) == "no_upcoming_appointment"
    run(evening, "book_doctor_appointment", doctor="Fang Yu", date="2024-10-18", time="09:30", visit_type="in_person")
    assert run(evening, "add_symptom_note", symptoms=[{"name": "cough", "severity": 2}], share_with_doctor=True)["shared_with_appointment"] == "AP-2004"


def test_summary_and_sharing() -> None:
    app = fresh()
    summary = run(app, "get_health_summary", start_date="2024-10-07", end_date="2024-10-13", metrics=["steps", "sleep", "heart_rate", "blood_pressure", "symptoms"])["summary"]
    assert summary["steps"] == {"days_logged": 7, "total": 62628, "daily_average": 8947}
    assert summary["heart_rate"]["resting_average"] == 62 and summary["blood_pressure"]["average"] == "121/79"
    assert error_kind(app, "get_health_summary", start_date="2024-10-13", end_date="2024-10-07", metrics=["steps"]) == "invalid_range"
    assert error_kind(app, "get_health_summary", start_date="2024-01-01", end_date="2024-10-07", metrics=["steps"]) == "invalid_range"
    shared = run(
        app, "share_health_report", recipient={"name": "Dr. Helen Zhou", "email": "h.zhou@eastlake.example", "role": "doctor"},
        report={"metrics": ["blood_pressure", "heart_rate"], "period": {"start_date": "2024-10-01", "end_date": "2024-10-13"}},
        include_symptom_notes=True, expires_in_days=3,
    )
    assert shared["id"] == "SH-8" and shared["metrics"] == ["blood_pressure", "heart_rate", "symptoms"]
    assert shared["expires_on"] == "2024-10-17" and shared["format"] == "pdf"
    future = {"metrics": ["steps"], "period": {"start_date": "2024-10-01", "end_date": "2024-10-20"}}
    assert error_kind(app, "share_health_report", recipient={"name": "Mum", "email": "mum@mail.example", "role": "family"}, report=future) == "date_in_future"


def test_same_calls_same_state() -> None:
    def script() -> dict[str, Any]:
        app = fresh()
        run(app, "book_doctor_appointment", doctor="Deng Wei", date="2024-10-16", time="09:30", visit_type="video")
        run(app, "log_heart_rate", bpm=72, measured_at="2024-10-14T08:00")
        run(app, "add_symptom_note", symptoms=[{"name": "dizziness", "severity": 4}])
        return app.state

    assert script() == script()


# ----------------------------------------------------------------------------- rescheduling, online consultations, weight


def test_reschedule_keeps_the_doctor_and_the_visit() -> None:
    sandbox = fresh()
    moved = run(sandbox, "reschedule_doctor_appointment", appointment_id="AP-2001", new_date="2024-10-15", new_time="16:30")
    assert moved["time"] == "2024-10-15T16:30" and moved["previous_time"] == "2024-10-17T14:00" and moved["doctor"] == "Helen Zhou"
    assert moved["use_insurance"] is True and moved["reminder_minutes_before"] == 120
    assert "14:00" in run(sandbox, "search_doctors", department="cardiology", date="2024-10-17")["doctors"][0]["free_slots"], "the old slot is free again"
    assert error_kind(sandbox, "reschedule_doctor_appointment", appointment_id="AP-2001", new_date="2024-10-15", new_time="16:30") == "same_time"
    assert error_kind(sandbox, "reschedule_doctor_appointment", appointment_id="AP-2001", new_date="2024-10-16", new_time="14:00") == "outside_hours"
    assert error_kind(sandbox, "reschedule_doctor_appointment", appointment_id="AP-2002", new_date="2024-10-16", new_time="10:00") == "not_changeable"
    assert error_kind(sandbox, "reschedule_doctor_appointment", appointment_id="AP-9999", new_date="2024-10-16", new_time="10:00") == "appointment_not_found"
    assert error_kind(sandbox, "reschedule_doctor_appointment", appointment_id="AP-2001", new_date="2024-10-14", new_time="08:00") == "time_in_past"
    assert error_kind(sandbox, "reschedule_doctor_appointment", appointment_id="AP-2001", new_date="2024-10-32", new_time="08:00") == "invalid_time"
    other = run(sandbox, "book_doctor_appointment", doctor="Fang Yu", date="2024-10-15", time="10:00", visit_type="video")
    assert error_kind(sandbox, "reschedule_doctor_appointment", appointment_id="AP-2001", new_date="2024-10-15", new_time="10:00") == "outside_hours"
    busy = fresh({"appointments": STATE["data"]["appointments"] + [{**STATE["data"]["appointments"][0], "id": "AP-1999", "doctor_id": "DR-101", "time": "2024-10-15T13:30"}]})
    assert error_kind(busy, "reschedule_doctor_appointment", appointment_id="AP-2001", new_date="2024-10-15", new_time="13:30") == "double_booked"
    taken = fresh({"appointments": STATE["data"]["appointments"] + [{**STATE["data"]["appointments"][0], "id": "AP-1999", "time": "2024-10-15T14:00"}]})
    assert error_kind(taken, "reschedule_doctor_appointment", appointment_id="AP-2001", new_date="2024-10-15", new_time="14:00") == "slot_taken"
    late = fresh(clock="2024-10-17T12:30:00+08:00")
    assert error_kind(late, "reschedule_doctor_appointment", appointment_id="AP-2001", new_date="2024-10-22", new_time="14:00") == "too_late_to_change"
    assert other["id"] == "AP-2004"


def test_online_consultation_now() -> None:
    sandbox = fresh()
    consultation = run(sandbox, "start_online_consultation", department="general_practice", symptoms=["fever", "cough"])
    assert consultation == {
        "id": "CO-81", "doctor": "Alice Morgan", "department": "general_practice", "mode": "video", "language": "english",
        "symptoms": ["fever", "cough"], "requested_at": "2024-10-14T08:30", "expected_start": "2024-10-14T08:35", "fee": 45, "status": "waiting",
    }
    assert error_kind(sandbox, "start_online_consultation", department="pediatrics", symptoms=["rash"]) == "consultation_in_progress"
    chinese = fresh()
    assert run(chinese, "start_online_consultation", department="general_practice", symptoms=["咳嗽"], mode="chat", language="mandarin")["doctor"] == "Zheng Lu"
    assert error_kind(fresh(), "start_online_consultation", department="psychiatry", symptoms=["insomnia"]) == "no_doctor_available"
    assert error_kind(fresh(), "start_online_consultation", department="dermatology", symptoms=["rash"], mode="video") == "no_doctor_available"
    assert len(fresh().data["appointments"]) == 3


def test_on_call_doctors_are_listed_as_a_consultation_would_choose() -> None:
    sandbox = fresh()
    listed = run(sandbox, "list_on_call_doctors", department="general_practice")
    assert [(d["name"], d["wait_minutes"], d["expected_start"], d["fee"]) for d in listed["doctors"]] == [
        ("Alice Morgan", 5, "2024-10-14T08:35", 45),
        ("Zheng Lu", 12, "2024-10-14T08:42", 30),
    ]
    chat = run(sandbox, "list_on_call_doctors", department="general_practice", mode="chat", language="mandarin")["doctors"]
    started = run(sandbox, "start_online_consultation", department="general_practice", symptoms=["cough"], mode="chat", language="mandarin")
    assert [d["name"] for d in chat] == [started["doctor"]] and chat[0]["expected_start"] == started["expected_start"]
    assert run(sandbox, "list_on_call_doctors", department="psychiatry")["count"] == 0, "on call from 18:00"
    assert run(fresh(clock="2024-10-14T19:00:00+08:00"), "list_on_call_doctors", department="psychiatry")["doctors"][0]["name"] == "Hu Jing"
    assert len(sandbox.data["consultations"]) == 2, "listing starts nothing"


def test_log_weight_and_summarise_it() -> None:
    sandbox = fresh()
    reading = run(sandbox, "log_body_weight", weight_kg=57.83, measured_at="2024-10-14T07:30", body_fat_percent=24.0)
    assert reading == {"id": "WT-541", "weight_kg": 57.8, "measured_at": "2024-10-14T07:30", "body_fat_percent": 24.0, "bmi": 21.2}
    summary = run(sandbox, "get_health_summary", start_date="2024-10-07", end_date="2024-10-14", metrics=["weight"])["summary"]
    assert summary["weight"] == {"readings": 3, "latest_kg": 57.8, "change_kg": -0.8}
    assert error_kind(sandbox, "log_body_weight", weight_kg=58, measured_at="2024-10-14T09:00") == "time_in_future"
    assert error_kind(sandbox, "log_body_weight", weight_kg=58, measured_at="2024-10-14T25:00") == "invalid_time"
