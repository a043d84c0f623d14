"""Stage 7, *write*: an accepted candidate becomes a case file under ``--out DIR`` with a
``pending`` review record naming its provenance.

``DIR`` mirrors a repository: ``DIR/dialogues/<category>/<id>.yaml`` and
``DIR/review/queue/<id>.yaml``. Nothing is written into the corpus: the files enter it only by
being copied into a pull request, where `callbank review run` asks the judges and people decide
(``docs/synth.md``). The record has no votes yet; its ``provenance`` says which generator and
simulator models, prompt versions, seed and recipe produced the case, and for a disputed
candidate (``--keep-disputed``) the simulator's answers. Files are written atomically (a
temporary file renamed over the old one), so a killed run leaves no half-written case. They are
not fsync'd: what must survive a crash is the answer cache (``cache.py``, fsync'd line by line),
from which a re-run rewrites every file identically in milliseconds.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from validator.corpus.canonical import content_hash
from validator.review.records import dump_record, relative_record_path
from validator.synth.render import case_path

STAGE = "write"


def atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def pending_record(path: str, data: Mapping[str, Any], provenance: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": data["id"], "path": path, "status": "pending", "content_hash": content_hash(dict(data)), "votes": [], "reviews": [], "provenance": dict(provenance)}


def write_item(out: Path, path: str, data: Mapping[str, Any], text: str, provenance: Mapping[str, Any]) -> tuple[str, str]:
    """Write a case or scenario file at its repo-relative path under out, and its pending record;
    their repo-relative paths."""
    atomic_write(out / path, text)
    record_path = relative_record_path(str(data["id"]))
    atomic_write(out / record_path, dump_record(pending_record(path, data, provenance)))
    return path, record_path


def write_candidate(out: Path, data: Mapping[str, Any], text: str, provenance: Mapping[str, Any]) -> tuple[str, str]:
    """Write a case file and its pending record under out; their repo-relative paths."""
    return write_item(out, case_path(str(data["category"]), str(data["id"])), data, text, provenance)
