"""Reading calls the peers write as text: ``[api(k=v, …), …]`` (ACEBench's earlier calls in a
dialogue, API-Bank's level-3 call lists).

The syntax is Python's call syntax with literal values, read with ``ast`` and never evaluated.
The peers mix JSON into it (ACEBench writes ``{"encryption": true}``), so ``true``, ``false``
and ``null`` read as their JSON values next to Python's ``True``, ``False`` and ``None``. Any
other name, an expression, or a positional argument is not a literal: the text is reported as
unreadable (:class:`CallSyntaxError`), never guessed at.
"""

from __future__ import annotations

import ast
import math
import warnings
from typing import Any

_JSON_NAMES = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}
MAX_DEPTH = 32  # nesting of values; the peers' deepest is under 10


class CallSyntaxError(ValueError):
    """The text is not a list of calls with literal arguments; the message says what is not."""


def read_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    """(API name, arguments) of every call of ``[a(k=v), b()]``, ``a(k=v)`` or ``a(k=v), b()``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences warn; they are data
            tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        detail = error.msg if isinstance(error, SyntaxError) and error.msg else type(error).__name__
        raise CallSyntaxError(f"not call syntax ({detail})") from None
    node = tree.body
    elements = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    if not elements:
        raise CallSyntaxError("an empty list: no call")
    return [_call(element, index) for index, element in enumerate(elements)]


def _call(node: ast.expr, index: int) -> tuple[str, dict[str, Any]]:
    if not isinstance(node, ast.Call):
        raise CallSyntaxError(f"item {index + 1} is not a call")
    name = _dotted(node.func)
    if name is None:
        raise CallSyntaxError(f"call {index + 1}: the called name is not a plain name")
    if node.args:
        raise CallSyntaxError(f"call {index + 1} ({name}): positional arguments; every argument must be named")
    args: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise CallSyntaxError(f"call {index + 1} ({name}): **-unpacking")
        if keyword.arg in args:
            raise CallSyntaxError(f"call {index + 1} ({name}): {keyword.arg!r} is given twice")
        try:
            args[keyword.arg] = _literal(keyword.value, 0)
        except CallSyntaxError as error:
            raise CallSyntaxError(f"call {index + 1} ({name}): {keyword.arg}= {error}") from None
    return name, args


def _dotted(node: ast.expr) -> str | None:
    """``name`` or ``module.name`` (BFCL's API names have dots)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def _literal(node: ast.expr, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise CallSyntaxError(f"values nested deeper than {MAX_DEPTH} levels")
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, float) and not math.isfinite(value):
            raise CallSyntaxError("a number that is not finite")
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        raise CallSyntaxError(f"a {type(value).__name__} literal")
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and isinstance(node.operand, ast.Constant):
        number = node.operand.value
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            return -number if isinstance(node.op, ast.USub) else number
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(item, depth + 1) for item in node.elts]
    if isinstance(node, ast.Dict):
        result: dict[str, Any] = {}
        for key, item in zip(node.keys, node.values, strict=True):
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                raise CallSyntaxError("an object key that is not a string")
            result[key.value] = _literal(item, depth + 1)
        return result
    if isinstance(node, ast.Name):
        raise CallSyntaxError(f"the bare name {node.id!r}, not a literal (a string needs quotes)")
    raise CallSyntaxError(f"a {type(node).__name__.lower()} expression, not a literal")
