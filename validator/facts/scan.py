"""Reading what an agent said: sentences, and the numbers, times, dates and codes in them.

:func:`analyse` turns one text into an :class:`Analysis` in a few left-to-right passes. Every
pass is linear in the text: the only regular expressions are single character classes with
one quantifier (``[0-9]+``, ``[a-z]+``), which never backtrack, and everything else looks at
most a fixed number of characters around a match. The scorer is fed untrusted megabytes, so
nothing here may be quadratic.

Text is compared after NFKC and case folding: full-width digits are digits, ``℃`` is ``°c``,
``，`` is ``,``. A *mention* is a quantity, a clock time or a date found in the text, with its
place, so a fact can ask for a unit next to it or a word in the same sentence.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

from validator.facts.lexicon import (
    DURATION_MINUTES,
    EN_CLOCK_WORDS,
    EN_MAGNITUDES,
    EN_NUMBER_WORDS,
    EN_ONES,
    EN_PERIODS_AFTER,
    EN_TENS,
    FAILURE_WINDOW_ZH,
    FAILURES_EN,
    FAILURES_ZH,
    MONTHS,
    NEGATION_WINDOW_EN,
    NEGATION_WINDOW_ZH,
    NEGATIONS_EN,
    NEGATIONS_ZH,
    NOT_NEGATIONS_ZH,
    ORDINAL_SUFFIXES,
    RELATIVE_DAYS_EN,
    RELATIVE_DAYS_ZH,
    UNITS,
    WEEKDAYS_EN,
    ZH_BIG_UNITS,
    ZH_DIGITS,
    ZH_MAGNITUDES,
    ZH_NOT_PERIODS,
    ZH_PERIODS,
    ZH_SMALL_UNITS,
    ZH_WEEKDAY_CHARS,
)
from validator.facts.numerals import chinese_value, english_value

_DIGIT_RUN = re.compile(r"[0-9]+")
_WORD_RUN = re.compile(r"[a-z]+")
_ALNUM_RUN = re.compile(r"[a-z0-9]+")
_ZH_NUMERAL_RUN = re.compile("[" + "".join(sorted(set(ZH_DIGITS) | set(ZH_SMALL_UNITS) | set(ZH_BIG_UNITS))) + "]+")
_ZH_WEEKDAY = re.compile("[周期拜][一二三四五六日天]")  # 周五, 星期五, 礼拜五: the char before the day
_SENTENCE_END = re.compile(r"[\n!?;。]")
_PERIOD = re.compile(r"\.")
_CLAUSE_PUNCTUATION = frozenset(",;:.!?\n、。")
# longest first, so "an hour and a half" is not read as "half" of something
_DURATION_WORDS = re.compile(
    "(?<![a-z])(?:" + "|".join(re.escape(words).replace("\\ ", "[ -]") for words in sorted(DURATION_MINUTES, key=len, reverse=True)) + ")(?![a-z])"
)
_HOUR_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_MINUTE_WORDS = "(?:twenty|thirty|forty|fifty)[- ](?:one|two|three|four|five|six|seven|eight|nine)|fifteen|thirty|forty|fifty|twenty|ten"
_CLOCK_IN_WORDS = re.compile(
    rf"(?<![a-z0-9])(?:(?:(?P<past>half|quarter) past|(?:a )?(?P<to>quarter) to) (?P<hour>{_HOUR_WORDS}|1[0-2]|0?[1-9])"
    rf"|(?P<hour2>{_HOUR_WORDS})(?: (?P<minutes>{_MINUTE_WORDS}))? ?(?P<marker>o'clock|a\.m\.|p\.m\.|am|pm)(?![a-z]))"
)
# noon, midday, midnight: read with the other clock words, before digits, so a range that
# starts with one carries its half of the day to its end ("from noon to 2:00" ends at 14:00)
_CLOCK_WORD = re.compile("(?<![a-z])(?:" + "|".join(EN_CLOCK_WORDS) + ")(?![a-z])")
_EN_DAY_PAIR = re.compile(r"(?:st|nd|rd|th)?(?: and | & | or |, | to |-|–| - | – )[0-9]{1,2}(?:st|nd|rd|th)? (?:of )?")
_ZH_NEXT_DAY = re.compile(r"(?:和|与|跟|、|或|或者|至|到|-|–|~|～)(?P<day>[0-9]{1,2})[日号]")
_RANGE_CONNECTOR = re.compile(r" ?(?:到|至|[-–—~～]|(?<![a-z])(?:to|until|till)) ?$")
_INNER_MARK = re.compile(r"(?<=[0-9])[:.,](?=[0-9])")
# a full stop that ends one of these words is an abbreviation, not a sentence: No. 3, Dr. Zheng
_ABBREVIATION_STOP = re.compile(r"(?<![0-9a-z])(no|nos|dr|mr|mrs|ms|st|mt|jr|sr|prof|vs|approx|tel|ext)\.")
_CODE_SEPARATORS = "-_/"
_MAX_DIGITS = 24  # longer runs of digits are identifiers (card and account numbers), not quantities
_MAX_NUMBER_WORDS = 8  # "two thousand five hundred and forty-one" is seven
_MAX_NUMERALS = 16  # longer runs of Chinese numerals are not one number (一一一一…)
_ENDINGS = ("ing", "es", "ed", "s", "d")  # an English word of 4+ letters matches with these endings too
_INFLECTED_LENGTH = 4
_PRETRANSLATE = str.maketrans({"−": "-", "‐": "-", "‑": "-", "’": "'", "‘": "'", "｡": "。"})
_MAX_UNIT_ALIAS = max(len(a) for unit in UNITS.values() for a in (*unit.after, *unit.before))
_UNIT_SUFFIX_LETTERS = frozenset(a for unit in UNITS.values() for a in unit.after if a.isascii() and a.isalpha())
_UNIT_PREFIX_LETTERS = frozenset(a for unit in UNITS.values() for a in unit.before if a.isascii() and a.isalpha())
_AM_PM = {"am": "am", "pm": "pm"}
_PERIOD_INITIALS = frozenset(words[0] for words, _ in EN_PERIODS_AFTER)
# what may follow the digits of a date or a time: 2025-, 5/9, 7:45, 7.45pm, 8 pm, 8 o'clock, 9th, 9 May, 5月, 7点
_MAY_CONTINUE = frozenset("-–/.:年月点时") | frozenset("abcdefghijklmnopqrstuvwxyz")


class Relative(NamedTuple):
    """How a date word depends on the clock: ``days`` after its date (今天 0, tomorrow 1, 后天
    2), or a ``weekday`` (Monday 0) in the clock's week ``week`` weeks on (下周五: 1, this
    Friday: 0), or with no ``week`` the coming one (today included)."""

    days: int | None = None
    weekday: int | None = None
    week: int | None = None

    def on(self, today: _dt.date) -> _dt.date:
        """The date the word names when the clock's date is today."""
        if self.days is not None:
            return today + _dt.timedelta(days=self.days)
        assert self.weekday is not None
        if self.week is None:
            return today + _dt.timedelta(days=(self.weekday - today.weekday()) % 7)
        monday = today - _dt.timedelta(days=today.weekday())
        return monday + _dt.timedelta(days=7 * self.week + self.weekday)


