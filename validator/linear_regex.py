"""``$regex`` patterns matched in linear time, whatever a model's answer holds.

Python's ``re`` backtracks: ``(?is).*login.*on-?call.*`` takes quadratic time on a long answer
and a nested quantifier exponential time, so a prediction could stall the scorer. Patterns are
therefore run by Google's RE2 (``google-re2``), which never backtracks: time is linear in the
text for any pattern.

RE2 has no lookaround. The one use answers have for it — a list of conditions at the very
start of the pattern, ``(?is)(?=.*1203)(?=.*Lanting).*`` ("contains all of") or
``(?!2024-03-30$)[0-9]{4}-…`` ("anything but") — is kept: leading lookaheads are peeled off and
each is run as its own RE2 pattern anchored at the start of the text, which is exactly what a
lookahead at position 0 means. A lookaround anywhere else, a backreference or a verbose
pattern does not compile (``RegexError``, reported by the matcher grammar).

RE2's ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII; ``(?i)`` folds case over Unicode.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

_FLAGS_RE2 = frozenset("imsU")
_FLAGS_IGNORED = frozenset("au")  # Python's str default, and ASCII classes (RE2's already are)


class RegexError(ValueError):
    """The pattern cannot run in linear time; the message says why."""


class LinearPattern(NamedTuple):
    """A pattern as leading lookahead conditions plus a body, each an RE2 program."""

    source: str
    conditions: tuple[tuple[bool, Any], ...]  # (must match, RE2 program matched at the start)
    body: Any  # RE2 program fully matched

    def fullmatch(self, text: str) -> bool:
        for positive, program in self.conditions:
            if (program.match(text) is not None) is not positive:
                return False
        return self.body.fullmatch(text) is not None


@lru_cache(maxsize=4096)
def compile_regex(pattern: str) -> LinearPattern:
    """The linear-time program for pattern; raises RegexError."""
    import re2  # type: ignore[import-untyped]  # no stubs; imported on first use: most commands never match a $regex

    flags, rest = _leading_flags(pattern)
    conditions: list[tuple[bool, str]] = []
    while rest.startswith(("(?=", "(?!")):
        end = _group_end(rest)
        conditions.append((rest[2] == "=", rest[3:end]))
        rest = rest[end + 1 :]
    options = re2.Options()
    options.log_errors = False  # errors are reported as findings, not printed by the C++ library
    prefix = f"(?{flags})" if flags else ""
    try:
        programs = tuple((positive, re2.compile(f"{prefix}(?:{inner})", options)) for positive, inner in conditions)
        body = re2.compile(f"{prefix}(?:{rest})", options)
    except re2.error as error:
        message = error.args[0].decode("utf-8", "replace") if error.args and isinstance(error.args[0], bytes) else str(error)
        raise RegexError(f"{message} (patterns run on RE2: no backreferences, lookarounds only at the start)") from None
    return LinearPattern(pattern, programs, body)


def _leading_flags(pattern: str) -> tuple[str, str]:
    """Split ``(?is)rest`` into RE2 flags and the rest; other Python flags are errors."""
    if not pattern.startswith("(?") or len(pattern) < 3 or not pattern[2].isalpha():
        return "", pattern
    close = pattern.find(")")
    letters = pattern[2:close] if close != -1 else ""
    if not letters.isalpha():
        return "", pattern  # a group such as (?P<name>…), left to RE2
    unknown = sorted(set(letters) - _FLAGS_RE2 - _FLAGS_IGNORED)
    if unknown:
        raise RegexError(f"the inline flag {unknown[0]!r} is not supported (use i, m, s or U)")
    return "".join(c for c in letters if c in _FLAGS_RE2), pattern[close + 1 :]


def _group_end(text: str) -> int:
    """Index of the parenthesis closing the group that opens text, skipping escapes and classes."""
    depth = 0
    index = 0
    in_class = False
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            if text.startswith("^", index + 1):
                index += 1
            if text.startswith("]", index + 1):
                index += 1  # a ] right after [ or [^ is a literal
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    raise RegexError("a lookahead group is not closed")
