"""The education sandbox's own business rules (the contract of every sandbox: test_contract.py)."""

from __future__ import annotations

from typing import Any

from tests.sandboxes import support
from validator.sandbox.base import Sandbox

NAME = "education"
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
    assert STATE["sandbox"] == "education"
    data = STATE["data"]
    assert {"term", "student", "courses", "assignments", "submissions", "extensions", "study"} <= data.keys()
    for rows, counter in [(data["submissions"], "submission")]:
        ids = [int(row["id"].split("-")[1]) for row in rows]
        assert len(ids) == len(set(ids)), counter
        assert max(ids) <= STATE["counters"][counter], f"counter {counter} would reissue an id"
    for code in data["courses"]:
        weights = [a["weight"] for a in data["assignments"].values() if a["course_code"] == code]
        assert not weights or sum(weights) == 100, code


# ----------------------------------------------------------------------------- business rules


def test_search_courses() -> None:
    portal = fresh()
    assert [c["code"] for c in run(portal, "search_courses", subject="economics")["courses"]] == ["ECON101", "ECON240"]
    open_cs = run(portal, "search_courses", subject="computer_science", open_seats_only=True)["courses"]
    assert [c["code"] for c in open_cs] == ["CS250", "CS310"]
    assert [c["code"] for c in run(portal, "search_courses", keyword="日语")["courses"]] == ["JPN101"]
    weekend = run(portal, "search_courses", meeting_days=["sat", "sun"], format="in_person")["courses"]
    assert [c["code"] for c in weekend] == ["ART120"]
    assert run(portal, "search_courses", min_credits=4, max_credits=4, level="introductory")["count"] == 2


def test_enrolment_rules() -> None:
    portal = fresh()
    assert error_kind(portal, "enroll_in_course", course_code="CS204") == "already_enrolled"
    assert error_kind(portal, "enroll_in_course", course_code="CS310") == "prerequisite_missing"
    assert error_kind(portal, "enroll_in_course", course_code="ECON240") == "schedule_conflict"
    assert error_kind(portal, "enroll_in_course", course_code="JPN101") == "course_full"
    assert error_kind(portal, "enroll_in_course", course_code="XX999") == "course_not_found"
    waitlisted = run(portal, "enroll_in_course", course_code="JPN101", join_waitlist=True)
    assert waitlisted["status"] == "waitlisted" and waitlisted["waitlist_position"] == 7 and waitlisted["total_credits"] == 14
    assert run(portal, "enroll_in_course", course_code="PHYS150")["total_credits"] == 18
    assert error_kind(portal, "enroll_in_course", course_code="STAT230") == "credit_limit_exceeded"
    assert run(portal, "enroll_in_course", course_code="STAT230", grading_option="audit")["total_credits"] == 18
    assert run(portal, "drop_course", course_code="JPN101", reason="schedule")["was"] == "waitlisted"
    assert run(portal, "drop_course", course_code="PHYS150")["total_credits"] == 14
    assert error_kind(portal, "drop_course", course_code="PHYS150") == "not_enrolled"
    late = fresh()
    late.state["clock"] = "2024-10-05T09:00:00+08:00"
    assert error_kind(late, "drop_course", course_code="ECON101") == "drop_deadline_passed"


def test_assignment_listing() -> None:
    portal = fresh()
    assert [a["id"] for a in run(portal, "list_assignments", due_within_days=7)["assignments"]] == ["AS-604", "AS-602"]
    assert run(portal, "list_assignments", due_within_days=8)["count"] == 3
    assert [a["id"] for a in run(portal, "list_assignments", status="overdue")["assignments"]] == ["AS-607"]
    assert run(portal, "list_assignments", course_code="MATH221", status="graded")["assignments"][0]["score_percent"] == 92
    assert error_kind(portal, "list_assignments", course_code="PHYS150") == "not_enrolled"


