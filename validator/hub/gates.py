"""The publishing gates: nothing is built or published while the corpus is not proven right.

Two gates, both must be open:
- validation: ``validator.engine.validate`` (rule checks and execution checks) finds nothing;
- review: no record in ``review/queue/*.yaml`` blocks (``validator.review.gate.blocking``,
  rules REV001–REV004): pending or rejected records, cases changed after their acceptance,
  unreadable records. A record whose case no longer exists blocks nothing. Publishing also
  needs a record for every case and scenario (REV005), unless the publish is a preview
  (``--allow-unreviewed``); building does not.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from validator.corpus.index import Corpus
from validator.diagnostics import Diagnostic
from validator.engine import validate as engine_validate
from validator.review.gate import blocking

Validate = Callable[[Path], list[Diagnostic]]


class Blocker(NamedTuple):
    """One reason the corpus may not be published."""

    gate: str  # "validate" | "review" | "unreviewed"
    path: str  # repo-relative file
    message: str

    def render(self) -> str:
        return f"{self.path}: {self.message}"


def validation_blockers(root: Path, validate: Validate | None = None, corpus: Corpus | None = None) -> list[Blocker]:
    """Every finding of the rule and execution checks (over corpus, when it is loaded already), as blockers."""
    try:
        findings = validate(root) if validate is not None else engine_validate(root, corpus=corpus)
    except Exception as error:  # a crash of the checks proves nothing: the gate stays closed
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return [Blocker("validate", ".", f"the validation engine failed ({type(error).__name__}: {first}); nothing can be proven valid")]
    blockers = []
    for finding in sorted(findings, key=lambda d: d.sort_key):
        loc = finding.location
        where = loc.path + "".join(f":{n}" for n in (loc.line, loc.column) if n is not None)
        blockers.append(Blocker("validate", where, f"{finding.code} {finding.message}"))
    return blockers


UNREVIEWED_CODE = "REV005"  # an item with no review record: blocks publish, not build


def review_blockers(root: Path, corpus: Corpus, *, publishing: bool = False, allow_unreviewed: bool = False) -> list[Blocker]:
    """Every review finding that forbids building — or, with ``publishing``, publishing."""
    blockers = []
    for finding in blocking(root, corpus, publishing=publishing, allow_unreviewed=allow_unreviewed):
        loc = finding.location
        where = loc.path + "".join(f":{n}" for n in (loc.line, loc.column) if n is not None)
        gate = "unreviewed" if finding.code == UNREVIEWED_CODE else "review"
        blockers.append(Blocker(gate, where, f"{finding.code} {finding.message}"))
    return blockers


def check_gates(
    root: Path, corpus: Corpus | None = None, validate: Validate | None = None, *, publishing: bool = False, allow_unreviewed: bool = False
) -> list[Blocker]:
    """Every blocker of both gates; empty when the corpus may be built (or, with ``publishing``,
    published: every item reviewed, unless ``allow_unreviewed``)."""
    corpus = corpus if corpus is not None else Corpus.load(root)
    return validation_blockers(root, validate, corpus) + review_blockers(root, corpus, publishing=publishing, allow_unreviewed=allow_unreviewed)


def describe_refusal(action: str, blockers: list[Blocker], limit: int = 20) -> str:
    """The message printed when a gate is closed: a count, then one line per blocker."""
    counts = {gate: sum(1 for b in blockers if b.gate == gate) for gate in ("validate", "review", "unreviewed")}
    parts = []
    if counts["validate"]:
        parts.append(f"{counts['validate']} validation finding(s)")
    if counts["review"]:
        parts.append(f"{counts['review']} blocking review record(s)")
    if counts["unreviewed"]:
        parts.append(f"{counts['unreviewed']} item(s) never reviewed (run `callbank review run`, or publish a preview with --allow-unreviewed)")
    lines = [f"callbank {action}: refused, {' and '.join(parts)}; nothing was written or sent"]
    lines += [f"  {b.render()}" for b in blockers[:limit]]
    if len(blockers) > limit:
        lines.append(f"  … and {len(blockers) - limit} more")
    return "\n".join(lines)
