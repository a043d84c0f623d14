"""The office sandbox: Lin Yue's work suite at Northpeak — to-dos, documents, mail and expenses.

Four areas share one state: tasks (``T-…``), documents and notes (``D-…``), email (messages
``EM-…`` in the inbox and sent folders, drafts ``DR-…``, emails scheduled for later ``SE-…``)
and expenses (``X-…``) gathered into expense reports (``ER-…``). Replies and forwards are sent
mail that remember the message they answer (``in_reply_to`` / ``forwarded_from``). Every public method implements the spec ``specs/office/<method>.yaml``.

Dates are ``YYYY-MM-DD`` and times ``YYYY-MM-DDTHH:MM``, local to the sandbox clock. Money is kept
in the expense's own currency and converted to CNY with the fixed rates in the state, in integer
cents, so totals never drift.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any, ClassVar

from validator.sandbox.base import ApiError, Sandbox

_PRIORITY = ("urgent", "high", "normal", "low")


def _cents(amount: float) -> int:
    return int(round(amount * 100))


class OfficeSandbox(Sandbox):
    """``self.data``: ``owner``, ``people``, ``tasks``, ``documents``, ``emails``, ``drafts``,
    ``expenses``, ``reports``, ``rates`` and ``expense_policy``."""

    name: ClassVar[str] = "office"

    # ------------------------------------------------------------------ helpers (private)

    def _now_text(self) -> str:
        return self.now().strftime("%Y-%m-%dT%H:%M")

    def _today(self) -> str:
        return self.now().date().isoformat()

    def _parse_date(self, value: str) -> str:
        try:
            return datetime.strptime(value, "%Y-%m-%d").date().isoformat()
        except (TypeError, ValueError):
            raise ApiError("invalid_date", date=value) from None

    @property
    def _me(self) -> str:
        return self.data["owner"]["email"]

    def _address(self, label: str) -> str:
        """A colleague's email from their exact name, alias or email; any other email as written."""
        wanted = label.strip().casefold()
        found = self.find_named("person", label)  # a name (state.yaml `names.person`) …
        if found is not None:
            return str(found[1]["email"])
        for person in self.data["people"].values():  # … or a colleague's email, an identifier
            if wanted == person["email"].casefold():
                return str(person["email"])
        local, _, domain = wanted.partition("@")
        if local and "." in domain and " " not in wanted:
            return wanted
        raise ApiError("unknown_recipient", recipient=label)

    def _addresses(self, labels: list[str] | None) -> list[str]:
        return list(dict.fromkeys(self._address(label) for label in labels or []))

    def _task(self, task_id: str) -> dict[str, Any]:
        task = self.data["tasks"].get(task_id)
        if task is None:
            raise ApiError("task_not_found", task_id=task_id)
        return task

    def _attachments(self, ids: list[str] | None) -> list[str]:
        for doc_id in ids or []:
            if doc_id not in self.data["documents"]:
                raise ApiError("document_not_found", document_id=doc_id)
        return list(dict.fromkeys(ids or []))

    def _future_due(self, due_date: str) -> str:
        day = self._parse_date(due_date)
        if day < self._today():
            raise ApiError("date_in_past", date=day, today=self._today())
        return day

    # ------------------------------------------------------------------ office.tasks

    def create_task(
        self, title: str, due_date: str | None = None, priority: str = "normal", project: str | None = None
    ) -> dict[str, Any]:
        due = self._future_due(due_date) if due_date is not None else None
        task = {
            "title": title.strip(),
            "due_date": due,
            "priority": priority,
            "project": project,
            "status": "open",
            "created_at": self._now_text(),
            "completed_at": None,
        }
        task_id = self.new_id("task", "T-")
        self.data["tasks"][task_id] = task
        return {"task_id": task_id, **copy.deepcopy(task)}

    def list_tasks(self, status: str = "open", project: str | None = None, due_before: str | None = None) -> dict[str, Any]:
        limit = self._parse_date(due_before) if due_before is not None else None
        rows = []
        for task_id, task in self.data["tasks"].items():
            if status != "all" and task["status"] != status:
                continue
            if project is not None and (task["project"] or "").casefold() != project.strip().casefold():
                continue
            if limit is not None and (task["due_date"] is None or task["due_date"] >= limit):
                continue
            rows.append({"task_id": task_id, **copy.deepcopy(task), "overdue": task["status"] == "open" and task["due_date"] is not None and task["due_date"] < self._today()})
        # Undated tasks last; then by priority, then id, so the listing is stable.
        rows.sort(key=lambda t: (t["due_date"] is None, t["due_date"] or "", _PRIORITY.index(t["priority"]), int(t["task_id"][2:])))
        return {"tasks": rows, "count": len(rows)}

    def update_task(
        self, task_id: str, title: str | None = None, due_date: str | None = None, priority: str | None = None
    ) -> dict[str, Any]:
        task = self._task(task_id)
        if title is None and due_date is None and priority is None:
            raise ApiError("nothing_to_update")
        if due_date is not None:
            task["due_date"] = self._future_due(due_date)
        if title is not None:
            task["title"] = title.strip()
        if priority is not None:
            task["priority"] = priority
        return {"task_id": task_id, **copy.deepcopy(task)}

    def complete_task(self, task_id: str) -> dict[str, Any]:
        task = self._task(task_id)
        if task["status"] == "done":
            raise ApiError("already_done", task_id=task_id)
        task["status"] = "done"
        task["completed_at"] = self._now_text()
        return {"task_id": task_id, **copy.deepcopy(task)}

    # ------------------------------------------------------------------ office.docs

    def create_note(self, title: str, content: str, folder: str = "Notes", tags: list[str] | None = None) -> dict[str, Any]:
        document = {
            "title": title.strip(),
            "title_zh": None,
            "kind": "note",
            "folder": folder,
            "owner": self._me,
            "updated_at": self._now_text(),
            "tags": sorted({t.strip().casefold() for t in tags or []}),
            "content": content,
            "shared_with": {},
        }
        doc_id = self.new_id("document", "D-")
        self.data["documents"][doc_id] = document
        return {"document_id": doc_id, **copy.deepcopy(document)}

    def search_documents(self, query: str, kind: str | None = None, owned_by_me: bool = False) -> dict[str, Any]:
        wanted = query.strip().casefold()
        rows = []
        for doc_id, doc in sorted(self.data["documents"].items()):
            if kind is not None and doc["kind"] != kind:
                continue
            if owned_by_me and doc["owner"] != self._me:
                continue
            haystack = " ".join([doc["title"], doc.get("title_zh") or "", doc["folder"], doc.get("content") or "", *doc["tags"]]).casefold()
            if wanted in haystack:
                view = {k: copy.deepcopy(v) for k, v in doc.items() if k != "content"}
                view["my_access"] = "owner" if doc["owner"] == self._me else doc["shared_with"].get(self._me, "none")
                rows.append({"document_id": doc_id, **view})
        rows.sort(key=lambda d: (d["updated_at"], d["document_id"]), reverse=True)
        return {"documents": rows, "count": len(rows)}

    def share_document(self, document_id: str, people: list[str], permission: str = "view") -> dict[str, Any]:
        document = self.data["documents"].get(document_id)
        if document is None:
            raise ApiError("document_not_found", document_id=document_id)
        if document["owner"] != self._me:
            raise ApiError("not_owner", document_id=document_id, owner=document["owner"])
        emails = self._addresses(people)
        for email in emails:
            if email != self._me:
                document["shared_with"][email] = permission
        return {"document_id": document_id, "title": document["title"], "shared_with": copy.deepcopy(document["shared_with"])}

    # ------------------------------------------------------------------ office.mail

    def draft_email(
        self, to: list[str], subject: str, body: str, cc: list[str] | None = None, attachments: list[str] | None = None
    ) -> dict[str, Any]:
        draft = {
            "to": self._addresses(to),
            "cc": self._addresses(cc),
            "subject": subject,
            "body": body,
            "attachments": self._attachments(attachments),
            "created_at": self._now_text(),
        }
        draft_id = self.new_id("draft", "DR-")
        self.data["drafts"][draft_id] = draft
        return {"draft_id": draft_id, **copy.deepcopy(draft), "sent": False}

    def _deliver(self, message: dict[str, Any]) -> dict[str, Any]:
        email = {
            "folder": "sent",
            "from": self._me,
            "to": message["to"],
            "cc": message["cc"],
            "subject": message["subject"],
            "body": message["body"],
            "attachments": message["attachments"],
            "time": self._now_text(),
            "read": True,
        }
        email_id = self.new_id("email", "EM-")
        self.data["emails"][email_id] = email
        return {"email_id": email_id, "to": email["to"], "cc": email["cc"], "subject": email["subject"], "time": email["time"], "sent": True}

    def send_email(
        self, to: list[str], subject: str, body: str, cc: list[str] | None = None, attachments: list[str] | None = None
    ) -> dict[str, Any]:
        message = {
            "to": self._addresses(to),
            "cc": self._addresses(cc),
            "subject": subject,
            "body": body,
            "attachments": self._attachments(attachments),
        }
        return self._deliver(message)

    def send_draft(self, draft_id: str) -> dict[str, Any]:
        draft = self.data["drafts"].get(draft_id)
        if draft is None:
            raise ApiError("draft_not_found", draft_id=draft_id)
        if not draft["to"]:
            raise ApiError("no_recipients", draft_id=draft_id)
        result = self._deliver(draft)
        del self.data["drafts"][draft_id]
        return {**result, "draft_id": draft_id}

    def _email(self, email_id: str) -> dict[str, Any]:
        email = self.data["emails"].get(email_id)
        if email is None:
            raise ApiError("email_not_found", email_id=email_id)
        return email

    @staticmethod
    def _prefixed(prefix: str, subject: str) -> str:
        return subject if subject.casefold().startswith(prefix.casefold()) else f"{prefix} {subject}"

    def reply_to_email(
        self, email_id: str, body: str, reply_all: bool = False, attachments: list[str] | None = None
    ) -> dict[str, Any]:
        original = self._email(email_id)
        if original["folder"] == "sent":  # following up on one's own message goes to its recipients
            to, others = list(original["to"]), list(original["cc"])
        else:
            to, others = [original["from"]], [*original["to"], *original["cc"]]
        cc = [a for a in dict.fromkeys(others) if a != self._me and a not in to] if reply_all else []
        if any(address.startswith("all@") for address in to + cc):
            raise ApiError("mailing_list_reply", email_id=email_id)
        message = {
            "to": to,
            "cc": cc,
            "subject": self._prefixed("Re:", original["subject"]),
            "body": body,
            "attachments": self._attachments(attachments),
        }
        sent = self._deliver(message)
        self.data["emails"][sent["email_id"]]["in_reply_to"] = email_id
        original["read"] = True
        return {**sent, "in_reply_to": email_id}

    def forward_email(
        self,
        email_id: str,
        to: list[str],
        note: str | None = None,
        cc: list[str] | None = None,
        include_attachments: bool = True,
    ) -> dict[str, Any]:
        original = self._email(email_id)
        quoted = f"---------- Forwarded message ----------\nFrom: {original['from']}\nDate: {original['time']}\nSubject: {original['subject']}\n\n{original['body']}"
        message = {
            "to": self._addresses(to),
            "cc": self._addresses(cc),
            "subject": self._prefixed("Fwd:", original["subject"]),
            "body": f"{note}\n\n{quoted}" if note else quoted,
            "attachments": list(original["attachments"]) if include_attachments else [],
        }
        sent = self._deliver(message)
        self.data["emails"][sent["email_id"]]["forwarded_from"] = email_id
        return {**sent, "forwarded_from": email_id, "attachments": message["attachments"]}

    def schedule_email(
        self, to: list[str], subject: str, body: str, send_at: str, cc: list[str] | None = None, attachments: list[str] | None = None
    ) -> dict[str, Any]:
        try:
            when = datetime.strptime(send_at, "%Y-%m-%dT%H:%M")
        except (TypeError, ValueError):
            raise ApiError("invalid_time", send_at=send_at) from None
        now = self.now().replace(tzinfo=None, second=0, microsecond=0)
        if when <= now:
            raise ApiError("time_in_past", send_at=send_at, now=self._now_text())
        if when > now + timedelta(days=60):
            raise ApiError("too_far_ahead", send_at=send_at, latest=(now + timedelta(days=60)).strftime("%Y-%m-%dT%H:%M"))
        scheduled = {
            "to": self._addresses(to),
            "cc": self._addresses(cc),
            "subject": subject,
            "body": body,
            "attachments": self._attachments(attachments),
            "send_at": when.strftime("%Y-%m-%dT%H:%M"),
            "created_at": self._now_text(),
        }
        scheduled_id = self.new_id("scheduled_email", "SE-")
        self.data["scheduled_emails"][scheduled_id] = scheduled
        return {"scheduled_id": scheduled_id, **copy.deepcopy(scheduled), "sent": False}

    def search_emails(
        self, query: str | None = None, sender: str | None = None, unread_only: bool = False, folder: str = "inbox"
    ) -> dict[str, Any]:
        if folder == "scheduled":
            rows = [
                {"scheduled_id": scheduled_id, **copy.deepcopy(item)}
                for scheduled_id, item in sorted(self.data["scheduled_emails"].items(), key=lambda pair: (pair[1]["send_at"], pair[0]))
                if query is None or query.strip().casefold() in f"{item['subject']} {item['body']}".casefold()
            ]
            return {"folder": folder, "emails": rows, "count": len(rows)}
        if folder == "drafts":
            rows = [
                {"draft_id": draft_id, **copy.deepcopy(draft)}
                for draft_id, draft in sorted(self.data["drafts"].items())
                if query is None or query.strip().casefold() in f"{draft['subject']} {draft['body']}".casefold()
            ]
            return {"folder": folder, "emails": rows, "count": len(rows)}
        wanted_from = self._address(sender) if sender is not None else None
        rows = []
        for email_id, email in self.data["emails"].items():
            if email["folder"] != folder or (unread_only and email["read"]):
                continue
            if wanted_from is not None and email["from"] != wanted_from:
                continue
            if query is not None and query.strip().casefold() not in f"{email['subject']} {email['body']}".casefold():
                continue
            rows.append({"email_id": email_id, **copy.deepcopy(email)})
        rows.sort(key=lambda e: (e["time"], e["email_id"]), reverse=True)
        return {"folder": folder, "emails": rows, "count": len(rows)}

    # ------------------------------------------------------------------ office.expenses

    def add_expense(
        self,
        amount: float,
        category: str,
        date: str,
        merchant: str,
        currency: str = "CNY",
        note: str | None = None,
    ) -> dict[str, Any]:
        day = self._parse_date(date)
        if day > self._today():
            raise ApiError("date_in_future", date=day, today=self._today())
        policy = self.data["expense_policy"]
        oldest = (self.now().date() - timedelta(days=policy["max_age_days"])).isoformat()
        if day < oldest:
            raise ApiError("too_old", date=day, oldest_allowed=oldest)
        rate = self.data["rates"][currency]
        amount_cny = int(round(_cents(amount) * rate))  # in CNY cents
        limit = policy["limits_cny"].get(category)
        if limit is not None and amount_cny > _cents(limit) and not note:
            raise ApiError("note_required", category=category, limit_cny=limit, amount_cny=amount_cny / 100)
        expense = {
            "date": day,
            "amount": _cents(amount) / 100,
            "currency": currency,
            "amount_cny": amount_cny / 100,
            "category": category,
            "merchant": merchant.strip(),
            "note": note,
            "status": "unreported",
            "report_id": None,
        }
        expense_id = self.new_id("expense", "X-")
        self.data["expenses"][expense_id] = expense
        return {"expense_id": expense_id, **copy.deepcopy(expense)}

    def list_expenses(self, status: str = "all", month: str | None = None) -> dict[str, Any]:
        if month is not None:
            try:
                month = datetime.strptime(month, "%Y-%m").strftime("%Y-%m")
            except (TypeError, ValueError):
                raise ApiError("invalid_month", month=month) from None
        rows = [
            {"expense_id": expense_id, **copy.deepcopy(expense)}
            for expense_id, expense in self.data["expenses"].items()
            if (status == "all" or expense["status"] == status) and (month is None or expense["date"][:7] == month)
        ]
        rows.sort(key=lambda e: (e["date"], int(e["expense_id"][2:])))
        total = sum(_cents(e["amount_cny"]) for e in rows)
        return {"expenses": rows, "count": len(rows), "total_cny": total / 100}

    def submit_expense_report(self, title: str, expense_ids: list[str], approver: str | None = None) -> dict[str, Any]:
        ids = list(dict.fromkeys(expense_ids))
        for expense_id in ids:
            expense = self.data["expenses"].get(expense_id)
            if expense is None:
                raise ApiError("expense_not_found", expense_id=expense_id)
            if expense["status"] != "unreported":
                raise ApiError("already_reported", expense_id=expense_id, report_id=expense["report_id"])
        approver_email = self._address(approver) if approver is not None else self.data["owner"]["manager"]
        if approver_email == self._me:
            raise ApiError("self_approval")
        report_id = self.new_id("report", "ER-")
        total = sum(_cents(self.data["expenses"][i]["amount_cny"]) for i in ids)
        for expense_id in ids:
            self.data["expenses"][expense_id]["status"] = "submitted"
            self.data["expenses"][expense_id]["report_id"] = report_id
        report = {
            "title": title.strip(),
            "expense_ids": ids,
            "total_cny": total / 100,
            "approver": approver_email,
            "status": "submitted",
            "submitted_at": self._now_text(),
        }
        self.data["reports"][report_id] = report
        return {"report_id": report_id, **copy.deepcopy(report)}
