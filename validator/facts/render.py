"""Saying a fact to the user in a plain sentence: how the oracle agent reports what it did.

Each fact becomes one sentence of its own, in the run's language, built from the fact's first
alternatives (``Paid: 1,260 yuan.`` / ``支付：1260元。``); :func:`~.match.told` finds every
fact in its own sentence, which the oracle's tests prove for the whole corpus.
"""

from __future__ import annotations

from decimal import Decimal

from validator.facts.lexicon import MONTH_NAMES_EN, UNITS
from validator.facts.model import AnyFact, CodeFact, DateFact, Fact, NumberFact, PhraseFact, TimeFact

_TIGHT_UNITS = ("%", "°C", "°F")  # written without a space after the number


def sentence(fact: Fact, lang: str) -> str:
    """One sentence that tells fact to a user of lang."""
    if isinstance(fact, AnyFact):
        return sentence(fact.options[0], lang)
    if isinstance(fact, PhraseFact):
        words = fact.words[lang][0]
        return f"{words[0].upper()}{words[1:]}." if lang == "en" else f"{words}。"
    if isinstance(fact, NumberFact):
        said, label = quantity(fact, lang), {"en": "The figure is", "zh": "数额为"}
    elif isinstance(fact, CodeFact):
        said, label = fact.code, {"en": "The reference is", "zh": "编号是"}
    elif isinstance(fact, TimeFact):
        said, label = f"{fact.minutes // 60:02d}:{fact.minutes % 60:02d}", {"en": "The time is", "zh": "时间是"}
    else:
        said, label = date_text(fact, lang), {"en": "The date is", "zh": "日期是"}
    if fact.about is not None:
        about = fact.about[lang][0]
        return f"{about[0].upper()}{about[1:]}: {said}." if lang == "en" else f"{about}：{said}。"
    return f"{label['en']} {said}." if lang == "en" else f"{label['zh']}{said}。"


def quantity(fact: NumberFact, lang: str) -> str:
    """The number with its unit: ``1,260 yuan``, ``3.85%``, ``1260元``."""
    number = number_text(fact.value, lang)
    if fact.unit is not None:
        unit = UNITS[fact.unit].en if lang == "en" else UNITS[fact.unit].zh
    elif fact.unit_words is not None:
        unit = fact.unit_words[lang][0]
    else:
        return number
    if lang == "zh" or unit in _TIGHT_UNITS:
        return f"{number}{unit}"
    return f"{number} {unit}"


def number_text(value: Decimal, lang: str) -> str:
    """20560.8 as ``20,560.8`` in English and ``20560.8`` in Chinese; integers without a point."""
    if value == value.to_integral_value():
        whole = int(value)
        return f"{whole:,}" if lang == "en" else str(whole)
    text = format(value.normalize(), "f")
    if lang == "en":
        digits, _, fraction = text.partition(".")
        sign = "-" if digits.startswith("-") else ""
        return f"{sign}{int(digits.lstrip('-')):,}.{fraction}"
    return text


def date_text(fact: DateFact, lang: str) -> str:
    day = fact.date
    if lang == "en":
        return f"{day.day} {MONTH_NAMES_EN[day.month - 1]} {day.year}"
    return f"{day.year}年{day.month}月{day.day}日"
