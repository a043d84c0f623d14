"""Special answers: the marker convention in both languages, and how its detail is judged."""

from __future__ import annotations

import pytest

from validator.scoring.parse import parse_text
from validator.scoring.special import Special, correction_problem, expected_special, find_special, render_special

INCOMPLETE = {"special": "incomplete", "api": "book_flight", "missing": ["from_city", "date"]}
ERROR_PARAM = {"special": "error_param", "api": "book_flight", "params": {"seats": 12, "date": "2024-02-30"}}
IRRELEVANT = {"special": "irrelevant"}


@pytest.mark.parametrize(
    "text",
    [
        "[MISSING] book_flight: from_city, date",
        "[missing] book_flight: date, from_city",
        "[INCOMPLETE] book_flight(from_city, date)",
        "Could you tell me where you fly from?\n[MISSING] book_flight: from_city, date\nThanks!",
        "【缺少参数】book_flight：from_city，date",
        "【缺少参数】 book_flight: from_city、date",
        "［缺少参数］book_flight：from_city；date",
        "  [ Missing ] book_flight : from_city date",
    ],
)
def test_incomplete_markers(text: str) -> None:
    special = find_special(text)
    assert special is not None and special.kind == "incomplete" and special.api == "book_flight"
    assert set(special.missing) == {"from_city", "date"}
    assert correction_problem(expected_special(INCOMPLETE), special) is None


@pytest.mark.parametrize(
    "text",
    [
        '[INVALID] book_flight: seats=12, date="2024-02-30"',
        "[INVALID] book_flight: date='2024-02-30', seats=12",
        "[ERROR_PARAM] book_flight(seats=12, date=2024-02-30)",
        '【参数错误】book_flight：seats=12，date="2024-02-30"',
        "【参数错误】book_flight: seats=\"12\", date=2024-02-30",
    ],
)
def test_error_param_markers(text: str) -> None:
    special = find_special(text)
    assert special is not None and special.kind == "error_param" and special.api == "book_flight"
    assert correction_problem(expected_special(ERROR_PARAM), special) is None


@pytest.mark.parametrize("text", ["[IRRELEVANT]", "[irrelevant] Sorry, I can't order pizza.", "抱歉。\n【无关】", "【无法处理】"])
def test_irrelevant_markers(text: str) -> None:
    special = find_special(text)
    assert special == Special("irrelevant")
    assert correction_problem(expected_special(IRRELEVANT), special) is None


def test_no_marker_no_special() -> None:
    for text in ("[get_weather(city='x')]", "I need the departure city.", "missing: from_city", "[MISSINGNO] x", "[]"):
        assert find_special(text) is None


def test_marker_must_start_a_line() -> None:
    assert find_special("The answer is [IRRELEVANT]") is None


def test_wrong_detail_is_explained() -> None:
    expected = expected_special(INCOMPLETE)
    assert "API" in (correction_problem(expected, find_special("[MISSING] get_weather: from_city, date")) or "")
    assert "missing" in (correction_problem(expected, find_special("[MISSING] book_flight: from_city")) or "")
    assert "missing" in (correction_problem(expected, find_special("[MISSING] book_flight: from_city, date, seats")) or "")
    assert correction_problem(expected, find_special("[MISSING]")) is not None
    error_param = expected_special(ERROR_PARAM)
    assert "parameters" in (correction_problem(error_param, find_special("[INVALID] book_flight: seats=12")) or "")
    assert "bad value" in (correction_problem(error_param, find_special('[INVALID] book_flight: seats=13, date="2024-02-30"')) or "")


def test_rendered_markers_read_back_in_both_languages() -> None:
    for answer in (INCOMPLETE, ERROR_PARAM, IRRELEVANT):
        for lang in ("en", "zh"):
            text = render_special(answer, lang)
            parsed = parse_text(text)
            assert parsed.kind == "special", text
            assert correction_problem(expected_special(answer), parsed.special) is None
    assert render_special(INCOMPLETE, "zh").startswith("【缺少参数】")
    assert render_special(IRRELEVANT, "en") == "[IRRELEVANT]"
