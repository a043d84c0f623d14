"""Text comparison: what free text and $text ignore, and what they keep, in both languages."""

from __future__ import annotations

import pytest

from validator.textnorm import fold_free_text, normalize_text

# (expected, given) pairs that $text must accept
TEXT_SAME = [
    ("I'll be late!", "i’ll  BE late"),
    ("I'll be late!", "I’ll be late."),
    ("Ear infection follow-up", "ear infection follow up"),
    ("Lunch (with Li)", "lunch, with Li"),
    ("Dinner at 7:30, then drinks", "dinner at 7:30 then drinks"),
    ("Budget: ¥1,200.50", "budget ¥1,200.50"),
    ("3x**2 - 2x - 1", "3x ** 2-2x-1"),
    ("at -3 pm", "At −3 PM"),
    ("1/2 cup of milk", "1 / 2 cup of milk"),
    ("pass/fail", "pass fail"),
    ("明天十点见！", "明天十点见"),
    ("“出门”模式", "「出门」模式"),
    ("张伟：明天10:00见。", "张伟，明天10:00见"),
    ("温度降到-5度", "温度降到－5度"),
    ("会议改到3.5号", "会议改到３.５号"),
    ("Ｗｉ-Ｆｉ密码", "wi fi密码"),
]

# (expected, given) pairs that $text must reject: a sign, an operator, a digit or a decimal
# point changes what the text says
TEXT_DIFFERENT = [
    ("3x**2 - 2x - 1", "3x**2 + 2x - 1"),
    ("at -3 pm", "at 3 pm"),
    ("Set it to -5", "Set it to 5"),
    ("x = 3", "x 3"),
    ("50% off", "50 off"),
    ("3.5 km", "35 km"),
    ("3.5 km", "3 5 km"),
    ("20,000 yuan", "20 000 yuan"),
    ("meet at 10:30", "meet at 1030"),
    ("1/2 cup", "12 cup"),
    ("a < b", "a > b"),
    ("R&D", "R D"),
    ("I'll be late", "ill be late"),
    ("I'll be late", "Sorry, I'll be late"),
    ("Hangzhou", "Hang zhou"),
    ("温度降到-5度", "温度降到5度"),
    ("会议改到3.5号", "会议改到35号"),
    ("预算为1+2万", "预算为1 2万"),
    ("下午3点", "下午4点"),
    ("明天十点见", "明天十点半见"),
]


@pytest.mark.parametrize("expected, given", TEXT_SAME)
def test_text_ignores_what_does_not_change_the_meaning(expected: str, given: str) -> None:
    assert normalize_text(given) == normalize_text(expected)


@pytest.mark.parametrize("expected, given", TEXT_DIFFERENT)
def test_text_keeps_signs_operators_digits_and_decimal_points(expected: str, given: str) -> None:
    assert normalize_text(given) != normalize_text(expected)


FREE_SAME = [
    ("Amoxicillin", "amoxicillin"),
    ("Leaving Home", "Leaving home"),
    ("Leaving Home", "  leaving   home "),
    ("I'll be late", "I’ll be late"),
    ("Q3 review — final", "q3 review - final"),
    ("Ｈａｎｇｚｈｏｕ", "Hangzhou"),
    ("“West Lake” trip", '"west lake" trip'),
    ("湖畔小厨", "湖畔小厨 "),
    ("周五　下午", "周五 下午"),  # an ideographic space is a space
]

FREE_DIFFERENT = [
    ("Leaving home", "Leaving home."),
    ("Leaving home", "Leavinghome"),
    ("Hangzhou", "Hangzhou City"),
    ("I'll be late", "Ill be late"),
    ("at -3", "at 3"),
    ("湖畔小厨", "湖畔小厨。"),
    ("张伟", "张 伟"),
]


@pytest.mark.parametrize("expected, given", FREE_SAME)
def test_free_text_ignores_case_width_typography_and_spacing(expected: str, given: str) -> None:
    assert fold_free_text(given) == fold_free_text(expected)


@pytest.mark.parametrize("expected, given", FREE_DIFFERENT)
def test_free_text_keeps_punctuation_words_and_signs(expected: str, given: str) -> None:
    assert fold_free_text(given) != fold_free_text(expected)
