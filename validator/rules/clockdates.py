"""DLG052: a date the user gave relative to the clock is the date those words give.

A user says "tomorrow at 7 pm", "this Saturday", "下周三", "后天晚上", "in 3 days"; the answer
key holds the date those words give against the case's ``time``. Move the clock (or copy a
neighbour case and change its ``time``) and every such value is silently wrong — nothing else
reports it, since the old date is still a valid date. This rule finds those values and
:func:`stale_relative_dates` computes the one mechanical fix, which ``callbank fix`` writes.

The words are read by ``validator.facts`` (the scanner the agent scorer uses; it resolves
relative days and weekdays against a clock and says how each depends on it). The reading must be
unambiguous, since a false alarm teaches contributors to ignore the rule:

- the values looked at are ISO dates and date-times (a date-time keeps its time of day and
  offset) of every alternative of every checkpoint, ``$any`` branches and ``$optional`` values
  included, and of ``called`` history turns (history the model reads is dated the same way);
- a value is *explained* when the user's words before it give its date: an absolute date
  (``14 March``, ``2024-07-20``, ``7月20日``: never stale, whatever the clock), a relative one
  read against the clock, or a date in the profile, or a tool result or assistant turn before it
  that is not an echo of the answer's own dates;
- a side of a case is stale only when one other clock date explains every value of the side at
  once (the clock the key was written against) and the current clock does not; each value that
  is not explained now must then come from exactly one reading — the words that gave it under
  the old clock give one date under the new one;
- a side whose user words name a date the scanner does not read ("next Friday", "the weekend",
  "25号", "月底") is left alone, and both language sides must agree on the new value of a value
  they share.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from validator import matchers
from validator.corpus.index import Corpus
from validator.corpus.records import AssistantTurn, Call, CalledTurn, Case, Checkpoint, Dialogue, ToolTurn, UserTurn
from validator.diagnostics import Finding, escape_pointer_token, split_pointer
from validator.facts.scan import Analysis, Relative, analyse
from validator.rules.features import date_written
from validator.rules.registry import rule

_ISO = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})(?=$|T)")  # a date or a date-time
_ISO_ANYWHERE = re.compile(r"(?<![0-9])([0-9]{4})-([0-9]{2})-([0-9]{2})(?![0-9])")
# in days: "in 3 days", "in two weeks", "3天后", "两周之后" (the scanner reads the number; the words around it make it a date)
_EN_SPANS = {"day": 1, "days": 1, "week": 7, "weeks": 7}
_ZH_SPANS = (("个星期", 7), ("个礼拜", 7), ("星期", 7), ("礼拜", 7), ("天", 1), ("周", 7))
_ZH_AFTER = ("以后", "之后", "后")
# dates a speaker names that the scanner does not read: a side saying one of them is left alone
_UNREAD_EN = re.compile(
    r"\b(?:next|last|coming|following)\s+(?:week|month|year|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
    r"|\bweekends?\b|\byesterday\b|\bfortnight\b|\bafter next\b|\bend of (?:the |this |next )?(?:week|month)\b"
    r"|\bthe [0-9]{1,2}(?:st|nd|rd|th)\b|\b(?:a|one|two|three) weeks? (?:from|after)\b"
)
_UNREAD_ZH = re.compile(
    r"周末|礼拜天之后|下下|上上|昨天|前天|大大后天|月底|月初|月中|年底|下个?月|上个?月"
    r"|(?:下|上|这|本)个?(?:周|星期|礼拜)(?![一二三四五六日天])|(?<![0-9一二三四五六七八九十两月])[0-9一二三四五六七八九十两]+[号號](?![码碼])"
)
# words that make a date a sum ("a ten-day break starting today", "the day after it ends",
# "停药十天", "结束后的第二天"): the value is then worked out from the words, not read from them
_ARITHMETIC_EN = re.compile(r"\b(?:after|before|later|earlier|prior|ends?|ending|until|till|following|previous|ago|since)\b|(?:\b[a-z]+|[0-9]+)[- ](?:days?|weeks?|nights?)\b")
_ARITHMETIC_ZH = re.compile(r"之后|以后|之前|以前|结束|第二天|次日|隔天|前一天|后一天|提前|推迟|延后|顺延|往后|往前|[0-9零一二三四五六七八九十两几]+个?(?:天|日|周|星期|礼拜|晚|夜)")
_SEARCH_DAYS = 31  # how far from a value the clock it was written against may be
_WEEK_PREFIXES_ZH = ("下个", "上个", "这个", "下", "上", "这", "本")


@dataclass(frozen=True, slots=True)
class Expression:
    """Words of the user that name a date relative to the clock."""

    turn: int  # index of the user turn in the dialogue
    start: int  # where the words are in the turn's analysed text
    end: int
    words: str  # as the scanner read them (NFKC, case-folded)
    relative: Relative
    past: bool = False  # a bare weekday read as the last one ("picked it up on Friday")

    def on(self, today: _dt.date) -> _dt.date:
        if self.past and self.relative.weekday is not None:
            return today - _dt.timedelta(days=(today.weekday() - self.relative.weekday) % 7)
        return self.relative.on(today)


@dataclass(frozen=True, slots=True)
class StaleDate:
    """A date value of an answer key that its user's words no longer give: what it must become."""

    path: str  # repo-relative case file
    pointer: str  # of the string value
    lang: str
    words: str  # the user's words that give the date
    old: str  # the value as written
    new: str  # the same value with the date the words give (time of day and offset kept)
    gives: str  # the date the words give against the case's clock (ISO)


