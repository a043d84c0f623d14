"""The queue as a whole: every record with the current hash of its item, and recording a review."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from validator.errors import UserError
from validator.loading import load_file
from validator.repo import Repo
from validator.review import QUEUE_DIR
from validator.review.items import Item, collect_items
from validator.review.records import read_record, write_record
from validator.review.resolve import add_review
from validator.review.lock import run_lock


def current_items(root: Path) -> dict[str, Item]:
    items, _ = collect_items(Repo.load(Path(root)))
    return {item.id: item for item in items}


def all_records(root: Path) -> list[dict[str, Any]]:
    """Every record under review/queue/, sorted by id; an unreadable one as {id, status: unreadable}."""
    folder = Path(root) / QUEUE_DIR
    records = []
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        document, problems = load_file(Path(root), f"{QUEUE_DIR}/{path.name}", "review-record")
        if problems or document is None or not isinstance(document.data, dict):
            reason = problems[0].message if problems else "not a mapping"
            records.append({"id": path.stem, "status": "unreadable", "path": f"{QUEUE_DIR}/{path.name}", "votes": [], "reviews": [], "problem": reason})
        else:
            records.append(document.data)
    return sorted(records, key=lambda r: str(r.get("id")))


def needs_attention(record: dict[str, Any], item: Item | None) -> bool:
    if item is None:
        return False  # the case is gone: nothing to decide
    if record.get("status") != "accepted":
        return True
    return (record.get("accepted_hash") or record.get("content_hash")) != item.content_hash


def get_record(root: Path, item_id: str) -> dict[str, Any]:
    record = read_record(root, item_id)
    if record is None:
        raise UserError(f"{item_id}: no review record ({QUEUE_DIR}/{item_id}.yaml); run `callbank review run` on the case first")
    return record


def record_review(root: Path, item_id: str, decision: str, reviewer: str, note: str) -> dict[str, Any]:
    """Add one human review to the record and write it; returns the new record."""
    with run_lock(root):
        record = get_record(root, item_id)
        item = current_items(root).get(item_id)
        updated = add_review(record, item.content_hash if item else None, decision, reviewer, note)
        write_record(root, updated)
    return updated
