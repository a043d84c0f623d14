"""Writing calls in each answer syntax the scorer reads (the inverse of ``scoring.parse``).

``python``: ``[get_weather(city='Hangzhou', days=3)]`` — values as Python literals (``repr`` of
JSON data is always a valid literal); ``json``: ``[{"api": …, "args": {…}}]``;
``tool_calls``: OpenAI ``tool_calls`` entries with ``arguments`` as a JSON string.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any


def python_calls(calls: Sequence[Mapping[str, Any]]) -> str:
    return "[" + ", ".join(python_call(call) for call in calls) + "]"


def python_call(call: Mapping[str, Any]) -> str:
    args = ", ".join(f"{name}={value!r}" for name, value in (call.get("args") or {}).items())
    return f"{call['api']}({args})"


def json_calls(calls: Sequence[Mapping[str, Any]]) -> str:
    return json.dumps([{"api": call["api"], "args": call.get("args") or {}} for call in calls], ensure_ascii=False)


def tool_calls(calls: Sequence[Mapping[str, Any]], prefix: str = "call") -> list[dict[str, Any]]:
    return [
        {
            "id": f"{prefix}_{index}",
            "type": "function",
            "function": {"name": call["api"], "arguments": json.dumps(call.get("args") or {}, ensure_ascii=False)},
        }
        for index, call in enumerate(calls)
    ]


def text_calls(calls: Sequence[Mapping[str, Any]], syntax: str) -> str:
    """Calls as answer text in a text syntax (python or json)."""
    return json_calls(calls) if syntax == "json" else python_calls(calls)
