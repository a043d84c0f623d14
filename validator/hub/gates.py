"""The publishing gates: nothing is built or published while the corpus is not proven right.

Two gates, both must be open:
- validation: ``validator.engine.validate(root)`` (rule checks and execution checks) finds nothing;
- review: no record in ``review/queue/*.yaml`` blocks (``validator.review.gate.blocking``,
  rules REV001–REV004): pending or rejected records, cases changed after their acceptance,
  unreadable records. A record whose case no longer exists blocks nothing.

This module is imported by the review command too (``case_content_hash``), so it stays light.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from validator.diagnostics import Diagnostic
from validator.hub.canonical import sha256_of
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


def review_blockers(root: Path, repo: Repo) -> list[Blocker]:
    """Every queue record that forbids publishing (the review gate's REV findings)."""
    from validator.review.gate import blocking

    blockers = []
    for finding in blocking(root, repo):
        loc = finding.location
        where = loc.path + "".join(f":{n}" for n in (loc.line, loc.column) if n is not None)
        blockers.append(Blocker("review", where, f"{finding.code} {finding.message}"))
    return blockers


def check_gates(root: Path, repo: Repo | None = None, validate: Validate | None = None) -> list[Blocker]:
    """Every blocker of both gates; empty when the corpus may be built and published."""
    repo = repo if repo is not None else Repo.load(root)
    return validation_blockers(root, validate) + review_blockers(root, repo)


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
