"""The one validator of argument values: the check rules and the sandbox runtime both use it.

A parameter schema is compiled once (jsonschema-rs, draft 2020-12) with formats asserted, so
``target_date="2024-02-30"`` on ``format: date`` is rejected by ``callbank check`` (DLG010) and
by a sandbox call (``invalid_arguments``) alike. Every standard JSON Schema format is known
(``date-time``, ``date``, ``time``, ``duration``, ``email``, ``hostname``, ``ipv4``, ``ipv6``,
``uri``, ``uuid`` …).

The time formats follow RFC 3339 as JSON Schema defines them: ``date-time`` is
``2024-06-12T19:00:00+08:00`` (seconds and a UTC offset), ``time`` is ``19:00:00+08:00``. Many
real APIs take a local wall-clock time instead; a spec says so with ``x-local: true`` next to
the format, and then ``date-time`` accepts ``2024-06-12T19:00`` (seconds and offset optional)
and ``time`` accepts ``19:00``. Dates and times are checked for existence either way (no
February 30, no 24:30). See docs/decisions.md.

A schema that cannot be compiled is a :class:`CompileError`, never a validator that accepts
everything: callers report it (rule SPC008) and do not claim a value is valid.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, time
from typing import Any

import jsonschema_rs

from validator.corpus.schemawalk import map_schemas, plain
from validator.schemas import allowed_values, error_message

LOCAL_KEYWORD = "x-local"
# custom format names: they appear in messages ('"9:30" is not a "local time HH:MM[:SS]"')
LOCAL_DATE_TIME = "local date-time YYYY-MM-DDTHH:MM[:SS]"
LOCAL_TIME = "local time HH:MM[:SS]"
_RFC3339 = re.compile(r'is not a "(date-time|time)"$')
_RFC3339_HINT = " (RFC 3339: seconds and a UTC offset, e.g. 2024-06-12T19:00:00+08:00 or 19:00:00+08:00)"

_OFFSET = r"(?:[Zz]|[+-]\d{2}:\d{2})?"
_LOCAL_TIME = re.compile(r"(?P<time>\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)" + _OFFSET)
_LOCAL_DATE_TIME = re.compile(r"(?P<date>\d{4}-\d{2}-\d{2})[Tt]" + _LOCAL_TIME.pattern)


def is_local_time(value: str) -> bool:
    """``HH:MM`` or ``HH:MM:SS[.ffffff]``, an optional offset, a time that exists."""
    match = _LOCAL_TIME.fullmatch(value)
    return match is not None and _exists(time.fromisoformat, match["time"])


def is_local_date_time(value: str) -> bool:
    """A date, ``T``, then a local time as above; the date must exist."""
    match = _LOCAL_DATE_TIME.fullmatch(value)
    return match is not None and _exists(date.fromisoformat, match["date"]) and _exists(time.fromisoformat, match["time"])


def _exists(parse: Any, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


FORMATS = {LOCAL_DATE_TIME: is_local_date_time, LOCAL_TIME: is_local_time}


def _local_formats(node: Mapping[str, Any]) -> Mapping[str, Any]:
    if node.get(LOCAL_KEYWORD) is True and node.get("format") in ("date-time", "time"):
        return {**node, "format": LOCAL_DATE_TIME if node["format"] == "date-time" else LOCAL_TIME}
    return node


def validation_schema(schema: Any) -> Any:
    """The schema a validator compiles: plain JSON Schema, local-time formats renamed."""
    return map_schemas(plain(schema), _local_formats)


def _explained(message: str) -> str:
    return message + _RFC3339_HINT if _RFC3339.search(message) else message


@dataclass(frozen=True)
class Problem:
    """Why a value breaks a schema: where inside the value (a JSON pointer) and what."""

    path: str
    message: str
    allowed: tuple[str, ...] = ()  # an enum's values, complete, when the value is not one of them

    def __str__(self) -> str:
        return f"{self.path.lstrip('/')}: {self.message}" if self.path else self.message


@dataclass(frozen=True)
class CompileError:
    """A schema the validator cannot compile (an unsupported regex, say)."""

    message: str


class Compiled:
    """A compiled schema: the problems of a value (empty when the value is valid)."""

    def __init__(self, validator: Any) -> None:
        self._validator = validator

    def problems(self, value: Any) -> list[Problem]:
        try:
            if self._validator.is_valid(value):
                return []
            return [
                Problem("".join(f"/{t}" for t in error.instance_path), _explained(error_message(error)), allowed_values(error)) for error in self._validator.iter_errors(value)
            ]
        except ValueError as error:  # a value jsonschema-rs cannot read (not JSON data)
            return [Problem("", str(error))]

    def messages(self, value: Any) -> list[str]:
        return [problem.message for problem in self.problems(value)]


def compile_schema(schema: Any) -> Compiled | CompileError:
    """Compile a parameter (or parameters, or returns) schema with formats asserted."""
    if not isinstance(schema, (dict, bool)):
        return CompileError(f"a schema is a mapping, not {type(schema).__name__}")
    try:
        return Compiled(jsonschema_rs.validator_for(validation_schema(schema), validate_formats=True, formats=FORMATS))
    except (ValueError, jsonschema_rs.ValidationError) as error:
        return CompileError(" ".join(str(error).split())[:300])


class Validators:
    """Compiled validators of a corpus's specs, each compiled on first use."""

    def __init__(self, specs: Mapping[str, Any]) -> None:
        self._specs = specs  # API name -> Spec record (validator.corpus.records.Spec)
        self._cache: dict[tuple[str, str], Compiled | CompileError | None] = {}

    def _get(self, api: str, part: str, name: str = "") -> Compiled | CompileError | None:
        key = (api, f"{part}:{name}")
        if key not in self._cache:
            spec = self._specs.get(api)
            if spec is None:
                schema = None
            elif part == "parameter":
                schema = spec.properties.get(name)
            elif part == "parameters":
                schema = spec.parameters
            else:
                schema = spec.returns
            self._cache[key] = None if schema is None else compile_schema(schema)
        return self._cache[key]

    def parameter(self, api: str, name: str) -> Compiled | CompileError | None:
        """One top-level parameter's validator; None when the API or parameter is unknown."""
        return self._get(api, "parameter", name)

    def arguments(self, api: str) -> Compiled | CompileError | None:
        """The validator of a call's whole arguments object (the spec's ``parameters``)."""
        return self._get(api, "parameters")

    def returns(self, api: str) -> Compiled | CompileError | None:
        return self._get(api, "returns")
