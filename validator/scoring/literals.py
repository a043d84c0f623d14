"""Python literals from an ``ast`` tree, converted node by node: nothing is ever evaluated.

Allowed: strings, ints, finite floats (with an optional ``+``/``-`` sign), booleans, ``None``,
lists and tuples (both become lists), dicts with string keys. Everything else (names,
attribute access, calls, arithmetic, comprehensions, unpacking, f-strings, bytes, complex
numbers, sets) raises FormatError with a message naming what was found.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

MAX_DEPTH = 32  # nesting of argument values (an object in a list in an object … counts each)
MAX_STRING_CHARS = 1 << 16  # one string value or object key; real arguments are under 4 KiB
MAX_NAME_CHARS = 256  # an API or argument name

_SURROGATE = re.compile("[\ud800-\udfff]")


class FormatError(Exception):
    """The answer cannot be read; the message says why (shown in the report)."""


def check_string(text: str) -> None:
    """A string value is at most MAX_STRING_CHARS long and valid UTF-8.

    Lone surrogates are what invalid UTF-8 becomes when read with surrogateescape.
    """
    if len(text) > MAX_STRING_CHARS:
        raise FormatError(f"too long: a string of {len(text):,} characters, over the {MAX_STRING_CHARS:,} limit")
    if not text.isascii() and _SURROGATE.search(text):
        raise FormatError("a string is not valid UTF-8")


def check_name(name: str) -> None:
    """An API or argument name is at most MAX_NAME_CHARS long and valid UTF-8."""
    if len(name) > MAX_NAME_CHARS:
        raise FormatError(f"too long: a name of {len(name):,} characters, over the {MAX_NAME_CHARS} limit")
    check_string(name)


def has_surrogates(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def literal(node: ast.expr, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise FormatError(f"values nested deeper than {MAX_DEPTH} levels")
    kind = type(node)
    if kind is ast.Constant:
        value = node.value  # type: ignore[attr-defined]
        if value is None or isinstance(value, (bool, int)):
            return value
        if isinstance(value, str):
            check_string(value)
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise FormatError("numbers must be finite")
            return value
        raise FormatError(f"{type(value).__name__} literals are not allowed")
    if kind is ast.UnaryOp and isinstance(node.op, (ast.USub, ast.UAdd)):  # type: ignore[attr-defined]
        operand = node.operand  # type: ignore[attr-defined]
        if type(operand) is ast.Constant and type(operand.value) in (int, float):
            number: int | float = operand.value  # type: ignore[assignment]  # checked just above
            if isinstance(number, float) and not math.isfinite(number):
                raise FormatError("numbers must be finite")
            return -number if isinstance(node.op, ast.USub) else number  # type: ignore[attr-defined]
        raise FormatError("a sign applies only to a number literal")
    if kind is ast.List or kind is ast.Tuple:
        return [literal(item, depth + 1) for item in node.elts]  # type: ignore[attr-defined]
    if kind is ast.Dict:
        result: dict[str, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):  # type: ignore[attr-defined]
            if key is None:
                raise FormatError("**-unpacking is not allowed")
            if type(key) is not ast.Constant or not isinstance(key.value, str):
                raise FormatError("object keys must be string literals")
            check_string(key.value)
            if key.value in result:
                raise FormatError(f"duplicate key {key.value[:40]!r}")
            result[key.value] = literal(value, depth + 1)
        return result
    raise FormatError(f"only literal values are allowed, found {describe(node)}")


_DESCRIPTIONS = {
    ast.Name: "a name",
    ast.Attribute: "attribute access",
    ast.Call: "a call",
    ast.BinOp: "arithmetic",
    ast.BoolOp: "a boolean operation",
    ast.UnaryOp: "an operator",
    ast.Compare: "a comparison",
    ast.Lambda: "a lambda",
    ast.IfExp: "a conditional expression",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a generator",
    ast.Set: "a set",
    ast.Starred: "*-unpacking",
    ast.JoinedStr: "an f-string",
    ast.Subscript: "subscripting",
    ast.NamedExpr: "an assignment expression",
    ast.Await: "await",
}


def describe(node: ast.AST) -> str:
    described = _DESCRIPTIONS.get(type(node), type(node).__name__)
    if isinstance(node, ast.Name):
        return f"the name {node.id[:40]!r}"
    return described
