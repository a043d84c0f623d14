"""The office sandbox's own business rules (the contract of every sandbox: test_contract.py)."""

from __future__ import annotations

from typing import Any

from tests.sandboxes import support
from validator.sandbox.base import Sandbox

NAME = "office"
STATE = support.state(NAME)
run, error_kind = support.call, support.error_kind


def fresh(patch: dict[str, Any] | None = None, clock: str | None = None) -> Sandbox:
    return support.fresh(NAME, patch, clock=clock)


def test_catalogue_size() -> None:
    support.check_catalogue(NAME, 8, (1, 2))


# ----------------------------------------------------------------------------- data


def test_ids_and_references_are_consistent() -> None:
    data = STATE["data"]
    for table, counter, prefix in [
        ("tasks", "task", "T-"), ("documents", "document", "D-"), ("emails", "email", "EM-"),
        ("drafts", "draft", "DR-"), ("expenses", "expense", "X-"), ("reports", "report", "ER-"),
        ("scheduled_emails", "scheduled_email", "SE-"),
    ]:
        ids = [int(key.removeprefix(prefix)) for key in data[table]]
        assert max(ids) <= STATE["counters"][counter], f"counter {counter} would reissue an id"
    for report_id, report in data["reports"].items():
        for expense_id in report["expense_ids"]:
            assert data["expenses"][expense_id]["report_id"] == report_id
    for expense in data["expenses"].values():
        assert expense["currency"] in data["rates"]
    for email in [*data["emails"].values(), *data["drafts"].values()]:
        assert set(email["attachments"]) <= set(data["documents"])


# ----------------------------------------------------------------------------- business rules


def test_tasks() -> None:
    sandbox = fresh()
    listed = run(sandbox, "list_tasks")["tasks"]
    assert listed[0]["task_id"] == "T-48" and listed[0]["overdue"] is True
    assert listed[-1]["task_id"] == "T-46"  # undated last
    assert [t["task_id"] for t in run(sandbox, "list_tasks", status="done")["tasks"]] == ["T-40"]
    assert [t["task_id"] for t in run(sandbox, "list_tasks", project="q3 planning")["tasks"]] == ["T-41", "T-43"]
    assert [t["task_id"] for t in run(sandbox, "list_tasks", due_before="2024-07-17")["tasks"]] == ["T-48", "T-41", "T-44"]
    task = run(sandbox, "create_task", title="Call the printer vendor", due_date="2024-07-17", priority="high")
    assert task["task_id"] == "T-49" and task["status"] == "open"
    assert error_kind(sandbox, "create_task", title="x", due_date="2024-07-14") == "date_in_past"
    assert error_kind(sandbox, "update_task", task_id="T-41") == "nothing_to_update"
    assert run(sandbox, "update_task", task_id="T-41", due_date="2024-07-18")["due_date"] == "2024-07-18"
    assert run(sandbox, "complete_task", task_id="T-44")["status"] == "done"
    assert error_kind(sandbox, "complete_task", task_id="T-44") == "already_done"
    assert error_kind(sandbox, "complete_task", task_id="T-1") == "task_not_found"


def test_documents() -> None:
    sandbox = fresh()
    assert [d["document_id"] for d in run(sandbox, "search_documents", query="okr")["documents"]] == ["D-101"]
    assert [d["document_id"] for d in run(sandbox, "search_documents", query="报价")["documents"]] == ["D-103"]
    assert [d["document_id"] for d in run(sandbox, "search_documents", query="onboarding", kind="slides")["documents"]] == ["D-102", "D-109"]
    assert [d["document_id"] for d in run(sandbox, "search_documents", query="onboarding", owned_by_me=True)["documents"]] == ["D-109", "D-105"]
    assert error_kind(sandbox, "share_document", document_id="D-102", people=["Zhang Wei"]) == "not_owner"
    assert error_kind(sandbox, "share_document", document_id="D-104", people=["Nobody"]) == "unknown_recipient"
    shared = run(sandbox, "share_document", document_id="D-104", people=["徐晴", "xu.qing@northpeak.example"], permission="comment")
    assert shared["shared_with"] == {"xu.qing@northpeak.example": "comment"}
    note = run(sandbox, "create_note", title="Ideas", content="Shorter signup", tags=["Onboarding", "onboarding"])
    assert note["document_id"] == "D-110" and note["tags"] == ["onboarding"] and note["folder"] == "Notes"