@dataclass(frozen=True)
class Mention:
    start: int  # in Analysis.text
    end: int
    value: Decimal | int | tuple[tuple[int | None, int, int], ...]  # number | minutes | date readings
    relative: Relative | None = None  # a date read from the clock: how (None for every other mention)
    unit: str | None = None  # a unit the words carry without writing it ("half an hour": minute)


@dataclass
class Analysis:
    """One text, read once; facts are then looked up in it."""

    text: str  # NFKC, case-folded
    clock: _dt.datetime | None
    numbers: list[Mention] = field(default_factory=list)
    times: list[Mention] = field(default_factory=list)
    dates: list[Mention] = field(default_factory=list)
    sentence_starts: list[int] = field(default_factory=list)
    line_starts: list[int] = field(default_factory=list)
    line_scope: list[tuple[int, ...]] = field(default_factory=list)  # sentences a line's heading adds
    _flat: str | None = None
    _sentence_flat: dict[int, str] = field(default_factory=dict)
    _said: dict[tuple[int, tuple[str, ...]], bool] = field(default_factory=dict)
    _codes: str | None = None
    _code_cuts: bytearray = field(default_factory=bytearray)
    _code_origins: list[tuple[int, int]] = field(default_factory=list)  # (start in _codes, start in text)

    # -- places

    def sentence_of(self, position: int) -> int:
        return bisect.bisect_right(self.sentence_starts, position) - 1

    def scope(self, position: int) -> frozenset[int]:
        """The sentences whose words count as "the same sentence" for a mention at position:
        its own, and the heading of its list or table (``Balances:`` above ``- savings: 100``)."""
        line = bisect.bisect_right(self.line_starts, position) - 1
        return frozenset((self.sentence_of(position), *self.line_scope[line]))

    # -- words

    def flat(self) -> str:
        """The text as ``$text`` compares it: punctuation and symbols as spaces, spaces collapsed,
        and ``|`` where a clause ends (so words never match across ``,`` ``;`` ``.`` …)."""
        if self._flat is None:
            self._flat = flatten(self.text)
        return self._flat

    def sentence_flat(self, sentence: int) -> str:
        found = self._sentence_flat.get(sentence)
        if found is None:
            start = self.sentence_starts[sentence]
            end = self.sentence_starts[sentence + 1] if sentence + 1 < len(self.sentence_starts) else len(self.text)
            found = self._sentence_flat[sentence] = flatten(self.text[start:end])
        return found

    def said_in(self, scope: frozenset[int], alternatives: tuple[str, ...]) -> bool:
        """Whether one of the alternatives is said, not denied, in one of the scope's sentences."""
        for sentence in sorted(scope):
            key = (sentence, alternatives)
            if key not in self._said:
                self._said[key] = said(self.sentence_flat(sentence), alternatives)
            if self._said[key]:
                return True
        return False

    # -- codes

    def code_positions(self, code: str) -> list[int]:
        """Where (in :attr:`text`) an identifier is written, its separators ignored.

        ``B-1042`` is in "booking b1042" and in "BK-2001/B-1042", not in "B-10420" or "AB-1042";
        ``6225881234567890`` is in "6225 8812 3456 7890".
        """
        wanted = "".join(c for c in code.casefold() if c.isalnum())
        if not wanted:
            return []
        if self._codes is None:
            self._build_codes()
        assert self._codes is not None
        codes, cuts = self._codes, self._code_cuts
        found: list[int] = []
        start = codes.find(wanted)
        while start != -1:
            end = start + len(wanted)
            if cuts[start] and (end == len(codes) or cuts[end]):
                found.append(self._code_origin(start))
            start = codes.find(wanted, start + 1)
        return found

    def _build_codes(self) -> None:
        """Chains of letter-and-digit runs joined by single separators, runs marked off.

        ``bk-2001/bk-2002`` becomes the chain ``bk 2001 bk 2002``: an identifier matches a whole
        number of consecutive runs of one chain. Digit groups separated by single spaces chain
        too (``6225 8812 3456 7890``).
        """
        text = self.text
        pieces: list[str] = []
        cuts = bytearray()
        origins: list[tuple[int, int]] = []
        offset = 0
        previous_end = -2
        previous_digits = False
        previous_group = previous_alpha = False
        for match in _ALNUM_RUN.finditer(text):
            start, end = match.span()
            run = match.group()
            digits = run.isdigit()
            # a group of four letters and digits, as IBANs are printed (GB71 MIDL 4051 …)
            group = len(run) == 4
            spaced = previous_end >= 0 and text[previous_end] == " "
            joined = start == previous_end + 1 and (
                text[previous_end] in _CODE_SEPARATORS
                or (spaced and digits and previous_digits)
                or (spaced and group and previous_group and not (run.isalpha() and previous_alpha))
            )  # BK-2001, account numbers written in groups (6225 8812 3456 7890), IBANs in groups of four
            previous_digits = digits
            previous_group = group
            previous_alpha = run.isalpha()
            if not joined and pieces:
                pieces.append("\x00")
                cuts.append(1)
                offset += 1
            origins.append((offset, start))
            pieces.append(match.group())
            cuts.append(1)
            cuts.extend(b"\x00" * (end - start - 1))
            offset += end - start
            previous_end = end
        cuts.append(1)  # the end of the last chain
        self._codes = "".join(pieces)
        self._code_cuts = cuts
        self._code_origins = origins

    def _code_origin(self, position: int) -> int:
        k = bisect.bisect_right(self._code_origins, (position, len(self.text))) - 1
        run_offset, run_start = self._code_origins[k]
        return run_start + (position - run_offset)


