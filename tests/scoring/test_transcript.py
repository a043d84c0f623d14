"""An agent record as a conversation: who said what, and where each call was made."""

from __future__ import annotations

from typing import Any

import pytest

from validator.scoring.literals import FormatError
from validator.scoring.transcript import MAX_TOLD_CHARS, is_call_text, message_text, read_transcript


@pytest.mark.parametrize(
    "content, text",
    [
        ("plain words", "plain words"),
        ([{"type": "text", "text": "one"}, {"type": "text", "text": "two"}], "one\ntwo"),
        ([{"type": "output_text", "text": "responses api"}], "responses api"),
        ([{"type": "refusal", "refusal": "I can't do that."}], "I can't do that."),
        ([{"type": "image_url", "image_url": {"url": "x"}}, "bare part"], "bare part"),
        (None, None),
        (42, None),
    ],
)
def test_message_text_reads_strings_and_content_parts(content: Any, text: str | None) -> None:
    assert message_text(content) == text


@pytest.mark.parametrize(
    "text, is_calls",
    [
        ("[transfer(amount=2000)]", True),
        ("transfer(amount=2000)", True),
        ('[{"api": "transfer", "args": {"amount": 2000}}]', True),
        ("```python\n[transfer(amount=2000)]\n```", True),
        ("Done: I transferred 2,000 yuan.", False),
        ("[IRRELEVANT] I can't help with that.", False),
        ("[Note] the transfer is done.", False),
        ("f(x) is a function I won't call.", False),
    ],
)
def test_call_lists_are_not_words_to_the_user(text: str, is_calls: bool) -> None:
    assert is_call_text(text) is is_calls


def test_only_the_agents_words_are_told() -> None:
    messages = [
        "a bare string is the agent's",
        {"role": "user", "content": "user words"},
        {"role": "assistant", "content": [{"type": "text", "text": "parts"}]},
        {"role": "assistant", "content": "[f(a=1)]", "tool_calls": [{"id": "c"}]},
        {"role": "tool", "content": "tool result"},
        {"role": "assistant", "content": "next to a call", "tool_calls": [{"id": "d"}]},
        {"content": "no role is the agent's"},
    ]
    transcript = read_transcript(messages, [{"api": "f"}, {"api": "g"}])
    assert transcript.told() == "a bare string is the agent's\nparts\nnext to a call\nno role is the agent's"
    assert transcript.positions == (3, 5)  # from the tool_calls, which account for both calls
    assert transcript.told(2, 5) == "parts"
    assert transcript.last_user_before(5) == 1 and transcript.last_user_before(1) is None


def test_positions_given_by_the_record_win_and_are_checked() -> None:
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}]
    assert read_transcript(messages, [{"api": "f", "at": 1}]).positions == (1,)
    assert read_transcript(messages, [{"api": "f"}]).positions == (None,)  # no tool_calls to place it
    for calls in ([{"api": "f", "at": 2}], [{"api": "f", "at": -1}], [{"api": "f", "at": True}], [{"api": "f", "at": 1}, {"api": "g", "at": 0}], [{"api": "f", "at": 1}, {"api": "g"}]):
        with pytest.raises(FormatError):
            read_transcript(messages, calls)


def test_unreadable_messages_are_format_errors() -> None:
    for messages in ("text", [42], ["x" * (MAX_TOLD_CHARS + 1)]):
        with pytest.raises(FormatError):
            read_transcript(messages, [])
    assert read_transcript(None, []).turns == ()
