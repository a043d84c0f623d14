"""The one walker over parameter schemas: every (sub)schema of a JSON Schema, and every
property of an API's parameters with its JSON pointer.

Three uses share :func:`map_schemas`: :func:`localize` (bilingual descriptions become one
language's text: the function schema a model is shown), :func:`plain` (bilingual descriptions
removed: plain JSON Schema a validator compiles) and the local-time formats of
``validator.corpus.params``. Keywords whose values are data (``enum``, ``const``, ``default``,
``examples``, ``required`` …) are copied, never walked, so a property or enum value named
``description`` is left alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from validator.corpus.langs import LANGS
from validator.diagnostics import join_pointer

# keywords whose value holds subschemas: a mapping of them, a list of them, or one
SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
SCHEMA_ONE = frozenset(
    {"items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"}
)

Node = Callable[[Mapping[str, Any]], Mapping[str, Any]]


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data (mappings and lists copied, scalars shared)."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


def map_schemas(schema: Any, node: Node) -> Any:
    """A copy of schema in which node() has rewritten every (sub)schema mapping, outermost first.

    node receives one schema mapping and returns its new keywords (it may add, drop or change
    any); the walk then descends into the subschemas of what node returned.
    """
    if not isinstance(schema, dict):
        return copy_json(schema)
    out: dict[str, Any] = {}
    for key, value in node(schema).items():
        if key in SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: map_schemas(sub, node) for name, sub in value.items()}
        elif key in SCHEMA_LISTS and isinstance(value, list):
            out[key] = [map_schemas(sub, node) for sub in value]
        elif key in SCHEMA_ONE:
            out[key] = map_schemas(value, node)
        else:
            out[key] = copy_json(value)
    return out


def is_bilingual(value: Any) -> bool:
    """A text per language: ``{en, zh}``, or the languages of a one-language repository (``{en}``)."""
    return isinstance(value, dict) and bool(value) and set(value) <= set(LANGS) and all(isinstance(text, str) for text in value.values())


def localize(schema: Any, lang: str) -> Any:
    """A fresh copy of schema with every per-language ``description`` replaced by the text of lang."""

    def node(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
        description: Any = mapping.get("description")
        if is_bilingual(description) and lang in description:
            return {**mapping, "description": description[lang]}
        return mapping

    return map_schemas(schema, node)


def plain(schema: Any) -> Any:
    """A fresh copy of schema without bilingual (non-string) ``description`` annotations."""

    def node(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
        if "description" in mapping and not isinstance(mapping["description"], str):
            return {key: value for key, value in mapping.items() if key != "description"}
        return mapping

    return map_schemas(schema, node)


def iter_property_schemas(parameters: Any, pointer: str = "/parameters") -> Iterator[tuple[str, dict[str, Any], str]]:
    """(name, schema, pointer) of every property at every depth, array items included (named
    ``items``). Tolerates any shape: a rule may walk a spec that breaks its schema."""
    if not isinstance(parameters, dict):
        return
    properties = parameters.get("properties")
    if isinstance(properties, dict):
        for name, schema in properties.items():
            here = pointer + join_pointer("properties", name)
            if isinstance(schema, dict):
                yield name, schema, here
                yield from _nested(schema, here)


def _nested(schema: dict[str, Any], pointer: str) -> Iterator[tuple[str, dict[str, Any], str]]:
    yield from iter_property_schemas(schema, pointer)
    items = schema.get("items")
    if isinstance(items, dict):
        yield "items", items, pointer + "/items"
        yield from _nested(items, pointer + "/items")
