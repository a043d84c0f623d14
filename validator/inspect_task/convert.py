"""Messages, tools and replies between callbank's OpenAI shapes and Inspect's types.

callbank builds every request as OpenAI-style ``messages`` and ``tools``
(``validator.models.request``); Inspect's models take ``ChatMessage`` objects and ``ToolInfo``.
Tool schemas pass through Inspect's ``ToolParams``, a JSON Schema subset: ``minItems``,
``maxItems``, ``uniqueItems`` and ``exclusiveMinimum`` are not sent to the model on this path.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser, ModelOutput
from inspect_ai.tool import ToolCall, ToolInfo, ToolParams

from validator.models.base import Reply

EMPTY = {"type": "object", "properties": {}}  # the parameters of an API without any


def _arguments(text: Any) -> dict[str, Any]:
    if isinstance(text, dict):
        return text
    try:
        value = json.loads(text) if isinstance(text, str) and text.strip() else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def to_inspect(messages: Sequence[Mapping[str, Any]]) -> list[ChatMessage]:
    """OpenAI-style messages as Inspect chat messages."""
    out: list[ChatMessage] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        text = content if isinstance(content, str) else "" if content is None else json.dumps(content, ensure_ascii=False)
        if role == "system":
            out.append(ChatMessageSystem(content=text))
        elif role == "user":
            out.append(ChatMessageUser(content=text))
        elif role == "assistant":
            calls = []
            for index, entry in enumerate(message.get("tool_calls") or []):
                function = entry.get("function") or {}
                calls.append(ToolCall(id=str(entry.get("id") or f"call_{index}"), function=str(function.get("name") or ""), arguments=_arguments(function.get("arguments"))))
            out.append(ChatMessageAssistant(content=text, tool_calls=calls or None))
        elif role == "tool":
            out.append(ChatMessageTool(content=text, tool_call_id=message.get("tool_call_id"), function=message.get("name")))
    return out


def tool_infos(tools: Sequence[Mapping[str, Any]]) -> list[ToolInfo]:
    """OpenAI ``tools`` entries as Inspect tool descriptions."""
    infos = []
    for tool in tools:
        function = tool.get("function") or {}
        parameters = ToolParams.model_validate(function.get("parameters") or EMPTY)
        infos.append(ToolInfo(name=str(function.get("name")), description=str(function.get("description") or ""), parameters=parameters))
    return infos


def openai_tool_calls(calls: Sequence[ToolCall] | None) -> list[dict[str, Any]]:
    """Inspect tool calls in the OpenAI shape a prediction record keeps."""
    return [{"id": call.id, "type": "function", "function": {"name": call.function, "arguments": json.dumps(call.arguments, ensure_ascii=False)}} for call in calls or []]


def to_reply(output: ModelOutput, native: bool) -> Reply:
    """A model's output as callbank's reply: text and, in fc mode, its tool calls."""
    message = output.message
    usage: dict[str, Any] = {}
    if output.usage is not None:
        usage = {"prompt_tokens": output.usage.input_tokens, "completion_tokens": output.usage.output_tokens, "total_tokens": output.usage.total_tokens}
    if output.time is not None:
        usage["latency_s"] = round(output.time, 3)
    content = message.text or None
    if not native:
        return Reply(content, None, usage)
    return Reply(content, openai_tool_calls(message.tool_calls), usage)
