"""Argument matchers: the small `$`-key language answers use for acceptable values.

One module owns their grammar (``problems``), their rendering into a concrete value
(``render``, used by the oracle and by dialogue history), the concrete values they stand for
(``concrete_values``, so checks can validate every one against the API schema), and matching
(``matches``), so the checker, the scorer and the executor cannot disagree.
"""

from __future__ import annotations

import math
import re
import string
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from validator.diagnostics import join_pointer

MATCHER_KEYS = {
    "$any": set(),
    "$optional": set(),
    "$text": set(),
    "$contains": set(),
    "$approx": {"$tol"},
    "$unordered": set(),
    "$regex": {"$example"},
    "$literal": set(),
    "$lang": set(),
}
LANGS = ("en", "zh")


def is_matcher(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and all(isinstance(k, str) and k.startswith("$") for k in value)


def matcher_kind(value: dict[str, Any]) -> str | None:
    primary = [k for k in value if k in MATCHER_KEYS]
    return primary[0] if len(primary) == 1 else None


# ----------------------------------------------------------------------------- grammar


def problems(value: Any, pointer: str = "", *, allow_lang: bool = False, top: bool = True) -> Iterator[tuple[str, str]]:
    """(message, pointer) for every malformed or misplaced matcher inside value."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield from problems(item, pointer + join_pointer(i), allow_lang=allow_lang, top=False)
        return
    if not isinstance(value, dict):
        return
    dollar = [k for k in value if isinstance(k, str) and k.startswith("$")]
    if not dollar:
        for key, item in value.items():
            yield from problems(item, pointer + join_pointer(key), allow_lang=allow_lang, top=False)
        return
    if len(dollar) != len(value):
        yield (
            "a mapping mixes $-keys with plain keys; a matcher holds only $-keys "
            "(wrap a literal object with {$literal: …})",
            pointer,
        )
        return
    kind = matcher_kind(value)
    if kind is None:
        unknown = sorted(set(dollar) - set(MATCHER_KEYS) - {"$tol", "$example"})
        if unknown:
            yield (f"unknown matcher {unknown[0]}; use one of {', '.join(sorted(MATCHER_KEYS))}", pointer)
        else:
            yield ("a matcher has exactly one of " + ", ".join(sorted(MATCHER_KEYS)), pointer)
        return
    extra = set(dollar) - {kind} - MATCHER_KEYS[kind]
    missing = MATCHER_KEYS[kind] - set(dollar)
    if extra:
        yield (f"{kind} does not take {sorted(extra)[0]}", pointer)
    if missing:
        yield (f"{kind} needs {sorted(missing)[0]}", pointer)
    body = value[kind]
    inner = pointer + join_pointer(kind)
    if kind == "$any":
        if not isinstance(body, list) or len(body) < 2:
            yield ("$any takes a list of at least two values", inner)
        else:
            yield from problems(body, inner, allow_lang=allow_lang, top=False)
    elif kind == "$optional":
        if not top:
            yield ("$optional only makes sense directly on an argument (it may be omitted)", pointer)
        yield from problems(body, inner, allow_lang=allow_lang, top=False)
    elif kind == "$text":
        if not isinstance(body, str) or not normalize_text(body):
            yield ("$text takes a non-empty string", inner)
    elif kind == "$contains":
        if not isinstance(body, list) or not body:
            yield ("$contains takes a non-empty list of phrases (each a string, or a list of alternative strings)", inner)
        else:
            for i, phrase in enumerate(body):
                options = phrase if isinstance(phrase, list) else [phrase]
                if not options or not all(isinstance(o, str) and normalize_text(o) for o in options):
                    yield ("each $contains phrase is a non-empty string or a list of them", inner + join_pointer(i))
    elif kind == "$approx":
        tol = value.get("$tol")
        if not _is_number(body):
            yield ("$approx takes a number", inner)
        if tol is not None and (not _is_number(tol) or tol <= 0):
            yield ("$tol takes a positive number", pointer + join_pointer("$tol"))
    elif kind == "$unordered":
        if not isinstance(body, list):
            yield ("$unordered takes a list", inner)
        else:
            yield from problems(body, inner, allow_lang=allow_lang, top=False)
    elif kind == "$regex":
        example = value.get("$example")
        try:
            compiled = _compile(body) if isinstance(body, str) else None
        except re.error as error:
            yield (f"$regex does not compile: {error}", inner)
            return
        if compiled is None:
            yield ("$regex takes a string", inner)
        elif isinstance(example, str) and not compiled.fullmatch(example):
            yield (f"$example {example!r} does not match its own $regex", pointer + join_pointer("$example"))
    elif kind == "$lang":
        if not allow_lang:
            yield ("$lang is only for scenarios; a case has separate en and zh sides", pointer)
        elif not isinstance(body, dict) or set(body) != set(LANGS):
            yield ("$lang takes exactly {en: …, zh: …}", inner)
        else:
            for lang in LANGS:
                yield from problems(body[lang], inner + join_pointer(lang), allow_lang=False, top=top)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# ----------------------------------------------------------------------------- rendering


def render(value: Any, lang: str | None = None) -> Any:
    """The concrete value an exact answer would give (first $any, $optional included, …)."""
    if isinstance(value, list):
        return [render(v, lang) for v in value]
    if not isinstance(value, dict):
        return value
    if not is_matcher(value):
        return {k: render(v, lang) for k, v in value.items()}
    kind = matcher_kind(value)
    body: Any = value.get(kind) if kind else None
    if kind == "$any":
        return render(body[0], lang)
    if kind in ("$optional", "$unordered"):
        return render(body, lang)
    if kind in ("$text", "$approx"):
        return body
    if kind == "$contains":
        return " ".join(phrase[0] if isinstance(phrase, list) else phrase for phrase in body)
    if kind == "$regex":
        return value["$example"]
    if kind == "$literal":
        return body
    if kind == "$lang":
        if lang is None:
            raise ValueError("a $lang value needs a language to render")
        return render(body[lang], lang)
    raise ValueError(f"not a valid matcher: {value!r}")


def is_omittable(value: Any) -> bool:
    return is_matcher(value) and matcher_kind(value) == "$optional"


def concrete_values(value: Any, lang: str | None = None, limit: int = 64) -> list[Any]:
    """Representative concrete values a matcher accepts: every $any branch, the $text string…

    Used to validate ground truth against the API schema: each one must be valid.
    """
    out: list[Any] = []
    for item in _concrete(value, lang):
        out.append(item)
        if len(out) >= limit:
            break
    return out


def _concrete(value: Any, lang: str | None) -> Iterator[Any]:
    if isinstance(value, list):
        yield from _product([list(_concrete(v, lang)) for v in value], list)
        return
    if not isinstance(value, dict):
        yield value
        return
    if not is_matcher(value):
        keys = list(value)
        for combo in _product([list(_concrete(value[k], lang)) for k in keys], list):
            yield dict(zip(keys, combo, strict=True))
        return
    kind = matcher_kind(value)
    body: Any = value.get(kind) if kind else None
    if kind == "$any":
        for option in body:
            yield from _concrete(option, lang)
    elif kind == "$optional" or kind == "$unordered":
        yield from _concrete(body, lang)
    elif kind == "$lang":
        for code in (lang,) if lang else LANGS:
            yield from _concrete(body[code], code)
    else:
        yield render(value, lang)


def _product(options: list[list[Any]], build: type) -> Iterator[Any]:
    """Each option list once, varying one position at a time (linear, not a full product)."""
    if any(not o for o in options):
        return
    base = [o[0] for o in options]
    yield build(base)
    for i, option in enumerate(options):
        for alternative in option[1:]:
            varied = list(base)
            varied[i] = alternative
            yield build(varied)


# ----------------------------------------------------------------------------- matching

_PUNCTUATION = {ord(c): " " for c in string.punctuation}


def normalize_text(text: str) -> str:
    """NFKC, case-folded, punctuation (ASCII and Unicode) turned to space, spaces collapsed."""
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_PUNCTUATION)
    kept = "".join(" " if unicodedata.category(c).startswith(("P", "S", "Z")) else c for c in folded)
    return " ".join(kept.split())


def matches(expected: Any, actual: Any, lang: str | None = None) -> bool:
    """Whether a concrete actual value satisfies an expected value (literal or matcher).

    Numbers: an int equals the float of the same value; booleans never equal numbers.
    """
    if isinstance(expected, dict) and is_matcher(expected):
        return _match_matcher(expected, actual, lang)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if _is_number(expected) and isinstance(actual, (int, float)):
        return bool(expected == actual)
    if isinstance(expected, str):
        return isinstance(actual, str) and expected == actual
    if expected is None:
        return actual is None
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            matches(e, a, lang) for e, a in zip(expected, actual, strict=True)
        )
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return False
        for key, value in expected.items():
            if key not in actual:
                if not is_omittable(value):
                    return False
            elif not matches(value, actual[key], lang):
                return False
        return set(actual) <= set(expected)
    return bool(expected == actual)


def _match_matcher(expected: dict[str, Any], actual: Any, lang: str | None) -> bool:
    kind = matcher_kind(expected)
    body: Any = expected.get(kind) if kind else None
    if kind == "$any":
        return any(matches(option, actual, lang) for option in body)
    if kind == "$optional":
        return matches(body, actual, lang)
    if kind == "$text":
        return isinstance(actual, str) and normalize_text(actual) == normalize_text(body)
    if kind == "$contains":
        if not isinstance(actual, str):
            return False
        text = normalize_text(actual)
        return all(
            any(contains_phrase(text, normalize_text(option)) for option in (phrase if isinstance(phrase, list) else [phrase]))
            for phrase in body
        )
    if kind == "$approx":
        return _is_number(actual) and abs(actual - body) <= expected["$tol"]
    if kind == "$unordered":
        return isinstance(actual, list) and len(actual) == len(body) and perfect_matching(
            [[matches(e, a, lang) for a in actual] for e in body]
        )
    if kind == "$regex":
        return isinstance(actual, str) and _compile(body).fullmatch(actual) is not None
    if kind == "$literal":
        return literal_equal(body, actual)
    if kind == "$lang":
        if lang is None:
            return any(matches(body[code], actual, code) for code in LANGS)
        return matches(body[lang], actual, lang)
    return False


def contains_phrase(text: str, phrase: str) -> bool:
    """Whether normalised text contains phrase, not as part of a longer Latin word or number.

    ``n 2`` is in "note n 2 saved" but not in "note n 20"; Chinese has no spaces, so only ASCII
    letters and digits bound a match.
    """
    if not phrase:
        return True
    start = text.find(phrase)
    while start != -1:
        end = start + len(phrase)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (_word(before) and _word(phrase[0])) and not (_word(after) and _word(phrase[-1])):
            return True
        start = text.find(phrase, start + 1)
    return False


def _word(char: str) -> bool:
    return char.isascii() and char.isalnum()


def literal_equal(a: Any, b: Any) -> bool:
    """JSON equality: booleans differ from numbers, 1 equals 1.0, no matcher interpretation."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(literal_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(literal_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def perfect_matching(compatible: list[list[bool]]) -> bool:
    """Whether rows can be paired one-to-one with columns using only compatible pairs.

    Augmenting paths (Kuhn's algorithm): an item is never claimed greedily by a row that
    another row needs more.
    """
    n_cols = len(compatible[0]) if compatible else 0
    owner: list[int | None] = [None] * n_cols

    def claim(row: int, seen: list[bool]) -> bool:
        for col in range(n_cols):
            if compatible[row][col] and not seen[col]:
                seen[col] = True
                if owner[col] is None or claim(owner[col], seen):  # type: ignore[arg-type]
                    owner[col] = row
                    return True
        return False

    return all(claim(row, [False] * n_cols) for row in range(len(compatible)))
