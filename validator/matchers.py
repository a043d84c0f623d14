"""Argument matchers: the small `$`-key language answers use for acceptable values.

One module owns their grammar (``problems``), their rendering into a concrete value
(``render``, used by the oracle and by dialogue history), the concrete values they stand for
(``concrete_values``, so checks can validate every one against the API schema), and matching
(``matches``), so the checker, the scorer and the executor cannot disagree.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from validator.corpus.langs import LANGS
from validator.diagnostics import join_pointer
from validator.linear_regex import RegexError, compile_regex
from validator.textnorm import contains_phrase, fold_free_text, folded_free_text, normalize_text, normalized_text

__all__ = [  # the text functions are re-exported: callers compare through this module
    "MATCHER_KEYS",
    "concrete_values",
    "contains_phrase",
    "fold_free_text",
    "is_free_text",
    "is_matcher",
    "is_omittable",
    "literal_equal",
    "matcher_kind",
    "matches",
    "normalize_text",
    "perfect_matching",
    "problems",
    "render",
]

MATCHER_KEYS = {
    "$any": set(),
    "$optional": set(),
    "$text": set(),
    "$contains": set(),
    "$approx": {"$tol"},
    "$range": set(),
    "$unordered": set(),
    "$regex": {"$example"},
    "$literal": set(),
    "$lang": set(),
}


def is_matcher(value: Any) -> bool:
    if not isinstance(value, dict) or not value:
        return False
    for key in value:  # noqa: SIM110 — a loop, not all(…): the scorer asks this of every expected value
        if not (isinstance(key, str) and key.startswith("$")):
            return False
    return True


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
    elif kind == "$range":
        if not (isinstance(body, list) and len(body) == 2 and all(_is_number(bound) for bound in body) and body[0] < body[1]):
            yield ("$range takes [low, high]: two numbers, low below high (both ends accepted)", inner)
    elif kind == "$unordered":
        if not isinstance(body, list):
            yield ("$unordered takes a list", inner)
        else:
            yield from problems(body, inner, allow_lang=allow_lang, top=False)
    elif kind == "$regex":
        example = value.get("$example")
        try:
            compiled = compile_regex(body) if isinstance(body, str) else None
        except RegexError as error:
            yield (f"$regex does not compile: {error}", inner)
            return
        if compiled is None:
            yield ("$regex takes a string", inner)
        elif isinstance(example, str) and not compiled.fullmatch(example):
            yield (f"$example {example!r} does not match its own $regex", pointer + join_pointer("$example"))
    elif kind == "$lang":
        if not allow_lang:
            yield ("$lang is only for scenarios; a case has separate en and zh sides", pointer)
        elif not isinstance(body, dict) or not body or not set(body) <= set(LANGS):
            yield ("$lang takes a value per language: {en: …, zh: …}", inner)
        else:
            for lang in body:
                yield from problems(body[lang], inner + join_pointer(lang), allow_lang=False, top=top)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


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
    if kind == "$range":
        return body[0]
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
    return isinstance(value, dict) and "$optional" in value and is_matcher(value) and matcher_kind(value) == "$optional"


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
    elif kind == "$range":
        yield from body  # both ends: each must be a valid value of the parameter
    elif kind == "$lang":
        for code in (lang,) if lang else tuple(body):
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


def is_free_text(schema: Any) -> bool:
    """Whether a parameter schema describes free text: a string without enum, const, format or pattern.

    Such values are compared after ``fold_free_text`` (letter case, typographic quotes and
    dashes, white space); identifiers, codes, dates and enumerations (which always carry one
    of those keywords) stay exact.
    """
    if not isinstance(schema, dict):
        return False
    declared = schema.get("type")
    if declared != "string" and not (isinstance(declared, list) and "string" in declared):
        return False
    return not ("enum" in schema or "const" in schema or "format" in schema or "pattern" in schema)


def _default_of(schema: Any) -> tuple[bool, Any]:
    if isinstance(schema, dict) and "default" in schema:
        return True, schema["default"]
    return False, None


def matches(expected: Any, actual: Any, lang: str | None = None, schema: Any = None) -> bool:
    """Whether a concrete actual value satisfies an expected value (literal or matcher).

    ``schema`` is the JSON Schema of the parameter (or item, or property) being compared, when
    known: a plain string of a free-text parameter is compared after ``fold_free_text``, an
    object key the answer does not mention is accepted at the default its property declares,
    and an omitted or explicit ``$optional`` value may equal the declared default. Without a
    schema every string is exact and no key has a default.

    Numbers: an int equals the float of the same value; booleans never equal numbers.
    """
    kind = type(expected)
    if kind is str:
        if type(actual) is not str:
            return False
        return expected == actual or (is_free_text(schema) and fold_free_text(actual) == folded_free_text(expected))
    if kind is dict:
        if expected and is_matcher(expected):
            return _match_matcher(expected, actual, lang, schema)
        return type(actual) is dict and _object_matches(expected, actual, lang, schema)
    if kind is list:
        if type(actual) is not list or len(actual) != len(expected):
            return False
        items = schema.get("items") if isinstance(schema, dict) else None
        return all(matches(e, a, lang, items) for e, a in zip(expected, actual, strict=True))
    if kind is int or kind is float:
        return (type(actual) is int or type(actual) is float) and expected == actual
    if kind is bool:
        return type(actual) is bool and expected == actual
    if expected is None:
        return actual is None
    return literal_equal(expected, actual)


def _object_matches(expected: dict[str, Any], actual: dict[str, Any], lang: str | None, schema: Any) -> bool:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        properties = {}
    for key, value in expected.items():
        if key not in actual:
            if not is_omittable(value):
                return False
        elif not matches(value, actual[key], lang, properties.get(key)):
            return False
    if not actual.keys() <= expected.keys():
        for key in actual.keys() - expected.keys():
            has_default, default = _default_of(properties.get(key))
            if not (has_default and literal_equal(default, actual[key])):
                return False
    return True


def _match_matcher(expected: dict[str, Any], actual: Any, lang: str | None, schema: Any) -> bool:
    if len(expected) == 1:  # the common matchers without secondary keys, read directly
        if "$text" in expected:
            text = expected["$text"]
            return type(actual) is str and (actual == text or normalize_text(actual) == normalized_text(text))
        if "$any" in expected:
            options = expected["$any"]
            if type(actual) is str and actual in options:  # a string equals only an equal string option, which matches it
                return True
            for option in options:  # noqa: SIM110 — a loop: any(…) over a generator costs more, on every $any of every call
                if matches(option, actual, lang, schema):
                    return True
            return False
        if "$optional" in expected:
            if matches(expected["$optional"], actual, lang, schema):
                return True
            has_default, default = _default_of(schema)  # an explicit default is as good as omitting
            return has_default and literal_equal(default, actual)
    kind = matcher_kind(expected)
    body: Any = expected.get(kind) if kind else None
    if kind == "$contains":
        if not isinstance(actual, str):
            return False
        text = normalize_text(actual)
        return all(
            any(contains_phrase(text, normalized_text(option)) for option in (phrase if isinstance(phrase, list) else [phrase]))
            for phrase in body
        )
    if kind == "$approx":
        return _is_number(actual) and abs(actual - body) <= expected["$tol"]
    if kind == "$range":
        return _is_number(actual) and body[0] <= actual <= body[1]
    if kind == "$unordered":
        items = schema.get("items") if isinstance(schema, dict) else None
        return isinstance(actual, list) and len(actual) == len(body) and perfect_matching(
            [[matches(e, a, lang, items) for a in actual] for e in body]
        )
    if kind == "$regex":
        return isinstance(actual, str) and compile_regex(body).fullmatch(actual)
    if kind == "$literal":
        return literal_equal(body, actual)
    if kind == "$lang":
        if lang is None:
            return any(matches(body[code], actual, code, schema) for code in body)
        return matches(body[lang], actual, lang, schema)
    return False


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