def test_submission_rules() -> None:
    portal = fresh()
    files = [{"file_name": "stack_queue.zip", "format": "zip", "size_mb": 3.5}]
    draft = run(portal, "submit_assignment", assignment_id="AS-602", files=files, final=False)
    assert draft["id"] == "SUB-881" and draft["status"] == "open"
    assert run(portal, "submit_assignment", assignment_id="AS-602", files=files)["status"] == "submitted"
    assert error_kind(portal, "submit_assignment", assignment_id="AS-602", files=files) == "already_final"
    assert error_kind(portal, "submit_assignment", assignment_id="AS-604", files=[{"file_name": "ps2.docx", "format": "docx", "size_mb": 1}]) == "format_not_accepted"
    assert error_kind(portal, "submit_assignment", assignment_id="AS-604", files=[{"file_name": "ps2.zip", "format": "pdf", "size_mb": 1}]) == "file_name_mismatch"
    assert error_kind(portal, "submit_assignment", assignment_id="AS-604", files=[{"file_name": "ps2.pdf", "format": "pdf", "size_mb": 12}]) == "files_too_large"
    assert error_kind(portal, "submit_assignment", assignment_id="AS-610", files=[{"file_name": "a.pdf", "format": "pdf", "size_mb": 1}]) == "not_submittable"
    assert error_kind(portal, "submit_assignment", assignment_id="AS-606", files=[{"file_name": "e.docx", "format": "docx", "size_mb": 1}], word_count=1620) == "over_word_limit"
    late = run(portal, "submit_assignment", assignment_id="AS-607", files=[{"file_name": "luxun.md", "format": "md", "size_mb": 0.1}], word_count=760)
    assert late["late"] is True
    closed = fresh()
    closed.state["clock"] = "2024-09-28T08:00:00+08:00"
    assert error_kind(closed, "submit_assignment", assignment_id="AS-602", files=files) == "assignment_closed"


def test_extension_rules() -> None:
    portal = fresh()
    quick = run(portal, "request_extension", assignment_id="AS-606", new_due="2024-10-02T12:00", reason="overlapping_deadlines")
    assert quick["status"] == "approved" and portal.data["assignments"]["AS-606"]["due"] == "2024-10-02T12:00"
    pending = run(portal, "request_extension", assignment_id="AS-608", new_due="2024-10-18T23:59", reason="family_emergency")
    assert pending["status"] == "pending" and portal.data["assignments"]["AS-608"]["due"] == "2024-10-11T23:59"
    assert error_kind(portal, "request_extension", assignment_id="AS-603", new_due="2024-10-25T23:59", reason="illness") == "documentation_required"
    assert run(portal, "request_extension", assignment_id="AS-603", new_due="2024-10-25T23:59", reason="illness", has_documentation=True)["status"] == "approved"
    assert error_kind(portal, "request_extension", assignment_id="AS-604", new_due="2024-10-30T23:59", reason="other") == "too_long"
    assert error_kind(portal, "request_extension", assignment_id="AS-604", new_due="2024-09-24T12:00", reason="other") == "not_later"
    assert error_kind(portal, "request_extension", assignment_id="AS-610", new_due="2024-10-22T08:00", reason="other") == "not_extendable"


def test_grades() -> None:
    portal = fresh()
    assert run(portal, "get_course_grades", course_code="MATH221") == {"course_code": "MATH221", "current_percent": 92.0, "letter": "A", "weight_graded": 5}
    breakdown = run(portal, "get_course_grades", course_code="CS204", include_breakdown=True)["breakdown"]
    assert [b["assignment_id"] for b in breakdown] == ["AS-601", "AS-602", "AS-603", "AS-611"]
    estimate = run(portal, "estimate_final_grade", course_code="ECON101", hypothetical_scores=[{"assignment_id": "AS-606", "score_percent": 78}, {"assignment_id": "AS-613", "score_percent": 70}])
    assert estimate["projected_percent"] == 73.1 and estimate["letter"] == "B-" and estimate["weight_covered"] == 100
    assert error_kind(portal, "estimate_final_grade", course_code="ECON101", hypothetical_scores=[{"assignment_id": "AS-609", "score_percent": 100}]) == "already_graded"
    assert error_kind(portal, "estimate_final_grade", course_code="ECON101", hypothetical_scores=[{"assignment_id": "AS-604", "score_percent": 100}]) == "assignment_not_in_course"
    assert error_kind(portal, "get_course_grades", course_code="ART120") == "not_enrolled"


