"""Executing a case's ground truth (EXE005, EXE017, and the sandbox faults it shows).

Every call of every checkpoint of a case whose APIs are all runnable runs in the case's
sandboxes, one session per language (the sandboxes' initial states with the case's ``state``
patch and its ``time`` as the clock). The first alternative of each checkpoint carries the
dialogue forward; the others are tried on a copy first. A ``called`` history turn runs in its
place in the dialogue like a checkpoint with one alternative, its recorded results compared too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterator
from typing import Any, NamedTuple

from validator import matchers
from validator.corpus.records import CalledTurn, Calls, Case, Checkpoint, Dialogue, ToolTurn
from validator.diagnostics import Finding
from validator.rules.execution_context import Coded, Execution
from validator.sandbox.runtime import AGENT_ERRORS, Outcome, Session


class StaleResult(NamedTuple):
    """A recorded tool result that differs from what its call really returns (EXE017), as data:
    what ``validator.regenerate`` hands a fixer to write back."""

    path: str
    pointer: str  # JSON pointer of the recorded result, e.g. /en/turns/2/tool/0/result
    lang: str
    api: str | None
    recorded: Any
    actual: Any


OnStale = Callable[[StaleResult], None]


def execute_case(case: Case, execution: Execution, on_stale: OnStale | None = None) -> Iterator[Coded]:
    """Run a case's checkpoints (EXE005, sandbox faults) and compare its recorded tool results
    (EXE017; ``on_stale`` also receives each mismatch as data)."""
    runtime = execution.runtime
    apis = {call.api for _, _, _, call in case.calls()} | {call.api for _, call in case.history_calls()}
    if not apis or not all(runtime.runnable(api) for api in apis):
        return
    names = sorted({runtime.sandbox_of(api) or "" for api in apis})
    for dialogue in case.dialogues.values():
        session = runtime.session(names, case.state, case.time, execution.time_limit)
        for checkpoint in dialogue.turns:
            if isinstance(checkpoint, CalledTurn):
                history = Calls(checkpoint.calls, checkpoint.pointer + "/called")
                observed_history: list[object] = []
                if not (yield from _run_calls(session, history, dialogue.lang, case, execution, observed_history)):
                    break
                yield from _compare_tool_turn(case, dialogue, checkpoint.index + 1, observed_history, on_stale)
                continue
            if not isinstance(checkpoint, Checkpoint):
                continue
            options = checkpoint.alternatives
            # other alternatives are tried on copies first; the first one carries the dialogue on
            for alternative in options[1:]:
                yield from _run_calls(session.fork(), alternative, dialogue.lang, case, execution, [])
            observed: list[object] = []
            if options and not (yield from _run_calls(session, options[0], dialogue.lang, case, execution, observed)):
                break  # later checkpoints build on this one
            yield from _compare_tool_turn(case, dialogue, checkpoint.index + 1, observed, on_stale)


def _compare_tool_turn(case: Case, dialogue: Dialogue, index: int, observed: list[object], on_stale: OnStale | None) -> Iterator[Coded]:
    """EXE017: the results a dialogue shows are the results its calls really return."""
    turn = dialogue.turns[index] if index < len(dialogue.turns) else None
    if not isinstance(turn, ToolTurn):
        return
    for recorded, actual in zip(turn.results, observed, strict=False):  # a result per call: DLG005 checks the counts
        if not matchers.literal_equal(recorded.result, actual):
            if on_stale is not None:
                on_stale(StaleResult(case.path, recorded.pointer + "/result", dialogue.lang, recorded.api, recorded.result, actual))
            shown = json.dumps(actual, ensure_ascii=False, sort_keys=True)
            if len(shown) > 300:  # the whole value is `callbank fix`'s to write, not a message's
                shown = shown[:299] + "… (`callbank fix` writes the whole value)"
            yield "EXE017", Finding(f"this recorded result differs from what {recorded.api} really returns here; run `callbank fix`, or replace it with: {shown}", recorded.pointer + "/result")


def _run_calls(session: Session, alternative: Calls, lang: str, case: Case, execution: Execution, observed: list[object]) -> Generator[Coded, None, bool]:
    for j, call in enumerate(alternative.calls):
        outcome = session.run(call.api, matchers.render(call.args, lang), lang)
        observed.append(outcome.observation)
        if outcome.ok:
            continue
        if outcome.is_fault:
            fault = execution.fault(outcome, f"running {case.path} {alternative.pointer}/{j}")
            if fault is not None:
                yield fault
        else:
            yield "EXE005", Finding(error_text(outcome), call.pointer)
        return False
    return True


def error_text(outcome: Outcome) -> str:
    observation = outcome.observation if isinstance(outcome.observation, dict) else {}
    if outcome.status in AGENT_ERRORS and outcome.status != "error":
        return f"{outcome.api} fails with {outcome.status}: {outcome.detail}"
    shown = {k: v for k, v in observation.items() if k not in ("error", "message")}
    extra = f" {shown}" if shown else ""
    return f"{outcome.api} returns the error {observation.get('error')!r} ({observation.get('message')}){extra}"
