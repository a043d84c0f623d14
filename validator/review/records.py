"""Review records, ``review/queue/<id>.yaml``: the outcome of review for one case or scenario.

Every reviewed item has a record (schema: ``schemas/review-record.schema.json``):
``pending`` (a judge dissented or erred; humans decide), ``accepted`` (unanimously by the judges,
or by the reviewers) with ``accepted_hash``, the content hash the acceptance covers, or
``rejected``. When the item's content changes, the next ``review run`` moves the current round
(votes, reviews, status) into ``history`` and starts a new one, so the record keeps every step.

Records are written atomically (a temporary file in the same folder, fsync, ``os.replace``) and
only when their text changes, so an unchanged corpus gives an unchanged tree.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from validator.errors import UserError
from validator.loading import load_file
from validator.review import QUEUE_DIR
from validator.review.items import Item
from validator.review.votes import fsync_directory

SCHEMA_COMMENT = "# yaml-language-server: $schema=../../schemas/review-record.schema.json\n"
ROUND_KEYS = ("content_hash", "status", "accepted_hash", "decided_by", "votes", "reviews")


def record_path(root: Path, item_id: str) -> Path:
    return Path(root) / QUEUE_DIR / f"{item_id}.yaml"


def relative_record_path(item_id: str) -> str:
    return f"{QUEUE_DIR}/{item_id}.yaml"


def read_record(root: Path, item_id: str) -> dict[str, Any] | None:
    """The record, None when there is none; a UserError when it cannot be read."""
    rel = relative_record_path(item_id)
    if not (Path(root) / rel).is_file():
        return None
    document, problems = load_file(Path(root), rel, "review-record")
    if problems or document is None or not isinstance(document.data, dict):
        detail = problems[0].message if problems else "it is not a mapping"
        raise UserError(f"{rel} cannot be read ({detail}); fix or remove it, then run again")
    return document.data


class _Dumper(yaml.SafeDumper):
    pass


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None  # the emitter falls back to quoting when a block cannot hold it
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


def dump_record(record: dict[str, Any]) -> str:
    body = yaml.dump(record, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100, default_flow_style=False)
    return SCHEMA_COMMENT + body


def write_record(root: Path, record: dict[str, Any]) -> bool:
    """Write atomically when the text changed; True when the file was written."""
    path = record_path(root, record["id"])
    text = dump_record(record)
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)
    return True


def remove_stale_temporaries(root: Path) -> None:
    """Delete temporary files a killed writer left behind (call only while holding the run lock)."""
    folder = Path(root) / QUEUE_DIR
    for path in folder.glob(".*.tmp") if folder.is_dir() else []:
        path.unlink(missing_ok=True)


def vote_entry(outcome: dict[str, Any]) -> dict[str, Any]:
    """A stored outcome as it appears in the record."""
    entry: dict[str, Any] = {key: outcome[key] for key in ("judge", "model", "prompt_version", "lang")}
    if outcome.get("error") is not None:
        entry["error"] = outcome["error"]
        return entry
    entry["verdict"] = outcome["verdict"]
    entry["rationale"] = outcome.get("rationale") or ""
    entry["problems"] = list(outcome.get("problems") or [])
    entry["suggested_fix"] = outcome.get("suggested_fix")
    return entry


def unanimous(votes: list[dict[str, Any]]) -> bool:
    """Every judge answered and every answer is `valid` (a judge error is not a vote)."""
    return bool(votes) and all(v.get("verdict") == "valid" and not v.get("error") for v in votes)


def _round(record: dict[str, Any]) -> dict[str, Any]:
    return {key: record[key] for key in ROUND_KEYS if key in record}


RECORD_ORDER = ("id", "path", "status", "content_hash", "accepted_hash", "decided_by", "votes", "reviews", "history", "provenance")


def ordered(record: dict[str, Any]) -> dict[str, Any]:
    """The record's keys in the documented order (unknown keys last, untouched)."""
    return {key: record[key] for key in RECORD_ORDER if key in record} | {k: v for k, v in record.items() if k not in RECORD_ORDER}


def updated_record(existing: dict[str, Any] | None, item: Item, votes: list[dict[str, Any]]) -> dict[str, Any]:
    """The record after a run gathered every judge's outcome for the item's current content."""
    history = list(existing.get("history") or []) if existing else []
    same_content = existing is not None and existing.get("content_hash") == item.content_hash
    if existing is not None and not same_content:
        history.append(_round(existing))
    reviews = list(existing.get("reviews") or []) if existing is not None and same_content else []
    record: dict[str, Any] = {"id": item.id, "path": item.path, "content_hash": item.content_hash, "votes": votes, "reviews": reviews}
    if reviews and existing is not None:
        # humans have spoken on this content: their decision stands, only the votes are refreshed
        for key in ("status", "accepted_hash", "decided_by"):
            if key in existing:
                record[key] = existing[key]
    elif unanimous(votes):
        record.update(status="accepted", accepted_hash=item.content_hash, decided_by="judges")
    else:
        record["status"] = "pending"
    if history:
        record["history"] = history
    if existing is not None and "provenance" in existing:
        record["provenance"] = existing["provenance"]  # where a synthesised item came from stays with it
    return ordered(record)


def next_step(record: dict[str, Any], current_hash: str | None) -> str:
    """What has to happen to this record, in a few words (for `review list` and `show`)."""
    status = record.get("status")
    item_id = record.get("id", "?")
    if current_hash is None:
        return "the case no longer exists; remove this record"
    if status == "accepted":
        accepted = record.get("accepted_hash") or record.get("content_hash")
        if accepted != current_hash:
            return f"changed after acceptance: run `callbank review run {record.get('path', '')}`"
        return f"accepted by the {record.get('decided_by', 'reviewers')}"
    if record.get("content_hash") != current_hash:
        return f"the case changed since the judges voted: run `callbank review run {record.get('path', '')}`"
    if status == "rejected":
        return "rejected: fix the case (its votes list the problems), then run review again"
    if status != "pending":
        return f"unknown status {status!r}"
    reviews = [r for r in record.get("reviews") or [] if isinstance(r, dict)]
    if len(reviews) == 0:
        return f"needs two independent reviews: `callbank review resolve {item_id} --accept|--reject …`"
    if len(reviews) == 1:
        return "needs a second independent review (by another reviewer)"
    return "the two reviews disagree: needs a final decision by a third reviewer"
