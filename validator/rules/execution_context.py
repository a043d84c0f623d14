"""What the execution rules (EXE) share: the corpus, its sandbox runtime, and bookkeeping.

One :class:`Execution` per ``callbank exec`` run. Executing a case or a scenario yields
findings of several rules at once (a failing call, a crash in the sandbox, a wrong recorded
result), so each item is executed once and its findings are kept by rule code
(:meth:`Execution.findings`); every rule then reports its own code. A sandbox fault is
reported once, at its line of ``sandbox.py``, however many calls show it, and not at all where
the static scan of that file already points.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from validator.corpus.index import Corpus
from validator.diagnostics import Finding
from validator.sandbox.runtime import DEFAULT_TIME_LIMIT, SANDBOX_BUG, TIMEOUT, VIOLATION, Outcome, Runtime
from validator.sandbox.scan import ISOLATION, Breach, scan_file

FAULT_CODES = {SANDBOX_BUG: "EXE013", VIOLATION: "EXE014", TIMEOUT: "EXE015"}
BREACH_CODES = {ISOLATION: "EXE014"}  # anything else the scan finds is nondeterminism, EXE016
Coded = tuple[str, Finding]  # (rule code, finding)

__all__ = ["DEFAULT_TIME_LIMIT", "Coded", "Execution", "merge_languages"]


def relative(root: Path, path: str) -> str:
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return path


class Execution:
    """The corpus with its runtime, for the duration of one execution stage."""

    def __init__(self, corpus: Corpus, time_limit: float | None = DEFAULT_TIME_LIMIT) -> None:
        self.corpus = corpus
        self.runtime = Runtime.from_corpus(corpus)
        self.time_limit = time_limit
        self._memo: dict[str, list[Coded]] = {}
        self._faults: set[tuple[str, str, int | None, str]] = set()
        self._breaches: dict[str, list[Breach]] = {}
        # per-run memos a rule keeps by its code (what it derives once from the sandboxes' states)
        self.caches: dict[str, Any] = {}

    # -- the static scan, computed once per sandbox

    def breaches(self, sandbox: str) -> list[Breach]:
        if sandbox not in self._breaches:
            path = self.corpus.root / "sandboxes" / sandbox / "sandbox.py"
            self._breaches[sandbox] = scan_file(path) if path.is_file() else []
        return self._breaches[sandbox]

    def code_path(self, sandbox: str) -> str:
        return relative(self.corpus.root, self.runtime.files.get(sandbox, f"sandboxes/{sandbox}/sandbox.py"))

    # -- findings of one executed item

    def findings(self, key: str, code: str, compute: Callable[[], Iterable[Coded]]) -> Iterator[Finding]:
        """The findings of rule code among an item's, executing the item on first use."""
        if key not in self._memo:
            self._memo[key] = list(compute())
        return (finding for found, finding in self._memo[key] if found == code)

    def fault(self, outcome: Outcome, where: str) -> Coded | None:
        """A sandbox fault as a finding at its line of sandbox.py; None when already reported
        (by an earlier call, or by the static scan at that line)."""
        code = FAULT_CODES[outcome.status]
        name = outcome.sandbox or ""
        path = self.code_path(name)
        if any(BREACH_CODES.get(b.kind, "EXE016") == code and b.line == outcome.line for b in self.breaches(name)):
            return None
        key = (code, path, outcome.line, outcome.detail)
        if key in self._faults:
            return None
        self._faults.add(key)
        return code, Finding(f"{outcome.detail} (seen {where})", path=path, line=outcome.line)


def merge_languages(found: Iterable[tuple[str, Finding, str | None]]) -> Iterator[Coded]:
    """One finding per rule and place for findings seen in several languages: the first
    message is kept and the languages are named after it ("… (en, zh)")."""
    order: list[tuple[str, str, str | None, str]] = []
    langs: dict[tuple[str, str, str | None, str], list[str]] = {}
    first: dict[tuple[str, str, str | None, str], Finding] = {}
    for code, finding, lang in found:
        key = (code, finding.pointer, finding.path, "" if lang is not None else finding.message)
        if key not in first:
            first[key] = finding
            langs[key] = []
            order.append(key)
        if lang is not None and lang not in langs[key]:
            langs[key].append(lang)
    for key in order:
        finding = first[key]
        suffix = f" ({', '.join(langs[key])})" if langs[key] else ""
        yield key[0], finding._replace(message=finding.message + suffix)
