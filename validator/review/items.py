"""What is reviewed: every case (dialogues/) and agent scenario (sandboxes/*/scenarios/)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from validator.errors import UserError
from validator.hub.gates import case_content_hash
from validator.repo import Repo

REVIEWED_KINDS = ("case", "scenario")


class Item(NamedTuple):
    id: str
    path: str  # repo-relative
    kind: str  # "case" | "scenario"
    family: str  # "normal" | "special" | "agent": which judge prompt applies
    data: dict[str, Any]
    content_hash: str


def family_of(kind: str, data: dict[str, Any]) -> str:
    if kind == "scenario":
        return "agent"
    category = str(data.get("category", ""))
    return "special" if category.startswith("special/") else "normal"  # retrieval/* answers are calls too


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
    return any(path == prefix or (prefix == "" or prefix.endswith("/")) and path.startswith(prefix) for prefix in prefixes)


def collect_items(repo: Repo, prefixes: list[str] | None = None) -> tuple[list[Item], list[str]]:
    """The items to review, sorted by id, and one message per file skipped because it is broken."""
    items: list[Item] = []
    skipped: list[str] = []
    seen: dict[str, str] = {}
    for document in repo.documents:
        if document.kind not in REVIEWED_KINDS or not _wanted(document.path, prefixes):
            continue
        data = document.data
        if document.path in repo.load_problems or not isinstance(data, dict) or not isinstance(data.get("id"), str):
            skipped.append(f"{document.path}: cannot be read as a {document.kind}; fix the `callbank check` findings first")
            continue
        if data["id"] in seen:
            skipped.append(f"{document.path}: id {data['id']!r} is also used by {seen[data['id']]}; ids must be unique")
            continue
        seen[data["id"]] = document.path
        items.append(Item(data["id"], document.path, document.kind, family_of(document.kind, data), data, case_content_hash(data)))
    for path in sorted(repo.load_problems):
        if path not in {d.path for d in repo.documents} and path.startswith(("dialogues/", "sandboxes/")) and _wanted(path, prefixes):
            skipped.append(f"{path}: cannot be read; fix the `callbank check` findings first")
    return sorted(items, key=lambda item: item.id), skipped


def find_item(repo: Repo, item_id: str) -> Item | None:
    items, _ = collect_items(repo)
    return next((item for item in items if item.id == item_id), None)