def test_mail() -> None:
    sandbox = fresh()
    assert run(sandbox, "search_emails", unread_only=True)["count"] == 5
    assert [e["email_id"] for e in run(sandbox, "search_emails", sender="Tom Becker")["emails"]] == ["EM-3292"]
    assert run(sandbox, "search_emails", folder="sent")["count"] == 1
    assert run(sandbox, "search_emails", folder="drafts", query="pricing")["emails"][0]["draft_id"] == "DR-11"
    draft = run(sandbox, "draft_email", to=["Li Nan"], subject="Mockups", body="Looks good")
    assert draft["draft_id"] == "DR-13" and draft["sent"] is False
    assert run(sandbox, "search_emails", folder="sent")["count"] == 1  # a draft is not sent
    sent = run(sandbox, "send_email", to=["张伟"], cc=["Guo Ming"], subject="Launch slides", body="Attached.", attachments=["D-109"])
    assert sent["email_id"] == "EM-3297" and sent["to"] == ["zhang.wei@northpeak.example"]
    assert error_kind(sandbox, "send_email", to=["Zhang"], subject="x", body="y") == "unknown_recipient"
    assert error_kind(sandbox, "send_email", to=["Zhang Wei"], subject="x", body="y", attachments=["D-1"]) == "document_not_found"
    from_draft = run(sandbox, "send_draft", draft_id="DR-11")
    assert from_draft["email_id"] == "EM-3298" and "DR-11" not in sandbox.data["drafts"]
    assert error_kind(sandbox, "send_draft", draft_id="DR-11") == "draft_not_found"


def test_expenses() -> None:
    sandbox = fresh()
    june = run(sandbox, "list_expenses", status="unreported", month="2024-06")
    assert june["count"] == 8 and june["total_cny"] == 3954.0 + 3868.2 + 354.58 + 574.7  # Chengdu, then London in GBP
    usd = run(sandbox, "add_expense", amount=42.5, currency="USD", category="meals", date="2024-07-14", merchant="Blue Door Diner", note="Client lunch")
    assert usd["expense_id"] == "X-87" and usd["amount_cny"] == 303.02
    assert error_kind(sandbox, "add_expense", amount=420, category="meals", date="2024-07-12", merchant="Hai Di Lao") == "note_required"
    assert error_kind(sandbox, "add_expense", amount=20, category="taxi", date="2024-07-16", merchant="DiDi") == "date_in_future"
    assert error_kind(sandbox, "add_expense", amount=20, category="taxi", date="2024-04-01", merchant="DiDi") == "too_old"
    assert error_kind(sandbox, "submit_expense_report", title="x", expense_ids=["X-86"]) == "already_reported"
    assert error_kind(sandbox, "submit_expense_report", title="x", expense_ids=["X-81"], approver="lin.yue@northpeak.example") == "self_approval"
    report = run(sandbox, "submit_expense_report", title="June Chengdu trip", expense_ids=["X-81", "X-82", "X-83", "X-84", "X-85"])
    assert report["report_id"] == "ER-10" and report["total_cny"] == 3954.0 and report["approver"] == "guo.ming@northpeak.example"
    assert run(sandbox, "list_expenses", status="unreported")["count"] == 4
    assert error_kind(sandbox, "list_expenses", month="2024-13") == "invalid_month"


def test_same_calls_same_results() -> None:
    def script() -> tuple[list[Any], dict[str, Any]]:
        sandbox = fresh()
        results = [
            run(sandbox, "add_expense", amount=120, currency="HKD", category="taxi", date="2024-07-13", merchant="HK Taxi"),
            run(sandbox, "submit_expense_report", title="HK", expense_ids=["X-87"], approver="Zhao Min"),
            run(sandbox, "send_email", to=["Zhao Min"], subject="Report", body="Submitted."),
        ]
        return results, sandbox.state

    assert script() == script()


# ----------------------------------------------------------------------------- replies, forwards, scheduled mail


