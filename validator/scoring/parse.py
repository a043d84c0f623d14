"""Parsing a model's answer into calls, never executing it.

Three syntaxes are read (``docs/predictions.md``):

* Python-call syntax ``[get_weather(city='Hangzhou'), …]`` (or one bare call), read with
  ``ast.parse`` and converted node by node: only literals are values (strings, numbers with an
  optional sign, booleans, ``None``, lists, tuples, dicts with string keys). Names, attribute
  access, calls as values, arithmetic, comprehensions, ``*``/``**`` unpacking, f-strings,
  bytes, complex and non-finite numbers are format errors. Nothing is evaluated.
* JSON: a list of (or one) ``{"api"|"name": …, "args"|"arguments"|"parameters": {…}}``
  objects; OpenAI's ``{"type": "function", "function": {…}}`` wrapper is accepted too.
* OpenAI ``tool_calls`` (``function.arguments`` a JSON string or an object).

A special answer (``[MISSING] …``, ``[INVALID] …``, ``[IRRELEVANT]``, or their Chinese forms)
is recognised by ``validator.scoring.special``. Every input is bounded: text over
``MAX_OUTPUT_CHARS``, nesting over ``MAX_DEPTH``, more than ``MAX_CALLS`` calls, lone
surrogates (what invalid UTF-8 becomes when read) — each is a format error, never a crash.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from typing import Any, NamedTuple

from validator.scoring.literals import MAX_DEPTH, FormatError, check_string, describe, has_surrogates, literal
from validator.scoring.special import Special, find_special

MAX_OUTPUT_CHARS = 1 << 20  # 1 Mi characters; real answers are well under 10 KiB
MAX_CALLS = 64

_FENCE = re.compile(r"\A```[A-Za-z0-9_+-]*[ \t]*\n(?P<body>.*?)\n?[ \t]*```\Z", re.S)
_ARG_KEYS = ("args", "arguments", "parameters")
_NAME_KEYS = ("api", "name")
_WRAPPER_KEYS = frozenset({"id", "type", "function", "index"})


class Call(NamedTuple):
    api: str
    args: dict[str, Any]


class Parsed(NamedTuple):
    """What a model answered: calls (possibly none), a special answer, or a format error."""

    kind: str  # "calls" | "special" | "format"
    calls: tuple[Call, ...] = ()
    special: Special | None = None
    error: str = ""  # for "format": what is wrong, for the report


def format_error(message: str) -> Parsed:
    return Parsed("format", error=message)


NO_CALLS = Parsed("calls")


# ----------------------------------------------------------------------------- entry points


def parse_prediction(record: dict[str, Any]) -> Parsed:
    """Parse one prediction record of a case checkpoint (``output`` and/or ``tool_calls``).

    With ``tool_calls`` present (native function calling), non-empty tool calls are the
    answer and the text is not read for calls; prose without calls is "no calls".
    """
    native = "tool_calls" in record
    tool_calls = record.get("tool_calls")
    if tool_calls:
        return parse_tool_calls(tool_calls)
    if tool_calls is not None and not isinstance(tool_calls, list):
        return format_error("tool_calls is not a list")
    return parse_text(record.get("output"), native=native)


def parse_text(text: Any, *, native: bool = False) -> Parsed:
    """Parse raw model text: empty, a special answer, or calls in Python or JSON syntax."""
    if text is None:
        return NO_CALLS
    if not isinstance(text, str):
        return format_error("output is not a string")
    if len(text) > MAX_OUTPUT_CHARS:
        return format_error(f"output is {len(text):,} characters, over the {MAX_OUTPUT_CHARS:,} limit")
    if has_surrogates(text):
        return format_error("output is not valid UTF-8")
    stripped = text.strip()
    if not stripped:
        return NO_CALLS
    special = find_special(stripped)
    if special is not None:
        return Parsed("special", special=special)
    fenced = _FENCE.match(stripped) if stripped.startswith("```") else None
    body = fenced.group("body").strip() if fenced else stripped
    try:
        return Parsed("calls", tuple(parse_calls_text(body)))
    except FormatError as error:
        if native:
            return NO_CALLS  # a text reply next to native tool calling: the model called nothing
        return format_error(str(error))


def parse_tool_calls(tool_calls: Any) -> Parsed:
    """OpenAI ``tool_calls``: ``[{"type": "function", "function": {"name", "arguments"}}]``."""
    try:
        if not isinstance(tool_calls, list):
            raise FormatError("tool_calls is not a list")
        if len(tool_calls) > MAX_CALLS:
            raise FormatError(f"{len(tool_calls)} tool calls, over the limit of {MAX_CALLS}")
        return Parsed("calls", tuple(_call_from_object(item, index) for index, item in enumerate(tool_calls)))
    except FormatError as error:
        return format_error(str(error))


def parse_calls_text(body: str) -> list[Call]:
    """Calls written as JSON or in Python-call syntax; raises FormatError."""
    if not body:
        return []
    if body[0] == "{" or (body[0] == "[" and body[1:].lstrip()[:1] in ("{", "]", "")):
        try:
            value = json.loads(body, object_pairs_hook=_unique_pairs, parse_constant=_reject_constant)
        except _JsonProblem as problem:
            raise FormatError(str(problem)) from None
        except (ValueError, RecursionError, MemoryError):
            if body[0] == "{":
                raise FormatError("output starts with '{' but is not valid JSON") from None
        else:
            return calls_from_json(value)
    return parse_python(body)


# ----------------------------------------------------------------------------- JSON


class _JsonProblem(ValueError):
    pass


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _JsonProblem(f"duplicate key {key[:40]!r} in a JSON object")
            seen.add(key)
    return result


def _reject_constant(name: str) -> Any:
    raise _JsonProblem(f"{name} is not a JSON number")


def calls_from_json(value: Any, limit: int = MAX_CALLS) -> list[Call]:
    """Calls from decoded JSON: a list of call objects, or one; raises FormatError."""
    items = value if isinstance(value, list) else [value]
    if len(items) > limit:
        raise FormatError(f"{len(items)} calls, over the limit of {limit}")
    return [_call_from_object(item, index) for index, item in enumerate(items)]


def _call_from_object(item: Any, index: int) -> Call:
    if not isinstance(item, dict):
        raise FormatError(f"call {index + 1} is not an object")
    if isinstance(item.get("function"), dict):
        extra = set(item) - _WRAPPER_KEYS
        if extra:
            raise FormatError(f"call {index + 1} has unexpected key {sorted(extra)[0][:40]!r}")
        item = item["function"]
    names = [key for key in _NAME_KEYS if key in item]
    arg_keys = [key for key in _ARG_KEYS if key in item]
    extra = set(item) - set(_NAME_KEYS) - set(_ARG_KEYS) - {"id", "type"}
    if len(names) != 1 or not isinstance(item[names[0]], str):
        raise FormatError(f"call {index + 1} has no name: give exactly one of 'api' or 'name'")
    if len(arg_keys) > 1:
        raise FormatError(f"call {index + 1} gives arguments twice ({' and '.join(arg_keys)})")
    if extra:
        raise FormatError(f"call {index + 1} has unexpected key {sorted(extra)[0][:40]!r}")
    api = item[names[0]]
    check_string(api)
    if not api.isidentifier():
        raise FormatError(f"call {index + 1}: {api[:40]!r} is not an API name")
    args: Any = item[arg_keys[0]] if arg_keys else {}
    if isinstance(args, str):
        args = _arguments_json(args, index)
    if not isinstance(args, dict):
        raise FormatError(f"call {index + 1}: the arguments are not an object")
    _check_value(args, 1)
    return Call(api, args)


def _arguments_json(text: str, index: int) -> Any:
    if not text.strip():
        return {}  # some servers send "" for a call without arguments
    if len(text) > MAX_OUTPUT_CHARS:
        raise FormatError(f"call {index + 1}: arguments over the {MAX_OUTPUT_CHARS:,}-character limit")
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_reject_constant)
    except _JsonProblem as problem:
        raise FormatError(f"call {index + 1}: {problem}") from None
    except (ValueError, RecursionError, MemoryError):
        raise FormatError(f"call {index + 1}: the arguments are not valid JSON") from None


def _check_value(value: Any, depth: int) -> None:
    """Bound the nesting and reject lone surrogates anywhere in decoded JSON data."""
    if depth > MAX_DEPTH:
        raise FormatError(f"values nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        check_string(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_string(key)
            _check_value(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_value(item, depth + 1)
    elif isinstance(value, float) and not math.isfinite(value):
        raise FormatError("numbers must be finite")


# ----------------------------------------------------------------------------- Python syntax


def parse_python(body: str) -> list[Call]:
    """``[api(k=v, …), …]``, ``(…)`` or one ``api(k=v)``: literals only, nothing evaluated."""
    try:
        if "\\" in body:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # invalid escape sequences warn; they are data
                tree = ast.parse(body, mode="eval")
        else:
            tree = ast.parse(body, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as error:
        message = error.msg if isinstance(error, SyntaxError) and error.msg else type(error).__name__
        raise FormatError(f"not a call list in Python or JSON syntax ({message})") from None
    node = tree.body
    if isinstance(node, (ast.List, ast.Tuple)):
        elements = node.elts
    elif isinstance(node, ast.Call):
        elements = [node]
    else:
        raise FormatError(f"expected a list of calls, found {describe(node)}")
    if len(elements) > MAX_CALLS:
        raise FormatError(f"{len(elements)} calls, over the limit of {MAX_CALLS}")
    return [_python_call(element, index) for index, element in enumerate(elements)]


def _python_call(node: ast.expr, index: int) -> Call:
    if not isinstance(node, ast.Call):
        raise FormatError(f"item {index + 1} of the list is {describe(node)}, not a call")
    if not isinstance(node.func, ast.Name):
        raise FormatError(f"call {index + 1}: the called name must be a plain API name, not {describe(node.func)}")
    if node.args:
        raise FormatError(f"call {index + 1} ({node.func.id}): positional arguments are not allowed; name every argument")
    args: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise FormatError(f"call {index + 1} ({node.func.id}): **-unpacking is not allowed")
        if keyword.arg in args:
            raise FormatError(f"call {index + 1} ({node.func.id}): argument {keyword.arg!r} is given twice")
        args[keyword.arg] = literal(keyword.value, 1)
    return Call(node.func.id, args)
