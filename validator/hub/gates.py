"""The publishing gates: nothing is built or published while the corpus is not proven right.

Two gates, both must be open:
- validation: ``validator.engine.validate(root)`` (rule checks and execution checks) finds nothing;
- review: no record in ``review/queue/*.yaml`` blocks. A record blocks when its status is
  ``pending`` or ``rejected``, or when it is ``accepted`` for other content than the case has
  now (``accepted_hash``, or ``content_hash`` when the record has no ``accepted_hash``, differs
  from ``case_content_hash`` of the case's current data). A record whose case no longer exists
  blocks nothing: that case is not published.

This module is imported by the review command too (``case_content_hash``), so it stays light.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from validator.diagnostics import Diagnostic
from validator.hub.canonical import sha256_of
from validator.loading import Document
from validator.repo import Repo

Validate = Callable[[Path], list[Diagnostic]]


def case_content_hash(data: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of a case's data (sorted keys, UTF-8, no spaces).

    The review queue records this hash when judges vote and when a human accepts a case, and
    the gate compares it with the hash of the case as it is now.
    """
    return sha256_of(data)


class Blocker(NamedTuple):
    """One reason the corpus may not be published."""

    gate: str  # "validate" | "review"
    path: str  # repo-relative file
    message: str

    def render(self) -> str:
        return f"{self.path}: {self.message}"


def validation_blockers(root: Path, validate: Validate | None = None) -> list[Blocker]:
    """Every finding of the rule and execution checks, as blockers."""
    if validate is None:
        try:
            from validator.engine import validate as engine_validate
        except ImportError as error:
            message = f"the validation engine (validator.engine) cannot be imported ({error}); nothing can be proven valid"
            return [Blocker("validate", ".", message)]
        validate = engine_validate
    try:
        findings = validate(root)
    except Exception as error:  # a crash of the checks proves nothing: the gate stays closed
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return [Blocker("validate", ".", f"the validation engine failed ({type(error).__name__}: {first}); nothing can be proven valid")]
    blockers = []
    for finding in sorted(findings, key=lambda d: d.sort_key):
        loc = finding.location
        where = loc.path + "".join(f":{n}" for n in (loc.line, loc.column) if n is not None)
        blockers.append(Blocker("validate", where, f"{finding.code} {finding.message}"))
    return blockers


def _reviewed_document(repo: Repo, record: dict[str, Any]) -> Document | None:
    """The case (or scenario) a record is about: by its path, else by its id."""
    path, item_id = record.get("path"), record.get("id")
    for document in repo.documents:
        if document.kind in ("case", "scenario") and document.path == path:
            return document
    for document in repo.documents:
        data = document.data
        if document.kind in ("case", "scenario") and isinstance(data, dict) and data.get("id") == item_id:
            return document
    return None


def review_blockers(repo: Repo) -> list[Blocker]:
    """Every queue record that forbids publishing."""
    blockers: list[Blocker] = []
    for path, problems in sorted(repo.load_problems.items()):
        if path.startswith("review/queue/"):
            blockers.append(Blocker("review", path, f"the review record cannot be read: {problems[0].message}"))
    for record_doc in repo.of_kind("review-record"):
        blocker = _record_blocker(repo, record_doc)
        if blocker is not None:
            blockers.append(blocker)
    return blockers


def _record_blocker(repo: Repo, record_doc: Document) -> Blocker | None:
    path, record = record_doc.path, record_doc.data
    if not isinstance(record, dict):
        return Blocker("review", path, "the review record is not a mapping; fix or remove it")
    item_id = record.get("id", record_doc.stem)
    status = record.get("status")
    reviewed = _reviewed_document(repo, record)
    if reviewed is None:
        return None  # the case is gone, so it is not published
    if status == "pending":
        return Blocker("review", path, f"{item_id} is pending review; decide it with `callbank review resolve {item_id}`")
    if status == "rejected":
        return Blocker("review", path, f"{item_id} was rejected in review; fix or remove {reviewed.path}, then review it again")
    if status != "accepted":
        return Blocker("review", path, f"unknown review status {status!r}; expected pending, accepted or rejected")
    accepted = record.get("accepted_hash") or record.get("content_hash")
    current = case_content_hash(reviewed.data)
    if accepted != current:
        return Blocker(
            "review",
            path,
            f"{item_id} changed after it was accepted ({_short(accepted)} accepted, {_short(current)} now); review it again",
        )
    return None


def _short(content_hash: object) -> str:
    text = str(content_hash)
    return text[: len("sha256:") + 12] if text.startswith("sha256:") else text


def check_gates(root: Path, repo: Repo | None = None, validate: Validate | None = None) -> list[Blocker]:
    """Every blocker of both gates; empty when the corpus may be built and published."""
    repo = repo if repo is not None else Repo.load(root)
    return validation_blockers(root, validate) + review_blockers(repo)


def describe_refusal(action: str, blockers: list[Blocker], limit: int = 20) -> str:
    """The message printed when a gate is closed: a count, then one line per blocker."""
    counts = {gate: sum(1 for b in blockers if b.gate == gate) for gate in ("validate", "review")}
    parts = []
    if counts["validate"]:
        parts.append(f"{counts['validate']} validation finding(s)")
    if counts["review"]:
        parts.append(f"{counts['review']} blocking review record(s)")
    lines = [f"callbank {action}: refused, {' and '.join(parts)}; nothing was written or sent"]
    lines += [f"  {b.render()}" for b in blockers[:limit]]
    if len(blockers) > limit:
        lines.append(f"  … and {len(blockers) - limit} more")
    return "\n".join(lines)
