"""What the case browser shows of a dialogue (``validator.report.data.dialogue``)."""

from __future__ import annotations

from pathlib import Path

from validator.corpus.index import Corpus
from validator.report.data import dialogue

HISTORY = Path(__file__).resolve().parents[1] / "fixtures" / "rules" / "DLG005" / "pass"  # a dialogue with calls made earlier


def test_every_turn_is_shown_in_order_with_history_calls_as_the_assistants() -> None:
    case = Corpus.load(HISTORY).cases["switch-0001"]
    turns = dialogue(case, "en")
    assert [turn["role"] for turn in turns] == ["user", "assistant", "tool", "assistant", "user", "expect"]
    assert turns[1]["text"] == 'get_weather(city="Hangzhou")'  # the earlier call, as a call
    assert turns[2]["text"].startswith("get_weather → ") and '"high": 24' in turns[2]["text"]
    assert turns[5] == {"role": "expect", "step": "0", "text": 'send_note(to="Li Wei", text="The picnic is on.")'}
    assert dialogue(case, "zh")[1]["text"] == 'get_weather(city="杭州")'
