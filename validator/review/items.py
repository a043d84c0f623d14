"""What is reviewed: every case (dialogues/) and agent scenario (sandboxes/*/scenarios/)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from validator.corpus.canonical import content_hash
from validator.corpus.index import Corpus
from validator.corpus.records import Case, Scenario
from validator.errors import UserError

REVIEWED_KINDS = ("case", "scenario")


class Item(NamedTuple):
    id: str
    path: str  # repo-relative
    kind: str  # "case" | "scenario"
    family: str  # "normal" | "special" | "agent": which judge prompt applies (retrieval counts as normal)
    data: Mapping[str, Any]  # the document as written: what the judges are shown
    content_hash: str
    record: Case | Scenario | None = None


def target_paths(root: Path, paths: Sequence[str]) -> list[str] | None:
    """Repo-relative prefixes (files or folders) named by paths; None means the whole repo."""
    if not paths:
        return None
    prefixes = []
    for raw in paths:
        full = Path(raw)
        full = (full if full.is_absolute() else Path.cwd() / full).resolve()
        if not full.exists():
            raise UserError(f"{raw}: no such file or folder")
        try:
            rel = full.relative_to(root.resolve()).as_posix()
        except ValueError:
            raise UserError(f"{raw} is outside the repository {root}") from None
        prefixes.append("" if rel == "." else rel + "/" if full.is_dir() else rel)
    return prefixes


def _wanted(path: str, prefixes: list[str] | None) -> bool:
    if prefixes is None:
        return True
    return any(path == prefix or ((prefix == "" or prefix.endswith("/")) and path.startswith(prefix)) for prefix in prefixes)


def collect_items(corpus: Corpus, prefixes: list[str] | None = None) -> tuple[list[Item], list[str]]:
    """The items to review, sorted by id, and one message per file skipped because it is broken."""
    items: list[Item] = []
    skipped: list[str] = []
    seen: dict[str, str] = {}
    for loaded in corpus.loaded(REVIEWED_KINDS):
        if not _wanted(loaded.path, prefixes):
            continue
        record = loaded.record
        if not isinstance(record, (Case, Scenario)):
            what = "read" if loaded.document is None else f"read as a {loaded.kind}"
            skipped.append(f"{loaded.path}: cannot be {what}; fix the `callbank check` findings first")
            continue
        if record.id in seen:
            skipped.append(f"{loaded.path}: id {record.id!r} is also used by {seen[record.id]}; ids must be unique")
            continue
        seen[record.id] = loaded.path
        items.append(Item(record.id, loaded.path, loaded.kind, record.family, record.data, content_hash(record.data), record))
    return sorted(items, key=lambda item: item.id), skipped
