"""The one table from code to rule. Rules are small generators of findings; the engine places them."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from validator.diagnostics import Finding

# Document kinds a rule can apply to; "load" and "exec" rules are raised by the loader and the
# executor, "sandbox" rules receive a sandbox folder name instead of a document.
KINDS = ("load", "api", "case", "scenario", "state", "judges", "review-record", "unknown", "sandbox", "exec", "review")

CheckFunction = Callable[..., Iterator[Finding]]


class Rule(NamedTuple):
    code: str
    name: str
    summary: str
    applies_to: tuple[str, ...]
    check: CheckFunction | None
    doc: str

    @property
    def sections(self) -> dict[str, str]:
        """The docstring split into its sections (What it does / Why is this bad? / Example / Use instead)."""
        return parse_doc_sections(self.doc)


RULES: dict[str, Rule] = {}


def parse_doc_sections(doc: str) -> dict[str, str]:
    sections: dict[str, str] = {}
    current = None
    for line in inspect.cleandoc(doc).splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = ""
        elif current is not None:
            sections[current] += line + "\n"
    return {k: v.strip("\n") for k, v in sections.items()}


def _register(code: str, name: str, summary: str, applies_to: tuple[str, ...], check: CheckFunction | None, doc: str) -> None:
    if code in RULES:
        raise RuntimeError(f"rule code {code} registered twice")
    unknown = set(applies_to) - set(KINDS)
    if unknown:
        raise RuntimeError(f"rule {code} applies to unknown kinds {sorted(unknown)}")
    RULES[code] = Rule(code, name, summary, applies_to, check, inspect.cleandoc(doc or ""))


def rule(code: str, name: str, summary: str, *, applies_to: str | tuple[str, ...]) -> Callable[[CheckFunction], CheckFunction]:
    """Register a checking function: ``fn(document, context) -> Iterator[Finding]``."""
    kinds = (applies_to,) if isinstance(applies_to, str) else applies_to

    def decorate(function: CheckFunction) -> CheckFunction:
        _register(code, name, summary, kinds, function, function.__doc__ or "")
        return function

    return decorate


def declare(code: str, name: str, summary: str, *, stage: str, doc: str) -> None:
    """Register a rule whose findings another stage raises (the loader, the executor, review)."""
    _register(code, name, summary, (stage,), None, doc)


def select_codes(select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> Callable[[str], bool]:
    """ruff-style selection by code prefix: ``--select DLG --ignore DLG002``."""

    def wanted(code: str) -> bool:
        if select and not any(code.startswith(p) for p in select):
            return False
        return not any(code.startswith(p) for p in ignore)

    return wanted


def known_prefix(prefix: str) -> bool:
    return any(code.startswith(prefix) for code in RULES)


def rules_for(kind: str) -> list[Rule]:
    return [r for r in RULES.values() if kind in r.applies_to and r.check is not None]


def iter_findings(rule_: Rule, *args: Any) -> Iterator[Finding]:
    assert rule_.check is not None
    yield from rule_.check(*args)