def test_reply_to_the_sender_or_to_everyone() -> None:
    sandbox = fresh()
    reply = run(sandbox, "reply_to_email", email_id="EM-3292", body="Sending it today.")
    assert reply["to"] == ["tom.becker@harborlog.example"] and reply["cc"] == [] and reply["subject"] == "Re: Pricing for the Q3 renewal"
    assert reply["email_id"] == "EM-3297" and reply["in_reply_to"] == "EM-3292"
    everyone = run(sandbox, "reply_to_email", email_id="EM-3288", body="Timeline attached.", reply_all=True, attachments=["D-100"])
    assert everyone["to"] == ["charlotte.hughes@thamesbridge.example"] and everyone["cc"] == ["oliver.grant@northpeak.example"]
    assert sandbox.data["emails"]["EM-3288"]["read"] is True
    assert sandbox.data["emails"]["EM-3298"]["attachments"] == ["D-100"]
    follow_up = run(sandbox, "reply_to_email", email_id="EM-3290", body="Slides attached after all.")
    assert follow_up["to"] == ["zhang.wei@northpeak.example"] and follow_up["subject"] == "Re: launch slides", "no second Re:"
    assert error_kind(sandbox, "reply_to_email", email_id="EM-3295", body="See you", reply_all=True) == "mailing_list_reply"
    assert run(sandbox, "reply_to_email", email_id="EM-3295", body="See you")["to"] == ["xu.qing@northpeak.example"]
    assert error_kind(sandbox, "reply_to_email", email_id="EM-1", body="x") == "email_not_found"
    assert error_kind(sandbox, "reply_to_email", email_id="EM-3292", body="x", attachments=["D-1"]) == "document_not_found"


def test_forward_keeps_the_attachments_unless_told() -> None:
    sandbox = fresh()
    forwarded = run(sandbox, "forward_email", email_id="EM-3293", to=["Oliver Grant"], note="FYI before our call", cc=["Ma Jun"])
    assert forwarded["subject"] == "Fwd: Q3 roadmap review - pre-read" and forwarded["attachments"] == ["D-101"]
    assert forwarded["to"] == ["oliver.grant@northpeak.example"] and forwarded["cc"] == ["ma.jun@northpeak.example"]
    body = sandbox.data["emails"][forwarded["email_id"]]["body"]
    assert body.startswith("FYI before our call\n\n---------- Forwarded message ----------\nFrom: guo.ming@northpeak.example")
    bare = run(sandbox, "forward_email", email_id="EM-3294", to=["sophie.tremblay@mapleleaf.example"], include_attachments=False)
    assert bare["attachments"] == [] and sandbox.data["emails"][bare["email_id"]]["forwarded_from"] == "EM-3294"
    assert error_kind(sandbox, "forward_email", email_id="EM-3294", to=["Someone"]) == "unknown_recipient"
    assert error_kind(sandbox, "forward_email", email_id="EM-9", to=["Ma Jun"]) == "email_not_found"


def test_schedule_an_email_for_later() -> None:
    sandbox = fresh()
    scheduled = run(sandbox, "schedule_email", to=["Charlotte Hughes"], subject="Pilot timeline", body="Dear Charlotte, ...",
                    send_at="2024-07-15T16:00", cc=["Oliver"], attachments=["D-100"])
    assert scheduled["scheduled_id"] == "SE-4" and scheduled["sent"] is False and scheduled["cc"] == ["oliver.grant@northpeak.example"]
    assert run(sandbox, "search_emails", folder="sent")["count"] == 1, "nothing is sent yet"
    assert [e["scheduled_id"] for e in run(sandbox, "search_emails", folder="scheduled")["emails"]] == ["SE-4", "SE-3"]
    assert run(sandbox, "search_emails", folder="scheduled", query="allergy")["count"] == 1
    assert error_kind(sandbox, "schedule_email", to=["Zhao Min"], subject="x", body="y", send_at="2024-07-15T08:00") == "time_in_past"
    assert error_kind(sandbox, "schedule_email", to=["Zhao Min"], subject="x", body="y", send_at="2024-09-14T09:01") == "too_far_ahead"
    assert error_kind(sandbox, "schedule_email", to=["Zhao Min"], subject="x", body="y", send_at="2024-07-15T24:00") == "invalid_time"
    assert error_kind(sandbox, "schedule_email", to=["Zhao"], subject="x", body="y", send_at="2024-07-16T09:00") == "unknown_recipient"
    assert error_kind(sandbox, "schedule_email", to=["Zhao Min"], subject="x", body="y", send_at="2024-07-16T09:00", attachments=["D-1"]) == "document_not_found"


def test_london_expenses_in_pounds() -> None:
    sandbox = fresh()
    taxi = run(sandbox, "add_expense", amount=18.9, currency="GBP", category="taxi", date="2024-06-13", merchant="Heathrow Express")
    assert taxi["amount_cny"] == 174.07
    report = run(sandbox, "submit_expense_report", title="London workshop", expense_ids=["X-78", "X-79", "X-80", taxi["expense_id"]])
    assert report["total_cny"] == round(3868.2 + 354.58 + 574.7 + 174.07, 2)
