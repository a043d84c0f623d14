"""Building requests: the conversation up to each checkpoint, the candidate APIs as tools.

For a case, the request at checkpoint k holds the system prompt, then every turn before the
k-th ``expect``: user and assistant text, earlier checkpoints as the assistant's calls
(rendered from their first alternative, ``tool_calls`` with ids ``call_<step>_<i>``) or special
answers (the marker line), and tool results as ``tool`` messages answering those ids.
The tools are the case's ``apis`` (in retrieval cases only ``search_tools``: the APIs the
model finds join them during its episode, ``validator.models.retrieval``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from validator.matchers import render
from validator.models.base import Request
from validator.models.prompts import system_prompt
from validator.models.render import tool_calls
from validator.scoring.special import render_special
from validator.spec_render import tool_entry

def tools_for(names: list[str], specs: Mapping[str, Any], lang: str) -> list[dict[str, Any]]:
    return [tool_entry(specs[name], lang) for name in names if name in specs]


def first_alternative(answer: Mapping[str, Any], lang: str) -> list[dict[str, Any]]:
    calls = answer["calls"] if "calls" in answer else answer["one_of"][0]["calls"]
    return [{"api": call["api"], "args": render(call.get("args") or {}, lang)} for call in calls]


def case_requests(
    case: Mapping[str, Any], lang: str, specs: Mapping[str, Any], syntax: str, *, style: str = "standard"
) -> Iterator[Request]:
    """One request per checkpoint of one language side of a case, in order (system prompt in style)."""
    side = case.get(lang) or {}
    profile = case.get("profile")
    names = list(case.get("apis") or [])
    history: list[dict[str, Any]] = []
    pending_ids: list[str] = []
    step = 0
    for turn in side.get("turns") or []:
        (kind, value), = turn.items()
        if kind == "user":
            history.append({"role": "user", "content": value})
        elif kind == "assistant":
            history.append({"role": "assistant", "content": value})
        elif kind == "tool":
            for index, result in enumerate(value if isinstance(value, list) else [value]):
                call_id = pending_ids[index] if index < len(pending_ids) else f"call_{step}_{index}"
                entry = result if isinstance(result, dict) else {}  # a malformed turn (`callbank check` reports it)
                content = entry.get("result") if entry else result
                history.append(
                    {"role": "tool", "tool_call_id": call_id, "name": entry.get("api"), "content": json.dumps(content, ensure_ascii=False)}
                )
            pending_ids = []
        elif kind == "expect":
            tools = tools_for(names, specs, lang)
            system = system_prompt(
                lang,
                syntax,
                tools=tools,
                time=case.get("time"),
                profile=profile.get(lang) if isinstance(profile, dict) else None,
                style=style,
            )
            yield Request(
                kind="case",
                id=case["id"],
                lang=lang,
                step=step,
                category=case.get("category", ""),
                messages=[{"role": "system", "content": system}, *history],
                tools=tools,
                syntax=syntax,
            )
            if "special" in value:
                history.append({"role": "assistant", "content": render_special(value, lang)})
                pending_ids = []
            else:
                entries = tool_calls(first_alternative(value, lang), prefix=f"call_{step}")
                history.append({"role": "assistant", "content": None, "tool_calls": entries})
                pending_ids = [entry["id"] for entry in entries]
            step += 1


def scenario_apis(scenario: Mapping[str, Any], specs: Mapping[str, Any]) -> list[str]:
    """The scenario's own ``apis``, else every API of its sandboxes."""
    if isinstance(scenario.get("apis"), list):
        return list(scenario["apis"])
    sandboxes = set(scenario.get("sandboxes") or [])
    return sorted(name for name, spec in specs.items() if isinstance(spec, dict) and spec.get("sandbox") in sandboxes)
