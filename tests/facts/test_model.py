"""Reading facts from plain data, and what is wrong with a fact that cannot be read."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from validator.facts import AnyFact, CodeFact, DateFact, FactError, NumberFact, PhraseFact, TimeFact, fact_problems, has_words, read_fact, read_facts
from validator.facts.model import phrases

WORDS = {"en": ["paid"], "zh": ["支付"]}


def test_every_kind_reads_into_a_frozen_value() -> None:
    assert read_fact({"number": 1260, "unit": "CNY", "about": WORDS}) == NumberFact(Decimal("1260"), "CNY", None, {"en": ("paid",), "zh": ("支付",)})
    assert read_fact({"number": 3, "unit": {"en": ["tickets"], "zh": ["张"]}}).unit_words == {"en": ("tickets",), "zh": ("张",)}  # type: ignore[union-attr]
    assert read_fact({"code": "BK-2001"}) == CodeFact("BK-2001")
    assert read_fact({"time": "07:45"}) == TimeFact(7 * 60 + 45)
    assert read_fact({"date": "2025-05-09"}) == DateFact(dt.date(2025, 5, 9))
    assert isinstance(read_fact({"phrase": WORDS}), PhraseFact)
    assert isinstance(read_fact({"any": [{"code": "A1"}, {"phrase": WORDS}]}), AnyFact)
    with pytest.raises(dataclasses.FrozenInstanceError):
        read_fact({"code": "A1"}).code = "B2"  # type: ignore[misc]


@pytest.mark.parametrize(
    "data, pointer, words",
    [
        ("1260 CNY", "", "a fact is a mapping"),
        ({"number": 1, "code": "A1"}, "", "exactly one of"),
        ({"unit": "CNY"}, "", "exactly one of"),
        ({"number": "1260"}, "/number", "is a number"),
        ({"number": True}, "/number", "is a number"),
        ({"number": 3, "unit": "tickets"}, "/unit", "unit 'tickets' is unknown"),
        ({"code": "BK 2001"}, "/code", "letters and digits"),
        ({"time": "7:45"}, "/time", "HH:MM"),
        ({"time": "24:00"}, "/time", "HH:MM"),
        ({"date": "2025-02-30"}, "/date", "real calendar date"),
        ({"phrase": {"fr": ["payé"]}}, "/phrase", "both languages"),
        ({"phrase": {"en": [], "zh": ["支付"]}}, "/phrase/en", "non-empty list"),
        ({"any": [{"code": "A1"}]}, "/any", "at least two"),
        ({"any": [{"code": "A1"}, {"time": "x"}]}, "/any/1/time", "HH:MM"),
        ({"code": "A1", "unit": "CNY"}, "/unit", "no key 'unit'"),
        ({"number": 1, "about": {"de": ["x"]}}, "/about", "both languages"),
    ],
)
def test_problems_name_the_place_and_the_fix(data: Any, pointer: str, words: str) -> None:
    problems = list(fact_problems(data))
    assert problems and problems[0][1] == pointer and words in problems[0][0]
    with pytest.raises(FactError):
        read_fact(data)


def test_words_in_one_language_are_a_problem_only_where_both_are_required() -> None:
    one = {"phrase": {"en": ["paid"]}}
    assert [p for _, p in fact_problems(one)] == ["/phrase"]  # callbank's corpus: both languages
    assert list(fact_problems(one, langs=("en",))) == []  # an English-only repository
    assert [p for _, p in fact_problems({"phrase": WORDS}, langs=("en",))] == ["/phrase"]
    assert isinstance(read_fact(one), PhraseFact)  # the scorer reads what the schema let through


def test_an_outputs_list_names_the_broken_index() -> None:
    with pytest.raises(FactError) as caught:
        read_facts([{"code": "A1"}, {"time": "25:00"}])
    assert caught.value.pointer == "/1/time"
    assert read_facts(None) == ()


def test_words_of_a_fact_and_whether_it_has_any() -> None:
    fact = read_fact({"any": [{"phrase": WORDS}, {"number": 1, "about": WORDS}]})
    assert [(lang, w, p) for lang, w, p in phrases(fact)] == [
        ("en", "paid", "/any/0/phrase/en/0"), ("zh", "支付", "/any/0/phrase/zh/0"),
        ("en", "paid", "/any/1/about/en/0"), ("zh", "支付", "/any/1/about/zh/0"),
    ]  # fmt: skip
    assert has_words(fact)
    assert not has_words(read_fact({"any": [{"phrase": WORDS}, {"code": "A1"}]}))  # one option would tell nothing
    assert not has_words(read_fact({"number": 1260, "unit": "CNY"}))