@dataclass(frozen=True, slots=True)
class _Slot:
    turn: int  # index of the turn holding the value (a checkpoint or a called turn)
    pointer: str
    value: str
    date: _dt.date


def stale_relative_dates(case: Case) -> list[StaleDate]:
    """Every date value of the case that its user's relative words give otherwise against the
    case's clock, with the value it must become; [] when the reading is anything but certain."""
    clock = _clock(case.time)
    if clock is None:
        return []
    found: dict[str, list[StaleDate]] = {lang: _stale_side(case, dialogue, clock) for lang, dialogue in case.dialogues.items()}
    return _agreed(case, found)


def _clock(time: str | None) -> _dt.datetime | None:
    if not time:
        return None
    try:
        return _dt.datetime.fromisoformat(time)
    except ValueError:
        return None


def _agreed(case: Case, found: dict[str, list[StaleDate]]) -> list[StaleDate]:
    """The fixes both sides agree on: a value the sides share (same place, same value) is fixed
    only when every side that has it gives it the same new value."""
    by_place: dict[tuple[str, str], dict[str, str]] = {}  # (pointer without the language, old) -> lang -> new
    for lang, stale in found.items():
        for item in stale:
            by_place.setdefault((_shared(item.pointer), item.old), {})[lang] = item.new
    kept: list[StaleDate] = []
    for lang, stale in found.items():
        for item in stale:
            news = by_place[(_shared(item.pointer), item.old)]
            others = [other for other in case.dialogues if other != lang and _value_at(case.data, "/" + other + _shared(item.pointer)) == item.old]
            if all(news.get(other) == item.new for other in others):
                kept.append(item)
    return kept


def _shared(pointer: str) -> str:
    return pointer[pointer.index("/", 1) :]  # "/en/turns/1/…" -> "/turns/1/…"


def _value_at(data: Any, pointer: str) -> Any:
    for token in split_pointer(pointer):
        if isinstance(data, list) and token.isdigit() and int(token) < len(data):
            data = data[int(token)]
        elif isinstance(data, dict) and token in data:
            data = data[token]
        else:
            return None
    return data


# ----------------------------------------------------------------------------- one language side


