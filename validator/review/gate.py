"""The review gate: what in review/queue/ forbids building or publishing.

The rules are REV001–REV004 (``validator.rules.review``); this module runs them over a corpus.
"""

from __future__ import annotations

from pathlib import Path

from validator.corpus.index import Corpus
from validator.diagnostics import Diagnostic
from validator.engine import review


def blocking(root: Path, corpus: Corpus | None = None) -> list[Diagnostic]:
    """Every review finding that forbids publishing, sorted by place; empty when the gate is open."""
    return review(corpus if corpus is not None else Corpus.load(Path(root)))