def flatten(text: str) -> str:
    """NFKC-folded text with punctuation, symbols and spaces as one space, and `` | `` at the end
    of each clause (``, ; : . ! ? 、 。`` and line breaks)."""
    text = unicodedata.normalize("NFKC", text).translate(_PRETRANSLATE).casefold()
    text = _INNER_MARK.sub(" ", text)  # 22:00, 100.50, 30,000: one value, not two clauses
    text = _ABBREVIATION_STOP.sub(r"\1 ", text)  # No. 3, Dr. Zheng: one clause
    return " ".join(text.translate(_space_table(text)).split())


def normalise_words(words: str) -> str:
    """Words of a fact as :func:`said` looks for them (clause marks dropped)."""
    return " ".join(flatten(words).replace("|", " ").split())


def said(flat: str, alternatives: Sequence[str]) -> bool:
    """Whether flat text (see :func:`flatten`) says one of the alternatives, not denied.

    Latin words match only whole (``paid`` is not in ``unpaid``) — a last word of four letters
    or more also with an English ending (``balance`` in ``balances``, ``book`` in ``booked``) —
    Chinese anywhere. An
    occurrence right after a negation in the same clause (``not paid``, ``未支付``,
    ``无法取消``), or right before words of failure (``转出失败``, ``取消不了``), does not count.
    """
    for words in alternatives:
        phrase = normalise_words(words)
        if not phrase:
            continue
        latin_start = _is_ascii_alnum(phrase[0])
        latin_end = _is_ascii_alnum(phrase[-1])
        inflects = latin_end and len(phrase.rsplit(" ", 1)[-1]) >= _INFLECTED_LENGTH
        start = flat.find(phrase)
        while start != -1:
            end = start + len(phrase)
            if inflects:
                end += _inflection(flat, end)
            if not (latin_start and start > 0 and _is_ascii_alnum(flat[start - 1])) and not (
                latin_end and end < len(flat) and _is_ascii_alnum(flat[end])
            ) and not _negated(flat, start) and not _failed(flat, end):
                return True
            start = flat.find(phrase, start + 1)
    return False


def _inflection(flat: str, end: int) -> int:
    """The length of an English ending after a word (balance-s, book-ed, book-ing), or 0."""
    for ending in _ENDINGS:
        if flat.startswith(ending, end) and not _is_ascii_alnum(flat[end + len(ending) : end + len(ending) + 1] or " "):
            return len(ending)
    return 0


def _negated(flat: str, position: int) -> bool:
    """Whether a negation comes just before position in flat text, in the same clause."""
    window = flat[max(0, position - 40) : position]
    window = window[window.rfind("|") + 1 :]
    compact = window.replace(" ", "")
    for word in NOT_NEGATIONS_ZH:  # masked, not removed: the window keeps its length
        compact = compact.replace(word, "_" * len(word))
    if any(word in compact[-NEGATION_WINDOW_ZH:] for word in NEGATIONS_ZH):
        return True
    words = window.split()
    if "neither" in words or "none" in words:  # "neither order could be cancelled": the subject denies
        return True
    return any(word in NEGATIONS_EN for word in words[-NEGATION_WINDOW_EN:])


def _failed(flat: str, end: int) -> bool:
    """Whether the words right after a match say it did not happen: 转出失败, 取消不了, sent failed."""
    window = flat[end : end + 12]
    window = window[: window.find("|")] if "|" in window else window
    if any(word in window.replace(" ", "")[:FAILURE_WINDOW_ZH] for word in FAILURES_ZH):
        return True
    return any(word in FAILURES_EN for word in window.split()[:1])


def _space_table(text: str) -> dict[int, str]:
    """A translation of text's punctuation, symbols, separators and controls to spaces, and of
    clause ends to `` | ``."""
    table: dict[int, str] = {}
    for char in set(text):
        if char in _CLAUSE_PUNCTUATION:
            table[ord(char)] = " | "
        elif unicodedata.category(char)[0] in "PSZC":
            table[ord(char)] = " "
    return table


def _is_ascii_alnum(char: str) -> bool:
    return char.isascii() and char.isalnum()


def _is_ascii_letter(char: str) -> bool:
    return char.isascii() and char.isalpha()


# ============================================================================ the analysis


def analyse(text: str, clock: _dt.datetime | None = None) -> Analysis:
    """Read text once: sentences, headings, and every number, time and date mentioned."""
    norm = unicodedata.normalize("NFKC", text).translate(_PRETRANSLATE).casefold()
    analysis = Analysis(norm, clock)
    _sentences(analysis)
    _Scanner(analysis).run()
    return analysis


def _sentences(analysis: Analysis) -> None:
    """Sentence starts, line starts, and the heading sentences each line inherits.

    A sentence ends at a line break, ``! ? ; 。`` or a full stop that ends a word (not the one
    of ``100.00``, ``a.m.``, ``e.g.``, ``No. 3``, ``Dr. Zheng``). A line ending in a colon heads the lines after it; the
    first row of a Markdown table heads the table.
    """
    text = analysis.text
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    abbreviations = {m.end() - 1 for m in _ABBREVIATION_STOP.finditer(text)}
    for match in _PERIOD.finditer(text):
        i = match.start()
        following = text[i + 1] if i + 1 < len(text) else " "
        if _is_ascii_alnum(following):
            continue  # 100.00, example.com
        if i >= 2 and text[i - 2] == "." and _is_ascii_letter(text[i - 1]):
            continue  # the last stop of a.m., p.m., e.g. (the inner ones are followed by a letter)
        if i in abbreviations:
            continue  # No. 3, Dr. Zheng
        ends.append(i + 1)
    analysis.sentence_starts = sorted({0, *ends})
    line_starts = [0]
    line_starts.extend(m.end() for m in re.finditer("\n", text))
    analysis.line_starts = line_starts
    scopes: list[tuple[int, ...]] = []
    heading: tuple[int, ...] = ()
    table_head: tuple[int, ...] = ()
    for index, start in enumerate(line_starts):
        end = line_starts[index + 1] - 1 if index + 1 < len(line_starts) else len(text)
        line = text[start:end].strip().strip("*_# ").strip()
        if not line:
            table_head = ()
            scopes.append(())
            continue
        own = (analysis.sentence_of(max(start, end - 1)),)  # the line's last sentence: "… balances:"
        if line.startswith("|"):
            if not table_head:
                table_head = own
                scopes.append(heading)
            else:
                scopes.append(heading + table_head)
            continue
        table_head = ()
        if line.endswith(":"):
            heading = own
            scopes.append(())
            continue
        scopes.append(heading)
    analysis.line_scope = scopes


