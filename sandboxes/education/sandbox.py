"""The education sandbox: Tang Yi's student portal at Maplewood University, autumn term 2024.

One state holds the course catalogue (``data.courses``, with meeting times, seats, waitlists and
prerequisites), the student's record (``data.student``: completed courses, enrolments, credit
limit), assignments with their accepted file formats and grading weights, submissions, extension
requests, study plans and focus timers, and the instructors' office hours (``data.office_hours``).
After the drop deadline a course can only be withdrawn from (a W on the record, no refund) until
the withdrawal deadline. Every public method implements the spec
``specs/education/<method>.yaml``.

Moments are local ``YYYY-MM-DDTHH:MM`` and days ``YYYY-MM-DD`` in the zone of the sandbox clock,
which never moves here.
"""

from __future__ import annotations

import copy
from datetime import date, datetime, timedelta
from typing import Any, ClassVar

from validator.sandbox.base import ApiError, Sandbox

_MINUTE_FORMAT = "%Y-%m-%dT%H:%M"
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_LETTERS = ((90, "A"), (85, "A-"), (80, "B+"), (75, "B"), (70, "B-"), (65, "C+"), (60, "C"), (50, "D"), (0, "F"))
_MAX_EXTENSION_DAYS = 14


def _letter(percent: float) -> str:
    return next(letter for floor, letter in _LETTERS if percent >= floor)


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two weekly meeting patterns share a day and overlapping hours."""
    if not a["days"] or not b["days"] or not set(a["days"]) & set(b["days"]):
        return False
    return a["start"] < b["end"] and b["start"] < a["end"]


class EducationSandbox(Sandbox):
    """The portal; ``self.data`` holds ``student``, ``courses``, ``assignments``, ``extensions``, ``study``, …"""

    name: ClassVar[str] = "education"

    # ------------------------------------------------------------------ helpers (private)

    def _local_now(self) -> datetime:
        return self.now().replace(tzinfo=None, second=0, microsecond=0)

    def _course(self, code: str) -> dict[str, Any]:
        course = self.data["courses"].get(code.strip().upper())
        if course is None:
            raise ApiError("course_not_found", course_code=code)
        return course

    def _enrolment(self, code: str) -> dict[str, Any] | None:
        return next((e for e in self.data["student"]["enrolments"] if e["course_code"] == code), None)

    def _enrolled(self, code: str) -> dict[str, Any]:
        course = self._course(code)
        enrolment = self._enrolment(course["code"])
        if enrolment is None or enrolment["status"] != "enrolled":
            raise ApiError("not_enrolled", course_code=code)
        return course

    def _assignment(self, assignment_id: str) -> dict[str, Any]:
        assignment = self.data["assignments"].get(assignment_id)
        if assignment is None:
            raise ApiError("assignment_not_found", assignment_id=assignment_id)
        return assignment

    def _status(self, assignment: dict[str, Any]) -> str:
        if assignment["score_percent"] is not None:
            return "graded"
        if assignment["submitted"]:
            return "submitted"
        if datetime.strptime(assignment["due"], _MINUTE_FORMAT) < self._local_now():
            return "overdue"
        return "open"

    def _public_assignment(self, assignment: dict[str, Any]) -> dict[str, Any]:
        return {**copy.deepcopy(assignment), "status": self._status(assignment)}

    def _credits(self) -> int:
        return sum(
            self.data["courses"][e["course_code"]]["credits"]
            for e in self.data["student"]["enrolments"]
            if e["status"] == "enrolled" and e["grading_option"] != "audit"
        )

    def _date(self, value: str, field: str) -> date:
        try:
            return date.fromisoformat(value)
        except (TypeError, ValueError):
            raise ApiError("invalid_date", field=field, value=value) from None

    # ------------------------------------------------------------------ education.courses

    def search_courses(
        self,
        keyword: str | None = None,
        subject: str | None = None,
        level: str | None = None,
        format: str | None = None,
        min_credits: int | None = None,
        max_credits: int | None = None,
        open_seats_only: bool = False,
        meeting_days: list[str] | None = None,
    ) -> dict[str, Any]:
        wanted = keyword.strip().casefold() if keyword else None
        rows = []
        for course in sorted(self.data["courses"].values(), key=lambda c: c["code"]):
            if wanted and not any(wanted in text.casefold() for text in (course["code"], course["title"]["en"], course["title"]["zh"])):
                continue
            if subject is not None and course["subject"] != subject:
                continue
            if level is not None and course["level"] != level:
                continue
            if format is not None and course["format"] != format:
                continue
            if min_credits is not None and course["credits"] < min_credits:
                continue
            if max_credits is not None and course["credits"] > max_credits:
                continue
            seats_left = course["seats"] - course["enrolled"]
            if open_seats_only and seats_left <= 0:
                continue
            if meeting_days is not None and not set(course["meeting"]["days"]) <= set(meeting_days):
                continue
            row = {key: copy.deepcopy(course[key]) for key in ("code", "title", "subject", "level", "credits", "format", "meeting", "instructor", "prerequisites")}
            row["seats_left"] = max(seats_left, 0)
            row["waitlist"] = course["waitlist"]
            rows.append(row)
        return {"courses": rows, "count": len(rows)}

    def enroll_in_course(self, course_code: str, grading_option: str = "letter", join_waitlist: bool = False) -> dict[str, Any]:
        course = self._course(course_code)
        code = course["code"]
        student = self.data["student"]
        if self._enrolment(code) is not None:
            raise ApiError("already_enrolled", course_code=code, status=self._enrolment(code)["status"])
        missing = [p for p in course["prerequisites"] if p not in student["completed"]]
        if missing:
            raise ApiError("prerequisite_missing", missing=missing)
        for enrolment in student["enrolments"]:
            other = self.data["courses"][enrolment["course_code"]]
            if enrolment["status"] == "enrolled" and _overlap(course["meeting"], other["meeting"]):
                raise ApiError("schedule_conflict", with_course=other["code"])
        if grading_option != "audit" and self._credits() + course["credits"] > student["max_credits"]:
            raise ApiError("credit_limit_exceeded", current=self._credits(), adding=course["credits"], limit=student["max_credits"])
        full = course["enrolled"] >= course["seats"]
        if full and not join_waitlist:
            raise ApiError("course_full", waitlist=course["waitlist"])
        if full:
            course["waitlist"] += 1
            entry = {"course_code": code, "grading_option": grading_option, "status": "waitlisted", "waitlist_position": course["waitlist"]}
        else:
            course["enrolled"] += 1
            entry = {"course_code": code, "grading_option": grading_option, "status": "enrolled", "waitlist_position": None}
        student["enrolments"].append(entry)
        return {**copy.deepcopy(entry), "credits": course["credits"], "total_credits": self._credits()}

    def drop_course(self, course_code: str, reason: str = "other") -> dict[str, Any]:
        course = self._course(course_code)
        enrolment = self._enrolment(course["code"])
        if enrolment is None or enrolment["status"] == "withdrawn":
            raise ApiError("not_enrolled", course_code=course_code)
        deadline = self.data["term"]["drop_deadline"]
        if enrolment["status"] == "enrolled" and self._local_now().date().isoformat() > deadline:
            raise ApiError("drop_deadline_passed", deadline=deadline)
        self.data["student"]["enrolments"].remove(enrolment)
        if enrolment["status"] == "enrolled":
            course["enrolled"] -= 1
        else:
            course["waitlist"] -= 1
        return {"course_code": course["code"], "dropped": True, "was": enrolment["status"], "reason": reason, "total_credits": self._credits()}

    def withdraw_from_course(self, course_code: str, reason: str = "other") -> dict[str, Any]:
        course = self._course(course_code)
        enrolment = self._enrolment(course["code"])
        if enrolment is None or enrolment["status"] != "enrolled":
            raise ApiError("not_enrolled", course_code=course_code)
        term = self.data["term"]
        today = self._local_now().date().isoformat()
        if today <= term["drop_deadline"]:
            raise ApiError("still_droppable", drop_deadline=term["drop_deadline"])
        if today > term["withdraw_deadline"]:
            raise ApiError("withdraw_deadline_passed", deadline=term["withdraw_deadline"])
        enrolment["status"] = "withdrawn"
        enrolment["withdrawn_on"] = today
        enrolment["withdraw_reason"] = reason
        course["enrolled"] -= 1
        return {"course_code": course["code"], "status": "withdrawn", "transcript_mark": "W", "tuition_refund": 0,
                "reason": reason, "total_credits": self._credits()}

    def change_grading_option(self, course_code: str, grading_option: str) -> dict[str, Any]:
        course = self._course(course_code)
        enrolment = self._enrolment(course["code"])
        if enrolment is None or enrolment["status"] not in ("enrolled", "waitlisted"):
            raise ApiError("not_enrolled", course_code=course_code)
        deadline = self.data["term"]["grading_change_deadline"]
        if self._local_now().date().isoformat() > deadline:
            raise ApiError("grading_deadline_passed", deadline=deadline)
        if enrolment["grading_option"] == grading_option:
            raise ApiError("already_this_option", grading_option=grading_option)
        if grading_option != "letter" and course["subject"] == self.data["student"]["major_subject"]:
            raise ApiError("major_course_letter_only", course_code=course["code"], subject=course["subject"])
        if enrolment["status"] == "enrolled" and enrolment["grading_option"] == "audit" and self._credits() + course["credits"] > self.data["student"]["max_credits"]:
            raise ApiError("credit_limit_exceeded", current=self._credits(), adding=course["credits"], limit=self.data["student"]["max_credits"])
        previous = enrolment["grading_option"]
        enrolment["grading_option"] = grading_option
        return {"course_code": course["code"], "previous": previous, "grading_option": grading_option, "total_credits": self._credits()}

    # ------------------------------------------------------------------ education.assignments

    def list_assignments(self, course_code: str | None = None, status: str = "open", due_within_days: int | None = None) -> dict[str, Any]:
        if course_code is not None:
            course_code = self._enrolled(course_code)["code"]
        horizon = self._local_now() + timedelta(days=due_within_days) if due_within_days is not None else None
        rows = []
        for assignment in sorted(self.data["assignments"].values(), key=lambda a: (a["due"], a["id"])):
            if course_code is not None and assignment["course_code"] != course_code:
                continue
            if status != "all" and self._status(assignment) != status:
                continue
            if horizon is not None and datetime.strptime(assignment["due"], _MINUTE_FORMAT) > horizon:
                continue
            rows.append(self._public_assignment(assignment))
        return {"assignments": rows, "count": len(rows)}

    def submit_assignment(
        self,
        assignment_id: str,
        files: list[dict[str, Any]],
        final: bool = True,
        word_count: int | None = None,
        comment: str | None = None,
    ) -> dict[str, Any]:
        assignment = self._assignment(assignment_id)
        if assignment["kind"] == "exam":
            raise ApiError("not_submittable", assignment_id=assignment_id)
        status = self._status(assignment)
        if status in ("graded", "submitted"):
            raise ApiError("already_final", status=status)
        if status == "overdue" and not assignment["late_allowed"]:
            raise ApiError("assignment_closed", due=assignment["due"])
        for file in files:
            if file["format"] not in assignment["formats"]:
                raise ApiError("format_not_accepted", format=file["format"], accepted=assignment["formats"])
            if not file["file_name"].lower().endswith("." + file["format"]):
                raise ApiError("file_name_mismatch", file_name=file["file_name"], format=file["format"])
        total = sum(file["size_mb"] for file in files)
        if total > assignment["max_total_mb"]:
            raise ApiError("files_too_large", total_mb=total, limit_mb=assignment["max_total_mb"])
        limit = assignment["word_limit"]
        if limit is not None and word_count is not None and word_count > limit:
            raise ApiError("over_word_limit", word_count=word_count, limit=limit)
        submission = {
            "id": self.new_id("submission", "SUB-"),
            "assignment_id": assignment_id,
            "files": copy.deepcopy(files),
            "final": final,
            "late": status == "overdue",
            "word_count": word_count,
            "comment": comment,
            "submitted_at": self._local_now().strftime(_MINUTE_FORMAT),
        }
        self.data["submissions"].append(submission)
        if final:
            assignment["submitted"] = True
        return {**copy.deepcopy(submission), "status": self._status(assignment)}

    def request_extension(
        self,
        assignment_id: str,
        new_due: str,
        reason: str,
        details: str | None = None,
        has_documentation: bool = False,
    ) -> dict[str, Any]:
        assignment = self._assignment(assignment_id)
        if assignment["kind"] == "exam" or self._status(assignment) not in ("open", "overdue"):
            raise ApiError("not_extendable", assignment_id=assignment_id, status=self._status(assignment))
        try:
            wanted = datetime.strptime(new_due, _MINUTE_FORMAT)
        except ValueError:
            raise ApiError("invalid_date", field="new_due", value=new_due) from None
        due = datetime.strptime(assignment["due"], _MINUTE_FORMAT)
        if wanted <= due:
            raise ApiError("not_later", due=assignment["due"])
        if wanted - due > timedelta(days=_MAX_EXTENSION_DAYS):
            raise ApiError("too_long", max_days=_MAX_EXTENSION_DAYS)
        if reason == "illness" and wanted - due > timedelta(days=3) and not has_documentation:
            raise ApiError("documentation_required")
        approved = wanted - due <= timedelta(days=3) or has_documentation
        request = {
            "id": self.new_id("extension", "EX-"),
            "assignment_id": assignment_id,
            "old_due": assignment["due"],
            "new_due": wanted.strftime(_MINUTE_FORMAT),
            "reason": reason,
            "details": details,
            "has_documentation": has_documentation,
            "status": "approved" if approved else "pending",
        }
        if approved:
            assignment["due"] = request["new_due"]
        self.data["extensions"].append(request)
        return copy.deepcopy(request)

    # ------------------------------------------------------------------ education.grades

    def get_course_grades(self, course_code: str, include_breakdown: bool = False) -> dict[str, Any]:
        course = self._enrolled(course_code)
        items = [a for a in self.data["assignments"].values() if a["course_code"] == course["code"]]
        graded = [a for a in items if a["score_percent"] is not None]
        weight = sum(a["weight"] for a in graded)
        percent = round(sum(a["score_percent"] * a["weight"] for a in graded) / weight, 2) if weight else None
        result: dict[str, Any] = {
            "course_code": course["code"],
            "current_percent": percent,
            "letter": _letter(percent) if percent is not None else None,
            "weight_graded": weight,
        }
        if include_breakdown:
            result["breakdown"] = [
                {"assignment_id": a["id"], "title": a["title"], "weight": a["weight"], "score_percent": a["score_percent"]}
                for a in sorted(items, key=lambda a: (a["due"], a["id"]))
            ]
        return result

    def estimate_final_grade(self, course_code: str, hypothetical_scores: list[dict[str, Any]]) -> dict[str, Any]:
        course = self._enrolled(course_code)
        items = {a["id"]: a for a in self.data["assignments"].values() if a["course_code"] == course["code"]}
        scores = {a_id: a["score_percent"] for a_id, a in items.items() if a["score_percent"] is not None}
        for entry in hypothetical_scores:
            a_id = entry["assignment_id"]
            if a_id not in items:
                raise ApiError("assignment_not_in_course", assignment_id=a_id, course_code=course["code"])
            if a_id in scores and items[a_id]["score_percent"] is not None:
                raise ApiError("already_graded", assignment_id=a_id)
            scores[a_id] = entry["score_percent"]
        weight = sum(items[a_id]["weight"] for a_id in scores)
        projected = round(sum(items[a_id]["weight"] * s for a_id, s in scores.items()) / weight, 2)
        total = sum(a["weight"] for a in items.values())
        return {
            "course_code": course["code"],
            "projected_percent": projected,
            "letter": _letter(projected),
            "weight_covered": weight,
            "weight_total": total,
            "ungraded_left": sorted(a_id for a_id in items if a_id not in scores),
        }

    def book_office_hours(self, course_code: str, date: str, time: str, topic: str, online: bool = False) -> dict[str, Any]:
        course = self._enrolled(course_code)
        hours = self.data["office_hours"].get(course["code"])
        if hours is None:
            raise ApiError("no_office_hours", course_code=course["code"])
        day = self._date(date, "date")
        try:
            start = datetime.strptime(f"{day.isoformat()}T{time}", _MINUTE_FORMAT)
        except ValueError:
            raise ApiError("invalid_date", field="time", value=time) from None
        if start <= self._local_now():
            raise ApiError("time_in_past", time=start.strftime(_MINUTE_FORMAT))
        window = hours["weekly"].get(_WEEKDAYS[day.weekday()])
        length = timedelta(minutes=hours["slot_minutes"])
        if window is None or not (window[0] <= time and (start + length).strftime("%H:%M") <= window[1]) or (start.minute % hours["slot_minutes"]):
            raise ApiError("outside_office_hours", instructor=course["instructor"], weekly=copy.deepcopy(hours["weekly"]), slot_minutes=hours["slot_minutes"])
        if online and not hours["online"]:
            raise ApiError("online_not_offered", instructor=course["instructor"])
        text = start.strftime(_MINUTE_FORMAT)
        if any(b["start"] == text for b in hours["booked"]):
            raise ApiError("slot_taken", start=text)
        if any(b["start"][:10] == text[:10] and b["student"] == self.data["student"]["student_id"] for b in hours["booked"]):
            raise ApiError("one_slot_per_day", date=text[:10])
        booking = {
            "id": self.new_id("office_hour", "OH-"),
            "student": self.data["student"]["student_id"],
            "start": text,
            "end": (start + length).strftime(_MINUTE_FORMAT),
            "topic": topic,
            "online": online,
        }
        hours["booked"].append(booking)
        return {**{k: v for k, v in booking.items() if k != "student"}, "course_code": course["code"], "instructor": course["instructor"],
                "location": hours["online_link"] if online else hours["room"]}

    # ------------------------------------------------------------------ education.study

    def start_study_timer(
        self,
        focus_minutes: int,
        course_code: str | None = None,
        break_minutes: int = 5,
        rounds: int = 1,
        technique: str = "pomodoro",
        block_distractions: bool = False,
        ambient_sound: str = "none",
    ) -> dict[str, Any]:
        study = self.data["study"]
        if study["active_timer"] is not None:
            raise ApiError("timer_running", timer_id=study["active_timer"]["id"])
        if course_code is not None:
            course_code = self._enrolled(course_code)["code"]
        if technique == "pomodoro" and rounds > 1 and break_minutes == 0:
            raise ApiError("break_required")
        start = self._local_now()
        total = focus_minutes * rounds + break_minutes * (rounds - 1)
        timer = {
            "id": self.new_id("timer", "T-"),
            "course_code": course_code,
            "focus_minutes": focus_minutes,
            "break_minutes": break_minutes,
            "rounds": rounds,
            "technique": technique,
            "block_distractions": block_distractions,
            "ambient_sound": ambient_sound,
            "started_at": start.strftime(_MINUTE_FORMAT),
            "ends_at": (start + timedelta(minutes=total)).strftime(_MINUTE_FORMAT),
        }
        study["active_timer"] = timer
        return copy.deepcopy(timer)

    def stop_study_timer(self, log_session: bool = True, focus_rating: int | None = None) -> dict[str, Any]:
        study = self.data["study"]
        timer = study["active_timer"]
        if timer is None:
            raise ApiError("no_timer")
        started = datetime.strptime(timer["started_at"], _MINUTE_FORMAT)
        ends = datetime.strptime(timer["ends_at"], _MINUTE_FORMAT)
        minutes = int((min(self._local_now(), ends) - started).total_seconds() // 60)
        study["active_timer"] = None
        session = {
            "timer_id": timer["id"],
            "course_code": timer["course_code"],
            "minutes": minutes,
            "focus_rating": focus_rating,
            "date": started.date().isoformat(),
        }
        if log_session:
            study["sessions"].append(session)
        return {**copy.deepcopy(session), "logged": log_session}

    def create_study_plan(
        self,
        course_code: str,
        goal: str,
        target_date: str,
        topics: list[dict[str, Any]],
        schedule: dict[str, Any],
    ) -> dict[str, Any]:
        course = self._enrolled(course_code)
        target = self._date(target_date, "target_date")
        today = self._local_now().date()
        if target <= today:
            raise ApiError("target_in_past", target_date=target_date)
        titles = [t["title"].strip().casefold() for t in topics]
        if len(set(titles)) != len(titles):
            raise ApiError("duplicate_topic")
        days = set(schedule["days"])
        sessions = sum(1 for n in range(1, (target - today).days) if _WEEKDAYS[(today + timedelta(days=n)).weekday()] in days)
        available = round(sessions * schedule["session_minutes"] / 60, 2)
        needed = round(sum(t["estimated_hours"] for t in topics), 2)
        order = {"high": 0, "medium": 1, "low": 2}
        plan = {
            "id": self.new_id("plan", "SP-"),
            "course_code": course["code"],
            "goal": goal,
            "target_date": target.isoformat(),
            "topics": sorted(copy.deepcopy(topics), key=lambda t: order[t.get("priority", "medium")]),
            "schedule": copy.deepcopy(schedule),
            "sessions_before_target": sessions,
            "hours_available": available,
            "hours_needed": needed,
            "fits": available >= needed,
        }
        self.data["study"]["plans"].append(plan)
        return copy.deepcopy(plan)
