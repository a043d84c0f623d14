"""DLG050: an assistant history turn states only facts the dialogue gave it.

A case's ``assistant:`` turns are history the model reads before it acts. A number, a clock
time, a date or a code in one of them must come from something before it that the model also
sees: the user's words, a tool result, the calls made so far (history shows them), the profile,
the clock, or the candidate APIs' descriptions. A fact none of them gives was invented by the
author — and hands the model a value it should have had to find (issue 12, "answers given away").

The numbers, times and dates are read by ``validator.facts`` (both languages, linear time).
What a careful assistant may say from what it saw, beyond repeating it (docs/decisions.md):

- a count: the length of a list a tool returned, or any number up to ten written in words
  ("two flights", "三件"), which prose uses for counting and idiom (一共, 一直);
- the same quantity in another unit or rounded as written: a source number times or divided by
  10, 100, 1000 or 60 (``1670`` m is 1.67 km, 0.2 is 20%), to the precision the turn writes it
  (17.6 mm is "about 18 mm"); minus signs ignored (a debit of -2000 is "2,000 went out");
  a duration in two parts ("3 minutes 25 seconds", "3分25秒" for 205 seconds);
- a date's day, month or year alone ("from 7 to 13 October"), a weekday of a known date or one
  the sources name ("Thursdays" in a note is 周四);
- digit groups (``139 2222 3333``) as the identifier they spell.

Sums, differences and shares the assistant worked out are not facts a tool returned: history
states the tool's figures and leaves the arithmetic to the model being tested.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from validator import matchers
from validator.corpus.index import Corpus
from validator.corpus.records import AssistantTurn, Case, Checkpoint, Dialogue, ToolTurn, UserTurn
from validator.diagnostics import Finding
from validator.facts.lexicon import WEEKDAYS_EN, ZH_WEEKDAY_CHARS
from validator.facts.scan import Analysis, Mention, analyse
from validator.rules.registry import rule

_ISO_DATE_TIME = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}:[0-9]{2})")  # 2024-07-16T08:30 reads as a date and a time
_DIGIT_GROUPS = re.compile(r"(?<![A-Za-z0-9-])[0-9]{3,}(?: [0-9]{3,}){2,}")  # 139 2222 3333, 6225 8812 3456 7890
_CHAIN = re.compile(r"[A-Za-z0-9]+(?:[-_/][A-Za-z0-9]+)*")
_LATIN_WORD = re.compile(r"[a-z]+")
_ZH_WEEKDAY = re.compile("(?:周|星期|礼拜)([" + "".join(ZH_WEEKDAY_CHARS) + "])")
_WEEKDAY_WORDS = {**WEEKDAYS_EN, **{name[:3]: day for name, day in WEEKDAYS_EN.items()}}  # tool data says mon, tue …
_SCALES = (*(Decimal(f) for f in ("10", "100", "1000", "60", "0.1", "0.01", "0.001")), 1 / Decimal(60))
_WORD_COUNT_LIMIT = 10
_COMPOUND_GAP = 16  # characters between the two parts of "3 minutes 25 seconds"
Date = tuple[int | None, int, int]


@rule(
    "DLG050",
    "unsourced-history-fact",
    "An assistant history turn states a number, time, date or code that nothing before it gives.",
    on=Case,
)
def unsourced_history_fact(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reads every `assistant:` turn of a case's dialogue (in both languages) for numbers, clock
    times, dates and codes, and reports those that no earlier part of the dialogue the model
    sees gives: the user's turns, tool results, the calls of earlier checkpoints, the profile,
    the case's clock, or the candidate APIs' descriptions. Counts of a result's items, small
    counts in words, unit changes, rounding and a date's parts are accepted (`docs/decisions.md`).
    ## Why is this bad?
    History is what the model reads before it acts. A fact in it that no tool returned is one
    the author invented: it can contradict the sandbox, and it hands the model a value (a total,
    an id, a time) it should have had to look up or work out.
    ## Example
    ```yaml
    - tool: [{api: list_transactions, result: {transactions: [{amount: -3000}, {amount: -2460}]}}]
    - assistant: You spent 5,460 yuan, and order FO1002 is on its way.
    ```
    ## Use instead
    ```yaml
    - assistant: Two debits — 3,000 and 2,460 yuan.
    ```
    """
    for dialogue in case.dialogues.values():
        if not any(isinstance(turn, AssistantTurn) for turn in dialogue.turns):
            continue
        yield from _dialogue_findings(case, dialogue, corpus)


