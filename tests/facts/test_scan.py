"""Reading a text once: sentences and headings, mentions with their places, and linear time."""

from __future__ import annotations

import datetime as dt
import time
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator.facts import analyse, read_fact, told
from validator.facts.scan import Relative, flatten, said

CLOCK = dt.datetime.fromisoformat("2025-05-06T09:00:00+08:00")


def numbers(text: str) -> list[Decimal]:
    return [m.value for m in analyse(text, CLOCK).numbers]  # type: ignore[misc]


def test_sentences_end_at_stops_not_at_decimal_points_or_abbreviations() -> None:
    text = "Paid 1,260.00 yuan at 8 p.m. today. Balance: 20 yuan! 余额不足。还剩 5 元"
    analysis = analyse(text, CLOCK)
    cuts = [text[s : s + 4] for s in analysis.sentence_starts]
    assert cuts == ["Paid", " Bal", " 余额不", "还剩 5"]


def test_a_heading_line_and_a_table_head_reach_the_lines_below() -> None:
    text = "Here you go.\nBalances:\n- checking: 1 yuan\n\n- savings: 2 yuan\n| kind | total |\n|---|---|\n| fee | 3 yuan |"
    analysis = analyse(text, CLOCK)
    heading = analysis.sentence_of(text.index("Balances"))
    assert heading in analysis.scope(text.index("1 yuan"))
    assert heading in analysis.scope(text.index("2 yuan"))  # a blank line does not end the list
    assert analysis.sentence_of(text.index("| kind")) in analysis.scope(text.index("3 yuan"))
    assert heading not in analysis.scope(text.index("Here"))


@pytest.mark.parametrize(
    "text, found",
    [
        ("1,234,567.89 and 1,23", [Decimal("1234567.89"), Decimal("1"), Decimal("23")]),
        ("FO1008, BK-2001-05 and 1008a", []),
        ("cny1260 and usd 30", [Decimal("1260"), Decimal("30")]),
        ("3万5千 and 1.5亿", [Decimal("35000"), Decimal("150000000")]),
        ("2千米", [Decimal("2")]),
        ("minus 5, -3 and 8-10", [Decimal("-5"), Decimal("-3"), Decimal("8"), Decimal("10")]),
        ("one hundred and twenty, and one two", [Decimal("120"), Decimal("1"), Decimal("2")]),
        ("一" * 40, []),  # no number is forty digits long
    ],
)
def test_numbers_are_read_as_quantities(text: str, found: list[Decimal]) -> None:
    assert numbers(text) == found


def test_times_and_dates_are_not_quantities() -> None:
    analysis = analyse("7:45, 2025-05-09, 5月9日 and 7点10分", CLOCK)
    assert analysis.numbers == []
    assert sorted(m.value for m in analysis.times) == [7 * 60 + 10, 7 * 60 + 45]  # type: ignore[type-var]
    assert len(analysis.dates) == 2


@pytest.mark.parametrize(
    "text, minutes",
    [
        ("最晚06:59从家出发", 6 * 60 + 59),  # "at the latest", not 晚 = the evening
        ("最迟8点到", 8 * 60),
        ("最早9点半", 9 * 60 + 30),
        ("晚8点", 20 * 60),
        ("今晚8点", 20 * 60),
    ],
)
def test_late_and_early_are_not_the_evening_and_the_morning(text: str, minutes: int) -> None:
    assert [m.value for m in analyse(text, CLOCK).times] == [minutes]


@pytest.mark.parametrize(
    "text, times",
    [
        ("Pickup window 5:40-6:00 pm.", [(17, 40), (18, 0)]),  # the pm of the range's end is the start's too
        ("from 5:40 – 6:00 p.m. today", [(17, 40), (18, 0)]),
        ("9:00 to 10:30 am", [(9, 0), (10, 30)]),
        ("11:30-1:00 pm", [(11, 30), (13, 0)]),  # a start after the end's hour is in the other half
        ("12:30-1:30 pm", [(12, 30), (13, 30)]),
        ("5:40-6:00", [(5, 40), (6, 0)]),  # no half written: as written
    ],
)
def test_the_half_of_the_day_after_a_range_belongs_to_its_start_too(text: str, times: list[tuple[int, int]]) -> None:
    assert [divmod(m.value, 60) for m in analyse(text, CLOCK).times] == times


