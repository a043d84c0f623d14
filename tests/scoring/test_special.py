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


# ----------------------------------------------------------------------------- hedging

IRRELEVANT_CASE = {"special": "irrelevant"}
WEATHER_CALL = {"calls": [{"api": "get_weather", "args": {"city": "Paris"}}]}
GUESS = [
    "[get_weather(city='Paris')]",
    "get_weather(city='Paris')",
    '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    '```json\n{"api": "get_weather", "args": {"city": "Paris"}}\n```',
]
MARKERS = ["[IRRELEVANT]", "【无关】", "[MISSING] get_weather: city", "【缺少参数】get_weather：city", "[INVALID] get_weather: city='Atlantis'", "【参数错误】get_weather：city='亚特兰蒂斯'"]


@pytest.mark.parametrize("marker", MARKERS)
@pytest.mark.parametrize("guess", GUESS)
def test_a_marker_with_a_call_is_hedged_in_either_order(marker: str, guess: str) -> None:
    for text in (f"{marker}\n{guess}", f"{guess}\n{marker}", f"{marker}\nMy best guess would be:\n{guess}\nSorry!"):
        parsed = parse_text(text)
        assert parsed.kind == "hedged", text
    assert parse_text(f"{marker}\nCould you tell me more?").kind == "special"


@pytest.mark.parametrize("marker", MARKERS)
def test_a_marker_next_to_native_tool_calls_is_hedged(marker: str) -> None:
    from validator.scoring.parse import parse_prediction

    tool_calls = [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]
    assert parse_prediction({"output": marker, "tool_calls": tool_calls}).kind == "hedged"
    assert parse_prediction({"output": "Checking the weather.", "tool_calls": tool_calls}).kind == "calls"


@pytest.mark.parametrize(
    "text",
    [
        "[IRRELEVANT]\n[MISSING] book_flight: from_city",
        "【缺少参数】book_flight：from_city\n【参数错误】book_flight：date='2024-02-30'",
        "[MISSING] book_flight: from_city\n[MISSING] book_flight: date",
        "[IRRELEVANT]\n【缺少参数】book_flight：from_city",
    ],
)
def test_two_different_markers_are_hedged(text: str) -> None:
    assert parse_text(text).kind == "hedged"


def test_the_same_marker_twice_is_one_answer() -> None:
    parsed = parse_text("[IRRELEVANT]\nSorry, I can only help with flights.\n[IRRELEVANT]")
    assert parsed.kind == "special" and parsed.special == Special("irrelevant")


def test_hedged_answers_score_wrong_with_their_own_error_type() -> None:
    from validator.corpus.build import build_checkpoint
    from validator.corpus.index import Corpus
    from validator.scoring.match import score_checkpoint

    from .conftest import FIXTURE

    schemas = Corpus.load(FIXTURE).specs
    for answer in (IRRELEVANT_CASE, WEATHER_CALL):
        verdict = score_checkpoint(build_checkpoint(answer), parse_text("[IRRELEVANT]\n[get_weather(city='Paris')]"), schemas, "en")
        assert not verdict.correct and verdict.error == "hedged", verdict
    special = score_checkpoint(build_checkpoint(IRRELEVANT_CASE), parse_text("【无关】\nget_weather(city='巴黎')"), schemas, "zh")
    assert special.error == "hedged" and special.detected is False


# ----------------------------------------------------------------------------- details by type

FREEZER = {"special": "error_param", "api": "set_freezer", "params": {"freezer_c": -30}}
AMOUNT = {"special": "error_param", "api": "transfer", "params": {"amount": 25000}}


@pytest.mark.parametrize(
    "text, right",
    [
        ("[INVALID] set_freezer: freezer_c=-30", True),
        ("[INVALID] set_freezer: freezer_c=−30", True),  # a typographic minus sign
        ("【参数错误】set_freezer：freezer_c=－30", True),
        ("[INVALID] set_freezer: freezer_c='-30'", True),
        ("[INVALID] set_freezer: freezer_c=-30.0", True),
        ("[INVALID] set_freezer: freezer_c=30", False),  # the sign is part of the value
        ("[INVALID] set_freezer: freezer_c='30'", False),
        ("【参数错误】set_freezer：freezer_c=30", False),
        ("[INVALID] set_freezer: freezer_c=-3", False),
        ("[INVALID] set_freezer: freezer_c=minus thirty", False),
    ],
)
def test_numbers_in_details_compare_by_value_with_their_sign(text: str, right: bool) -> None:
    special = find_special(text)
    assert special is not None
    assert (correction_problem(expected_special(FREEZER), special) is None) is right, special


@pytest.mark.parametrize(
    "text, right",
    [
        ("[INVALID] transfer: amount=25,000", True),
        ("[INVALID] transfer: amount=25000", True),
        ("[INVALID] transfer: amount=25,000, currency=CNY", False),  # a parameter too many
        ("【参数错误】transfer：amount=25,000", True),
        ("【参数错误】transfer：amount=25，000", True),
        ("[INVALID] transfer: amount='25,000'", True),
        ("[INVALID] transfer: amount=25,000.00", True),
        ("[INVALID] transfer: amount=2,5000", False),  # not a thousands grouping
        ("[INVALID] transfer: amount=250,00", False),
        ("[INVALID] transfer: amount=2500", False),
    ],
)
def test_thousands_separators_in_details(text: str, right: bool) -> None:
    special = find_special(text)
    assert special is not None
    assert (correction_problem(expected_special(AMOUNT), special) is None) is right, special


def test_unquoted_values_run_to_the_next_parameter() -> None:
    special = find_special("[INVALID] send: note=hello, world, amount=25,000; when=2024-02-30")
    assert special is not None
    assert special.params == (("note", "hello, world"), ("amount", 25000), ("when", "2024-02-30"))


def test_text_details_compare_as_free_text_never_loosely() -> None:
    expected = expected_special({"special": "error_param", "api": "pay", "params": {"payment_method": "Alipay", "pin": "60512"}})
    assert correction_problem(expected, find_special("[INVALID] pay: payment_method=alipay, pin=60512")) is None
    assert correction_problem(expected, find_special("[INVALID] pay: payment_method='ALIPAY', pin='60512'")) is None
    assert correction_problem(expected, find_special("[INVALID] pay: payment_method=Ali-pay, pin=60512")) is not None
    assert correction_problem(expected, find_special("[INVALID] pay: payment_method=Alipay, pin=6051")) is not None


def test_names_in_markers_are_exact() -> None:
    full_width = find_special("[MISSING] ｂｏｏｋ_ｆｌｉｇｈｔ: from_city, date")
    assert full_width is not None and correction_problem(expected_special(INCOMPLETE), full_width) is not None
    names = find_special("[MISSING] book_flight: ｆｒｏｍ_ｃｉｔｙ, date")
    assert names is not None and correction_problem(expected_special(INCOMPLETE), names) is not None