class _Scanner:
    """The numbers, times and dates of a text, each piece of text read once.

    Passes run in order of priority — weekdays, digits (with the dates, times and magnitudes
    they start), Chinese numerals, English words — and a later pass skips what an earlier one
    took (``taken``: sorted, non-overlapping intervals).
    """

    def __init__(self, analysis: Analysis) -> None:
        self.a = analysis
        self.text = analysis.text
        self.time_ends: dict[int, int] = {}  # where a time mention ends -> its minutes (ranges read their start)
        self.n = len(analysis.text)
        self.taken = _Taken()
        self.code_ends: set[int] = set()

    # -- bookkeeping

    def take(self, start: int, end: int) -> None:
        self.taken.add(start, end)

    def is_taken(self, position: int) -> bool:
        return self.taken.covers(position)

    def char(self, i: int) -> str:
        return self.text[i] if 0 <= i < self.n else ""

    def skip_spaces(self, i: int, limit: int = 3) -> int:
        j = i
        while j < self.n and j - i < limit and self.text[j] == " ":
            j += 1
        return j

    def number(self, start: int, end: int, value: Decimal) -> None:
        self.a.numbers.append(Mention(start, end, value))
        self.take(start, end)

    def clock_words(self) -> None:
        """Times of day said in words: half past four, a quarter to seven, six o'clock, six am,
        four thirty pm (an hour word with minutes needs am/pm or o'clock right after it: "four
        thirty" alone may be a count). The half of the day after it applies as after digits."""
        for match in _CLOCK_IN_WORDS.finditer(self.text):
            start, end = match.span()
            if self.is_taken(start):
                continue
            hour = _hour_value(match["hour"] or match["hour2"])
            if hour is None or not 1 <= hour <= 12:
                continue
            minute = 0
            if match["past"] is not None:
                minute = 30 if match["past"] == "half" else 15
            elif match["to"] is not None:
                hour, minute = (hour - 1) or 12, 45
            elif match["minutes"] is not None:
                tens, _, ones = match["minutes"].replace(" ", "-").partition("-")
                minute = EN_TENS.get(tens, EN_ONES.get(tens, 0)) + EN_ONES.get(ones, 0)
            marker = match["marker"]
            if marker is None or marker == "o'clock":
                period, stop = self._period_after(end)
            else:
                period, stop = marker.replace(".", ""), end
            self.time(start, stop, _clock(hour, minute, period))
        for match in _CLOCK_WORD.finditer(self.text):
            if not self.is_taken(match.start()):
                self.time(match.start(), match.end(), EN_CLOCK_WORDS[match.group()])

    def durations(self) -> None:
        """Lengths of time said in words: half an hour, an hour and a half, 半小时, 一刻钟 — each
        a number of minutes and of hours, with the unit the words carry."""
        for match in _DURATION_WORDS.finditer(self.text):
            minutes = DURATION_MINUTES[match.group().replace("-", " ")]
            start, end = match.span()
            self.a.numbers.append(Mention(start, end, Decimal(minutes), unit="minute"))
            self.a.numbers.append(Mention(start, end, Decimal(minutes) / 60, unit="hour"))
            self.take(start, end)

    def time(self, start: int, end: int, minutes: int) -> None:
        self.a.times.append(Mention(start, end, minutes % (24 * 60)))
        self.time_ends[end] = minutes % (24 * 60)
        self.take(start, end)

    def date(self, start: int, end: int, readings: Sequence[tuple[int | None, int, int]], relative: Relative | None = None) -> None:
        self.take(start, end)
        if readings:
            self.a.dates.append(Mention(start, end, tuple(readings), relative))

    def run(self) -> None:
        self.durations()
        self.clock_words()
        self.taken.end_pass()
        self.weekdays_zh()
        self.taken.end_pass()
        self.relative_days_zh()
        self.taken.end_pass()
        for match in _DIGIT_RUN.finditer(self.text):
            if match.end() - match.start() > _MAX_DIGITS:
                self.code(match.start(), match.end())  # a long digit string is an identifier, never a quantity
            elif not self.is_taken(match.start()):
                self.digits(match.start(), match.end())
        self.taken.end_pass()
        for match in _ZH_NUMERAL_RUN.finditer(self.text):
            start = match.start()
            while start < match.end() and self.is_taken(start):
                start += 1
            if start < match.end() and match.end() - start <= _MAX_NUMERALS:
                self.chinese(start, match.end())
        self.taken.end_pass()
        words = list(_WORD_RUN.finditer(self.text))
        for index, match in enumerate(words):
            if not self.is_taken(match.start()):
                self.word(words, index)
        self.a.numbers.sort(key=lambda m: m.start)
        self.a.times.sort(key=lambda m: m.start)
        self.a.dates.sort(key=lambda m: m.start)

    # -- Chinese weekdays and relative days

    def weekdays_zh(self) -> None:
        text = self.text
        for match in _ZH_WEEKDAY.finditer(text):
            i = match.start()
            if (text[i] == "期" and text[i - 1 : i] != "星") or (text[i] == "拜" and text[i - 1 : i] != "礼"):
                continue
            start = i if text[i] == "周" else i - 1
            day = ZH_WEEKDAY_CHARS[text[i + 1]]
            before = text[max(0, start - 2) : start]
            if before.endswith(("下个", "下")):
                week = 1
            elif before.endswith(("上个", "上")):
                week = -1
            elif before.endswith(("这个", "这", "本")):
                week = 0
            else:
                week = None  # the coming one
            self.date(start, i + 2, *self._relative(Relative(weekday=day, week=week)))

    def relative_days_zh(self) -> None:
        text = self.text
        found: list[tuple[int, int, int]] = []
        for word, offset in RELATIVE_DAYS_ZH:  # longest first: 大后天 before 后天
            start = text.find(word)
            while start != -1:
                found.append((start, start + len(word), offset))
                start = text.find(word, start + len(word))
        for start, end, offset in sorted(found):
            if not self.is_taken(start):
                self.date(start, end, *self._relative(Relative(days=offset)))

    def _relative(self, relative: Relative) -> tuple[list[tuple[int | None, int, int]], Relative]:
        """The reading of a date word from the clock (none without a clock), and the word's rule.
        A weekday is in the clock's week, a week on or back (Monday-based, as 下周五 counts), or
        — with no word before it — the next one."""
        clock = self.a.clock
        if clock is None:
            return [], relative
        day = relative.on(clock.date())
        return [(day.year, day.month, day.day)], relative

    # -- Arabic digits

    def digits(self, start: int, end: int) -> None:
        text = self.text
        before = self.char(start - 1)
        if _is_ascii_letter(before):
            letters = start - 1
            while letters > 0 and _is_ascii_letter(text[letters - 1]) and start - letters < 6:
                letters -= 1
            if text[letters:start] not in _UNIT_PREFIX_LETTERS or _is_ascii_letter(self.char(letters - 1)):
                self.code(start, end)  # FO1008, room b12
                return
        if before and before in _CODE_SEPARATORS and (_is_ascii_letter(self.char(start - 2)) or start - 1 in self.code_ends):
            self.code(start, end)  # BK-2001, BK-2001-05
            return
        after = self.char(end)
        if after == " ":
            after = self.char(end + 1)
        if after and after in _MAY_CONTINUE and (self.date_from_digits(start, end) or self.time_from_digits(start, end)):
            return
        self.quantity_from_digits(start, end)

    def code(self, start: int, end: int) -> None:
        """Digits that belong to an identifier, with the letters and digits right after them."""
        j = end
        while j < self.n and _is_ascii_alnum(self.text[j]) and j - end < 64:
            j += 1
        self.take(start, j)
        self.code_ends.add(j)
    def _int(self, i: int, most: int = 4) -> tuple[int, int] | None:
        """(value, end) of 1..most digits at i, not followed by another digit."""
        j = i
        while j < self.n and self.text[j].isascii() and self.text[j].isdigit():
            j += 1
        if j == i or j - i > most:
            return None
        return int(self.text[i:j]), j

    def _small(self, i: int) -> tuple[int, int] | None:
        """(value, end) of a small number at i in Arabic digits or Chinese numerals (月, 日, 点 parts)."""
        found = self._int(i, 2)
        if found is not None:
            return found
        j = i
        while j < self.n and j - i < 4 and (self.text[j] in ZH_DIGITS or self.text[j] in ("十", "拾")):
            j += 1
        if j == i:
            return None
        value = chinese_value(self.text[i:j])
        return None if value is None else (value, j)

    def date_from_digits(self, start: int, end: int) -> bool:
        text = self.text
        length = end - start
        sep = self.char(end)
        # 2025-05-09, 2025/5/9, 2025.05.09
        if length == 4 and sep in "-/.":
            month = self._int(end + 1, 2)
            if month is not None and self.char(month[1]) == sep:
                day = self._int(month[1] + 1, 2)
                if day is not None and not _is_ascii_alnum(self.char(day[1])):
                    self.date(start, day[1], _valid([(int(text[start:end]), month[0], day[0])]))
                    return True
        # 2025年5月9日, 2025年5月
        if length == 4 and self.char(self.skip_spaces(end)) == "年":
            written_year = int(text[start:end])
            after_year = self.skip_spaces(self.skip_spaces(end) + 1)
            zh_month_day = self._month_day_zh(after_year)
            if zh_month_day is not None:
                (zh_month, zh_day), stop = zh_month_day
                self.date(start, stop, _valid([(written_year, zh_month, zh_day)]) if zh_day else [])
                return True
        # 5月9日 (and 5月9日和10日: the second day takes the first one's month)
        if length <= 2 and self.char(self.skip_spaces(end)) == "月":
            zh_month_day = self._month_day_zh(start)
            if zh_month_day is not None:
                (zh_month, zh_day), stop = zh_month_day
                self.date(start, stop, _valid([(None, zh_month, zh_day)]) if zh_day else [])
                following = _ZH_NEXT_DAY.match(text, stop) if zh_day else None
                if following is not None:
                    self.date(following.start("day"), following.end(), _valid([(None, zh_month, int(following["day"]))]))
                return True
        # 5/9, 9/5/2025
        if length <= 2 and sep == "/" and not (self.char(start - 1).isdigit() or self.char(start - 1) == "/"):
            second = self._int(end + 1, 2)
            if second is not None:
                stop = second[1]
                year: int | None = None
                if self.char(stop) == "/":
                    third = self._int(stop + 1, 4)
                    if third is not None and third[1] - stop - 1 in (2, 4):
                        year = third[0] + (2000 if third[0] < 100 else 0)
                        stop = third[1]
                if not _is_ascii_alnum(self.char(stop)) and self.char(stop) != "/":
                    self.date(start, stop, self._numeric_readings(int(text[start:end]), second[0], year))
                    return True
        # 9 May (2025), 9th of May
        if length <= 2:
            j = end
            for suffix in ORDINAL_SUFFIXES:
                if text.startswith(suffix, j) and not _is_ascii_letter(self.char(j + len(suffix))):
                    j += len(suffix)
                    break
            j = self.skip_spaces(j, 2)
            if text.startswith("of ", j):
                j += 3
            month = self._month_word(j)
            if month is not None and j > end:
                value, stop = month
                year_found = self._year_after(stop)
                year_value = year_found[0] if year_found else None
                stop = year_found[1] if year_found else stop
                self.date(start, stop, _valid([(year_value, value, int(text[start:end]))]))
                return True
            # 18 and 19 July, 18–19 July: the first day takes the month written after the second
            pair = _EN_DAY_PAIR.match(text, end)
            if pair is not None:
                month = self._month_word(pair.end())
                if month is not None:
                    year_found = self._year_after(month[1])
                    self.date(start, end, _valid([(year_found[0] if year_found else None, month[0], int(text[start:end]))]))
                    return True
        return False

    def _month_day_zh(self, i: int) -> tuple[tuple[int, int], int] | None:
        """((month, day or 0), end) of 5月9日 / 五月九号 / 5月 at i."""
        month = self._small(i)
        if month is None:
            return None
        j = self.skip_spaces(month[1])
        if self.char(j) != "月":
            return None
        j = self.skip_spaces(j + 1)
        day = self._small(j)
        if day is not None:
            k = self.skip_spaces(day[1])
            if self.char(k) in ("日", "号"):
                return (month[0], day[0]), k + 1
        return (month[0], 0), j

    def _month_word(self, i: int) -> tuple[int, int] | None:
        j = i
        while j < self.n and _is_ascii_letter(self.text[j]) and j - i < 10:
            j += 1
        word = self.text[i:j]
        if word not in MONTHS or _is_ascii_letter(self.char(j)):
            return None
        if self.char(j) == ".":
            j += 1
        return MONTHS[word], j

    def _year_after(self, i: int) -> tuple[int, int] | None:
        j = i
        if self.char(j) == ",":
            j += 1
        j = self.skip_spaces(j, 2)
        found = self._int(j, 4)
        if found is None or found[1] - j != 4 or _is_ascii_alnum(self.char(found[1])):
            return None
        return found

    def _numeric_readings(self, first: int, second: int, year: int | None) -> list[tuple[int | None, int, int]]:
        """A date written 5/9: month/day or day/month; when both are real dates the clock
        decides (the reading nearer to it), and without a clock neither counts."""
        readings = _valid([(year, first, second), (year, second, first)])
        if len(readings) < 2 or readings[0] == readings[1]:
            return readings[:1]
        clock = self.a.clock
        if clock is None:
            return []
        today = clock.date()
        return [min(readings, key=lambda r: _distance(today, r))]

    def time_from_digits(self, start: int, end: int) -> bool:
        text = self.text
        if end - start > 2:
            return False
        hour = int(text[start:end])
        if hour > 24:
            return False
        sep = self.char(end)
        # 7:45, 07:45:00
        if sep == ":":
            minute = self._int(end + 1, 2)
            if minute is not None and minute[1] - end - 1 == 2 and minute[0] < 60:
                stop = minute[1]
                if self.char(stop) == ":" and self._int(stop + 1, 2) is not None:
                    stop = self._int(stop + 1, 2)[1]  # type: ignore[index]
                period, stop = self._period_after(stop)
                period = period or self._period_before(start) or self._range_end_period(stop, hour) or self._carried_period(start, hour)
                self.time(start, stop, _clock(hour, minute[0], period))
                return True
        # 7.45pm
        if sep == "." and hour <= 12:
            minute = self._int(end + 1, 2)
            if minute is not None and minute[1] - end - 1 == 2 and minute[0] < 60:
                period, stop = self._period_after(minute[1])
                if period is not None:
                    self.time(start, stop, _clock(hour, minute[0], period))
                    return True
        # 8pm, 8 p.m., 8 o'clock
        j = self.skip_spaces(end, 1)
        if text.startswith("o'clock", j):
            period, stop = self._period_after(j + len("o'clock"))
            self.time(start, stop, _clock(hour, 0, period or self._period_before(start) or self._carried_period(start, hour)))
            return True
        if hour <= 12:
            period, stop = self._period_after(end)
            if period is not None:
                self.time(start, stop, _clock(hour, 0, period))
                return True
        # 7点, 20点30, 8点半, 7时45分
        k = self.skip_spaces(end, 1)
        if self.char(k) in ("点", "时"):
            self.time(start, *self._zh_minutes(k + 1, hour, start))
            return True
        return False

    def _zh_minutes(self, i: int, hour: int, start: int) -> tuple[int, int]:
        """(end, minutes of the day) after 点/时: 30分, 半, 一刻, 三刻, 整 or nothing."""
        text = self.text
        period = self._period_before(start) or self._carried_period(start, hour)
        if text.startswith("半", i):
            return i + 1, _clock(hour, 30, period)
        if text.startswith(("一刻", "1刻"), i):
            return i + 2, _clock(hour, 15, period)
        if text.startswith(("三刻", "3刻"), i):
            return i + 2, _clock(hour, 45, period)
        if text.startswith("整", i):
            return i + 1, _clock(hour, 0, period)
        j = i + 1 if text.startswith("零", i) else i
        minute = self._small(j)
        if minute is not None and minute[0] < 60 and not (self.char(minute[1]) in ("分",) and self.char(minute[1] + 1) == "钟"):
            stop = minute[1] + 1 if self.char(minute[1]) == "分" else minute[1]
            return stop, _clock(hour, minute[0], period)
        return i, _clock(hour, 0, period)

    def _carried_period(self, start: int, hour: int) -> str | None:
        """The afternoon or evening of a range's start carried to its end: 晚上6点到10点半 and
        "6 pm to 10:30" end at 22:30, "from noon to 2:00" at 14:00. Only a later hour of the same
        half is carried ("晚上11点到1点" crosses midnight: its 1点 is read as written). A range
        that starts in the morning and ends at an earlier hour crosses noon: "from 11 am to 2:00"
        ends at 14:00 (not an end written with a leading zero, 24-hour style: "08:00 to 06:00")."""
        text = self.text
        j = start
        while j > 0 and text[j - 1] == " " and start - j < 2:
            j -= 1
        connector = _RANGE_CONNECTOR.search(text, max(0, j - 8), j)
        if connector is None or not 1 <= hour <= 11:
            return None
        previous = self.time_ends.get(connector.start())
        if previous is None or previous < 60:
            return None
        if previous < 12 * 60:
            return "pm" if hour < previous // 60 and text[start] != "0" else None
        return "pm" if hour > previous // 60 - 12 else None

    def _period_before(self, start: int) -> str | None:
        text = self.text
        j = start
        while j > 0 and text[j - 1] == " " and start - j < 2:
            j -= 1
        window = text[max(0, j - 4) : j]
        if window.endswith(ZH_NOT_PERIODS):
            return None  # 最晚06:59 is "06:59 at the latest", not the evening
        for word, period in ZH_PERIODS:
            if window.endswith(word):
                return period
        return None

    def _range_end_period(self, end: int, hour: int) -> str | None:
        """The half of the day written after the end of a range that starts here: "5:40-6:00 pm"
        is 17:40 to 18:00. Only when the start cannot be in the other half: "11:30-1:00 pm"
        starts before noon (12 counts as the first hour of its half)."""
        text = self.text
        j = self.skip_spaces(end, 1)
        if text.startswith(_RANGE_DASHES, j):
            j += 1
        elif text.startswith("to ", j):
            j += 3
        else:
            return None
        j = self.skip_spaces(j, 1)
        found = self._int(j, 2)
        if found is None or self.char(found[1]) != ":":
            return None
        end_hour, k = found
        minute = self._int(k + 1, 2)
        if minute is None or minute[1] - k - 1 != 2 or end_hour > 12:
            return None
        period, _ = self._period_after(minute[1])
        if period not in ("am", "pm") or hour > 12 or hour % 12 > end_hour % 12:
            return None
        return period

    def _period_after(self, end: int) -> tuple[str | None, int]:
        """The half of the day written after a time (am, p.m., in the evening …) and where it ends."""
        text = self.text
        j = self.skip_spaces(end, 2)
        if self.char(j) not in _PERIOD_INITIALS:
            return None, end
        for words, period in EN_PERIODS_AFTER:
            if text.startswith(words, j):
                stop = j + len(words)
                if words[-1].isalpha() and _is_ascii_letter(self.char(stop)):
                    continue
                return period, stop
        return None, end

    def quantity_from_digits(self, start: int, end: int) -> None:
        text = self.text
        stop = end
        # thousands separators: 30,000 and 1,234,567.89 (a group is exactly three digits)
        while self.char(stop) == "," and stop + 4 <= self.n and text[stop + 1 : stop + 4].isdigit() and text[stop + 1 : stop + 4].isascii():
            if self.char(stop + 4).isdigit():
                break
            stop += 4
        if self.char(stop) == "." and self.char(stop + 1).isascii() and self.char(stop + 1).isdigit():
            fraction = stop + 1
            while fraction < self.n and text[fraction].isascii() and text[fraction].isdigit():
                fraction += 1
            stop = fraction
        try:
            value = Decimal(text[start:stop].replace(",", ""))
        except InvalidOperation:  # pragma: no cover - the characters are digits, commas and one point
            return
        # a magnitude: 3万, 1.5 万, 30k, 1.2 million
        j = self.skip_spaces(stop, 1)
        if self.char(j) in ZH_MAGNITUDES and not (self.char(j) == "千" and self.char(j + 1) in "米克瓦"):  # 2千米 is 2 km
            value, stop = self._zh_tail(value, j)
        else:
            letters = stop
            while letters < self.n and _is_ascii_letter(text[letters]) and letters - stop < 12:
                letters += 1
            attached = text[stop:letters]
            spaced_end = j
            while spaced_end < self.n and _is_ascii_letter(text[spaced_end]) and spaced_end - j < 12:
                spaced_end += 1
            spaced = text[j:spaced_end] if j > stop else ""
            if attached in EN_MAGNITUDES:
                value, stop = value * EN_MAGNITUDES[attached], letters
            elif spaced in ("thousand", "million", "billion"):
                value, stop = value * EN_MAGNITUDES[spaced], spaced_end
            elif attached and attached not in ORDINAL_SUFFIXES and attached not in _UNIT_SUFFIX_LETTERS and attached not in _AM_PM:
                self.code(start, stop)  # 1008a, 3x2: an identifier, not a quantity
                return
        sign_start = start
        if self._negative(start):
            value = -value
            sign_start = start - 1 if self.char(start - 1) == "-" else start
        self.number(sign_start, stop, value)

    def _negative(self, start: int) -> bool:
        text = self.text
        if self.char(start - 1) == "-" and not _is_ascii_alnum(self.char(start - 2)):
            return True
        window = text[max(0, start - 7) : start].rstrip()
        return window.endswith(("零下", "负", "minus"))

    def _zh_tail(self, value: Decimal, i: int) -> tuple[Decimal, int]:
        """value followed by Chinese magnitudes and further parts: 3万5千, 2万5, 1.5亿."""
        text = self.text
        items: list[Decimal | int] = [value]
        j = i
        while j < self.n and j - i < 16:
            c = text[j]
            if c in ZH_MAGNITUDES:
                items.append(ZH_MAGNITUDES[c])
                j += 1
            elif c in ZH_DIGITS and isinstance(items[-1], int) and not isinstance(items[-1], bool) and items[-1] >= 10 and len(items) > 1:
                items.append(Decimal(ZH_DIGITS[c]))
                j += 1
            elif c.isascii() and c.isdigit() and len(items) > 1 and isinstance(items[-1], int):
                found = self._int(j, 4)
                if found is None:
                    break
                items.append(Decimal(found[0]))
                j = found[1]
            else:
                break
        return _compose(items), j

    # -- Chinese numerals

    def chinese(self, start: int, end: int) -> None:
        """A run of Chinese numerals: a date (五月九日), an hour (七点半, 晚上八点) or a quantity."""
        text = self.text
        if text[start] not in ZH_DIGITS and text[start] not in ("十", "拾"):
            return  # 万一, 千万: no number
        if self.char(self.skip_spaces(end)) == "月":
            month_day = self._month_day_zh(start)
            if month_day is not None:
                (month, day), stop = month_day
                self.date(start, stop, _valid([(None, month, day)]) if day else [])
                return
        value = chinese_value(text[start:end])
        if value is None:
            return
        after = self.skip_spaces(end, 1)
        if value <= 24 and self.char(after) in ("点", "时"):
            stop, minutes = self._zh_minutes(after + 1, value, start)
            self.time(start, stop, minutes)
            return
        number = Decimal(value)
        if self._negative(start):
            number = -number
        self.number(start, end, number)
    # -- English words

    def word(self, words: list[re.Match[str]], index: int) -> None:
        match = words[index]
        word = match.group()
        start, end = match.span()
        if _is_ascii_alnum(self.char(start - 1)) or self.char(end).isdigit():
            return  # inside an identifier
        if word in EN_NUMBER_WORDS:
            self.english_number(words, index)
        elif word in MONTHS:
            self.month_first(start, end, word)
        elif word in RELATIVE_DAYS_EN:
            offset = RELATIVE_DAYS_EN[word]
            begin = start
            if word == "tomorrow" and self.text[max(0, start - 14) : start] == "the day after ":
                offset, begin = 2, start - 14
            elif word == "tomorrow" and self.text[max(0, start - 10) : start] == "day after ":
                offset, begin = 2, start - 10
            self.date(begin, end, *self._relative(Relative(days=offset)))
        elif word in WEEKDAYS_EN:
            previous = words[index - 1].group() if index > 0 and words[index - 1].end() >= start - 2 else ""
            if previous in ("next", "last"):
                return  # "next Friday" means different days to different readers
            week = 0 if previous == "this" else None
            self.date(start, end, *self._relative(Relative(weekday=WEEKDAYS_EN[word], week=week)))

    def english_number(self, words: list[re.Match[str]], index: int) -> None:
        """Number words: twenty-five, one hundred and twenty, three thousand."""
        text = self.text
        parts: list[str] = []
        ends: list[int] = []
        k = index
        while k < len(words) and len(parts) < _MAX_NUMBER_WORDS:
            match = words[k]
            word = match.group()
            if parts:
                gap = text[ends[-1] : match.start()]
                if word == "and" and gap == " " and k + 1 < len(words) and words[k + 1].group() in EN_NUMBER_WORDS and text[match.end() : words[k + 1].start()] == " ":
                    k += 1
                    continue
                if gap not in (" ", "-", " and "):
                    break
            if word not in EN_NUMBER_WORDS:
                break
            parts.append(word)
            ends.append(match.end())
            k += 1
        value = english_value(parts)
        while value is None and len(parts) > 1:  # "one two": the first word alone
            parts.pop()
            ends.pop()
            value = english_value(parts)
        if value is None:
            return
        start = words[index].start()
        number = Decimal(value)
        if self._negative(start):
            number = -number
        self.number(start, ends[-1], number)
    def month_first(self, start: int, end: int, word: str) -> None:
        """May 9, May 9th, 2025; "may" alone is a verb."""
        j = end + 1 if self.char(end) == "." else end
        j = self.skip_spaces(j, 2)
        if j == end:
            return
        day = self._int(j, 2)
        if day is None:
            return
        stop = day[1]
        for suffix in ORDINAL_SUFFIXES:
            if self.text.startswith(suffix, stop):
                stop += len(suffix)
                break
        if _is_ascii_alnum(self.char(stop)):
            return
        year = self._year_after(stop)
        self.date(start, year[1] if year else stop, _valid([(year[0] if year else None, MONTHS[word], day[0])]))


