"""Recorded tool results, recomputed: the mechanical fix for EXE017.

A case's `tool` turns record what the calls of the checkpoint before them return, and `callbank
exec` proves each one against the sandbox (EXE017). When a sandbox's data or behaviour changes,
those records go stale in files nobody touched; there is exactly one right replacement — what the
call returns now — so the fix is mechanical. :func:`stale_tool_results` computes it with the very
execution `callbank exec` uses (same clock, state patch, call order and failure handling) and
returns it as data, one :class:`~validator.execution.StaleResult` per recorded result, for a fixer
(`callbank fix`) to write back with minimal diffs.

Nothing recorded depends on the API catalog any more: tool search is live and its results are
never stored (DLG023, DLG025), so adding or rewording a spec cannot make a recorded result stale.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from validator.execution import Report, StaleResult, execute_case
from validator.repo import Repo
from validator.sandbox.runtime import DEFAULT_TIME_LIMIT, Runtime


def stale_tool_results(
    repo: Repo, paths: Iterable[str] | None = None, *, runtime: Runtime | None = None, time_limit: float | None = DEFAULT_TIME_LIMIT
) -> list[StaleResult]:
    """Every recorded tool result of repo's cases (or of the given repo-relative case paths) that
    differs from what its call returns now, with the value it must become, in file order."""
    runtime = runtime if runtime is not None else Runtime.from_repo(repo)
    wanted = {Path(p).as_posix() for p in paths} if paths is not None else None
    stale: list[StaleResult] = []
    report = Report(repo)  # the findings themselves are `callbank exec`'s to report
    for document in repo.of_kind("case"):
        if wanted is None or document.path in wanted:
            execute_case(document, runtime, report, time_limit, on_stale=stale.append)
    return stale
