"""An API spec rendered for one language: the standard function schema a model is shown.

One place for it, because the model under test (`run`), the judges (`review`) and the published
dataset (`build`) must all show the same schema for the same spec and language.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

LANGS = ("en", "zh")


def is_bilingual(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == set(LANGS) and all(isinstance(value[k], str) for k in LANGS)


def localize(schema: Any, lang: str) -> Any:
    """A (property) schema with every bilingual ``description`` replaced by the text of lang; a fresh copy."""
    if not isinstance(schema, dict):
        return copy.deepcopy(schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "description" and is_bilingual(value):
            out[key] = value[lang]
        elif key == "items":
            out[key] = localize(value, lang)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: localize(sub, lang) for name, sub in value.items()}
        else:
            out[key] = copy.deepcopy(value)
    return out


def function_schema(spec: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """``{name, description, parameters}`` of one spec in lang."""
    description: Any = spec.get("description")
    if is_bilingual(description):
        description = description[lang]
    return {
        "name": spec["name"],
        "description": description,
        "parameters": localize(spec.get("parameters") or {"type": "object", "properties": {}}, lang),
    }


def tool_entry(spec: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """One spec as an OpenAI ``tools`` entry in lang."""
    return {"type": "function", "function": function_schema(spec, lang)}
