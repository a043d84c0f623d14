"""Special answers: how a model says "information is missing", "a value is wrong", "out of scope".

The convention (``docs/predictions.md``) is one marker line, anywhere in the output, in either
language; half- or full-width brackets and colons are both accepted:

    [MISSING] book_flight: from_city, date        【缺少参数】book_flight: from_city, date
    [INVALID] book_flight: date="2024-02-30"      【参数错误】book_flight: date="2024-02-30"
    [IRRELEVANT]                                  【无关】

Text before and after the marker line (a question to the user, an apology) is allowed and
ignored. This module owns both directions: ``find_special`` reads a marker, ``render_special``
writes one (the oracle and dialogue history use it), so the two cannot drift apart.
"""

from __future__ import annotations

import ast
import json
import re
import unicodedata
from typing import Any, NamedTuple

from validator.matchers import is_matcher, matches, normalize_text, render
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

_MARKER = re.compile(r"^[ \t]*[\[【［](?P<keyword>[^\]】］\n]{1,24})[\]】］][ \t]*(?P<rest>[^\n]*)$", re.M)
_DETAIL = re.compile(r"\A\s*(?P<api>[A-Za-z_][A-Za-z0-9_]*)\s*(?:[:：]\s*(?P<after>.*)|\((?P<inside>.*)\)\s*[.。]?)?\s*\Z", re.S)
_NAME_SPLIT = re.compile(r"[\s,，、;；]+")
_LOOSE_PARAM = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\"[^\"]*\"|'[^']*'|[^,，;；]+)")


class Special(NamedTuple):
    """A special answer as read from a model (or as expected, after ``expected_special``)."""

    kind: str  # incomplete | error_param | irrelevant
    api: str | None = None
    missing: tuple[str, ...] = ()  # incomplete: parameter names
    params: tuple[tuple[str, Any], ...] = ()  # error_param: (name, value) pairs as given


def _keyword(raw: str) -> str | None:
    key = unicodedata.normalize("NFKC", raw).casefold().strip()
    key = re.sub(r"[\s\-]+", "_", key)
    return KEYWORDS.get(key)


def find_special(text: str) -> Special | None:
    """The first marker line in text, read; None when there is none."""
    if "[" not in text and "【" not in text and "［" not in text:
        return None
    for match in _MARKER.finditer(text):
        kind = _keyword(match.group("keyword"))
        if kind is None:
            continue
        rest = unicodedata.normalize("NFKC", match.group("rest"))
        return _read_detail(kind, rest)
    return None


def _read_detail(kind: str, rest: str) -> Special:
    if kind == "irrelevant":
        return Special(kind)
    match = _DETAIL.match(rest)
    if match is None:
        return Special(kind)  # detected, detail unreadable: detection counts, correction fails
    api = match.group("api")
    detail = match.group("after") if match.group("after") is not None else (match.group("inside") or "")
    detail = detail.strip()
    if kind == "incomplete":
        names = tuple(name for name in _NAME_SPLIT.split(detail.strip(" .。()（）")) if name)
        return Special(kind, api, missing=names)
    return Special(kind, api, params=_read_params(detail))


def _read_params(detail: str) -> tuple[tuple[str, Any], ...]:
    """``name=value, …`` with Python/JSON literal values; unquoted values are kept as text."""
    try:
        node = ast.parse(f"f({detail})", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        node = None
    if isinstance(node, ast.Call) and not node.args and all(k.arg for k in node.keywords):
        try:
            return tuple((k.arg, literal(k.value, 1)) for k in node.keywords)  # type: ignore[misc]
        except FormatError:
            pass  # not literals: fall back to plain text
    return tuple((name, value.strip().strip("\"'")) for name, value in _LOOSE_PARAM.findall(detail))


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
    parameter names, and each bad value repeated (compared as text after normalisation, so
    quoting does not matter); irrelevant: nothing further.
    """
    if expected.kind == "irrelevant":
        return None
    if actual.api != expected.api:
        return f"names API {actual.api!r}, expected {expected.api!r}"
    if expected.kind == "incomplete":
        if set(actual.missing) != set(expected.missing):
            return f"names missing {sorted(set(actual.missing))}, expected {sorted(set(expected.missing))}"
        return None
    given = dict(actual.params)
    if set(given) != {name for name, _ in expected.params}:
        return f"names parameters {sorted(given)}, expected {sorted(name for name, _ in expected.params)}"
    for name, bad in expected.params:
        if not same_value(bad, given[name], lang):
            return f"gives {name}={given[name]!r}, expected the bad value {bad!r}"
    return None


def same_value(expected: Any, actual: Any, lang: str | None = None) -> bool:
    if is_matcher(expected):
        if matches(expected, actual, lang):
            return True
        expected = render(expected, lang)
    return normalize_text(_as_text(expected)) == normalize_text(_as_text(actual))


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float, str)):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


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
    params = ", ".join(f"{name}={_python_literal(render(value, lang))}" for name, value in (answer.get("params") or {}).items())
    return f"{marker} {api}: {params}"


def _python_literal(value: Any) -> str:
    return repr(value)