def test_study_timer_and_plan() -> None:
    portal = fresh()
    assert error_kind(portal, "stop_study_timer") == "no_timer"
    assert error_kind(portal, "start_study_timer", focus_minutes=25, rounds=4, break_minutes=0) == "break_required"
    timer = run(portal, "start_study_timer", focus_minutes=25, rounds=4, course_code="MATH221", ambient_sound="rain", block_distractions=True)
    assert timer["id"] == "T-151" and timer["ends_at"] == "2024-09-23T11:55"
    assert error_kind(portal, "start_study_timer", focus_minutes=30) == "timer_running"
    stopped = run(portal, "stop_study_timer", focus_rating=4)
    assert stopped["minutes"] == 0 and stopped["logged"] is True
    plan = run(
        portal, "create_study_plan", course_code="MATH221", goal="exam", target_date="2024-10-21",
        topics=[{"title": "Eigenvalues", "estimated_hours": 4, "priority": "high"}, {"title": "Determinants", "estimated_hours": 2.5, "priority": "low"}, {"title": "Vector spaces", "estimated_hours": 3}],
        schedule={"days": ["tue", "thu", "sat"], "session_minutes": 60, "preferred_time": "evening", "reminder": {"enabled": True, "minutes_before": 15, "channel": "app"}},
    )
    assert plan["sessions_before_target"] == 12 and plan["fits"] is True
    assert [t["title"] for t in plan["topics"]] == ["Eigenvalues", "Vector spaces", "Determinants"]
    same = [{"title": "A", "estimated_hours": 1}, {"title": "a", "estimated_hours": 1}]
    assert error_kind(portal, "create_study_plan", course_code="MATH221", goal="exam", target_date="2024-10-21", topics=same, schedule={"days": ["mon"], "session_minutes": 30}) == "duplicate_topic"
    assert error_kind(portal, "create_study_plan", course_code="MATH221", goal="exam", target_date="2024-09-23", topics=same[:1], schedule={"days": ["mon"], "session_minutes": 30}) == "target_in_past"


def test_same_calls_same_state() -> None:
    def script() -> dict[str, Any]:
        portal = fresh()
        run(portal, "enroll_in_course", course_code="ART120")
        run(portal, "start_study_timer", focus_minutes=45)
        run(portal, "request_extension", assignment_id="AS-604", new_due="2024-09-25T23:59", reason="technical_problem")
        return portal.state

    assert script() == script()


# ----------------------------------------------------------------------------- withdrawing, grading options, office hours


def test_withdraw_only_between_the_two_deadlines() -> None:
    early = fresh()
    assert error_kind(early, "withdraw_from_course", course_code="ECON101") == "still_droppable"
    october = fresh(clock="2024-10-20T10:00:00+08:00")
    assert error_kind(october, "drop_course", course_code="ECON101") == "drop_deadline_passed"
    result = run(october, "withdraw_from_course", course_code="ECON101", reason="workload")
    assert result == {"course_code": "ECON101", "status": "withdrawn", "transcript_mark": "W", "tuition_refund": 0, "reason": "workload", "total_credits": 11}
    assert october.data["courses"]["ECON101"]["enrolled"] == 140
    assert error_kind(october, "withdraw_from_course", course_code="ECON101") == "not_enrolled"
    assert error_kind(october, "drop_course", course_code="ECON101") == "not_enrolled"
    assert error_kind(october, "get_course_grades", course_code="ECON101") == "not_enrolled"
    assert error_kind(october, "withdraw_from_course", course_code="ZZZ999") == "course_not_found"
    late = fresh(clock="2024-11-16T10:00:00+08:00")
    assert error_kind(late, "withdraw_from_course", course_code="LIT310") == "withdraw_deadline_passed"


