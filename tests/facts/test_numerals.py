"""Chinese numerals and English number words, read as speakers mean them."""

from __future__ import annotations

import pytest

from validator.facts.numerals import chinese_value, english_value


@pytest.mark.parametrize(
    "run, value",
    [
        ("一", 1), ("两", 2), ("俩", 2), ("十", 10), ("十五", 15), ("二十", 20), ("三百零五", 305), ("一千零一", 1001),
        ("三万", 30_000), ("十二万三千", 123_000), ("五十万", 500_000), ("一亿二千万", 120_000_000),
        ("两万五", 25_000), ("三百五", 350), ("一万五千五", 15_500),  # a last digit counts one place lower
        ("二〇二五", 2025), ("壹佰", 100),
    ],
)  # fmt: skip
def test_chinese_numerals(run: str, value: int) -> None:
    assert chinese_value(run) == value


@pytest.mark.parametrize("run", ["", "万一", "千万", "百"])
def test_a_run_that_starts_with_a_magnitude_is_no_number(run: str) -> None:
    assert chinese_value(run) is None


@pytest.mark.parametrize(
    "words, value",
    [
        ("twelve", 12), ("twenty five", 25), ("one hundred", 100), ("one hundred twenty five", 125),
        ("one hundred ten", 110), ("three thousand", 3000), ("two thousand five hundred", 2500),
    ],
)  # fmt: skip
def test_english_number_words(words: str, value: int) -> None:
    assert english_value(words.split()) == value


@pytest.mark.parametrize("words", ["five six", "ten five", "twenty thirty", "hundred", "thousand"])
def test_words_that_are_not_one_number(words: str) -> None:
    assert english_value(words.split()) is None