def _dialogue_findings(case: Case, dialogue: Dialogue, corpus: Corpus) -> Iterator[Finding]:
    lang = dialogue.lang
    known = Known(_dt.datetime.fromisoformat(case.time) if case.time else None)  # an imported case may have no clock
    later = Known(known.clock)  # read only when the others leave a claim unsourced: calls and API descriptions
    later_parts: list[tuple[Any, bool]] = []  # (data, whether its lists' lengths are counts)
    if case.profile is not None:
        known.add_text(case.profile[lang])
    for api in case.apis:
        spec = corpus.specs.get(api)
        if spec is not None:
            later_parts.append((spec.function_schema(lang), False))  # an enum's length counts nothing
    for turn in dialogue.turns:
        if isinstance(turn, UserTurn):
            known.add_text(turn.text)
        elif isinstance(turn, ToolTurn):
            for result in turn.results:
                known.add_data(result.result)
        elif isinstance(turn, Checkpoint):
            later_parts.extend(({"api": call.api, "args": matchers.render(dict(call.args), lang)}, True) for call in turn.first)
        elif isinstance(turn, AssistantTurn):
            claims = list(unsourced_claims(turn.text, known))
            if claims:
                for part, counted in later_parts:
                    later.add_data(part, count_lists=counted)
                later_parts = []
                claims = [claim for claim in claims if not later.sources(claim) and not known.sources_with(claim, later)]
            if claims:
                shown = ", ".join(f"{text!r} ({kind})" for kind, text, _ in claims)
                yield Finding(
                    f"this history turn says {shown}, which nothing before it gives (the user's words, a tool result, an earlier call, "
                    "the profile, the clock, the APIs' descriptions): history may state only what the dialogue gave, so say what the "
                    "tool returned and leave the rest to the model",
                    turn.pointer + "/assistant",
                )


# ----------------------------------------------------------------------------- what is known


Claim = tuple[str, str, Any]  # (kind, text as written, value): number | time | date | code


