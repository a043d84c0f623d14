"""Mechanical fixes written back with minimal diffs: only the text of the values that change.

A fix names a node by JSON pointer and gives its new value. The file is composed (not
constructed) with the same YAML reader the corpus uses, which gives each node's start and end in
the text; the new value replaces exactly that span, in the style the node had — a flow node
(``{city: Hangzhou}``) stays on its line, a block node is rewritten as a block at its indentation.
Everything else — comments, key order, quoting, blank lines, the schema line — is left byte for
byte. Text-level edits rather than a round-trip library (ruamel.yaml): the corpus reader is
PyYAML, a round trip re-renders whole files, and one more YAML implementation would be one more
opinion on what a file means.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from validator.diagnostics import escape_pointer_token, split_pointer
from validator.errors import UserError
from validator.loading import CorpusDumper


class Fix(NamedTuple):
    path: str  # repo-relative
    pointer: str  # JSON pointer of the value to replace
    value: Any  # what it becomes


def narrowed(path: str, pointer: str, old: Any, new: Any) -> list[Fix]:
    """The fixes that turn old (the value at pointer) into new, each as deep as the change:
    mappings with the same keys and lists of the same length are rewritten member by member,
    so one changed field of a recorded result is one changed scalar, quoting and all."""
    if isinstance(old, dict) and isinstance(new, dict) and list(old) == list(new):
        return [fix for key in old for fix in narrowed(path, f"{pointer}/{escape_pointer_token(key)}", old[key], new[key])]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [fix for i, (a, b) in enumerate(zip(old, new, strict=True)) for fix in narrowed(path, f"{pointer}/{i}", a, b)]
    if json.dumps(old, sort_keys=True) == json.dumps(new, sort_keys=True) and type(old) is type(new):
        return []
    return [Fix(path, pointer, new)]


def _node_at(root: Node, pointer: str) -> Node | None:
    node: Node | None = root
    for token in split_pointer(pointer):
        if isinstance(node, MappingNode):
            node = next((value for key, value in node.value if getattr(key, "value", None) == token), None)
        elif isinstance(node, SequenceNode) and str(token).isdigit() and int(token) < len(node.value):
            node = node.value[int(token)]
        else:
            return None
    return node


def _flow(value: Any) -> str:
    text = yaml.dump(value, Dumper=CorpusDumper, default_flow_style=True, allow_unicode=True, sort_keys=False, width=float("inf"))
    return text.removesuffix("\n...\n").strip()


def _block(value: list[Any] | dict[str, Any], indent: int) -> str:
    """A block node's new text: one line per item (or key), each value in flow style — the
    corpus's own layout (``- {id: N-1, title: Old}``); the first line starts at the node."""
    lines = [f"- {_flow(item)}" for item in value] if isinstance(value, list) else [f"{_flow(key)}: {_flow(item)}" for key, item in value.items()]
    return ("\n" + " " * indent).join(lines)


def _rendered(node: Node, value: Any) -> str:
    if isinstance(node, MappingNode | SequenceNode) and not node.flow_style and isinstance(value, dict | list) and value:
        return _block(value, node.start_mark.column)
    if isinstance(node, ScalarNode) and isinstance(value, str) and "\n" not in value:
        # a quoted string stays quoted the same way ("2024-07-18T19:00" → "2024-07-19T19:00")
        if node.style == '"':
            return json.dumps(value, ensure_ascii=False)
        if node.style == "'":
            return "'" + value.replace("'", "''") + "'"
    return _flow(value)


def apply_fixes(text: str, fixes: Iterable[Fix]) -> str:
    """text with every fix applied (UserError when a pointer names no node)."""
    root = yaml.compose(text, Loader=yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader)
    if root is None:
        raise UserError("the file is empty")
    spans = []
    for fix in fixes:
        node = _node_at(root, fix.pointer)
        if node is None:
            raise UserError(f"{fix.path}: no value at {fix.pointer}")
        start, end = node.start_mark.index, node.end_mark.index
        while end > start and text[end - 1] in " \t\r\n":  # a block node's span runs to the next token
            end -= 1
        spans.append((start, end, _rendered(node, fix.value)))
    for start, end, new in sorted(spans, reverse=True):  # from the end, so earlier spans stay valid
        text = text[:start] + new + text[end:]
    return text


def write_fixes(root: Path, fixes: Iterable[Fix]) -> dict[str, tuple[str, str]]:
    """Apply fixes to their files under root: path -> (old text, new text) of every file changed.
    Each file is checked to read back as the fixed data before it is written."""
    by_path: dict[str, list[Fix]] = {}
    for fix in fixes:
        by_path.setdefault(fix.path, []).append(fix)
    changed: dict[str, tuple[str, str]] = {}
    for path, own in sorted(by_path.items()):
        file = root / path
        old = file.read_text(encoding="utf-8")
        new = apply_fixes(old, own)
        data = yaml.safe_load(new)
        for fix in own:
            if json.dumps(_value_at(data, fix.pointer), sort_keys=True) != json.dumps(fix.value, sort_keys=True):
                raise UserError(f"{path}: the fix of {fix.pointer} does not read back as written; the file is left as it was")
        if new != old:
            changed[path] = (old, new)
    for path, (_, new) in changed.items():
        (root / path).write_text(new, encoding="utf-8")
    return changed


def _value_at(data: Any, pointer: str) -> Any:
    for token in split_pointer(pointer):
        data = data[int(token)] if isinstance(data, list) else data[token]
    return data
