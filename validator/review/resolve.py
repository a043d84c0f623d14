"""The human side: two independent reviews, and a final decision by a third when they disagree.

This is ACEBench's process: data the judges flag goes to human experts; two review it
independently, and a third consolidates. Here:

1. A pending record takes a first review (``role: review``) from any reviewer.
2. A second review must come from a different reviewer. When both agree, their decision is the
   record's status (``accepted`` with ``accepted_hash``, or ``rejected``), ``decided_by: reviewers``.
3. When they disagree the record stays pending until a third reviewer, different from both,
   records the final decision (``role: final``), which becomes the status.

Only pending records can be resolved, and only for the content the judges voted on: when the
case changed since, `callbank review run` must gather fresh votes first. Every review is kept,
with its note and time.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from validator.errors import UserError
from validator.review.records import ordered

DECISIONS = {"accept": "accepted", "reject": "rejected"}


def now_utc() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def add_review(record: dict[str, Any], current_hash: str | None, decision: str, reviewer: str, note: str, at: str | None = None) -> dict[str, Any]:
    """The record with this review added (and its status decided when the process says so)."""
    item_id = record.get("id", "?")
    reviewer, note = reviewer.strip(), note.strip()
    if decision not in DECISIONS:
        raise UserError(f"the decision is accept or reject, not {decision!r}")
    if not reviewer:
        raise UserError("--reviewer must name the person reviewing")
    if not note:
        raise UserError("--note must say why (it is what the next reader of the record sees)")
    if current_hash is None:
        raise UserError(f"{item_id}: the case no longer exists; there is nothing to resolve")
    status = record.get("status")
    if status != "pending":
        raise UserError(f"{item_id} is already {status}; only pending records are resolved (edit the case and run `callbank review run` to review it again)")
    if record.get("content_hash") != current_hash:
        raise UserError(f"{item_id} changed since the judges voted; run `callbank review run {record.get('path', '')}` first, then review the new content")
    reviews = [r for r in record.get("reviews") or [] if isinstance(r, dict)]
    if any(str(r.get("reviewer", "")).casefold() == reviewer.casefold() for r in reviews):
        raise UserError(f"{reviewer} has already reviewed {item_id}; the next review must come from another reviewer")
    role = "review" if len(reviews) < 2 else "final"
    if len(reviews) >= 3 or (len(reviews) == 2 and reviews[0].get("decision") == reviews[1].get("decision")):
        raise UserError(f"{item_id} has a complete set of reviews but is still pending; fix the record by hand")
    review = {"reviewer": reviewer, "role": role, "decision": decision, "note": note, "at": at or now_utc()}
    updated = dict(record)
    updated["reviews"] = [*reviews, review]
    final: str | None = None
    if role == "final" or (len(reviews) == 1 and reviews[0].get("decision") == decision):
        final = decision
    if final is not None:
        updated["status"] = DECISIONS[final]
        updated["decided_by"] = "reviewers"
        if final == "accept":
            updated["accepted_hash"] = record["content_hash"]
        else:
            updated.pop("accepted_hash", None)
    return ordered(updated)

