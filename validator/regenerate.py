"""Recorded tool results and clock-relative dates, recomputed: the mechanical fixes (EXE017, DLG052).

A case's `tool` turns record what the calls of the checkpoint before them return, and `callbank
exec` proves each one against the sandbox (EXE017). When a sandbox's data or behaviour changes,
those records go stale in files nobody touched; there is exactly one right replacement — what the
call returns now — so the fix is mechanical. :func:`stale_tool_results` computes it with the very
execution `callbank exec` uses (same clock, state patch, call order and failure handling) and
returns it as data, one :class:`~validator.rules.execution_cases.StaleResult` per recorded
result, for a fixer (`callbank fix`) to write back with minimal diffs.

A date the user gave relative to the clock ("tomorrow", "下周三") has one right value too, what
those words give against the case's ``time`` (DLG052, :mod:`validator.rules.clockdates`). The
results depend on the arguments, so :func:`fix_repository` applies both until nothing changes:
dates first, then the results of the calls whose dates moved.

Nothing recorded depends on the API catalog any more: tool search is live and its results are
never stored (DLG023, DLG025), so adding or rewording a spec cannot make a recorded result stale.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from validator.corpus.index import Corpus
from validator.errors import UserError
from validator.fixer import Fix, narrowed, write_fixes
from validator.rules.clockdates import StaleDate, stale_relative_dates
from validator.rules.execution_cases import StaleResult, execute_case
from validator.rules.execution_context import Execution
from validator.sandbox.runtime import DEFAULT_TIME_LIMIT

__all__ = ["FixReport", "StaleDate", "StaleResult", "fix_repository", "stale_dates", "stale_tool_results"]

MAX_ROUNDS = 5  # a date fix changes results, never dates again: two rounds settle, the third proves it


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


def stale_dates(corpus: Corpus, paths: Iterable[str] | None = None) -> list[StaleDate]:
    """Every date of the corpus's cases (or of the given case paths) that its user's relative words
    give otherwise against the case's clock (DLG052), with the value it must become, in file order."""
    wanted = {Path(p).as_posix() for p in paths} if paths is not None else None
    return [stale for case in sorted(corpus.cases.values(), key=lambda c: c.path) if wanted is None or case.path in wanted for stale in stale_relative_dates(case)]


class FixReport(NamedTuple):
    changed: dict[str, tuple[str, str]]  # path -> (text before the first fix, text after the last)
    counts: Counter[str]  # rule code -> values rewritten (DLG052 dates, EXE017 results)


def fix_repository(root: Path, paths: Iterable[str] | None = None, *, time_limit: float | None = DEFAULT_TIME_LIMIT) -> FixReport:
    """Apply every mechanical fix to the cases under root (or the given case paths), writing the
    files, until nothing changes: stale relative dates, then the tool results that follow from
    the calls (a moved date changes what its call returns). Later rounds look only at the files
    the round before changed."""
    corpus = Corpus.load(root)
    corpus.require_intact("fix")
    scope = None if paths is None else sorted({Path(p).as_posix() for p in paths})
    originals: dict[str, str] = {}
    counts: Counter[str] = Counter()
    wrote: set[str] = set()

    def apply(code: str, fixes: list[Fix]) -> None:
        changed = write_fixes(root, fixes)
        for path, (old, _) in changed.items():
            originals.setdefault(path, old)
        counts[code] += len(fixes)
        corpus.reload(changed)
        wrote.update(changed)

    for _ in range(MAX_ROUNDS):
        wrote.clear()
        apply("DLG052", [Fix(s.path, s.pointer, s.new) for s in stale_dates(corpus, scope)])
        apply("EXE017", [fix for s in stale_tool_results(corpus, scope, time_limit=time_limit) for fix in narrowed(s.path, s.pointer, s.recorded, s.actual)])
        if not wrote:
            break
        scope = sorted(wrote)
    else:
        raise UserError(f"the fixes did not settle after {MAX_ROUNDS} rounds (in {', '.join(sorted(wrote))}); fix these files by hand")
    final = {path: (old, (root / path).read_text(encoding="utf-8")) for path, old in originals.items()}
    return FixReport({path: texts for path, texts in sorted(final.items()) if texts[0] != texts[1]}, +counts)
