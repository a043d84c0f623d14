"""The queue as a whole: every record with the current hash of its item, and recording a review."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from validator.corpus.index import Corpus
from validator.errors import UserError
from validator.review import QUEUE_DIR
from validator.review.items import Item, collect_items
from validator.review.lock import run_lock
from validator.review.records import read_record, write_record
from validator.review.resolve import add_review

REVIEW_KINDS = ("case", "scenario", "review-record")


def load_review_corpus(root: Path) -> Corpus:
    """What review commands read: cases, scenarios, the specs they name and the queue."""
    return Corpus.load(Path(root), kinds=("api", *REVIEW_KINDS))


def current_items(corpus: Corpus) -> dict[str, Item]:
    items, _ = collect_items(corpus)
    return {item.id: item for item in items}


def all_records(corpus: Corpus) -> list[dict[str, Any]]:
    """Every record under review/queue/, sorted by id; an unreadable one as {id, status: unreadable}."""
    records: list[dict[str, Any]] = []
    for loaded in corpus.loaded(("review-record",)):
        document = loaded.document
        if loaded.problems or document is None or not isinstance(document.data, dict):
            reason = loaded.problems[0].message if loaded.problems else "not a mapping"
            records.append({"id": loaded.stem, "status": "unreadable", "path": loaded.path, "votes": [], "reviews": [], "problem": reason})
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
        item = current_items(load_review_corpus(root)).get(item_id)
        updated = add_review(record, item.content_hash if item else None, decision, reviewer, note)
        write_record(root, updated)
    return updated
