"""Hypothesis strategies for API arguments: from the spec's JSON Schema and from corpus values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hypothesis import strategies as st

from validator import matchers
from validator.corpus.records import Spec
from validator.corpus.schemawalk import plain


def from_schema(schema: Any) -> st.SearchStrategy[Any]:
    """Values (mostly) valid for a plain JSON Schema, kept small."""
    if not isinstance(schema, dict):
        return st.none()
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}) for k in kind])
    if kind == "string":
        low, high = schema.get("minLength", 0), min(schema.get("maxLength", 12), 12 if "pattern" not in schema else 40)
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True).filter(lambda s: low <= len(s) <= schema.get("maxLength", 10**6))
        return st.text(st.characters(codec="utf-8", categories=("L", "N", "Zs")), min_size=low, max_size=max(low, high))
    if kind == "integer":
        low = schema.get("minimum", schema.get("exclusiveMinimum", -6) + (1 if "exclusiveMinimum" in schema else 0))
        high = schema.get("maximum", max(low, 0) + 50)
        return st.integers(int(low), int(high))
    if kind == "number":
        low = schema.get("minimum", schema.get("exclusiveMinimum", -100.0))
        high = schema.get("maximum", max(low, 0) + 5000)
        floats = st.floats(low, high, allow_nan=False, allow_infinity=False, exclude_min="exclusiveMinimum" in schema)
        return st.one_of(st.integers(int(low) + 1, int(high)), floats.map(lambda x: round(x, 2)))
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        items = from_schema(schema.get("items", {}))
        low = schema.get("minItems", 0)
        high = min(schema.get("maxItems", low + 3), low + 3)
        return st.lists(items, min_size=low, max_size=high, unique_by=_json_key if schema.get("uniqueItems") else None)
    if kind == "object" or "properties" in schema:
        return object_strategy(schema)
    return st.none()


def _json_key(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True)


def object_strategy(schema: Mapping[str, Any], known: Mapping[str, list[Any]] | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with every required property and some optional ones; known values mixed in."""
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    known = known or {}

    def value(name: str) -> st.SearchStrategy[Any]:
        generated = from_schema(properties[name])
        seen = known.get(name)
        return st.one_of(st.sampled_from(seen), generated) if seen else generated

    return st.fixed_dictionaries(
        {name: value(name) for name in properties if name in required},
        optional={name: value(name) for name in properties if name not in required},
    )


def arguments(spec: Spec, known: Mapping[str, list[Any]] | None = None) -> st.SearchStrategy[dict[str, Any]]:
    return object_strategy(plain(spec.parameters), known)


def corpus_values(calls: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, list[Any]]]:
    """API → parameter → the concrete values the corpus passes (both languages)."""
    found: dict[str, dict[str, list[Any]]] = {}
    for call in calls:
        api, args = call.get("api"), call.get("args")
        if not isinstance(api, str) or not isinstance(args, dict):
            continue
        for name, value in args.items():
            bucket = found.setdefault(api, {}).setdefault(name, [])
            for concrete in matchers.concrete_values(value):
                if concrete not in bucket:
                    bucket.append(concrete)
    return found