@dataclass
class Known:
    """What the sources so far give: numbers, times, dates, weekdays, list lengths, texts."""

    clock: _dt.datetime | None
    numbers: set[Decimal] = field(default_factory=set)
    counts: set[int] = field(default_factory=set)
    times: set[int] = field(default_factory=set)
    dates: set[Date] = field(default_factory=set)
    weekdays: set[int] = field(default_factory=set)
    texts: list[Analysis] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.clock is None:
            return
        today = self.clock.date()
        self._add_date((today.year, today.month, today.day))
        self.times.add(self.clock.hour * 60 + self.clock.minute)

    # -- adding sources

    def add_text(self, text: str) -> None:
        analysis = analyse(_ISO_DATE_TIME.sub(r"\1 \2", text), self.clock)
        self.texts.append(analysis)
        self.numbers.update(abs(_decimal(m.value)) for m in analysis.numbers)
        self.times.update(m.value for m in analysis.times if isinstance(m.value, int))  # minutes since midnight
        for mention in analysis.dates:
            for reading in _readings(mention):
                self._add_date(reading)
        self.weekdays.update(_named_weekdays(analysis.text))

    def add_data(self, value: Any, *, count_lists: bool = True) -> None:
        """A tool result or a call: its numbers, its lists' lengths, its strings read as text."""
        strings: list[str] = []
        self._walk(value, strings, count_lists)
        if strings:  # snake_case values are words: stage_1 says "stage 1"
            self.add_text("\n".join(s.replace("_", " ") for s in strings))

    def _walk(self, value: Any, strings: list[str], count_lists: bool) -> None:
        if isinstance(value, dict):
            for item in value.values():
                self._walk(item, strings, count_lists)
        elif isinstance(value, list):
            if count_lists:
                self.counts.add(len(value))
            for item in value:
                self._walk(item, strings, count_lists)
        elif isinstance(value, str):
            strings.append(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            self.numbers.add(abs(_decimal(value)))

    def _add_date(self, reading: Date) -> None:
        self.dates.add(reading)
        year, month, day = reading
        self.numbers.update(Decimal(part) for part in (year, month, day) if part is not None)
        if year is not None:
            self.weekdays.add(_dt.date(year, month, day).weekday())

    # -- judging a claim

    def sources(self, claim: Claim) -> bool:
        return self.sources_with(claim, None)

    def sources_with(self, claim: Claim, other: Known | None) -> bool:
        """Whether this (with other, when given) gives the claim."""
        kind, text, value = claim
        both = (self,) if other is None else (self, other)
        if kind == "code":
            return any(analysis.code_positions(value) for known in both for analysis in known.texts)
        if kind == "time":
            return any(value in known.times or Decimal(value) in known.numbers for known in both)
        if kind == "date":
            return any(_date_known(reading, known.dates) for known in both for reading in value) or (
                bool(_named_weekdays(text)) and all(r[0] is not None and any(_weekday(r) in k.weekdays for k in both) for r in value)
            )
        numbers = set().union(*(known.numbers for known in both))
        counts = set().union(*(known.counts for known in both))
        return _number_known(abs(value), text, numbers, counts)


def _number_known(value: Decimal, text: str, numbers: set[Decimal], counts: set[int]) -> bool:
    if value in numbers or value in counts:
        return True
    if not any(c.isdigit() for c in text) and value <= _WORD_COUNT_LIMIT:
        return True  # "two flights", "一共三件", "一直"
    places = len(text.rsplit(".", 1)[1]) if "." in text and text.rsplit(".", 1)[1].isdigit() else 0
    tolerance = Decimal(5) / Decimal(10) ** (places + 1)  # rounded as written: 4.18 is "4.2", 17.6 is "18"
    if any(abs(number - value) <= tolerance for number in numbers):
        return True
    # in another unit: exactly, or rounded when written with decimals (1580 m is "1.6 km") — a
    # whole number near some scaled source number proves nothing (1670 m / 100 is not "17")
    scaled = (number * scale for number in numbers for scale in _SCALES)
    return any(abs(candidate - value) <= (tolerance if places else 0) for candidate in scaled)


def _date_known(reading: Date, dates: set[Date]) -> bool:
    year, month, day = reading
    return any(d[1:] == (month, day) and (year is None or d[0] is None or d[0] == year) for d in dates)


# ----------------------------------------------------------------------------- reading a turn


def unsourced_claims(text: str, known: Known) -> Iterator[Claim]:
    """The facts of an assistant turn that known does not give."""
    analysis = analyse(_ISO_DATE_TIME.sub(r"\1 \2", text), known.clock)
    groups = [(m.start(), m.end()) for m in _DIGIT_GROUPS.finditer(unicodedata.normalize("NFKC", text))]
    candidates: list[Claim] = [("code", text[start:end], text[start:end].replace(" ", "")) for start, end in groups]
    numbers = [m for m in analysis.numbers if not any(start <= m.start < end for start, end in groups)]
    compound = _compound_durations(analysis, numbers, known)
    candidates += [("number", analysis.text[m.start : m.end], _decimal(m.value)) for m in numbers if m.start not in compound]
    candidates += [("time", analysis.text[m.start : m.end], m.value) for m in analysis.times]
    candidates += [("date", analysis.text[m.start : m.end].rstrip(". "), _readings(m)) for m in analysis.dates]
    candidates += [("code", chain, chain) for chain in _codes(text)]
    seen: set[tuple[str, str]] = set()
    for claim in candidates:
        if (claim[0], claim[1]) not in seen and not known.sources(claim):
            seen.add((claim[0], claim[1]))
            yield claim


def _compound_durations(analysis: Analysis, numbers: list[Mention], known: Known) -> set[int]:
    """Starts of numbers that are the two parts of a duration a source gives (3分25秒 = 205)."""
    parts: set[int] = set()
    for first, second in itertools.pairwise(numbers):
        if second.start - first.end <= _COMPOUND_GAP and _decimal(first.value) * 60 + _decimal(second.value) in known.numbers:
            parts.update((first.start, second.start))
    return parts


def _codes(text: str) -> Iterator[str]:
    """Identifiers as written: letters and digits, every letter upper-case (B-1042, CA1501, SKU-1001)."""
    for match in _CHAIN.finditer(unicodedata.normalize("NFKC", text)):
        chain = match.group()
        letters = [c for c in chain if c.isalpha()]
        if letters and any(c.isdigit() for c in chain) and all(c.isupper() for c in letters):
            yield chain


def _named_weekdays(folded: str) -> set[int]:
    days = {_WEEKDAY_WORDS[word.removesuffix("s")] for word in _LATIN_WORD.findall(folded) if word.removesuffix("s") in _WEEKDAY_WORDS}
    days.update(ZH_WEEKDAY_CHARS[m.group(1)] for m in _ZH_WEEKDAY.finditer(folded))
    return days


def _readings(mention: Mention) -> tuple[Date, ...]:
    value = mention.value
    return tuple(value) if isinstance(value, tuple) else ()


def _weekday(reading: Date) -> int:
    year, month, day = reading
    return _dt.date(year or 2000, month, day).weekday()


def _decimal(value: Any) -> Decimal:
    try:
        return Decimal(str(value)).normalize()
    except InvalidOperation:
        return Decimal(0)
