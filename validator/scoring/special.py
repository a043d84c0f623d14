"""Special answers: how a model says "information is missing", "a value is wrong", "out of scope".

The convention (``docs/predictions.md``) is one marker line, anywhere in the output, in either
language; half- or full-width brackets and colons are both accepted:

    [MISSING] book_flight: from_city, date        【缺少参数】book_flight: from_city, date
    [INVALID] book_flight: date="2024-02-30"      【参数错误】book_flight: date="2024-02-30"
    [IRRELEVANT]                                  【无关】

Text before and after the marker line (a question to the user, an apology) is allowed and
ignored; ``find_markers`` returns every marker line so the parser can tell a hedged answer
(two different markers, or a marker and a call) from a committed one. This module owns both
directions: ``find_special`` reads a marker, ``render_special`` writes one (the oracle and
dialogue history use it), so the two cannot drift apart.

Reading is hand-written and linear in the length of the text: the only regular expression
matches one character class, and a value is scanned once.

A marker's detail is compared by type (``same_value``): a bad value is read as a literal —
Python or JSON syntax, or plain text that reads as a number (``25,000`` = 25000, ``-30`` is
not 30), a boolean or ``null`` — and compared like an argument; text is compared as free text
(``validator.textnorm.fold_free_text``). API and parameter names are compared exactly.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from typing import Any, NamedTuple

from validator.matchers import fold_free_text, is_matcher, matches, render
from validator.scoring.literals import FormatError, literal

KINDS = ("incomplete", "error_param", "irrelevant")

# marker keyword (NFKC, case-folded, spaces and hyphens as "_") → kind
KEYWORDS: dict[str, str] = {
    "missing": "incomplete",
    "incomplete": "incomplete",
    "缺少参数": "incomplete",
    "缺参数": "incomplete",
    "invalid": "error_param",
    "error_param": "error_param",
    "参数错误": "error_param",
    "参数有误": "error_param",
    "irrelevant": "irrelevant",
    "无关": "irrelevant",
    "无法处理": "irrelevant",
}
# the keyword each language's oracle writes
CANONICAL = {
    "en": {"incomplete": "[MISSING]", "error_param": "[INVALID]", "irrelevant": "[IRRELEVANT]"},
    "zh": {"incomplete": "【缺少参数】", "error_param": "【参数错误】", "irrelevant": "【无关】"},
}

MAX_KEYWORD_CHARS = 24
MAX_PARAMS = 64  # parameters read from one [INVALID] detail; more can never be a right answer
_OPEN = "[【［"
_CLOSE = "]】］"
_NAME_SPLIT = re.compile(r"[\s,，、;；]+")
_SEPARATORS = ",，;；"
_EQUALS = "=＝"
_QUOTES = {"'": "'", '"': '"', "“": "”", "‘": "’", "「": "」", "『": "』"}
_TRUE = frozenset({"true", "yes"})
_FALSE = frozenset({"false", "no"})
_NULL = frozenset({"null", "none"})


class Special(NamedTuple):
    """A special answer as read from a model (or as expected, after ``expected_special``)."""

    kind: str  # incomplete | error_param | irrelevant
    api: str | None = None
    missing: tuple[str, ...] = ()  # incomplete: parameter names
    params: tuple[tuple[str, Any], ...] = ()  # error_param: (name, value) pairs as given


class Marker(NamedTuple):
    """One marker line: what it says, and where the line starts and ends in the text."""

    special: Special
    start: int
    end: int  # index of the line's newline, or the text's length


def _keyword(raw: str) -> str | None:
    key = (raw.lower() if raw.isascii() else unicodedata.normalize("NFKC", raw).casefold()).strip()
    key = "_".join(key.replace("-", " ").split())
    return KEYWORDS.get(key)


def find_markers(text: str) -> list[Marker]:
    """The marker lines of text, in order (a bracketed word that is no keyword is not one).

    Reading stops at the first marker that says something else than the first one (the answer
    is hedged then, whatever follows); a marker line repeated word for word is read once.
    """
    if "[" not in text and "【" not in text and "［" not in text:
        return []
    found: list[Marker] = []
    read: dict[tuple[str, str], Special] = {}
    length = len(text)
    line_start = 0
    while line_start < length:
        line_end = text.find("\n", line_start)
        if line_end == -1:
            line_end = length
        opening = line_start
        while opening < line_end and text[opening] in " \t":  # one run of spaces per line
            opening += 1
        start, line_start = line_start, line_end + 1
        if opening == line_end or text[opening] not in _OPEN:
            continue
        closing = _closing_bracket(text, opening + 1, line_end)
        if closing is None:
            continue
        kind = _keyword(text[opening + 1 : closing])
        if kind is None:
            continue
        rest = text[closing + 1 : line_end]
        special = read.get((kind, rest))
        if special is None:
            special = read[(kind, rest)] = _read_detail(kind, rest)
        found.append(Marker(special, start, line_end))
        if special != found[0].special:
            break
    return found


def find_special(text: str) -> Special | None:
    """The first marker line in text, read; None when there is none."""
    markers = find_markers(text)
    return markers[0].special if markers else None


def _closing_bracket(text: str, start: int, line_end: int) -> int | None:
    """The closing bracket of a keyword of 1–24 characters starting at start, if any."""
    stop = min(line_end, start + MAX_KEYWORD_CHARS + 1)
    closing = text.find("]", start, stop)
    if not text.isascii():  # the full-width brackets too
        for char in _CLOSE[1:]:
            index = text.find(char, start, stop)
            if index != -1 and (closing == -1 or index < closing):
                closing = index
    return None if closing in (-1, start) else closing


def _identifier_length(text: str, start: int = 0) -> int:
    """Length of the ASCII identifier ``[A-Za-z_][A-Za-z0-9_]*`` at start (0 when there is none)."""
    end = len(text)
    index = start
    if index < end and (text[index] == "_" or (text[index].isascii() and text[index].isalpha())):
        index += 1
        while index < end and (text[index] == "_" or (text[index].isascii() and text[index].isalnum())):
            index += 1
    return index - start


def _read_detail(kind: str, rest: str) -> Special:
    """``api: detail`` or ``api(detail)`` after a marker; an unreadable detail names no API."""
    if kind == "irrelevant":
        return Special(kind)
    rest = rest.strip()
    length = _identifier_length(rest)
    if length == 0:
        return Special(kind)  # detected, detail unreadable: detection counts, correction fails
    api = rest[:length]
    after = rest[length:].lstrip()
    if kind == "error_param" and after and after[0] in _EQUALS:
        # no API named, only the bad values: `[INVALID] date="2024-02-30"` (what an answer that
        # names no API renders as; the API is not judged then)
        return Special(kind, None, params=read_params(rest.rstrip(" .。")))
    if not after:
        detail = ""
    elif after[0] in ":：":
        detail = after[1:].strip()
    elif after[0] in "(（":
        inside = after[1:].rstrip().rstrip(".。").rstrip()
        if not inside.endswith((")", "）")):
            return Special(kind)
        detail = inside[:-1].strip()
    else:
        return Special(kind)
    if kind == "incomplete":
        names = tuple(name for name in _NAME_SPLIT.split(detail.strip(" .。()（）")) if name)
        return Special(kind, api, missing=names)
    return Special(kind, api, params=read_params(detail.rstrip(" .。")))


# ----------------------------------------------------------------------------- values


def read_params(detail: str) -> tuple[tuple[str, Any], ...]:
    """``name=value, …``: each value a Python/JSON literal, or plain text read by ``read_value``.

    An unquoted value runs to the separator (``,`` ``;`` or their full-width forms) that is
    followed by the next ``name=``, so ``amount=25,000, currency=CNY`` reads 25,000 whole.
    Reading stops at the first part that is not ``name=value``, or after one parameter more
    than ``MAX_PARAMS`` (so the names cannot match).
    """
    pairs: list[tuple[str, Any]] = []
    end = len(detail)
    index = 0
    unclosed: set[str] = set()  # openings whose closing search already ran to the end
    while len(pairs) <= MAX_PARAMS:
        while index < end and (detail[index].isspace() or detail[index] in _SEPARATORS):
            index += 1
        if index >= end:
            break
        length = _identifier_length(detail, index)
        if length == 0:
            break
        name = detail[index : index + length]
        equals = _skip_spaces(detail, index + length)
        if equals >= end or detail[equals] not in _EQUALS:
            break
        start = _skip_spaces(detail, equals + 1)
        stop = _value_end(detail, start, unclosed)
        pairs.append((name, read_value(detail[start:stop])))
        index = stop
    return tuple(pairs)


def _skip_spaces(text: str, index: int) -> int:
    while index < len(text) and text[index].isspace():
        index += 1
    return index


def _value_end(text: str, start: int, unclosed: set[str]) -> int:
    """Where the value starting at start ends: its closing quote or bracket, or the next ``name=``.

    A search for a closing quote or bracket that ran to the end of the text is not repeated for
    later values opening the same way (they are read as plain text), so a detail full of
    unclosed openings still costs linear time.
    """
    if start < len(text) and text[start] not in unclosed:
        opening = text[start]
        closing = None
        if opening in _QUOTES:
            closing = _closing_quote(text, start)
        elif opening in "[{":
            closing = _closing_bracket_of_literal(text, start)
        if closing is not None:
            return closing + 1
        if opening in _QUOTES or opening in "[{":
            unclosed.add(opening)
    index = start
    while index < len(text):
        if text[index] in _SEPARATORS and _starts_param(text, index + 1):
            return index
        index += 1
    return len(text)


def _starts_param(text: str, index: int) -> bool:
    """Whether ``name=`` (spaces allowed) starts at index."""
    index = _skip_spaces(text, index)
    length = _identifier_length(text, index)
    if length == 0:
        return False
    index = _skip_spaces(text, index + length)
    return index < len(text) and text[index] in _EQUALS


def _closing_quote(text: str, start: int) -> int | None:
    opening = text[start]
    closing = _QUOTES[opening]
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\" and opening in "'\"":
            index += 2
            continue
        if char == closing:
            return index
        index += 1
    return None


def _closing_bracket_of_literal(text: str, start: int) -> int | None:
    """The bracket closing the list or object at start, skipping quoted strings."""
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char in "'\"":
            closing = _closing_quote(text, index)
            if closing is None:
                return None
            index = closing + 1
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return None


def read_value(raw: str) -> Any:
    """One written value: a quoted string, a list or object literal, or plain text.

    Plain text that reads as a number becomes that number (``read_number``); ``true``/``false``
    and ``null``/``None`` become their values; anything else stays text.
    """
    raw = raw.strip()
    if not raw:
        return ""
    if raw[0] in _QUOTES and raw[-1] == _QUOTES[raw[0]] and len(raw) >= 2:
        if raw[0] in "'\"":
            parsed = _python_literal(raw)
            if isinstance(parsed, str):
                return parsed
        return raw[1:-1]
    if raw[0] in "[{" and raw[-1] == ("]" if raw[0] == "[" else "}"):
        parsed = _python_literal(raw)
        if parsed is not _UNREADABLE:
            return parsed
    text = fold_free_text(raw)
    number = read_number(text)
    if number is not None:
        return number
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    if text in _NULL:
        return None
    return raw


_UNREADABLE = object()


def _python_literal(raw: str) -> Any:
    try:
        node = ast.parse(raw, mode="eval").body
        return literal(node, 1)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError, FormatError):
        return _UNREADABLE


def read_number(text: str) -> int | float | None:
    """The number a folded text writes: an optional sign, digits with optional thousands
    separators (``25,000``), an optional decimal part; None when it is not exactly that."""
    if not text or not text.isascii():
        return None
    sign = -1 if text[0] == "-" else 1
    body = text[1:] if text[0] in "+-" else text
    whole, dot, fraction = body.partition(".")
    if dot and not (fraction.isdigit() and whole):
        return None
    groups = whole.split(",")
    if not all(group.isdigit() for group in groups):
        return None
    if len(groups) > 1 and not (len(groups[0]) <= 3 and all(len(group) == 3 for group in groups[1:])):
        return None
    digits = "".join(groups)
    if dot:
        return sign * float(f"{digits}.{fraction}")
    return sign * int(digits)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def same_value(expected: Any, actual: Any, lang: str | None = None) -> bool:
    """Whether a special answer's value is the expected bad value, compared by type.

    Numbers by value with their sign (a text that reads as the number counts: ``"25,000"``);
    text as free text; booleans and ``null`` by value (or their written names); lists and
    objects item by item. A matcher in the answer is honoured as for an argument.
    """
    if is_matcher(expected):
        return matches(expected, actual, lang, {"type": "string"}) or (
            isinstance(actual, str) and same_value(render(expected, lang), actual, lang)
        )
    if isinstance(expected, bool):
        if isinstance(actual, str):
            written = fold_free_text(actual)
            return written in (_TRUE if expected else _FALSE)
        return isinstance(actual, bool) and actual == expected
    if _is_number(expected):
        if isinstance(actual, str):
            actual = read_number(fold_free_text(actual))
        return _is_number(actual) and actual == expected
    if isinstance(expected, str):
        if isinstance(actual, str):
            return fold_free_text(actual) == fold_free_text(expected)
        if _is_number(actual):
            return bool(read_number(fold_free_text(expected)) == actual)
        if isinstance(actual, bool):
            return fold_free_text(expected) in (_TRUE if actual else _FALSE)
        return False
    if expected is None:
        return actual is None or (isinstance(actual, str) and fold_free_text(actual) in _NULL)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            same_value(e, a, lang) for e, a in zip(expected, actual, strict=True)
        )
    if isinstance(expected, dict):
        return isinstance(actual, dict) and actual.keys() == expected.keys() and all(
            same_value(value, actual[key], lang) for key, value in expected.items()
        )
    return False


# ----------------------------------------------------------------------------- comparing


def expected_special(answer: dict[str, Any]) -> Special:
    """A case's special answer (``{special, api, missing | params}``) as a Special."""
    return Special(
        answer["special"],
        answer.get("api"),
        missing=tuple(answer.get("missing") or ()),
        params=tuple((answer.get("params") or {}).items()),
    )


