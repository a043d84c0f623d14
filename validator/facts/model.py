"""Output facts as values: what an agent must tell the user, read from a scenario's ``outputs``.

A fact is one of

- ``{number: 1260, unit: CNY, about: {en: [paid], zh: [支付]}}`` — a quantity (unit and about optional);
- ``{code: BK-2001}`` — an identifier, separators ignored;
- ``{time: "07:45"}``, ``{date: "2025-05-09"}`` — a clock time, a calendar date;
- ``{phrase: {en: [declined, rejected], zh: [拒绝, 未通过]}}`` — short words, any alternative;
- ``{any: [fact, fact, …]}`` — any one of several facts.

``about`` (on numbers, codes, times and dates) names words one of which must be in the same
sentence. :func:`read_fact` turns plain data into these frozen values; :func:`fact_problems`
says what is wrong with a fact that cannot be read (the rules report it).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from validator.facts.lexicon import UNITS

LANGS = ("en", "zh")
KINDS = ("number", "code", "time", "date", "phrase", "any")
_EXTRAS = {"number": ("unit", "about"), "code": ("about",), "time": ("about",), "date": ("about",), "phrase": (), "any": ()}
_CODE = re.compile(r"[A-Za-z0-9]+(?:[-_/][A-Za-z0-9]+)*\Z")
_TIME = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])\Z")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")

Words = Mapping[str, tuple[str, ...]]  # lang -> alternatives


@dataclass(frozen=True)
class NumberFact:
    value: Decimal
    unit: str | None = None  # a name in lexicon.UNITS
    unit_words: Words | None = None  # or the fact's own words for its unit, per language
    about: Words | None = None


@dataclass(frozen=True)
class CodeFact:
    code: str
    about: Words | None = None


@dataclass(frozen=True)
class TimeFact:
    minutes: int  # since midnight
    about: Words | None = None


@dataclass(frozen=True)
class DateFact:
    date: _dt.date
    about: Words | None = None


@dataclass(frozen=True)
class PhraseFact:
    words: Words


@dataclass(frozen=True)
class AnyFact:
    options: tuple[Fact, ...]


Fact = NumberFact | CodeFact | TimeFact | DateFact | PhraseFact | AnyFact


class FactError(ValueError):
    """A fact that cannot be read; ``pointer`` is relative to the fact."""

    def __init__(self, message: str, pointer: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer


def read_fact(data: Any) -> Fact:
    """The fact a plain mapping describes (FactError when it describes none)."""
    for message, pointer in fact_problems(data, langs=None):
        raise FactError(message, pointer)
    return _build(data)


def read_facts(data: Any) -> tuple[Fact, ...]:
    """Every fact of an ``outputs`` list (FactError with the list index in its pointer)."""
    if data is None:
        return ()
    if not isinstance(data, list):
        raise FactError("outputs is a list of facts")
    facts = []
    for index, item in enumerate(data):
        try:
            facts.append(read_fact(item))
        except FactError as error:
            raise FactError(error.message, f"/{index}{error.pointer}") from None
    return tuple(facts)


def fact_problems(data: Any, pointer: str = "", langs: Sequence[str] | None = LANGS) -> Iterator[tuple[str, str]]:
    """(message, pointer) for everything that keeps data from being a fact whose words are
    given in langs (a repository's languages; None: any of callbank's, as the scorer reads)."""
    if not isinstance(data, dict):
        yield "a fact is a mapping such as {number: 1260, unit: CNY} or {phrase: {en: [...], zh: [...]}}", pointer
        return
    kinds = [key for key in KINDS if key in data]
    if len(kinds) != 1:
        named = ", ".join(kinds) if kinds else "none"
        yield f"a fact has exactly one of {', '.join(KINDS)} (this one has {named})", pointer
        return
    kind = kinds[0]
    for key in data:
        if key != kind and key not in _EXTRAS[kind]:
            yield f"a {kind} fact has no key {key!r} (allowed: {', '.join((kind, *_EXTRAS[kind]))})", f"{pointer}/{key}"
    value = data[kind]
    here = f"{pointer}/{kind}"
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            yield "number is a number (1260, 20560.8)", here
        unit = data.get("unit")
        if unit is not None and not (isinstance(unit, str) and unit in UNITS):
            if isinstance(unit, dict):
                yield from _words_problems(unit, f"{pointer}/unit", langs)
            else:
                yield f"unit {unit!r} is unknown; use one of {', '.join(sorted(UNITS))} or {{en: [words], zh: [words]}}", f"{pointer}/unit"
    elif kind == "code":
        if not isinstance(value, str) or not _CODE.match(value):
            yield "code is letters and digits, optionally joined by - _ or / (BK-2001, FO1008)", here
    elif kind == "time":
        if not isinstance(value, str) or not _TIME.match(value):
            yield 'time is "HH:MM" on the 24-hour clock ("07:45", "20:00")', here
    elif kind == "date":
        if not isinstance(value, str) or not _DATE.match(value) or _date(value) is None:
            yield 'date is a real calendar date "YYYY-MM-DD" ("2025-05-09")', here
    elif kind == "phrase":
        yield from _words_problems(value, here, langs)
    else:
        if not isinstance(value, list) or len(value) < 2:
            yield "any is a list of at least two facts", here
        else:
            for index, option in enumerate(value):
                yield from fact_problems(option, f"{here}/{index}", langs)
    if "about" in data and kind in ("number", "code", "time", "date"):
        yield from _words_problems(data["about"], f"{pointer}/about", langs)


def _words_problems(value: Any, pointer: str, langs: Sequence[str] | None) -> Iterator[tuple[str, str]]:
    if langs is not None and (not isinstance(value, dict) or set(value) != set(langs)):
        shown = "both languages: {en: [...], zh: [...]}" if len(langs) > 1 else f"this repository's language: {{{langs[0]}: [...]}}"
        yield f"words are given in {shown}", pointer
        return
    if not isinstance(value, dict) or not value or not set(value) <= set(LANGS):
        yield "words are given per language: {en: [...], zh: [...]}", pointer
        return
    for lang in value:
        words = value[lang]
        if not isinstance(words, list) or not words or not all(isinstance(w, str) and w.strip() for w in words):
            yield f"{lang} is a non-empty list of words", f"{pointer}/{lang}"


def _date(text: str) -> _dt.date | None:
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        return None


def _words(value: Any) -> Words | None:
    if value is None:
        return None
    return {lang: tuple(str(w) for w in value[lang]) for lang in LANGS if lang in value}


def _build(data: dict[str, Any]) -> Fact:
    if "number" in data:
        unit = data.get("unit")
        return NumberFact(
            Decimal(str(data["number"])),
            unit if isinstance(unit, str) else None,
            _words(unit) if isinstance(unit, dict) else None,
            _words(data.get("about")),
        )
    if "code" in data:
        return CodeFact(str(data["code"]), _words(data.get("about")))
    if "time" in data:
        hours, minutes = str(data["time"]).split(":")
        return TimeFact(int(hours) * 60 + int(minutes), _words(data.get("about")))
    if "date" in data:
        return DateFact(_dt.date.fromisoformat(str(data["date"])), _words(data.get("about")))
    if "phrase" in data:
        words = _words(data["phrase"])
        assert words is not None
        return PhraseFact(words)
    return AnyFact(tuple(_build(option) for option in data["any"]))


def phrases(fact: Fact) -> Iterator[tuple[str, str, str]]:
    """(lang, words, pointer below the fact) of every phrase and about alternative of a fact."""
    if isinstance(fact, PhraseFact):
        for lang in fact.words:
            for i, words in enumerate(fact.words[lang]):
                yield lang, words, f"/phrase/{lang}/{i}"
    elif isinstance(fact, AnyFact):
        for index, option in enumerate(fact.options):
            for lang, words, pointer in phrases(option):
                yield lang, words, f"/any/{index}{pointer}"
    elif fact.about is not None:
        for lang in fact.about:
            for i, words in enumerate(fact.about[lang]):
                yield lang, words, f"/about/{lang}/{i}"


def has_words(fact: Fact) -> bool:
    """Whether a fact needs words, not only numbers and codes: a phrase or an ``about``.

    Only such facts tell a report of success from "I could NOT do that: 1260 CNY BK-2001".
    """
    if isinstance(fact, PhraseFact):
        return True
    if isinstance(fact, AnyFact):
        return all(has_words(option) for option in fact.options)
    return fact.about is not None