# ============================================================================ helpers


class _Taken:
    """Non-overlapping intervals of text already read, for :meth:`covers` lookups.

    Each pass reads left to right, so its intervals mostly arrive in order and are appended;
    :meth:`end_pass` merges them into the sorted intervals of earlier passes in linear time.
    """

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.new_starts: list[int] = []
        self.new_ends: list[int] = []

    def add(self, start: int, end: int) -> None:
        if not self.new_starts or start >= self.new_starts[-1]:
            self.new_starts.append(start)
            self.new_ends.append(end)
        else:  # rare: an interval that begins before the last one (a sign, "the day after")
            k = bisect.bisect_left(self.new_starts, start)
            self.new_starts.insert(k, start)
            self.new_ends.insert(k, end)

    def covers(self, position: int) -> bool:
        for starts, ends in ((self.starts, self.ends), (self.new_starts, self.new_ends)):
            k = bisect.bisect_right(starts, position) - 1
            if k >= 0 and ends[k] > position:
                return True
        return False

    def end_pass(self) -> None:
        merged = sorted(zip(self.starts + self.new_starts, self.ends + self.new_ends, strict=False))  # Timsort: two sorted runs merge linearly
        self.starts = [start for start, _ in merged]
        self.ends = [end for _, end in merged]
        self.new_starts, self.new_ends = [], []