def correction_problem(expected: Special, actual: Special, lang: str | None = None) -> str | None:
    """Why a detected special answer has the wrong detail (None when the detail is right).

    incomplete: same API, same set of missing parameter names; error_param: same API, same
    parameter names, and each bad value repeated (``same_value``); irrelevant: nothing further.
    Names are compared exactly.
    """
    if expected.kind == "irrelevant":
        return None
    # an error_param answer that names no API (an imported peer's) judges the values alone
    if actual.api != expected.api and not (expected.kind == "error_param" and expected.api is None):
        return f"names API {actual.api!r}, expected {expected.api!r}"
    if expected.kind == "incomplete":
        if set(actual.missing) != set(expected.missing):
            return f"names missing {sorted(set(actual.missing))}, expected {sorted(set(expected.missing))}"
        return None
    given = dict(actual.params)
    if set(given) != {name for name, _ in expected.params} or len(given) != len(actual.params):
        return f"names parameters {sorted(given)}, expected {sorted(name for name, _ in expected.params)}"
    for name, bad in expected.params:
        if not same_value(bad, given[name], lang):
            return f"gives {name}={_short(given[name])}, expected the bad value {_short(bad)}"
    return None


def describe(special: Special) -> str:
    """A short name of a special answer for messages: ``incomplete (book_flight)``."""
    return f"{special.kind} ({special.api})" if special.api else special.kind


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ----------------------------------------------------------------------------- rendering


def render_special(answer: dict[str, Any], lang: str) -> str:
    """The marker line a perfect model writes for a special answer, in lang's keyword."""
    kind = answer["special"]
    marker = CANONICAL.get(lang, CANONICAL["en"])[kind]
    if kind == "irrelevant":
        return marker
    api = answer.get("api", "")
    if kind == "incomplete":
        return f"{marker} {api}: {', '.join(answer.get('missing') or [])}"
    params = ", ".join(f"{name}={render(value, lang)!r}" for name, value in (answer.get("params") or {}).items())
    return f"{marker} {api}: {params}" if api else f"{marker} {params}"
