"""DLG050: what an assistant history turn may state, given what came before it (both languages)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from validator.rules.history import Known, unsourced_claims

CLOCK = dt.datetime.fromisoformat("2024-07-15T09:00:00+08:00")  # a Monday

USER = {"en": "Show my debits since 1 July.", "zh": "看看我7月1日以来的支出。"}
RESULT: dict[str, Any] = {
    "transactions": [
        {"transaction_id": "T87017", "posted_at": "2024-07-06T15:45:00+08:00", "amount": -3000.0, "counterparty": "Lin Xiao"},
        {"transaction_id": "T87019", "posted_at": "2024-07-08T18:30:00+08:00", "amount": -2460.0, "counterparty": "Yueju Furniture"},
    ],
    "distance_m": 1670,
    "rain_mm": 17.6,
    "track_seconds": 205,
    "rule": "within_24h",
    "repeat_days": ["mon", "thu"],
    "phone": "13922223333",
}


def known() -> Known:
    sources = Known(CLOCK)
    for text in USER.values():
        sources.add_text(text)
    sources.add_data(RESULT)
    return sources


def claims(text: str) -> list[tuple[str, str]]:
    return [(kind, written) for kind, written, _ in unsourced_claims(text, known())]


@pytest.mark.parametrize(
    "text",
    [
        "Two debits since 1 July: 3,000 to Lin Xiao on 6 July and 2,460 at Yueju Furniture on 8 July (T87017, T87019).",
        "7月1日以来有两笔支出：7月6日转给林晓3000元，7月8日悦居家具2460元。",
        "It's 1.67 km away, about 18 mm of rain; the song runs 3 minutes 25 seconds.",  # unit change, rounding, a two-part duration
        "约1.7公里，雨量约18毫米，歌长3分25秒。",
        "The within-24-hours rule applies.",  # a snake_case value read as words
        "Repeats on Monday and Thursday; today is Monday 15 July.",  # weekdays named by the result, the clock's date
        "每周一和周四重复，今天是7月15日。",
        "Sent to 139 2222 3333.",  # digit groups as the number they spell
        "From the 6th to 8 July there were a few — one of them large.",  # a date's day alone; small counts in words
    ],
)
def test_what_the_sources_give_is_accepted(text: str) -> None:
    assert claims(text) == []


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("5,460 yuan went out in total.", [("number", "5,460")]),  # a sum the assistant worked out
        ("总共支出5460元。", [("number", "5460")]),
        ("Order FO1002 was delivered on 11 July.", [("date", "11 july"), ("code", "FO1002")]),  # facts no tool gave
        ("订单FO1002在7月11日签收。", [("date", "7月11日"), ("code", "FO1002")]),
        ("The next one is at 21:00 on Friday.", [("time", "21:00"), ("date", "friday")]),
        ("最晚06:59出发。", [("time", "06:59")]),  # "at the latest", read as 06:59, which nothing gave
        ("Sent to 139 2222 4444.", [("code", "139 2222 4444")]),
        ("There were 17 of them.", [("number", "17")]),  # a count in digits that no list has
    ],
)
def test_what_nothing_gives_is_flagged(text: str, flagged: list[tuple[str, str]]) -> None:
    assert sorted(claims(text)) == sorted(flagged)


def test_a_source_read_later_in_the_dialogue_does_not_count() -> None:
    sources = Known(CLOCK)
    assert [kind for kind, _, _ in unsourced_claims("It costs 480 yuan.", sources)] == ["number"]
    sources.add_data({"price": 480})
    assert list(unsourced_claims("It costs 480 yuan.", sources)) == []


def test_an_enumerations_length_counts_nothing() -> None:
    """A parameter with three allowed values does not tell that three of anything exist; a tool
    result's list of three does."""
    schema = {"name": "set_mode", "parameters": {"properties": {"mode": {"enum": ["eco", "normal", "boost"]}}}}
    described = Known(CLOCK)
    described.add_data(schema, count_lists=False)
    assert [kind for kind, _, _ in unsourced_claims("There are 3 of them.", described)] == ["number"]
    returned = Known(CLOCK)
    returned.add_data({"modes": ["eco", "normal", "boost"]})
    assert list(unsourced_claims("There are 3 of them.", returned)) == []
