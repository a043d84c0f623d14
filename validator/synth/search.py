"""Best-first (A*) search over the simulator's partial trajectories in multi-step cases.

Plain cycle consistency asks the simulator once per checkpoint, always continuing from the
reference's own steps. The search lets the simulator walk the dialogue on its own: at every
checkpoint it samples ``width`` next steps (one request each, different seeds), runs each step's
calls in the case's sandbox (a fork of the session the path so far left behind), and continues
from its own results. A node's cost is

    g = steps taken + inconsistency so far    (a step's inconsistency: 0 when the scorer finds it
                                               right, else 1 − the mean of its API-F1 and
                                               parameter-F1, so a near miss costs less)
    h = checkpoints still ahead               (each costs at least one step: admissible)

and the node with the least g + h is expanded first. The first complete trajectory taken off
the queue is the most consistent one the samples allow; the search stops there or when the
``budget`` of simulator requests per language is spent (then the best complete trajectory found
is the answer, or the deepest partial one, its missing steps counted wrong). With width 1 it is
greedy sampling. Every sample is cached under its path, so a resumed run repeats no request.
"""

from __future__ import annotations

import heapq
import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from validator.corpus.canonical import sha256_of
from validator.corpus.records import AssistantTurn, Case, Checkpoint, Spec, UserTurn
from validator.models.render import tool_calls as render_tool_calls
from validator.models.request import case_requests
from validator.sandbox.runtime import Runtime, Session
from validator.scoring.parse import parse_prediction
from validator.synth.client import Asker
from validator.synth.config import SearchConfig
from validator.synth.consistency import StepCheck, score_answer, wire

BUDGET_DETAIL = "the search budget ran out before this step"


@dataclass
class Node:
    cost: float  # g: steps taken + inconsistency so far
    step: int  # the next checkpoint to answer
    messages: list[dict[str, Any]]  # the simulator's conversation so far (its own steps and results)
    session: Session
    checks: list[StepCheck]


def _turns_after(case: Case, lang: str, checkpoint: Checkpoint) -> list[dict[str, Any]]:
    """The user and assistant turns between a checkpoint and the next one (the reference's tool
    turn is skipped: the simulator sees its own results)."""
    turns = case.dialogues[lang].turns
    out: list[dict[str, Any]] = []
    for turn in turns[checkpoint.index + 1 :]:
        if isinstance(turn, Checkpoint):
            break
        if isinstance(turn, UserTurn):
            out.append({"role": "user", "content": turn.text})
        elif isinstance(turn, AssistantTurn):
            out.append({"role": "assistant", "content": turn.text})
    return out


def _advance(node: Node, check: StepCheck, answer_calls: list[dict[str, Any]], content: str | None, case: Case, lang: str, checkpoint: Checkpoint) -> Node:
    session = node.session.fork()
    messages = list(node.messages)
    if answer_calls:
        entries = render_tool_calls(answer_calls, prefix=f"call_{node.step}")
        messages.append({"role": "assistant", "content": content, "tool_calls": entries})
        for entry, call in zip(entries, answer_calls, strict=True):
            observation = session.call(call["api"], call["args"], lang)
            messages.append({"role": "tool", "tool_call_id": entry["id"], "name": call["api"], "content": json.dumps(observation, ensure_ascii=False)})
    else:
        messages.append({"role": "assistant", "content": content or ""})
    messages += _turns_after(case, lang, checkpoint)
    inconsistency = 0.0 if check.correct else 1.0 - (check.api_f1 + check.param_f1) / 2
    return Node(node.cost + 1 + inconsistency, node.step + 1, messages, session, [*node.checks, check])


async def search_side(case: Case, lang: str, specs: Mapping[str, Spec], asker: Asker, runtime: Runtime, recipe_key: str, syntax: str, config: SearchConfig) -> tuple[list[StepCheck], int]:
    """The most consistent trajectory found in one language, and the requests it cost."""
    requests = list(case_requests(case, lang, specs, syntax))
    checkpoints = case.dialogues[lang].checkpoints
    total = len(checkpoints)
    first = requests[0]
    apis = {call.api for _, _, call in case.dialogues[lang].calls()}
    names = sorted({runtime.sandbox_of(api) or "" for api in apis if runtime.runnable(api)})
    start = Node(0.0, 0, list(first.messages), runtime.session(names, case.state, case.time), [])
    order = itertools.count()  # ties broken first-in, first-out: deterministic
    queue: list[tuple[float, int, Node]] = [(float(total), next(order), start)]
    spent = 0
    best_complete: Node | None = None
    deepest = start
    while queue and spent < config.budget:
        _, _, node = heapq.heappop(queue)
        if node.step == total:
            return node.checks, spent
        checkpoint = checkpoints[node.step]
        path = sha256_of(node.messages)[7:23]
        for sample in range(config.width):
            if spent >= config.budget:
                break
            request = replace(first, step=node.step, messages=node.messages)
            messages, tools = wire(request, syntax)
            key = asker.key("simulator", f"search.{syntax}", recipe_key, f"{lang}/{node.step}/{path}#{sample}")
            answer = await asker.ask(key, messages, tools, sample=sample)
            spent += 1
            check = score_answer(case, lang, node.step, answer, specs, syntax)
            record: dict[str, Any] = {"output": answer.content}
            if syntax == "tool_calls":
                record["tool_calls"] = answer.tool_calls
            parsed = parse_prediction(record)
            calls = [{"api": call.api, "args": call.args} for call in parsed.calls] if parsed.kind == "calls" else []
            child = _advance(node, check, calls, answer.content, case, lang, checkpoint)
            if child.step == total and (best_complete is None or child.cost < best_complete.cost):
                best_complete = child
            if child.step > deepest.step or (child.step == deepest.step and child.cost < deepest.cost):
                deepest = child
            heapq.heappush(queue, (child.cost + (total - child.step), next(order), child))
    chosen = best_complete or deepest
    checks = list(chosen.checks)
    for step in range(len(checks), total):
        checks.append(StepCheck(lang, step, False, "search_budget", BUDGET_DETAIL, 0.0, 0.0, {}))
    return checks, spent


async def search_case(case: Case, specs: Mapping[str, Spec], asker: Asker, runtime: Runtime, recipe_key: str, syntax: str, config: SearchConfig) -> list[StepCheck]:
    """The search in every language of the case; the checks of the trajectories it chose."""
    checks: list[StepCheck] = []
    for lang in case.dialogues:
        found, _ = await search_side(case, lang, specs, asker, runtime, recipe_key, syntax, config)
        checks += found
    return checks
