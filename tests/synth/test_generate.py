"""The generator's reply: each way a draft can be wrong is rejected at generate with its reason."""

from __future__ import annotations

import json

import pytest

from validator.synth.generate import draft_from_reply
from validator.synth.outcome import Rejected
from validator.synth.plan import Recipe

SINGLE = Recipe(0, 0, "normal/single_turn/single", ("get_weather",), ("get_weather", "send_note"), "2024-05-06T09:00:00+08:00", 1)
INCOMPLETE = Recipe(0, 0, "special/incomplete", ("get_weather",), ("get_weather", "send_note"), "2024-05-06T09:00:00+08:00", 1, {"kind": "missing", "api": "get_weather", "param": "city"})


def reply(en: list, zh: list, **extra: object) -> str:
    return json.dumps({"en": {"turns": en}, "zh": {"turns": zh}, **extra}, ensure_ascii=False)


CALL = {"calls": [{"api": "get_weather", "args": {"city": "Hangzhou"}}]}
CALL_ZH = {"calls": [{"api": "get_weather", "args": {"city": "杭州"}}]}


def test_a_good_reply_becomes_a_draft_in_the_case_shape() -> None:
    text = "```json\n" + reply([{"user": "Weather in Hangzhou?"}, CALL, {"assistant": "Sunny."}], [{"user": "杭州天气？"}, CALL_ZH]) + "\n```"
    draft = draft_from_reply(SINGLE, text)
    assert draft["en"] == [{"user": "Weather in Hangzhou?"}, {"expect": CALL}]  # the closing remark is dropped
    assert draft["zh"][1] == {"expect": CALL_ZH}


@pytest.mark.parametrize(
    ("recipe", "text", "reason", "detail"),
    [
        (SINGLE, "", "invalid_json", "replied with nothing"),
        (SINGLE, "[1, 2]", "invalid_json", "not an object"),
        (SINGLE, reply([{"user": "x"}, CALL], []), "bad_shape", "no zh conversation"),
        (SINGLE, reply([CALL], [CALL_ZH]), "bad_shape", "must start with the user"),
        (SINGLE, reply([{"user": "x", "assistant": "y"}, CALL], [{"user": "杭州"}, CALL_ZH]), "bad_shape", "exactly one of"),
        (SINGLE, reply([{"user": "x"}, {"calls": [{"api": "book_flight", "args": {}}]}], [{"user": "杭州"}, CALL_ZH]), "unknown_api", "book_flight"),
        (SINGLE, reply([{"user": "x"}, CALL], [{"user": "杭州"}, {"assistant": "好"}, CALL_ZH]), "bad_shape", "only right after a user turn"),
        (SINGLE, reply([{"user": "x"}, CALL], [{"user": "杭州"}, {"calls": [{"api": "send_note", "args": {}}]}]), "languages_differ", "differ"),
        (SINGLE, reply([{"user": "x"}, CALL, {"user": "y"}, CALL], [{"user": "杭州"}, CALL_ZH, {"user": "再"}, CALL_ZH]), "recipe_mismatch", "2 point(s)"),
        (INCOMPLETE, reply([{"user": "x"}, CALL], [{"user": "杭州"}, CALL_ZH]), "recipe_mismatch", "special answer 'incomplete'"),
        (
            INCOMPLETE,
            reply([{"user": "x"}, {"special": "incomplete", "api": "get_weather", "missing": ["days"]}], [{"user": "天气"}, {"special": "incomplete", "api": "get_weather", "missing": ["days"]}]),
            "recipe_mismatch",
            "leaves out 'city'",
        ),
    ],
)
def test_a_bad_reply_is_rejected_with_its_reason(recipe: Recipe, text: str, reason: str, detail: str) -> None:
    with pytest.raises(Rejected) as caught:
        draft_from_reply(recipe, text)
    assert (caught.value.stage, caught.value.reason) == ("generate", reason) and detail in caught.value.detail