def _stale_side(case: Case, dialogue: Dialogue, clock: _dt.datetime) -> list[StaleDate]:
    slots = list(_slots(dialogue))
    if not slots:
        return []
    analyses = {turn.index: analyse(turn.text, clock) for turn in dialogue.turns if isinstance(turn, UserTurn)}
    texts = {turn.index: turn.text for turn in dialogue.turns if isinstance(turn, UserTurn)}
    expressions = [e for index, analysis in analyses.items() for e in _expressions(index, analysis)]
    arithmetic = {index for index, analysis in analyses.items() if _arithmetic(analysis.text, [e for e in expressions if e.turn == index])}
    echoes = {slot.date for slot in slots}
    profile = case.profile.get(dialogue.lang, "") if case.profile else ""
    if profile and (_unread_dates(profile) or _arithmetic(profile.lower(), [])):
        return []  # the preference may move the date ("the same slot the following week")
    today = clock.date()

    def explained_by(slot: _Slot) -> tuple[bool, list[Expression]]:
        """Whether something other than relative words gives the slot's date; the relative words before it."""
        said = "\n".join(text for index, text in texts.items() if index < slot.turn)
        if _fixed_source(slot, said, profile, analyses, dialogue, echoes):
            return True, []
        return False, [e for e in expressions if e.turn < slot.turn]

    reading: list[tuple[_Slot, list[Expression]]] = []
    for slot in slots:
        fixed, before = explained_by(slot)
        if fixed:
            continue
        said = "\n".join(text for index, text in texts.items() if index < slot.turn)
        if _unread_dates(said) or any(index < slot.turn for index in arithmetic):
            return []  # the words may name this date in a way the scanner does not read, or work it out
        reading.append((slot, before))
    stale = [(slot, before) for slot, before in reading if not any(e.on(today) == slot.date for e in before)]
    if not stale:
        return []
    # the clocks the key may have been written against: near each value, explaining every value at once
    first = stale[0][0]
    candidates = [first.date + _dt.timedelta(days=k) for k in range(-_SEARCH_DAYS, _SEARCH_DAYS + 1)]
    clocks = [day for day in candidates if day != today and all(any(e.on(day) == slot.date for e in before) for slot, before in reading)]
    if not clocks:
        return []
    out: list[StaleDate] = []
    for slot, before in stale:
        news = {(e.on(today), e.words) for day in clocks for e in before if e.on(day) == slot.date}
        if len({date for date, _ in news}) != 1:
            continue  # two readings: which words gave this value is not certain
        date, words = sorted(news)[0]
        new = date.isoformat() + slot.value[10:]
        out.append(StaleDate(case.path, slot.pointer, dialogue.lang, words, slot.value, new, date.isoformat()))
    return out


def _slots(dialogue: Dialogue) -> Iterator[_Slot]:
    """The ISO date and date-time values of the side's answers and history calls, with their place."""
    for turn in dialogue.turns:
        calls: Sequence[Call]
        if isinstance(turn, Checkpoint):
            calls = [call for alternative in turn.alternatives for call in alternative.calls]
        elif isinstance(turn, CalledTurn):
            calls = turn.calls
        else:
            continue
        for call in calls:
            for name, value in call.args.items():
                yield from _dates_in(value, call.arg_pointer(name), turn.index)


def _dates_in(value: Any, pointer: str, turn: int) -> Iterator[_Slot]:
    if isinstance(value, str):
        match = _ISO.match(value)
        if match:
            try:
                day = _dt.date(int(match[1]), int(match[2]), int(match[3]))
            except ValueError:
                return
            yield _Slot(turn, pointer, value, day)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _dates_in(item, f"{pointer}/{i}", turn)
    elif isinstance(value, dict):
        if not matchers.is_matcher(value):
            for key, item in value.items():
                yield from _dates_in(item, f"{pointer}/{escape_pointer_token(key)}", turn)
            return
        kind = matchers.matcher_kind(value)
        if kind in ("$any", "$unordered") and isinstance(value[kind], list):
            for i, item in enumerate(value[kind]):
                yield from _dates_in(item, f"{pointer}/{escape_pointer_token(kind)}/{i}", turn)
        elif kind == "$optional":
            yield from _dates_in(value[kind], f"{pointer}/$optional", turn)
        # $text, $regex, $range, $literal …: not a plain date a fix could rewrite


def _expressions(turn: int, analysis: Analysis) -> Iterator[Expression]:
    text = analysis.text
    for mention in analysis.dates:
        if mention.relative is not None:
            start = mention.start
            if mention.relative.week is not None:  # 下周三 is read from 周三; show the words whole
                start -= next((len(p) for p in _WEEK_PREFIXES_ZH if text[:start].endswith(p)), 0)
                if text[:start].endswith("this "):
                    start -= len("this ")
            yield Expression(turn, start, mention.end, text[start : mention.end], mention.relative)
            if mention.relative.weekday is not None and mention.relative.week is None:
                # a bare weekday is the coming one or the last one, as the sentence's tense says
                yield Expression(turn, start, mention.end, text[start : mention.end], mention.relative, past=True)
    for mention in analysis.numbers:
        value = mention.value
        if not isinstance(value, Decimal) or value != value.to_integral_value():
            continue
        count = int(value)
        if not 0 < count <= 60:
            continue
        tail = text[mention.end : mention.end + 8]
        after = tail.lstrip(" ")
        english = re.match(r"([a-z]+)\b", after)
        if english and english[1] in _EN_SPANS and text[: mention.start].endswith("in "):
            end = mention.end + (len(tail) - len(after)) + len(english[1])
            yield Expression(turn, mention.start - 3, end, text[mention.start - 3 : end], Relative(days=count * _EN_SPANS[english[1]]))
            continue
        for unit, days in _ZH_SPANS:
            if after.startswith(unit) and after[len(unit) :].startswith(_ZH_AFTER):
                rest = after[len(unit) :]
                suffix = next(s for s in _ZH_AFTER if rest.startswith(s))
                end = mention.end + (len(tail) - len(after)) + len(unit) + len(suffix)
                yield Expression(turn, mention.start, end, text[mention.start : end], Relative(days=count * days))
                break