def test_flat_text_marks_clause_ends() -> None:
    assert flatten("Not paid, but BOOKED!") == "not paid | but booked |"
    assert said(flatten("Not paid, but booked!"), ["booked"])
    assert said(flatten("It was not booked."), ["not booked"])  # a phrase may hold a negation itself
    assert not said(flatten("No, it is not booked."), ["booked"])


# ----------------------------------------------------------------------------- linear time

# Pieces that once drove a reader into quadratic work, and others that exercise every pass.
PIECES = [
    "1 ", "一", "一 ", "twenty five ", "may 9 ", "1,000,", "bk-1/", "5月9日", "8点半 ", "not paid ", "周五", "明天",
    "tomorrow ", "a.b.", ":", "Balances:\n", "| x |\n", "1.5万元", "3x", "6225 ", "- 18°c ", "7.45pm ", "｜",
    "half past four ", "no. 3 ", "dr. ", "半小时", "18 and 19 may ", "晚上6点到", "到10点 ", "neither ", "gb71 midl ", "six am ",
]  # fmt: skip
FACTS = [
    read_fact(data)
    for data in (
        {"number": 100, "unit": "CNY", "about": {"en": ["paid"], "zh": ["付"]}},
        {"code": "BK-2001", "about": {"en": ["booked"], "zh": ["订"]}},
        {"phrase": {"en": ["paid", "not booked"], "zh": ["付", "订好"]}},
        {"date": "2025-05-09"},
        {"time": "08:30", "about": {"en": ["leave"], "zh": ["出发"]}},
        {"any": [{"number": 3, "unit": "night"}, {"code": "6225881234567890"}]},
    )
]


def _seconds(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        analysis = analyse(text, CLOCK)
        for fact in FACTS:
            told(fact, analysis, "en")
            told(fact, analysis, "zh")
        best = min(best, time.perf_counter() - started)
    return best


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6), st.text(max_size=8))
def test_time_per_character_does_not_grow_with_the_text(pieces: list[str], noise: str) -> None:
    unit = "".join(pieces) + noise
    small = (unit * (4_000 // len(unit) + 1))[:4_000]
    large = (unit * (32_000 // len(unit) + 1))[:32_000]
    per_char_small = _seconds(small) / len(small)
    per_char_large = _seconds(large) / len(large)
    # quadratic work would make the large text 8 times slower per character; allow noise up to 3
    assert per_char_large <= 3 * per_char_small + 2e-6, (unit, per_char_small, per_char_large)
    assert per_char_large < 50e-6  # and a megabyte stays within a minute even on a loaded machine


def test_relative_dates_say_how_they_depend_on_the_clock() -> None:
    # Wednesday 17 July 2024: each relative word is read, and keeps the rule that read it
    analysis = analyse("明晚, 后天, 下周三, this Saturday, Friday, 14 March", dt.datetime(2024, 7, 17, 16, 0))
    read = [(analysis.text[m.start : m.end], m.relative) for m in analysis.dates]
    assert read == [
        ("明晚", Relative(days=1)),
        ("后天", Relative(days=2)),
        ("周三", Relative(weekday=2, week=1)),
        ("saturday", Relative(weekday=5, week=0)),
        ("friday", Relative(weekday=4)),
        ("14 march", None),
    ]
    monday = dt.date(2024, 7, 22)
    assert [rule.on(monday).isoformat() for _, rule in read if rule] == ["2024-07-23", "2024-07-24", "2024-07-31", "2024-07-27", "2024-07-26"]
