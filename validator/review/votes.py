"""The vote cache: ``review/votes/<id>.jsonl``, append-only, one JSON line per judge outcome.

A line is written (one ``write``, then ``fsync``) as soon as a judge's outcome is known, so a
crash or a kill loses no answer already received; an answer still in flight is simply asked
again next time. A half-written last line (the process died inside ``write``) is skipped when
reading and the next append starts on a fresh line. When a key appears twice (two runs raced),
the first line wins, so every key has exactly one outcome.

An outcome is keyed by (content hash of the case, judge name, judge model, prompt version,
prompt language): editing a case, switching a judge's model or releasing a new prompt version
makes the old lines irrelevant (they stay, as history) and the question is asked again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from validator.review import VOTES_DIR

STORE_FIELDS = ("id", "content_hash", "judge", "model", "prompt_version", "lang", "verdict", "rationale", "problems", "suggested_fix", "error", "attempts", "at")


class VoteKey(NamedTuple):
    content_hash: str
    judge: str
    model: str
    prompt_version: str
    lang: str


def key_of(line: dict[str, Any]) -> VoteKey | None:
    try:
        return VoteKey(*(str(line[f]) for f in VoteKey._fields))
    except KeyError:
        return None


class VoteStore:
    def __init__(self, root: Path) -> None:
        self.directory = Path(root) / VOTES_DIR

    def path(self, item_id: str) -> Path:
        return self.directory / f"{item_id}.jsonl"

    def load(self, item_id: str) -> dict[VoteKey, dict[str, Any]]:
        """Every outcome recorded for the item, by key (first line wins)."""
        outcomes: dict[VoteKey, dict[str, Any]] = {}
        try:
            raw = self.path(item_id).read_bytes()
        except FileNotFoundError:
            return outcomes
        for line in raw.split(b"\n"):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue  # a line cut short by a crash
            key = key_of(data) if isinstance(data, dict) else None
            if key is not None and key.content_hash and ("verdict" in data or "error" in data):
                outcomes.setdefault(key, data)
        return outcomes

    def append(self, item_id: str, outcome: dict[str, Any]) -> None:
        """Append one outcome durably (write + fsync; the folder too when the file is new)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        line = json.dumps({k: outcome[k] for k in STORE_FIELDS if k in outcome}, ensure_ascii=False, separators=(",", ":"))
        append_line(self.path(item_id), line)


def append_line(path: Path, line: str) -> None:
    """Append one line durably: written and fsync'd (the folder too when the file is new), after
    a line break if a crash left the file's last line unfinished (that line then reads as bad,
    never merged with this one)."""
    data = line.encode("utf-8") + b"\n"
    is_new = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if not is_new and not _ends_with_newline(path):
            data = b"\n" + data
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    if is_new:
        fsync_directory(path.parent)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() == 0:
            return True
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # not every platform or file system can sync a folder
    finally:
        os.close(fd)
