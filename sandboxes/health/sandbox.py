"""The health sandbox: Su Qing's personal health app.

The app books doctor appointments (``data.doctors`` with weekly consulting hours, half-hour slots,
``data.appointments``), starts online consultations now with a doctor on call
(``data.on_call``, ``data.consultations``), keeps medication reminders with dosage schedules
(``data.medication_reminders``), daily logs of activity, sleep, heart rate, blood pressure and
body weight (``data.logs``), symptom notes, and shares reports with doctors or family. Every public method
implements the spec ``specs/health/<method>.yaml``.

Dates are ``YYYY-MM-DD``, times of day ``HH:MM`` and moments ``YYYY-MM-DDTHH:MM``, all in the local
zone of the sandbox clock, which never moves here.
"""

from __future__ import annotations

import copy
from datetime import date, datetime, timedelta
from typing import Any, ClassVar

from validator.sandbox.base import ApiError, Sandbox

_MINUTE_FORMAT = "%Y-%m-%dT%H:%M"
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_SLOT_MINUTES = 30
_MAX_SUMMARY_DAYS = 92


def _clean_name(name: str) -> str:
    """'Dr. Fang Yu', 'dr fang yu', '方雨医生' → the bare name, case-folded."""
    text = name.strip()
    for prefix in ("dr.", "dr ", "doctor "):
        if text.casefold().startswith(prefix):
            text = text[len(prefix):].strip()
    for suffix in ("医生", "大夫"):
        if text.endswith(suffix):
            text = text[: -len(suffix)].strip()
    return text.casefold()


def _bp_category(systolic: int, diastolic: int) -> str:
    if systolic > 180 or diastolic > 120:
        return "crisis"
    if systolic >= 140 or diastolic >= 90:
        return "stage_2"
    if systolic >= 130 or diastolic >= 80:
        return "stage_1"
    if systolic >= 120:
        return "elevated"
    return "normal"


