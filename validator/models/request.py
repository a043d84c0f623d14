"""Building requests: the conversation up to each checkpoint, the candidate APIs as tools.

For a case, the request at checkpoint k holds the system prompt, then every turn before the
k-th ``expect``: user and assistant text, earlier checkpoints as the assistant's calls
(rendered from their first alternative, ``tool_calls`` with ids ``call_<step>_<i>``) or special
answers (the marker line), ``called`` history turns as the assistant's calls too (ids
``history_<turn>_<i>``; never asked for, never scored), and tool results as ``tool`` messages
answering those ids.
The tools are the case's ``apis`` (in retrieval cases only ``search_tools``: the APIs the
model finds join them during its episode, ``validator.models.retrieval``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from validator.corpus.records import AssistantTurn, CalledTurn, Case, Checkpoint, Scenario, Spec, ToolTurn, UserTurn
from validator.matchers import render
from validator.models.base import Request
from validator.models.prompts import system_prompt
from validator.models.render import tool_calls
from validator.scoring.special import render_special


def tools_for(names: Sequence[str], specs: Mapping[str, Spec], lang: str) -> list[dict[str, Any]]:
    return [specs[name].tool(lang) for name in names if name in specs]


def first_alternative(checkpoint: Checkpoint, lang: str) -> list[dict[str, Any]]:
    """The calls of a checkpoint's first alternative, matchers rendered for lang."""
    return [{"api": call.api, "args": render(call.args, lang)} for call in checkpoint.first]


def case_requests(case: Case, lang: str, specs: Mapping[str, Spec], syntax: str, *, style: str = "standard") -> Iterator[Request]:
    """One request per checkpoint of one language side of a case, in order (system prompt in style)."""
    profile = case.profile[lang] if case.profile is not None else None
    names = list(case.apis)
    history: list[dict[str, Any]] = []
    pending_ids: list[str] = []
    steps = 0  # checkpoints so far
    for turn in case.dialogues[lang].turns:
        if isinstance(turn, UserTurn):
            history.append({"role": "user", "content": turn.text})
        elif isinstance(turn, AssistantTurn):
            history.append({"role": "assistant", "content": turn.text})
        elif isinstance(turn, CalledTurn):
            calls = [{"api": call.api, "args": render(call.args, lang)} for call in turn.calls]
            entries = tool_calls(calls, prefix=f"history_{turn.index}")
            history.append({"role": "assistant", "content": None, "tool_calls": entries})
            pending_ids = [entry["id"] for entry in entries]
        elif isinstance(turn, ToolTurn):
            for index, result in enumerate(turn.results):
                call_id = pending_ids[index] if index < len(pending_ids) else f"call_{steps}_{index}"
                history.append({"role": "tool", "tool_call_id": call_id, "name": result.api, "content": json.dumps(result.result, ensure_ascii=False)})
            pending_ids = []
        else:
            tools = tools_for(names, specs, lang)
            system = system_prompt(lang, syntax, tools=tools, time=case.time, profile=profile, style=style)
            yield Request(
                kind="case",
                id=case.id,
                lang=lang,
                step=turn.step,
                category=case.category,
                messages=[{"role": "system", "content": system}, *history],
                tools=tools,
                syntax=syntax,
            )
            if turn.special is not None:
                history.append({"role": "assistant", "content": render_special(dict(turn.answer), lang)})
                pending_ids = []
            else:
                entries = tool_calls(first_alternative(turn, lang), prefix=f"call_{turn.step}")
                history.append({"role": "assistant", "content": None, "tool_calls": entries})
                pending_ids = [entry["id"] for entry in entries]
            steps += 1


def scenario_apis(scenario: Scenario, specs: Mapping[str, Spec]) -> list[str]:
    """The scenario's own ``apis``, else every API of its sandboxes."""
    if scenario.apis is not None:
        return list(scenario.apis)
    return sorted(name for name, spec in specs.items() if spec.sandbox in scenario.sandboxes)
