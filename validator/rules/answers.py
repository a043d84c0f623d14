"""Reading cases: their checkpoints, answers and calls, tolerant of malformed data."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema_rs

from validator.diagnostics import join_pointer
from validator.rules.context import Context
from validator.rules.specs import strip_descriptions

LANGS = ("en", "zh")


def sides(data: Any) -> Iterator[tuple[str, list[Any]]]:
    """(lang, turns) for each language side that has a list of turns."""
    if not isinstance(data, dict):
        return
    for lang in LANGS:
        side = data.get(lang)
        if isinstance(side, dict) and isinstance(side.get("turns"), list):
            yield lang, side["turns"]


def turn_kind(turn: Any) -> str:
    if isinstance(turn, dict) and len(turn) == 1:
        return next(iter(turn))
    return "?"


def checkpoints(turns: list[Any]) -> list[tuple[int, Any]]:
    """(turn index, answer) of every `expect` turn."""
    return [(i, t["expect"]) for i, t in enumerate(turns) if type(t) is dict and "expect" in t and len(t) == 1]


def alternatives(answer: Any, pointer: str) -> list[tuple[list[Any], str]]:
    """(calls, pointer of the calls list) for each acceptable alternative; none for specials."""
    if not isinstance(answer, dict):
        return []
    if isinstance(answer.get("calls"), list):
        return [(answer["calls"], pointer + "/calls")]
    if isinstance(answer.get("one_of"), list):
        return [
            (alt["calls"], pointer + join_pointer("one_of", i, "calls"))
            for i, alt in enumerate(answer["one_of"])
            if isinstance(alt, dict) and isinstance(alt.get("calls"), list)
        ]
    return []


def iter_calls(data: Any) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(lang, call, pointer) of every call in every alternative of every checkpoint."""
    for lang, turns in sides(data):
        for index, answer in checkpoints(turns):
            for calls, pointer in alternatives(answer, join_pointer(lang, "turns", index, "expect")):
                for j, call in enumerate(calls):
                    if isinstance(call, dict):
                        yield lang, call, pointer + join_pointer(j)


def special_of(answer: Any) -> str | None:
    return answer.get("special") if isinstance(answer, dict) and isinstance(answer.get("special"), str) else None


def user_text(turns: list[Any], upto: int | None = None) -> str:
    chosen = turns if upto is None else turns[:upto]
    return "\n".join(t["user"] for t in chosen if turn_kind(t) == "user" and isinstance(t["user"], str))


def parameter_validator(context: Context, api: str, name: str) -> Any | None:
    """A compiled validator for one top-level parameter of an API (cached on the context)."""
    key = (api, name)
    cache = context.validators
    if key not in cache:
        spec = context.specs.get(api)
        properties = spec.get("parameters", {}).get("properties", {}) if isinstance(spec, dict) else {}
        schema = properties.get(name) if isinstance(properties, dict) else None
        try:
            # formats are asserted: an impossible date such as 2024-02-30 breaks `format: date`
            cache[key] = jsonschema_rs.validator_for(strip_descriptions(schema), validate_formats=True) if isinstance(schema, dict) else None
        except (ValueError, jsonschema_rs.ValidationError):
            cache[key] = None  # an invalid parameter schema is reported by SPC007
    return cache[key]


def value_errors(context: Context, api: str, name: str, value: Any) -> list[str]:
    validator = parameter_validator(context, api, name)
    if validator is None:
        return []
    return [error.message for error in validator.iter_errors(value)]


def spec_parameters(context: Context, api: str) -> tuple[dict[str, Any], list[str]] | None:
    """(properties, required) of an API, or None when the API or its schema is unknown."""
    spec = context.specs.get(api)
    if not isinstance(spec, dict) or not isinstance(spec.get("parameters"), dict):
        return None
    parameters = spec["parameters"]
    properties = parameters.get("properties") if isinstance(parameters.get("properties"), dict) else {}
    # a required name with no property is the spec's mistake (SPC004), not every call's
    required = [r for r in parameters["required"] if isinstance(r, str) and r in properties] if isinstance(parameters.get("required"), list) else []
    return properties, required
