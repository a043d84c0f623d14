"""Recorded tool results, recomputed: the mechanical fix for EXE017.

A case's `tool` turns record what the calls of the checkpoint before them return, and `callbank
exec` proves each one against the sandbox (EXE017). When a sandbox's data or behaviour changes,
those records go stale in files nobody touched; there is exactly one right replacement — what the
call returns now — so the fix is mechanical. :func:`stale_tool_results` computes it with the very
execution `callbank exec` uses (same clock, state patch, call order and failure handling) and
returns it as data, one :class:`~validator.rules.execution_cases.StaleResult` per recorded
result, for a fixer (`callbank fix`) to write back with minimal diffs.

Nothing recorded depends on the API catalog any more: tool search is live and its results are
never stored (DLG023, DLG025), so adding or rewording a spec cannot make a recorded result stale.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from validator.corpus.index import Corpus
from validator.rules.execution_cases import StaleResult, execute_case
from validator.rules.execution_context import Execution
from validator.sandbox.runtime import DEFAULT_TIME_LIMIT

__all__ = ["StaleResult", "stale_tool_results"]


def stale_tool_results(corpus: Corpus, paths: Iterable[str] | None = None, *, time_limit: float | None = DEFAULT_TIME_LIMIT) -> list[StaleResult]:
    """Every recorded tool result of the corpus's cases (or of the given repo-relative case paths)
    that differs from what its call returns now, with the value it must become, in file order."""
    wanted = {Path(p).as_posix() for p in paths} if paths is not None else None
    execution = Execution(corpus, time_limit)
    stale: list[StaleResult] = []
    for case in sorted(corpus.cases.values(), key=lambda c: c.path):
        if wanted is None or case.path in wanted:
            for _ in execute_case(case, execution, on_stale=stale.append):
                pass  # the findings themselves are `callbank exec`'s to report
    return stale