_RANGE_DASHES = ("-", "–", "—", "~", "～")


def _hour_value(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return EN_ONES.get(word)


def _clock(hour: int, minute: int, period: str | None) -> int:
    if period == "am" and hour == 12:
        hour = 0
    elif (period == "pm" and hour < 12) or (period == "noon" and hour < 11):
        hour += 12
    elif period == "night" and hour == 12:
        hour = 0
    return (hour % 24) * 60 + minute


def _valid(readings: Sequence[tuple[int | None, int, int]]) -> list[tuple[int | None, int, int]]:
    out = []
    for year, month, day in readings:
        try:
            _dt.date(year if year is not None else 2024, month, day)  # 2024: a leap year, so 29 Feb counts
        except ValueError:
            continue
        out.append((year, month, day))
    return out


def _distance(today: _dt.date, reading: tuple[int | None, int, int]) -> int:
    year, month, day = reading
    years = [year] if year is not None else [today.year - 1, today.year, today.year + 1]
    best = None
    for y in years:
        try:
            gap = abs((_dt.date(y, month, day) - today).days)
        except ValueError:
            continue
        best = gap if best is None else min(best, gap)
    return best if best is not None else 1 << 30


def _compose(items: Sequence[Decimal | int]) -> Decimal:
    """A number from digits and magnitudes: [3, 10000, 5, 1000] = 35000; [2, 10000, 5] = 25000."""
    total = Decimal(0)
    section = Decimal(0)
    digit: Decimal | None = None
    last_unit: int | None = None
    for item in items:
        if isinstance(item, Decimal):
            digit = item
        elif item >= 10_000:
            section += digit or 0
            if item == 100_000_000:
                total = (total + section) * item
            else:
                total += section * item
            section, digit, last_unit = Decimal(0), None, item
        else:
            section += (Decimal(1) if digit is None else digit) * item
            digit, last_unit = None, item
    if digit is not None:
        section += digit * (last_unit // 10) if last_unit is not None and last_unit >= 100 and digit < 10 else digit
    return total + section