def test_change_grading_option() -> None:
    sandbox = fresh()
    changed = run(sandbox, "change_grading_option", course_code="ECON101", grading_option="pass_fail")
    assert changed == {"course_code": "ECON101", "previous": "letter", "grading_option": "pass_fail", "total_credits": 14}
    audit = run(sandbox, "change_grading_option", course_code="LIT310", grading_option="audit")
    assert audit["total_credits"] == 11, "audited courses carry no credits"
    assert error_kind(sandbox, "change_grading_option", course_code="CS204", grading_option="pass_fail") == "major_course_letter_only"
    assert error_kind(sandbox, "change_grading_option", course_code="ECON101", grading_option="pass_fail") == "already_this_option"
    assert error_kind(sandbox, "change_grading_option", course_code="PHYS150", grading_option="letter") == "not_enrolled"
    full = fresh({"student": {"max_credits": 14}})
    run(full, "change_grading_option", course_code="LIT310", grading_option="audit")
    run(full, "enroll_in_course", course_code="ART120")
    assert error_kind(full, "change_grading_option", course_code="LIT310", grading_option="letter") == "credit_limit_exceeded"
    late = fresh(clock="2024-10-19T09:00:00+08:00")
    assert error_kind(late, "change_grading_option", course_code="ECON101", grading_option="audit") == "grading_deadline_passed"


def test_office_hours() -> None:
    sandbox = fresh()
    slot = run(sandbox, "book_office_hours", course_code="CS204", date="2024-09-24", time="15:30", topic="Queue lab edge cases", online=True)
    assert slot == {"id": "OH-311", "start": "2024-09-24T15:30", "end": "2024-09-24T15:45", "topic": "Queue lab edge cases", "online": True,
                    "course_code": "CS204", "instructor": "Prof. Ruth Alvarez", "location": "meet.maplewood.example/alvarez"}
    assert error_kind(sandbox, "book_office_hours", course_code="CS204", date="2024-09-24", time="16:00", topic="x") == "one_slot_per_day"
    assert error_kind(sandbox, "book_office_hours", course_code="CS204", date="2024-09-24", time="15:15", topic="x") == "slot_taken"
    assert error_kind(sandbox, "book_office_hours", course_code="CS204", date="2024-09-24", time="16:50", topic="x") == "outside_office_hours"
    assert error_kind(sandbox, "book_office_hours", course_code="CS204", date="2024-09-24", time="15:20", topic="x") == "outside_office_hours"
    assert error_kind(sandbox, "book_office_hours", course_code="CS204", date="2024-09-25", time="15:00", topic="x") == "outside_office_hours"
    assert error_kind(sandbox, "book_office_hours", course_code="MATH221", date="2024-09-30", time="16:20", topic="x", online=True) == "online_not_offered"
    assert run(sandbox, "book_office_hours", course_code="MATH221", date="2024-09-30", time="16:20", topic="Rank")["location"] == "Euler Building 105"
    assert error_kind(sandbox, "book_office_hours", course_code="MATH221", date="2024-09-23", time="09:00", topic="x") == "time_in_past"
    assert error_kind(sandbox, "book_office_hours", course_code="MATH221", date="2024-09-31", time="16:00", topic="x") == "invalid_date"
    assert error_kind(sandbox, "book_office_hours", course_code="JPN101", date="2024-09-30", time="16:00", topic="x") == "not_enrolled"
    no_hours = fresh({"office_hours": {"LIT310": None}})
    no_hours.data["office_hours"].pop("LIT310")
    assert error_kind(no_hours, "book_office_hours", course_code="LIT310", date="2024-09-26", time="14:30", topic="x") == "no_office_hours"