class HealthSandbox(Sandbox):
    """The app; ``self.data`` holds ``profile``, ``doctors``, ``appointments``, ``medication_reminders``, ``logs``, …"""

    name: ClassVar[str] = "health"
    name_folds = {"doctor": _clean_name}  # titles never decide who is meant

    # ------------------------------------------------------------------ helpers (private)

    def _local_now(self) -> datetime:
        return self.now().replace(tzinfo=None, second=0, microsecond=0)

    def _today(self) -> date:
        return self._local_now().date()

    def _date(self, value: str, field: str = "date") -> date:
        try:
            return date.fromisoformat(value)
        except (TypeError, ValueError):
            raise ApiError("invalid_date", field=field, value=value) from None

    def _minute(self, value: str, field: str) -> datetime:
        try:
            return datetime.strptime(value, _MINUTE_FORMAT)
        except (TypeError, ValueError):
            raise ApiError("invalid_time", field=field, value=value) from None

    def _past_day(self, value: str, field: str = "date") -> date:
        day = self._date(value, field)
        if day > self._today():
            raise ApiError("date_in_future", field=field, value=value)
        return day

    def _past_moment(self, value: str, field: str) -> datetime:
        moment = self._minute(value, field)
        if moment > self._local_now():
            raise ApiError("time_in_future", field=field, value=value)
        return moment

    def _range(self, start: str, end: str) -> tuple[date, date]:
        first, last = self._date(start, "start_date"), self._date(end, "end_date")
        if last < first or (last - first).days >= _MAX_SUMMARY_DAYS:
            raise ApiError("invalid_range", start_date=start, end_date=end, max_days=_MAX_SUMMARY_DAYS)
        return first, last

    def _doctor(self, name: str) -> dict[str, Any]:
        found = self.find_named("doctor", name)  # state.yaml `names.doctor`
        if found is not None:
            return found[1]
        raise ApiError("doctor_not_found", doctor=name)

    def _slots(self, doctor: dict[str, Any], day: date) -> list[str]:
        """Free half-hour slots of a doctor on one day, in the future only."""
        hours = doctor["hours"].get(_WEEKDAYS[day.weekday()])
        if not hours:
            return []
        taken = {a["time"] for a in self.data["appointments"] if a["doctor_id"] == doctor["id"] and a["status"] == "upcoming"}
        start = datetime.combine(day, datetime.strptime(hours[0], "%H:%M").time())
        end = datetime.combine(day, datetime.strptime(hours[1], "%H:%M").time())
        free = []
        while start < end:
            text = start.strftime(_MINUTE_FORMAT)
            if start > self._local_now() and text not in taken:
                free.append(start.strftime("%H:%M"))
            start += timedelta(minutes=_SLOT_MINUTES)
        return free

    def _public_doctor(self, doctor: dict[str, Any]) -> dict[str, Any]:
        return {key: copy.deepcopy(doctor[key]) for key in ("id", "name", "aliases", "department", "hospital", "languages", "rating", "accepts_insurance", "visit_types", "fee")}

    def _reminder(self, reminder_id: str) -> dict[str, Any]:
        for reminder in self.data["medication_reminders"]:
            if reminder["id"] == reminder_id:
                return reminder
        raise ApiError("reminder_not_found", reminder_id=reminder_id)

    # ------------------------------------------------------------------ health.appointments

    def search_doctors(
        self,
        department: str,
        date: str | None = None,
        visit_type: str | None = None,
        language: str | None = None,
        accepts_insurance: bool = False,
        min_rating: float = 0,
    ) -> dict[str, Any]:
        day = self._date(date) if date is not None else None
        rows = []
        for doctor in self.data["doctors"].values():
            if doctor["department"] != department or doctor["rating"] < min_rating:
                continue
            if visit_type is not None and visit_type not in doctor["visit_types"]:
                continue
            if language is not None and language not in doctor["languages"]:
                continue
            if accepts_insurance and not doctor["accepts_insurance"]:
                continue
            row = self._public_doctor(doctor)
            if day is not None:
                row["free_slots"] = self._slots(doctor, day)
            rows.append(row)
        rows.sort(key=lambda d: (-d["rating"], d["id"]))
        return {"doctors": rows, "count": len(rows)}

    def book_doctor_appointment(
        self,
        doctor: str,
        date: str,
        time: str,
        visit_type: str,
        first_visit: bool = False,
        use_insurance: bool = False,
        symptoms: list[str] | None = None,
        reminder_minutes_before: int = 60,
    ) -> dict[str, Any]:
        found = self._doctor(doctor)
        moment = self._minute(f"{date}T{time}", "time")
        if moment <= self._local_now():
            raise ApiError("time_in_past", time=f"{date}T{time}")
        if visit_type not in found["visit_types"]:
            raise ApiError("visit_type_not_offered", doctor=found["name"], offered=found["visit_types"])
        if use_insurance and not found["accepts_insurance"]:
            raise ApiError("insurance_not_accepted", doctor=found["name"])
        text = moment.strftime(_MINUTE_FORMAT)
        if moment.strftime("%H:%M") not in self._slots(found, moment.date()):
            hours = found["hours"].get(_WEEKDAYS[moment.weekday()])
            taken = any(a["time"] == text and a["doctor_id"] == found["id"] and a["status"] == "upcoming" for a in self.data["appointments"])
            if taken:
                raise ApiError("slot_taken", doctor=found["name"], time=text)
            raise ApiError("outside_hours", doctor=found["name"], hours=hours, weekday=_WEEKDAYS[moment.weekday()])
        if any(a["time"] == text and a["status"] == "upcoming" for a in self.data["appointments"]):
            raise ApiError("double_booked", time=text)
        appointment = {
            "id": self.new_id("appointment", "AP-"),
            "doctor_id": found["id"],
            "doctor": found["name"],
            "department": found["department"],
            "hospital": found["hospital"],
            "time": text,
            "visit_type": visit_type,
            "first_visit": first_visit,
            "use_insurance": use_insurance,
            "symptoms": list(symptoms or []),
            "reminder_minutes_before": reminder_minutes_before,
            "fee": found["fee"],
            "status": "upcoming",
            "cancel_reason": None,
            "shared_notes": [],
        }
        self.data["appointments"].append(appointment)
        return copy.deepcopy(appointment)

    def cancel_doctor_appointment(self, appointment_id: str, reason: str = "other") -> dict[str, Any]:
        appointment = next((a for a in self.data["appointments"] if a["id"] == appointment_id), None)
        if appointment is None:
            raise ApiError("appointment_not_found", appointment_id=appointment_id)
        if appointment["status"] != "upcoming":
            raise ApiError("not_cancellable", status=appointment["status"])
        if self._minute(appointment["time"], "time") - self._local_now() < timedelta(hours=2):
            raise ApiError("too_late_to_cancel", time=appointment["time"])
        appointment["status"] = "cancelled"
        appointment["cancel_reason"] = reason
        return copy.deepcopy(appointment)

    def list_doctor_appointments(self, status: str = "upcoming") -> dict[str, Any]:
        rows = [a for a in self.data["appointments"] if status == "all" or a["status"] == status]
        rows = sorted(rows, key=lambda a: (a["time"], a["id"]))
        return {"appointments": copy.deepcopy(rows), "count": len(rows)}

    def reschedule_doctor_appointment(self, appointment_id: str, new_date: str, new_time: str) -> dict[str, Any]:
        appointment = next((a for a in self.data["appointments"] if a["id"] == appointment_id), None)
        if appointment is None:
            raise ApiError("appointment_not_found", appointment_id=appointment_id)
        if appointment["status"] != "upcoming":
            raise ApiError("not_changeable", status=appointment["status"])
        if self._minute(appointment["time"], "time") - self._local_now() < timedelta(hours=2):
            raise ApiError("too_late_to_change", time=appointment["time"])
        doctor = self.data["doctors"][appointment["doctor_id"]]
        moment = self._minute(f"{new_date}T{new_time}", "time")
        text = moment.strftime(_MINUTE_FORMAT)
        if text == appointment["time"]:
            raise ApiError("same_time", time=text)
        if moment <= self._local_now():
            raise ApiError("time_in_past", time=text)
        if moment.strftime("%H:%M") not in self._slots(doctor, moment.date()):
            taken = any(a["time"] == text and a["doctor_id"] == doctor["id"] and a["status"] == "upcoming" for a in self.data["appointments"])
            if taken:
                raise ApiError("slot_taken", doctor=doctor["name"], time=text)
            raise ApiError("outside_hours", doctor=doctor["name"], hours=doctor["hours"].get(_WEEKDAYS[moment.weekday()]), weekday=_WEEKDAYS[moment.weekday()])
        if any(a["time"] == text and a["status"] == "upcoming" and a is not appointment for a in self.data["appointments"]):
            raise ApiError("double_booked", time=text)
        old = appointment["time"]
        appointment["time"] = text
        return {**copy.deepcopy(appointment), "previous_time": old}

    def _on_duty(self, department: str, mode: str | None, language: str | None) -> list[dict[str, Any]]:
        """Doctors of a department on call at this minute, shortest wait first (then by name)."""
        minute = self._local_now().strftime("%H:%M")
        on_duty = [
            d
            for d in self.data["on_call"]
            if d["department"] == department
            and (mode is None or mode in d["modes"])
            and (language is None or language in d["languages"])
            and d["hours"][0] <= minute < d["hours"][1]
        ]
        return sorted(on_duty, key=lambda d: (d["wait_minutes"], d["name"]))

    def list_on_call_doctors(self, department: str, mode: str | None = None, language: str | None = None) -> dict[str, Any]:
        now = self._local_now()
        rows = [
            {
                "name": d["name"],
                "department": d["department"],
                "languages": list(d["languages"]),
                "modes": list(d["modes"]),
                "wait_minutes": d["wait_minutes"],
                "expected_start": (now + timedelta(minutes=d["wait_minutes"])).strftime(_MINUTE_FORMAT),
                "fee": d["fee"],
            }
            for d in self._on_duty(department, mode, language)
        ]
        return {"doctors": rows, "count": len(rows)}

    def start_online_consultation(
        self, department: str, symptoms: list[str], mode: str = "video", language: str | None = None
    ) -> dict[str, Any]:
        now = self._local_now()
        on_duty = self._on_duty(department, mode, language)
        if not on_duty:
            raise ApiError("no_doctor_available", department=department, mode=mode, language=language)
        for consultation in self.data["consultations"]:
            if consultation["status"] == "waiting":
                raise ApiError("consultation_in_progress", consultation_id=consultation["id"])
        doctor = on_duty[0]
        consultation = {
            "id": self.new_id("consultation", "CO-"),
            "doctor": doctor["name"],
            "department": department,
            "mode": mode,
            "language": language or doctor["languages"][0],
            "symptoms": list(symptoms),
            "requested_at": now.strftime(_MINUTE_FORMAT),
            "expected_start": (now + timedelta(minutes=doctor["wait_minutes"])).strftime(_MINUTE_FORMAT),
            "fee": doctor["fee"],
            "status": "waiting",
        }
        self.data["consultations"].append(consultation)
        return copy.deepcopy(consultation)

    # ------------------------------------------------------------------ health.medication

    def add_medication_reminder(
        self,
        medication: str,
        dosage: dict[str, Any],
        schedule: dict[str, Any],
        start_date: str,
        end_date: str | None = None,
        refill_alert: dict[str, Any] | None = None,
        notes: str | None = None,
    ) -> dict[str, Any]:
        start = self._date(start_date, "start_date")
        if start < self._today():
            raise ApiError("start_in_past", start_date=start_date)
        if end_date is not None and self._date(end_date, "end_date") < start:
            raise ApiError("end_before_start", start_date=start_date, end_date=end_date)
        wanted = medication.strip().casefold()
        for existing in self.data["medication_reminders"]:
            if existing["medication"].casefold() == wanted and not existing["paused"]:
                raise ApiError("duplicate_reminder", reminder_id=existing["id"])
        if refill_alert is not None and refill_alert["alert_below"] > refill_alert["pills_remaining"]:
            raise ApiError("refill_already_due", **refill_alert)
        reminder = {
            "id": self.new_id("medication", "MR-"),
            "medication": medication.strip(),
            "dosage": copy.deepcopy(dosage),
            "schedule": {
                "times": sorted(schedule["times"]),
                "days": sorted(schedule.get("days", _WEEKDAYS), key=_WEEKDAYS.index),
                "meal_timing": schedule.get("meal_timing", "any"),
            },
            "start_date": start.isoformat(),
            "end_date": end_date,
            "refill_alert": copy.deepcopy(refill_alert),
            "notes": notes,
            "paused": False,
            "resume_on": None,
        }
        self.data["medication_reminders"].append(reminder)
        return copy.deepcopy(reminder)

    def pause_medication_reminder(self, reminder_id: str, paused: bool, resume_on: str | None = None) -> dict[str, Any]:
        reminder = self._reminder(reminder_id)
        if resume_on is not None:
            if not paused:
                raise ApiError("resume_needs_pause")
            if self._date(resume_on, "resume_on") <= self._today():
                raise ApiError("resume_in_past", resume_on=resume_on)
        reminder["paused"] = paused
        reminder["resume_on"] = resume_on if paused else None
        return copy.deepcopy(reminder)

    def list_medication_reminders(self, include_paused: bool = True) -> dict[str, Any]:
        rows = [r for r in self.data["medication_reminders"] if include_paused or not r["paused"]]
        return {"reminders": copy.deepcopy(rows), "count": len(rows)}

    # ------------------------------------------------------------------ health.tracking

    def log_activity(
        self,
        date: str,
        steps: int,
        distance_km: float | None = None,
        active_minutes: int | None = None,
        floors_climbed: int | None = None,
        workout: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        day = self._past_day(date)
        entry = {
            "date": day.isoformat(),
            "steps": steps,
            "distance_km": distance_km,
            "active_minutes": active_minutes,
            "floors_climbed": floors_climbed,
            "workout": copy.deepcopy(workout),
        }
        activity = self.data["logs"]["activity"]
        replaced = day.isoformat() in activity
        activity[day.isoformat()] = entry
        goal = self.data["profile"]["daily_step_goal"]
        return {**copy.deepcopy(entry), "replaced": replaced, "step_goal": goal, "goal_met": steps >= goal}

    def log_sleep(
        self,
        date: str,
        bedtime: str,
        wake_time: str,
        quality: str,
        awakenings: int = 0,
        nap_minutes: int = 0,
    ) -> dict[str, Any]:
        day = self._past_day(date)
        try:
            bed = datetime.strptime(bedtime, "%H:%M")
            wake = datetime.strptime(wake_time, "%H:%M")
        except ValueError:
            raise ApiError("invalid_time", bedtime=bedtime, wake_time=wake_time) from None
        minutes = int((wake - bed).total_seconds() // 60) % (24 * 60)
        if minutes == 0:
            raise ApiError("invalid_time", bedtime=bedtime, wake_time=wake_time)
        entry = {
            "date": day.isoformat(),
            "bedtime": bedtime,
            "wake_time": wake_time,
            "hours": round(minutes / 60, 2),
            "quality": quality,
            "awakenings": awakenings,
            "nap_minutes": nap_minutes,
        }
        sleep = self.data["logs"]["sleep"]
        replaced = day.isoformat() in sleep
        sleep[day.isoformat()] = entry
        return {**copy.deepcopy(entry), "replaced": replaced}

    def log_heart_rate(self, bpm: int, measured_at: str, context: str = "resting", irregular_rhythm: bool = False) -> dict[str, Any]:
        moment = self._past_moment(measured_at, "measured_at")
        entry = {
            "id": self.new_id("reading", "HR-"),
            "bpm": bpm,
            "measured_at": moment.strftime(_MINUTE_FORMAT),
            "context": context,
            "irregular_rhythm": irregular_rhythm,
        }
        self.data["logs"]["heart_rate"].append(entry)
        unusual = context == "resting" and not 50 <= bpm <= 100
        return {**copy.deepcopy(entry), "see_doctor_hint": bool(unusual or irregular_rhythm)}

    def log_blood_pressure(
        self,
        systolic: int,
        diastolic: int,
        measured_at: str,
        pulse: int | None = None,
        arm: str = "left",
        position: str = "sitting",
    ) -> dict[str, Any]:
        if diastolic >= systolic:
            raise ApiError("invalid_reading", systolic=systolic, diastolic=diastolic)
        moment = self._past_moment(measured_at, "measured_at")
        entry = {
            "id": self.new_id("reading", "BP-"),
            "systolic": systolic,
            "diastolic": diastolic,
            "pulse": pulse,
            "measured_at": moment.strftime(_MINUTE_FORMAT),
            "arm": arm,
            "position": position,
            "category": _bp_category(systolic, diastolic),
        }
        self.data["logs"]["blood_pressure"].append(entry)
        return copy.deepcopy(entry)

    def log_body_weight(self, weight_kg: float, measured_at: str, body_fat_percent: float | None = None) -> dict[str, Any]:
        moment = self._past_moment(measured_at, "measured_at")
        entry = {
            "id": self.new_id("reading", "WT-"),
            "weight_kg": round(weight_kg, 1),
            "measured_at": moment.strftime(_MINUTE_FORMAT),
            "body_fat_percent": body_fat_percent,
        }
        self.data["logs"]["weight"].append(entry)
        height = self.data["profile"]["height_cm"] / 100
        return {**copy.deepcopy(entry), "bmi": round(entry["weight_kg"] / (height * height), 1)}

    def add_symptom_note(
        self,
        symptoms: list[dict[str, Any]],
        started_on: str | None = None,
        body_temperature_c: float | None = None,
        note: str | None = None,
        share_with_doctor: bool = False,
    ) -> dict[str, Any]:
        names = [s["name"].strip().casefold() for s in symptoms]
        if len(set(names)) != len(names):
            raise ApiError("duplicate_symptom")
        if started_on is not None:
            self._past_day(started_on, "started_on")
        shared_with = None
        if share_with_doctor:
            # The next appointment still to come: one whose time has passed is not "upcoming" for
            # the doctor, even while its status has not been closed yet.
            now = self._local_now().strftime(_MINUTE_FORMAT)
            upcoming = sorted((a for a in self.data["appointments"] if a["status"] == "upcoming" and a["time"] > now), key=lambda a: (a["time"], a["id"]))
            if not upcoming:
                raise ApiError("no_upcoming_appointment")
            shared_with = upcoming[0]
        entry = {
            "id": self.new_id("note", "SN-"),
            "written_at": self._local_now().strftime(_MINUTE_FORMAT),
            "symptoms": copy.deepcopy(symptoms),
            "started_on": started_on,
            "body_temperature_c": body_temperature_c,
            "note": note,
            "shared_with_appointment": shared_with["id"] if shared_with else None,
        }
        self.data["logs"]["symptom_notes"].append(entry)
        if shared_with is not None:
            shared_with["shared_notes"].append(entry["id"])
        fever = body_temperature_c is not None and body_temperature_c >= 37.3
        return {**copy.deepcopy(entry), "fever": fever}

    # ------------------------------------------------------------------ health.reports

    def _summary(self, first: date, last: date, metrics: list[str]) -> dict[str, Any]:
        logs = self.data["logs"]

        def within(day_text: str) -> bool:
            return first.isoformat() <= day_text[:10] <= last.isoformat()

        out: dict[str, Any] = {}
        if "steps" in metrics:
            days = [e for d, e in sorted(logs["activity"].items()) if within(d)]
            total = sum(e["steps"] for e in days)
            out["steps"] = {"days_logged": len(days), "total": total, "daily_average": round(total / len(days)) if days else None}
        if "sleep" in metrics:
            nights = [e for d, e in sorted(logs["sleep"].items()) if within(d)]
            out["sleep"] = {
                "nights_logged": len(nights),
                "average_hours": round(sum(e["hours"] for e in nights) / len(nights), 2) if nights else None,
            }
        if "heart_rate" in metrics:
            readings = [e for e in logs["heart_rate"] if within(e["measured_at"])]
            resting = [e["bpm"] for e in readings if e["context"] == "resting"]
            out["heart_rate"] = {
                "readings": len(readings),
                "resting_average": round(sum(resting) / len(resting)) if resting else None,
                "max": max((e["bpm"] for e in readings), default=None),
            }
        if "blood_pressure" in metrics:
            readings = [e for e in logs["blood_pressure"] if within(e["measured_at"])]
            out["blood_pressure"] = {
                "readings": len(readings),
                "average": (
                    f"{round(sum(e['systolic'] for e in readings) / len(readings))}/"
                    f"{round(sum(e['diastolic'] for e in readings) / len(readings))}"
                )
                if readings
                else None,
            }
        if "weight" in metrics:
            readings = sorted((e for e in logs["weight"] if within(e["measured_at"])), key=lambda e: e["measured_at"])
            out["weight"] = {
                "readings": len(readings),
                "latest_kg": readings[-1]["weight_kg"] if readings else None,
                "change_kg": round(readings[-1]["weight_kg"] - readings[0]["weight_kg"], 1) if readings else None,
            }
        if "symptoms" in metrics:
            notes = [e for e in logs["symptom_notes"] if within(e["written_at"])]
            out["symptoms"] = {"notes": len(notes), "names": sorted({s["name"] for e in notes for s in e["symptoms"]})}
        return out

    def get_health_summary(self, start_date: str, end_date: str, metrics: list[str]) -> dict[str, Any]:
        first, last = self._range(start_date, end_date)
        return {"start_date": first.isoformat(), "end_date": last.isoformat(), "summary": self._summary(first, last, metrics)}

    def share_health_report(
        self,
        recipient: dict[str, Any],
        report: dict[str, Any],
        include_symptom_notes: bool = False,
        expires_in_days: int = 7,
    ) -> dict[str, Any]:
        period = report["period"]
        first, last = self._range(period["start_date"], period["end_date"])
        if last > self._today():
            raise ApiError("date_in_future", field="end_date", value=period["end_date"])
        metrics = list(dict.fromkeys(report["metrics"]))
        if include_symptom_notes and "symptoms" not in metrics:
            metrics.append("symptoms")
        share = {
            "id": self.new_id("share", "SH-"),
            "recipient": copy.deepcopy(recipient),
            "metrics": metrics,
            "period": {"start_date": first.isoformat(), "end_date": last.isoformat()},
            "format": report.get("format", "pdf"),
            "expires_on": (self._today() + timedelta(days=expires_in_days)).isoformat(),
        }
        self.data["shares"].append(share)
        return {**copy.deepcopy(share), "summary": self._summary(first, last, metrics)}