def _fixed_source(slot: _Slot, said: str, profile: str, analyses: dict[int, Analysis], dialogue: Dialogue, echoes: set[_dt.date]) -> bool:
    """Whether the user's words give the slot's date in an absolute form, or the profile does,
    or a tool result or assistant turn before it names it without echoing the answer's dates."""
    day = slot.date
    if date_written(day.year, day.month, day.day, said) or (profile and date_written(day.year, day.month, day.day, profile)):
        return True
    for index, analysis in analyses.items():
        if index < slot.turn:
            for mention in analysis.dates:
                if mention.relative is None and any(_same(reading, day) for reading in mention.value):  # type: ignore[union-attr]
                    return True
    if day in echoes:
        return False
    for turn in dialogue.turns[: slot.turn]:
        text = ""
        if isinstance(turn, ToolTurn):
            text = repr([result.result for result in turn.results])
        elif isinstance(turn, AssistantTurn):
            text = turn.text
        if text and (any(_iso_day(m) == day for m in _ISO_ANYWHERE.finditer(text)) or date_written(day.year, day.month, day.day, text)):
            return True
    return False


def _same(reading: tuple[int | None, int, int], day: _dt.date) -> bool:
    year, month, date = reading
    return (year is None or year == day.year) and month == day.month and date == day.day


def _iso_day(match: re.Match[str]) -> _dt.date | None:
    try:
        return _dt.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def _arithmetic(text: str, expressions: Sequence[Expression]) -> bool:
    """Whether the text (its relative date words taken out) counts days from a date."""
    for e in expressions:
        text = text[: e.start] + " " * (e.end - e.start) + text[e.end :]
    return bool(_ARITHMETIC_EN.search(text) or _ARITHMETIC_ZH.search(text))


def _unread_dates(said: str) -> bool:
    return bool(_UNREAD_EN.search(said.lower()) or _UNREAD_ZH.search(said))


# ----------------------------------------------------------------------------- the rule


@rule("DLG052", "stale-relative-date", "A date the user gave relative to the clock is not the date those words give against the case's `time`.", on=Case)
def stale_relative_date(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reads the user's words for dates given relative to the clock ("tomorrow", "this Saturday",
    "in 3 days", "后天", "下周三", "三天后") and reports an ISO date or date-time of an answer
    (any alternative, `$any` branch or `$optional` value) or of a history call whose date is
    not what those words give against the case's `time`, when one earlier clock explains every
    date of the dialogue at once and each stale value comes from exactly one reading. Dates
    the user wrote out ("on 14 March"), dates from tool results, and dialogues that name a
    date the reader does not understand ("next Friday", "25号") are never reported.
    `callbank fix` writes the date the words give (a date-time keeps its time of day and
    offset) and the tool results that change with it.
    ## Why is this bad?
    Moving a case's clock, or copying a neighbour case and changing its `time`, leaves every
    relative date of its answer key valid but wrong: a model that reads "tomorrow" correctly
    is scored wrong, and nothing else in `check` or `exec` notices.
    ## Example
    ```yaml
    time: "2024-07-18T09:00:00+08:00"     # moved from 2024-07-17
    en:
      turns:
        - user: Book Lakeside Kitchen for two tomorrow at 7 pm.
        - expect:
            calls:
              - {api: book_table, args: {restaurant: Lakeside Kitchen, party_size: 2, time: "2024-07-18T19:00"}}
    ```
    ## Use instead
    ```yaml
              - {api: book_table, args: {restaurant: Lakeside Kitchen, party_size: 2, time: "2024-07-19T19:00"}}
    ```
    """
    for stale in stale_relative_dates(case):
        yield Finding(
            f"the user's {stale.words!r} gives {stale.gives} against the case's time {case.time}, but the {stale.lang} answer has "
            f"{stale.old}: write {stale.new!r} (`callbank fix` does), or say the date in absolute words if the clock is not meant to move it",
            stale.pointer,
        )
