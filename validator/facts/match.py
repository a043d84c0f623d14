"""Whether an agent told the user a fact: a fact looked up in an :class:`~.scan.Analysis`.

- a **number** must be mentioned with that value (``30,000`` = ``3万`` = ``30k``; ``100.00`` =
  ``100``), next to its unit when the fact has one (``¥1,260``, ``1260 元``, ``4 星``), and in
  a sentence that says one of its ``about`` words when it has them; a length of time may be
  said in the other unit or in both (90 minutes = ``1.5 hours`` = ``1 hour 30 minutes`` =
  ``1小时30分钟``);
- a **code** must be written whole (separators ignored: ``b1042`` is ``B-1042``; ``B-10420`` is not);
- a **time** or **date** must be mentioned in any usual form (``20:00`` = ``8 pm`` = ``晚上8点``;
  ``2025-05-09`` = ``9 May`` = ``5月9日`` = ``tomorrow`` when the clock says so);
- a **phrase** must be said, one alternative of the run's language, not right after a negation;
- **any** holds when one of its facts does.
"""

from __future__ import annotations

import re
from decimal import Decimal

from validator.facts.lexicon import UNITS
from validator.facts.model import AnyFact, CodeFact, DateFact, Fact, NumberFact, PhraseFact, TimeFact
from validator.facts.scan import Analysis, Mention, said


def told(fact: Fact, analysis: Analysis, lang: str) -> bool:
    """Whether the analysed text tells fact to a user of lang."""
    if isinstance(fact, AnyFact):
        return any(told(option, analysis, lang) for option in fact.options)
    if isinstance(fact, PhraseFact):
        return said(analysis.flat(), fact.words[lang])
    if isinstance(fact, NumberFact):
        places = [m.start for m in analysis.numbers if m.value == fact.value and _unit_next_to(fact, m, analysis, lang)]
        if fact.unit in _MINUTES_PER:
            places += _length_of_time(fact, analysis, lang)
    elif isinstance(fact, CodeFact):
        places = analysis.code_positions(fact.code)
    elif isinstance(fact, TimeFact):
        places = [m.start for m in analysis.times if m.value == fact.minutes]
    else:
        places = [m.start for m in analysis.dates if _same_day(fact, m)]
    if not places:
        return False
    if fact.about is None:
        return True
    return any(analysis.said_in(analysis.scope(place), fact.about[lang]) for place in places)


_MINUTES_PER = {"minute": 1, "hour": 60}
_HOURS_THEN_MINUTES = re.compile(
    " ?(?:" + "|".join(re.escape(alias) for alias in sorted(UNITS["hour"].after, key=len, reverse=True)) + r")(?: ?,)?(?: and)? ?"
)


def _length_of_time(fact: NumberFact, analysis: Analysis, lang: str) -> list[int]:
    """Where a length of time is said in the other unit (90 minutes: ``1.5 hours``; 2 hours:
    ``120 minutes``) or in hours and then minutes (``1 hour 30 minutes``, ``1小时30分钟``)."""
    assert fact.unit is not None
    minutes = fact.value * _MINUTES_PER[fact.unit]
    places = []
    other = "hour" if fact.unit == "minute" else "minute"
    value = minutes / _MINUTES_PER[other]
    if value == value.quantize(Decimal("0.01")):  # 1.5 hours, 0.75 hours; not 1.6666… hours
        converted = NumberFact(value, other, about=fact.about)
        places += [m.start for m in analysis.numbers if m.value == value and _unit_next_to(converted, m, analysis, lang)]
    hours, rest = divmod(minutes, 60)
    if hours >= 1 and rest and hours == int(hours) and rest == int(rest):
        numbers = analysis.numbers
        for index, mention in enumerate(numbers[:-1]):
            after = numbers[index + 1]
            if (
                mention.value == hours
                and after.value == rest
                and _HOURS_THEN_MINUTES.fullmatch(analysis.text, mention.end, after.start)
                and _unit_next_to(NumberFact(rest, "minute"), after, analysis, lang)
            ):
                places.append(mention.start)
    return places


def _same_day(fact: DateFact, mention: Mention) -> bool:
    readings = mention.value
    assert isinstance(readings, tuple)
    return any(
        month == fact.date.month and day == fact.date.day and (year is None or year == fact.date.year) for year, month, day in readings
    )


def _unit_next_to(fact: NumberFact, mention: Mention, analysis: Analysis, lang: str) -> bool:
    """Whether the fact's unit is written right after the number (``1260 元``, ``4-star``) or,
    for a symbol or code, right before it (``¥1,260``, ``CNY 1260``)."""
    if fact.unit is None and fact.unit_words is None:
        return True
    if mention.unit is not None:  # "half an hour": the words are the unit
        return fact.unit == mention.unit
    text = analysis.text
    if fact.unit is not None:
        unit = UNITS[fact.unit]
        after, before = unit.after, unit.before
    else:
        assert fact.unit_words is not None
        after, before = tuple(w.casefold() for w in fact.unit_words[lang]), ()
    j = mention.end
    while j < len(text) and j - mention.end < 2 and text[j] == " ":
        j += 1
    if j < len(text) and text[j] == "-":  # 4-star, 30-minute
        j += 1
    for alias in after:
        if text.startswith(alias, j) and not (_is_letter(alias[-1]) and _is_letter(_char(text, j + len(alias)))):
            return True
    k = mention.start
    while k > 0 and mention.start - k < 2 and text[k - 1] == " ":
        k -= 1
    for alias in before:
        begin = k - len(alias)
        if begin >= 0 and text.startswith(alias, begin) and not (_is_letter(alias[0]) and _is_letter(_char(text, begin - 1))):
            return True
    return False


def _char(text: str, index: int) -> str:
    return text[index] if 0 <= index < len(text) else ""


def _is_letter(char: str) -> bool:
    return char.isascii() and char.isalpha()
