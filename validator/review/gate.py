"""The review gate: what in review/queue/ forbids building or publishing (REV rule codes).

- REV001 a record is ``pending``: the judges did not agree, and humans have not decided yet;
- REV002 a record is ``rejected``: the case must be fixed (or removed) and reviewed again;
- REV003 a case was accepted for other content than it has now (edited after its acceptance);
- REV004 a record cannot be read, breaks its schema, or has an unknown status.

A record whose case or scenario no longer exists blocks nothing (that item is not published).
Cases without a record are not reviewed yet; ``callbank review run`` gives them one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from validator.diagnostics import Diagnostic, Location
from validator.hub.gates import case_content_hash
from validator.loading import Document
from validator.repo import Repo
from validator.review import QUEUE_DIR
from validator.schemas import SchemaSet

REVIEWED_KINDS = ("case", "scenario")


def _diagnostic(code: str, message: str, document: Document | None, path: str, pointer: str = "") -> Diagnostic:
    from validator.rules import RULES

    line, column = document.locate(pointer) if document is not None else (None, None)
    return Diagnostic(code, RULES[code].name, message, Location(path, line, column, pointer))


def _reviewed(repo: Repo, record: dict[str, Any], stem: str) -> Document | None:
    """The case or scenario a record is about: by its path, else by its id."""
    reviewed = [d for d in repo.documents if d.kind in REVIEWED_KINDS]
    for document in reviewed:
        if document.path == record.get("path"):
            return document
    item_id = record.get("id", stem)
    return next((d for d in reviewed if isinstance(d.data, dict) and d.data.get("id") == item_id), None)


def record_findings(repo: Repo, document: Document, schemas: SchemaSet) -> list[Diagnostic]:
    path, record = document.path, document.data
    if not isinstance(record, dict):
        return [_diagnostic("REV004", "the review record is not a mapping; fix it or remove it and run `callbank review run`", document, path)]
    errors = schemas.errors("review-record", record)
    if errors:
        message, pointer = errors[0]
        return [_diagnostic("REV004", f"the review record breaks its schema: {message} (schema: schemas/review-record.schema.json)", document, path, pointer)]
    reviewed = _reviewed(repo, record, document.stem)
    if reviewed is None:
        return []
    item_id, status = record["id"], record["status"]
    if status == "pending":
        return [_diagnostic("REV001", f"{item_id} is pending review; decide it with `callbank review resolve {item_id} --accept|--reject --reviewer NAME --note TEXT`", document, path, "/status")]
    if status == "rejected":
        return [_diagnostic("REV002", f"{item_id} was rejected in review; fix or remove {reviewed.path}, then run `callbank review run {reviewed.path}`", document, path, "/status")]
    accepted = record.get("accepted_hash") or record.get("content_hash")
    current = case_content_hash(reviewed.data)
    if accepted != current:
        message = f"{item_id} changed after its review accepted it ({QUEUE_DIR}/{document.stem}.yaml); run `callbank review run {reviewed.path}`"
        return [_diagnostic("REV003", message, reviewed, reviewed.path)]
    return []


def blocking(root: Path, repo: Repo | None = None) -> list[Diagnostic]:
    """Every review finding that forbids publishing, sorted by place; empty when the gate is open."""
    root = Path(root)
    repo = repo if repo is not None else Repo.load(root)
    found: list[Diagnostic] = []
    for path, problems in sorted(repo.load_problems.items()):
        if path.startswith(QUEUE_DIR + "/"):
            problem = problems[0]
            found.append(_diagnostic("REV004", f"the review record cannot be read: {problem.message}", None, path)._replace(location=Location(path, problem.line, problem.column, "")))
    records = [d for d in repo.of_kind("review-record") if d.path not in repo.load_problems]
    if records:
        schemas = SchemaSet(root)
        for document in records:
            found.extend(record_findings(repo, document, schemas))
    return sorted(found, key=lambda d: d.sort_key)
