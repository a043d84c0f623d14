"""Stage 5, *check*: the candidate, written as its YAML file, passes every rule of `callbank check`
and `callbank exec` (category rules included) — the same rules a hand-written case meets.

The repository is loaded once; each candidate is checked in an overlay of it holding the one new
file (``Corpus.with_file``), so references, id uniqueness and the category rules see the real
corpus, and checking costs one file. The rules that compare the whole corpus with itself (the
near-duplicate rule DLG041) are the deduplicate stage's job.
"""

from __future__ import annotations

import copy

from validator.corpus.index import Corpus
from validator.diagnostics import Diagnostic
from validator.engine import RuleSet, check_file, place
from validator.rules.execution_context import Execution
from validator.rules.registry import select_codes, stage_rules
from validator.synth.outcome import Rejected

STAGE = "check"


class Checker:
    """The check and exec rules, ready to run on one candidate file at a time."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        codes = select_codes((), ())
        self.check_rules = RuleSet(stage_rules("check", codes))
        self.exec_rules = RuleSet(stage_rules("exec", codes))
        self.execution = Execution(corpus)

    def findings(self, path: str, text: str, kind: str = "case") -> list[Diagnostic]:
        """Every finding about the file at path (a case, or a scenario) with this text, placed at its line."""
        view, loaded = self.corpus.with_file(path, kind, text)
        found = check_file(view, loaded, self.check_rules)
        if found:
            return sorted(found, key=lambda d: d.sort_key)
        execution = copy.copy(self.execution)  # the loaded sandboxes are shared; the corpus is the overlay
        execution.corpus = view
        executed = [place(loaded.path, loaded.document, rule.code, finding) for rule, subject in self.exec_rules.subjects(loaded) for finding in rule.check(subject, execution)]
        return sorted(set(executed), key=lambda d: d.sort_key)

    def require_clean(self, path: str, text: str, kind: str = "case") -> None:
        found = self.findings(path, text, kind)
        if found:
            first = found[0]
            codes = sorted({d.code for d in found})
            raise Rejected(STAGE, first.code, f"{first.code} {first.rule} (line {first.location.line}): {first.message}", {"codes": codes})
