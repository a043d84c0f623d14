"""Answers as a reader wants to see them: calls as ``api(k=v)``, matchers in words.

``{$any: [a, b]}`` reads ``any of a | b``, ``{$optional: v}`` ``v (optional)``, ``{$text: s}``
``≈"s"`` (compared after normalising case, width, quotes and spaces), ``{$approx: x, $tol: t}``
``x ± t``, ``{$unordered: [...]}`` ``[...] in any order``, ``{$regex: r}`` ``/r/``,
``{$contains: s}`` ``contains "s"``, ``{$lang: {en, zh}}`` the run language's value, and
``{$literal: v}`` plain ``v``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from validator.matchers import is_matcher, matcher_kind


def value_text(value: Any, lang: str | None = None) -> str:
    """A literal or matcher, readably."""
    if is_matcher(value):
        return _matcher_text(value, lang)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key}: {value_text(item, lang)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(value_text(item, lang) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _matcher_text(value: Mapping[str, Any], lang: str | None) -> str:
    kind = matcher_kind(dict(value))
    inner = value.get(kind) if kind else None
    if kind == "$any" and isinstance(inner, list):
        return "any of " + " | ".join(value_text(item, lang) for item in inner)
    if kind == "$optional":
        return f"{value_text(inner, lang)} (optional)"
    if kind == "$text":
        return f"≈{json.dumps(inner, ensure_ascii=False)}"
    if kind == "$contains":
        return f"contains {json.dumps(inner, ensure_ascii=False)}"
    if kind == "$approx":
        return f"{value_text(inner, lang)} ± {value_text(value.get('$tol'), lang)}"
    if kind == "$unordered" and isinstance(inner, list):
        return "[" + ", ".join(value_text(item, lang) for item in inner) + "] in any order"
    if kind == "$regex":
        return f"/{inner}/"
    if kind == "$literal":
        return json.dumps(inner, ensure_ascii=False)
    if kind == "$lang" and isinstance(inner, Mapping):
        if lang is not None and lang in inner:
            return value_text(inner[lang], lang)
        return " / ".join(f"{key}: {value_text(item, lang)}" for key, item in inner.items())
    return json.dumps(value, ensure_ascii=False)


def call_text(api: str, args: Mapping[str, Any], lang: str | None = None) -> str:
    """``api(k=v, …)`` with matchers in words."""
    return f"{api}(" + ", ".join(f"{key}={value_text(item, lang)}" for key, item in args.items()) + ")"


def calls_text(calls: Sequence[Any], lang: str | None = None) -> str:
    """One call a line; calls are records with ``api``/``args`` or mappings with those keys."""
    lines = []
    for call in calls:
        api = call["api"] if isinstance(call, Mapping) else call.api
        args = call.get("args") or {} if isinstance(call, Mapping) else call.args
        lines.append(call_text(str(api), args if isinstance(args, Mapping) else {}, lang))
    return "\n".join(lines) if lines else "(no call)"
