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
is recognised by ``validator.scoring.special``. An answer that commits to nothing — a marker
and a call (in the text, or native ``tool_calls`` next to a marker), or two different markers —
is **hedged**, never a special answer.

Every input is bounded and read in linear time (no backtracking regular expression): text over
``MAX_OUTPUT_CHARS``, a string value over ``MAX_STRING_CHARS``, a name over
``MAX_NAME_CHARS``, nesting over ``MAX_DEPTH``, more than ``MAX_CALLS`` calls, lone surrogates
(what invalid UTF-8 becomes when read) — each is a format error ("too long: …" for the size
caps), never a crash. API and argument names are kept as written: Python's parser folds
identifiers to NFKC (``ｇｅｔ_ｗｅａｔｈｅｒ`` would become ``get_weather``), so names are read back
from the source text, as exact as in JSON.

Most answers have one common shape — ``[api(name='text', n=3, xs=[1, 2], flag=True)]`` — and
building a syntax tree for them costs more than scoring them. A compiled reader
(``validator/scoring/_fastcalls.c``, built at install by ``hatch_build.py``) reads exactly that
shape in one pass and declines everything else (comments, escapes, tuples, non-ASCII names, a
duplicate argument, a size cap reached, any error …), which then goes to the reference reader
above (``parse_stripped``). It only ever returns what the reference reader returns
(``tests/scoring/test_fastcalls.py``); without a C compiler it is not built and the reference
reader reads everything.
"""

from __future__ import annotations

import ast
import json
import math
import re
import unicodedata
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

from validator.scoring.literals import (
    MAX_DEPTH,
    MAX_NAME_CHARS,
    MAX_STRING_CHARS,
    FormatError,
    check_name,
    check_string,
    describe,
    has_surrogates,
    literal,
)
from validator.scoring.special import Marker, Special, find_markers
from validator.scoring.special import describe as describe_special

_read_common_shape: Callable[[str, type[Call], int, int, int, int], tuple[Call, ...] | None] | None
try:
    from validator.scoring._fastcalls import read as _read_common_shape
except ImportError:  # built without a C compiler: the reference reader reads everything
    _read_common_shape = None

MAX_OUTPUT_CHARS = 1 << 20  # 1 Mi characters; real answers are well under 10 KiB
MAX_CALLS = 64

__all__ = [  # the size caps of validator.scoring.literals are re-exported with this module's own
    "MAX_CALLS",
    "MAX_DEPTH",
    "MAX_NAME_CHARS",
    "MAX_OUTPUT_CHARS",
    "MAX_STRING_CHARS",
    "NO_CALLS",
    "Call",
    "Parsed",
    "calls_from_json",
    "format_error",
    "hedged",
    "makes_calls",
    "parse_calls_text",
    "parse_prediction",
    "parse_python",
    "parse_stripped",
    "parse_text",
    "parse_tool_calls",
    "unfence",
]

_FENCE_LANGUAGE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-")
_NEWLINES = re.compile(r"\r\n|\r|\n")  # line ends as Python's tokenizer counts them
_ARG_KEYS = ("args", "arguments", "parameters")
_NAME_KEYS = ("api", "name")
_WRAPPER_KEYS = frozenset({"id", "type", "function", "index"})


class Call(NamedTuple):
    api: str
    args: dict[str, Any]


class Parsed(NamedTuple):
    """What a model answered: calls (possibly none), a special answer, or a format error."""

    kind: str  # "calls" | "special" | "hedged" | "format"
    calls: tuple[Call, ...] = ()
    special: Special | None = None
    error: str = ""  # for "format" and "hedged": what is wrong, for the report


def format_error(message: str) -> Parsed:
    return Parsed("format", error=message)


def hedged(message: str) -> Parsed:
    return Parsed("hedged", error=message)


NO_CALLS = Parsed("calls")


# ----------------------------------------------------------------------------- entry points


def parse_prediction(record: dict[str, Any]) -> Parsed:
    """Parse one prediction record of a case checkpoint (``output`` and/or ``tool_calls``).

    With ``tool_calls`` present (native function calling), non-empty tool calls are the
    answer and the text is not read for calls; prose without calls is "no calls".
    """
    tool_calls = record.get("tool_calls")
    if tool_calls:
        parsed = parse_tool_calls(tool_calls)
        text = record.get("output")
        if parsed.kind == "calls" and isinstance(text, str) and len(text) <= MAX_OUTPUT_CHARS:
            markers = find_markers(text)
            if markers:
                return hedged(f"gave a special answer ({describe_special(markers[0].special)}) and also made {len(parsed.calls)} tool call(s)")
        return parsed
    if tool_calls is not None and not isinstance(tool_calls, list):
        return format_error("tool_calls is not a list")
    return parse_text(record.get("output"), native="tool_calls" in record)


def parse_text(text: Any, *, native: bool = False) -> Parsed:
    """Parse raw model text: empty, a special answer, or calls in Python or JSON syntax."""
    if text is None:
        return NO_CALLS
    if not isinstance(text, str):
        return format_error("output is not a string")
    if len(text) > MAX_OUTPUT_CHARS:
        return format_error(f"too long: output is {len(text):,} characters, over the {MAX_OUTPUT_CHARS:,} limit")
    if not text.isascii() and has_surrogates(text):  # (isascii first: no call for the usual text)
        return format_error("output is not valid UTF-8")
    stripped = text.strip()
    if not stripped:
        return NO_CALLS
    if _read_common_shape is not None:  # (_common_shape, inlined on the path every answer takes)
        calls = _read_common_shape(stripped, Call, MAX_CALLS, MAX_DEPTH, MAX_STRING_CHARS, MAX_NAME_CHARS)
        if calls is not None:  # no marker can hide in the common shape: no line of it starts with one
            return tuple.__new__(Parsed, ("calls", calls, None, ""))  # (all fields: half the constructor's cost)
    return parse_stripped(stripped, native=native)


def _common_shape(text: str) -> tuple[Call, ...] | None:
    """The calls of an answer of the common shape, read by the compiled reader; None for any
    other answer, or when the reader is not built."""
    if _read_common_shape is None:
        return None
    return _read_common_shape(text, Call, MAX_CALLS, MAX_DEPTH, MAX_STRING_CHARS, MAX_NAME_CHARS)


def parse_stripped(stripped: str, *, native: bool = False) -> Parsed:
    """The reference reader of a stripped, non-empty answer text: every input, every verdict.

    ``parse_text`` first offers the text to the compiled reader of the common shape
    (``validator/scoring/_fastcalls.c``), which returns the same calls for the answers it reads
    and declines everything else; tests hold the two to the same result. (Whether the prose
    around a marker makes calls is asked of it too: the answer is the same either way, and the
    calls themselves are always read here.)
    """
    markers = find_markers(stripped)
    if markers:
        return _special_answer(stripped, markers)
    body = unfence(stripped)
    try:
        return Parsed("calls", tuple(parse_calls_text(body)))
    except FormatError as error:
        if native:
            return NO_CALLS  # a text reply next to native tool calling: the model called nothing
        return format_error(str(error))


def unfence(text: str) -> str:
    """The body of a text that is one Markdown code block (```lang … ```), else the text itself."""
    if not (text.startswith("```") and text.endswith("```") and len(text) >= 7):
        return text
    newline = text.find("\n")
    if newline == -1 or newline > len(text) - 4:
        return text
    language = text[3:newline].rstrip(" \t")
    if not all(char in _FENCE_LANGUAGE for char in language):
        return text
    return text[newline + 1 : -3].strip()


def _special_answer(text: str, markers: list[Marker]) -> Parsed:
    """A committed special answer, or a hedged one (two different markers, or a marker and calls)."""
    first = markers[0].special
    for marker in markers[1:]:
        if marker.special != first:
            return hedged(f"gave two different special answers: {describe_special(first)} and {describe_special(marker.special)}")
    pieces = []
    position = 0
    for marker in markers:
        pieces.append(text[position : marker.start])
        position = marker.end
    pieces.append(text[position:])
    if makes_calls("\n".join(pieces)):
        return hedged(f"gave a special answer ({describe_special(first)}) and also made calls")
    return Parsed("special", special=first)


def makes_calls(text: str) -> bool:
    """Whether prose around a marker holds calls: as a whole, in a code block, or on a line of its own.

    Lines shaped like a call (``name(…)``, ``[…]``, ``{…}``) are parsed, at most ``MAX_CALLS``
    of them: an answer with more call-shaped lines than any answer makes calls is counted as
    making calls rather than parsed on and on.
    """
    text = text.strip()
    if not text:
        return False
    if _parses_as_calls(unfence(text)):
        return True
    tried = 0
    fence = text.find("```")
    while fence != -1:  # each fenced block on its own
        closing = text.find("```", fence + 3)
        if closing == -1:
            break
        tried += 1
        if tried > MAX_CALLS or _parses_as_calls(unfence(text[fence : closing + 3])):
            return True
        fence = text.find("```", closing + 3)
    for raw_line in text.split("\n"):
        line = raw_line.strip()
        if not _call_shaped(line):
            continue
        tried += 1
        if tried > MAX_CALLS or _parses_as_calls(line):
            return True
    return False


def _call_shaped(line: str) -> bool:
    if len(line) < 3:
        return False
    if (line[0] == "[" and line[-1] == "]") or (line[0] == "{" and line[-1] == "}"):
        return True
    opening = line.find("(")
    return opening > 0 and line[-1] == ")" and line[:opening].isidentifier()


def _parses_as_calls(text: str) -> bool:
    calls = _common_shape(text)
    if calls is not None:
        return bool(calls)
    try:
        return bool(parse_calls_text(text))
    except FormatError:
        return False


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
    check_name(api)
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
        raise FormatError(f"too long: call {index + 1} has arguments over the {MAX_OUTPUT_CHARS:,}-character limit")
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
    source = None if body.isascii() or unicodedata.is_normalized("NFKC", body) else _Source(body)
    return [_python_call(element, index, source) for index, element in enumerate(elements)]


class _Source:
    """Identifiers as written in a source that Python's parser folded to NFKC."""

    def __init__(self, body: str) -> None:
        self.lines = _NEWLINES.split(body)
        self.encoded: dict[int, bytes] = {}

    def name_at(self, lineno: int, col_offset: int) -> str:
        """The identifier written at a node's position (offsets count UTF-8 bytes)."""
        line = self.encoded.get(lineno)
        if line is None:
            line = self.encoded[lineno] = self.lines[lineno - 1].encode("utf-8", "surrogatepass")
        rest = line[col_offset : col_offset + 4 * MAX_NAME_CHARS + 4].decode("utf-8", "replace")
        end = 0
        while end < len(rest) and (rest[end] == "_" or rest[end].isalnum() or unicodedata.category(rest[end])[0] == "M"):
            end += 1
        return rest[:end]


def _python_call(node: ast.expr, index: int, source: _Source | None = None) -> Call:
    if not isinstance(node, ast.Call):
        raise FormatError(f"item {index + 1} of the list is {describe(node)}, not a call")
    if not isinstance(node.func, ast.Name):
        raise FormatError(f"call {index + 1}: the called name must be a plain API name, not {describe(node.func)}")
    api = source.name_at(node.func.lineno, node.func.col_offset) if source else node.func.id
    check_name(api)
    if node.args:
        raise FormatError(f"call {index + 1} ({api}): positional arguments are not allowed; name every argument")
    args: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise FormatError(f"call {index + 1} ({api}): **-unpacking is not allowed")
        name = source.name_at(keyword.lineno, keyword.col_offset) if source else keyword.arg
        check_name(name)
        if name in args:
            raise FormatError(f"call {index + 1} ({api}): argument {name!r} is given twice")
        args[name] = literal(keyword.value, 1)
    return Call(api, args)
