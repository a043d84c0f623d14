"""An agent record read as a conversation: who said what, in order, and where each call was made.

Only words the agent addressed to the user count as told: the text of assistant messages — a
string, or OpenAI content parts ``[{"type": "text", "text": …}]`` — never call arguments, tool
results, or a message that is itself a call list (how a model without native tool calling
writes its calls). A record's ``calls`` may say where each call was made (``at``: the index in
``messages`` of the assistant message that made it); without it, the positions are read from
the assistant messages' ``tool_calls``, when those account for every call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from validator.scoring.literals import FormatError
from validator.scoring.parse import parse_text

MAX_TOLD_CHARS = 262_144  # all the agent's words to the user in one record; more is a format error
_TEXT_PARTS = ("text", "output_text", "refusal")
_CALL_OPENINGS = ("[", "{", "```")


class Turn(NamedTuple):
    role: str  # "user" | "assistant" | "tool" | "system" | another role the record names
    text: str  # what this message says to the other party ("" for tool results and call lists)


class Transcript(NamedTuple):
    turns: tuple[Turn, ...]
    positions: tuple[int | None, ...]  # per call: index of the message that made it (None: unknown)

    def told(self, start: int = 0, stop: int | None = None) -> str:
        """What the agent said to the user in messages start … stop-1 (all by default), one message a line."""
        end = len(self.turns) if stop is None else stop
        return "\n".join(turn.text for turn in self.turns[start:end] if turn.role == "assistant" and turn.text)

    def last_user_before(self, index: int) -> int | None:
        for i in range(min(index, len(self.turns)) - 1, -1, -1):
            if self.turns[i].role == "user":
                return i
        return None


def message_text(content: Any) -> str | None:
    """The text of a message's ``content``: a string, or the text of OpenAI content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict) and part.get("type") in _TEXT_PARTS:
                value = part.get("refusal" if part["type"] == "refusal" else "text")
                if isinstance(value, str):
                    pieces.append(value)
        return "\n".join(pieces)
    return None


def is_call_text(text: str) -> bool:
    """Whether an assistant message's text is a call list, not words to the user."""
    stripped = text.strip()
    if not stripped.startswith(_CALL_OPENINGS) and not _looks_like_call(stripped):
        return False
    parsed = parse_text(stripped)
    return parsed.kind == "calls" and bool(parsed.calls)


def _looks_like_call(text: str) -> bool:
    """``get_weather(city='x')`` without brackets: a name, then an opening parenthesis."""
    head = text[:80]
    name_end = 0
    while name_end < len(head) and (head[name_end].isalnum() or head[name_end] == "_") and head[name_end].isascii():
        name_end += 1
    return 0 < name_end < len(head) and head[name_end] == "("


def read_transcript(messages: Any, calls: Sequence[Any] | None) -> Transcript:
    """The conversation of an agent record; FormatError when it cannot be read."""
    if messages is None:
        messages = []
    if not isinstance(messages, list):
        raise FormatError('"messages" is not a list')
    turns: list[Turn] = []
    made: list[int] = []  # per tool call in the messages: the index of its message
    told = 0
    for index, message in enumerate(messages):
        if isinstance(message, str):  # a bare string: the agent's words
            turns.append(Turn("assistant", message))
            told += len(message)
        elif isinstance(message, dict):
            role = message.get("role", "assistant")
            role = role if isinstance(role, str) else "unknown"
            text = message_text(message.get("content")) or ""
            if role == "assistant":
                if text and is_call_text(text):
                    text = ""
                tool_calls = message.get("tool_calls")
                made.extend([index] * (len(tool_calls) if isinstance(tool_calls, list) else 0))
                told += len(text)
            elif role != "user":
                text = ""
            turns.append(Turn(role, text))
        else:
            raise FormatError(f"message {index} is neither a string nor an object")
        if told > MAX_TOLD_CHARS:
            raise FormatError(f"the agent's messages hold over {MAX_TOLD_CHARS:,} characters; the limit keeps scoring fast")
    return Transcript(tuple(turns), _positions(calls or [], made, len(turns)))


def _positions(calls: Sequence[Any], made: list[int], count: int) -> tuple[int | None, ...]:
    given = [call.get("at") if isinstance(call, dict) else None for call in calls]
    if any(value is not None for value in given):
        previous = 0
        for index, value in enumerate(given):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count or value < previous:
                raise FormatError(f'call {index}: "at" must be the index of the message that made it, in order (0 … {count - 1})')
            previous = value
        return tuple(given)
    if len(made) == len(calls):
        return tuple(made)
    return tuple(None for _ in calls)
