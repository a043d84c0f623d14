"""What DLG040 counts as written, dated, long or code-switched (the fixtures prove the rule end to end)."""

from __future__ import annotations

import pytest

from validator.rules import features


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Raise my limit to 80,000.", {80000.0}),
        ("1.5 km in forty minutes", {1.5, 40.0}),
        ("把限额调到8万", {8.0}),  # 8万 writes 8, not 80000: turning it into 80000 is a conversion
        ("买三张票，十二点到", {3.0, 12.0}),
        ("转两千块", set()),  # a number word with a magnitude is no number written
        ("Bump it to 80k.", {80.0}),
    ],
)
def test_written_numbers(text: str, numbers: set[float]) -> None:
    assert features.written_numbers(text) == numbers


@pytest.mark.parametrize(
    ("date", "text", "written"),
    [
        ((2024, 7, 20), "Book it for July 20.", True),
        ((2024, 7, 20), "on the 20th of July", True),
        ((2024, 7, 20), "7月20日去", True),
        ((2024, 7, 20), "2024-07-20 please", True),
        ((2024, 7, 20), "this Saturday", False),
        ((2024, 7, 20), "后天", False),
        ((2024, 7, 2), "July 20", False),  # the 2nd is not the 20th
        ((2024, 6, None), "last month", False),
        ((2024, 6, None), "my June expenses", True),
        ((2024, 6, None), "6月的报销", True),
    ],
)
def test_date_written(date: tuple[int, int, int | None], text: str, written: bool) -> None:
    assert features.date_written(*date, text) is written


def test_message_tokens_count_words_and_chinese_characters() -> None:
    assert features.message_tokens("Send 3 boxes to Room 502, please.", "en") == 7
    # seven Chinese characters, one English word and one number
    assert features.message_tokens("帮我买Anker充电器3个", "zh") == 9


@pytest.mark.parametrize(
    ("text", "switched"),
    [("帮我买三个Anker的充电器", True), ("说唱歌手K-Verse的歌", True), ("订单SKU-3002", False), ("G14的一等座", False), ("用BURGER8券", False)],
)
def test_code_switch_ignores_identifiers(text: str, switched: bool) -> None:
    assert (features._LATIN_WORD.search(text) is not None) is switched


def test_leaves_skip_optional_values_and_ranges_and_read_matchers() -> None:
    value = {"city": {"$any": ["杭州", "Hangzhou"]}, "days": {"$optional": 3}, "note": {"$regex": ".+", "$example": "hi"}, "radius_m": {"$range": [500, 3000]}}
    assert sorted(map(str, features.leaves(value))) == ["Hangzhou", "hi", "杭州"]
