"""The one table from code to rule. Rules are small generators of findings; the engine places them.

Every code of the catalog is a function registered with :func:`rule`. What a rule receives
(``on``) is one of:

- ``"file"``: a discovered file as loaded (:class:`validator.corpus.index.LoadedFile`), even one
  that could not be read — the loader's rules (SCH001–SCH009) and the review gate's REV004;
- ``"document"``: a readable document (:class:`validator.loading.Document`) of the given kinds,
  valid against its schema or not — the schema rule and the rules that explain a schema
  violation better than the schema can (a missing language, a malformed matcher …);
- a record type (``Spec``, ``Case``, ``Scenario``, ``SandboxInfo``, ``ReviewRecord``): the typed
  record of a schema-valid document, or a sandbox folder;
- ``"corpus"``: the whole :class:`~validator.corpus.index.Corpus`, once, for a rule that compares
  items with one another (near-duplicate cases). Its findings name their file (``path``). Such a
  rule runs when the whole corpus is checked, not on the few files a pre-commit hook passes.

The second argument is the :class:`~validator.corpus.index.Corpus` for ``check`` and ``review``
rules, and the execution context (corpus, sandbox runtime) for ``exec`` rules.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from validator.diagnostics import Finding
from validator.loading import CORPUS_KINDS

STAGES = ("check", "exec", "review", "publish")  # publish: what only `callbank publish` refuses

CheckFunction = Callable[[Any, Any], Iterator[Finding]]
Target = str | type
CORPUS = "corpus"  # the target of a rule that reads the whole corpus at once


class Rule(NamedTuple):
    code: str
    name: str
    summary: str
    on: tuple[Target, ...]  # "file", "document" and/or record types
    kinds: tuple[str, ...]  # document kinds, for "file" and "document" rules
    stage: str  # check | exec | review
    check: CheckFunction
    doc: str
    source: str  # the module's file, repo-relative (validator/rules/cases.py)

    @property
    def sections(self) -> dict[str, str]:
        """The docstring split into its sections (What it does / Why is this bad? / Example / Use instead)."""
        return parse_doc_sections(self.doc)

    @property
    def applies_to(self) -> tuple[str, ...]:
        """What the rule looks at, in words (for the catalog)."""
        names: list[str] = []
        for target in self.on:
            if target == CORPUS:
                names.append("the whole corpus (each case compared with every other)")
            elif isinstance(target, str) and set(self.kinds) == set(CORPUS_KINDS):
                names.append("every YAML file of the corpus")
            elif isinstance(target, str):
                names.extend(f"{kind} files" if target == "file" else f"{kind} documents" for kind in self.kinds)
            else:
                names.append(_RECORD_NAMES.get(target.__name__, target.__name__))
        return tuple(names)

    def applies(self, target: Target) -> bool:
        return target in self.on


_RECORD_NAMES = {"Spec": "API specs", "Case": "cases", "Scenario": "scenarios", "SandboxInfo": "sandbox folders", "ReviewRecord": "review records"}

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


def _source(function: Callable[..., Any]) -> str:
    module = sys.modules.get(function.__module__)
    filename = getattr(module, "__file__", None) or ""
    parts = Path(filename).parts
    return "/".join(parts[parts.index("validator") :]) if "validator" in parts else function.__module__


def rule(
    code: str,
    name: str,
    summary: str,
    *,
    on: Target | tuple[Target, ...],
    kinds: str | tuple[str, ...] = (),
    stage: str = "check",
) -> Callable[[CheckFunction], CheckFunction]:
    """Register a checking function ``fn(subject, context) -> Iterator[Finding]``."""
    targets = on if isinstance(on, tuple) else (on,)
    kind_list = (kinds,) if isinstance(kinds, str) else kinds

    def decorate(function: CheckFunction) -> CheckFunction:
        if code in RULES:
            raise RuntimeError(f"rule code {code} registered twice")
        if stage not in STAGES:
            raise RuntimeError(f"rule {code}: unknown stage {stage!r}")
        if CORPUS in targets and (len(targets) != 1 or stage != "check"):
            raise RuntimeError(f"rule {code}: a corpus rule reads only the corpus, in the check stage")
        if any(t in ("file", "document") for t in targets) and not kind_list:
            raise RuntimeError(f"rule {code}: a file or document rule names the document kinds it applies to")
        unknown = set(kind_list) - set(CORPUS_KINDS)
        if unknown:
            raise RuntimeError(f"rule {code} applies to unknown kinds {sorted(unknown)}")
        RULES[code] = Rule(code, name, summary, targets, kind_list, stage, function, inspect.cleandoc(function.__doc__ or ""), _source(function))
        return function

    return decorate


def select_codes(select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> Callable[[str], bool]:
    """ruff-style selection by code prefix: ``--select DLG --ignore DLG002``."""

    def wanted(code: str) -> bool:
        if select and not any(code.startswith(p) for p in select):
            return False
        return not any(code.startswith(p) for p in ignore)

    return wanted


def known_prefix(prefix: str) -> bool:
    return any(code.startswith(prefix) for code in RULES)


def stage_rules(stage: str, wanted: Callable[[str], bool] | None = None) -> list[Rule]:
    """The rules of a stage (selected by wanted), in code order."""
    return [r for _, r in sorted(RULES.items()) if r.stage == stage and (wanted is None or wanted(r.code))]
