"""The two training-data formats `callbank export` writes, and their validation.

``sft`` — OpenAI chat fine-tuning JSON Lines: ``{"messages": [...], "tools": [...]}`` where the
messages are ``system`` / ``user`` / ``assistant`` (text, or ``tool_calls`` with JSON-string
``arguments``) / ``tool`` (``tool_call_id`` answering an earlier call), ending with the assistant
turn to learn, and the tools are function schemas.

``dpo`` — preference pairs in the conversational prompt / chosen / rejected shape (TRL's
``DPOTrainer``; OpenAI's preference format carries the same three parts):
``{"prompt": [messages], "tools": [...], "chosen": [one assistant message], "rejected": [one
assistant message], "rejected_error": "<error type>"}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

FORMATS = ("sft", "dpo")

_TOOL_CALL = {
    "type": "object",
    "required": ["id", "type", "function"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "type": {"const": "function"},
        "function": {
            "type": "object",
            "required": ["name", "arguments"],
            "properties": {"name": {"type": "string", "minLength": 1}, "arguments": {"type": "string"}},
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}
_MESSAGE = {
    "type": "object",
    "required": ["role"],
    "properties": {
        "role": {"enum": ["system", "user", "assistant", "tool"]},
        "content": {"type": ["string", "null"]},
        "tool_calls": {"type": "array", "minItems": 1, "items": _TOOL_CALL},
        "tool_call_id": {"type": "string", "minLength": 1},
    },
    "additionalProperties": False,
    "allOf": [
        {"if": {"properties": {"role": {"const": "tool"}}}, "then": {"required": ["tool_call_id", "content"]}},
        {"if": {"properties": {"role": {"enum": ["system", "user"]}}}, "then": {"required": ["content"], "properties": {"content": {"type": "string", "minLength": 1}}}},
        {
            "if": {"properties": {"role": {"const": "assistant"}}},
            "then": {"anyOf": [{"required": ["tool_calls"]}, {"required": ["content"], "properties": {"content": {"type": "string", "minLength": 1}}}]},
        },
    ],
}
_TOOL = {
    "type": "object",
    "required": ["type", "function"],
    "properties": {
        "type": {"const": "function"},
        "function": {
            "type": "object",
            "required": ["name", "parameters"],
            "properties": {"name": {"type": "string", "minLength": 1}, "description": {"type": "string"}, "parameters": {"type": "object"}},
        },
    },
}
_ASSISTANT = {"type": "array", "minItems": 1, "maxItems": 1, "items": {"allOf": [_MESSAGE, {"properties": {"role": {"const": "assistant"}}}]}}
SCHEMAS: dict[str, dict[str, Any]] = {
    "sft": {
        "type": "object",
        "required": ["messages", "tools"],
        "properties": {"messages": {"type": "array", "minItems": 2, "items": _MESSAGE}, "tools": {"type": "array", "items": _TOOL}},
        "additionalProperties": False,
    },
    "dpo": {
        "type": "object",
        "required": ["prompt", "tools", "chosen", "rejected", "rejected_error"],
        "properties": {
            "prompt": {"type": "array", "minItems": 1, "items": _MESSAGE},
            "tools": {"type": "array", "items": _TOOL},
            "chosen": _ASSISTANT,
            "rejected": _ASSISTANT,
            "rejected_error": {"type": "string", "minLength": 1},
        },
        "additionalProperties": False,
    },
}


@cache
def _validator(kind: str) -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(SCHEMAS[kind])


def _conversation_problems(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> list[str]:
    """What a schema cannot say: calls name declared tools with JSON-object arguments, and every
    tool message answers a call made before it."""
    names = {tool["function"]["name"] for tool in tools}
    open_ids: set[str] = set()
    problems: list[str] = []
    for index, message in enumerate(messages):
        for call in message.get("tool_calls") or []:
            function = call["function"]
            if names and function["name"] not in names:
                problems.append(f"message {index}: calls {function['name']!r}, which is not among the tools")
            try:
                arguments = json.loads(function["arguments"])
            except json.JSONDecodeError:
                arguments = None
            if not isinstance(arguments, dict):
                problems.append(f"message {index}: the arguments of {function['name']!r} are not a JSON object")
            open_ids.add(call["id"])
        if message.get("role") == "tool" and message.get("tool_call_id") not in open_ids:
            problems.append(f"message {index}: answers the call {message.get('tool_call_id')!r}, which no earlier message made")
    return problems


def line_problems(kind: str, line: Mapping[str, Any]) -> list[str]:
    """Why one exported line breaks its format (empty when it is valid)."""
    validator = _validator(kind)
    if not validator.is_valid(dict(line)):
        return ["/" + "/".join(map(str, error.instance_path)) + f": {error.message}" for error in validator.iter_errors(dict(line))]
    tools = line["tools"]
    if kind == "sft":
        problems = _conversation_problems(line["messages"], tools)
        if line["messages"][-1]["role"] != "assistant":
            problems.append("the conversation must end with the assistant turn to learn")
        return problems
    # the rejected side is a wrong answer: it may well call a tool that does not exist
    return _conversation_problems([*line["prompt"], *line["chosen"]], tools)
