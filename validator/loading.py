"""Hardened YAML loading: libyaml composes nodes, we build plain JSON-like data from them.

Building the values ourselves (instead of PyYAML's constructor) lets one pass reject the YAML
features a benchmark must never silently accept (duplicate keys, YAML 1.1 booleans and
sexagesimal numbers, non-string keys, explicit tags); anchors and aliases are refused before
building. The node tree is dropped once built: a finding's JSON pointer is traced back to
``file:line:col`` by recomposing that one file (:meth:`Document.locate`), so documents without
findings never pay for a position map.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from validator.diagnostics import split_pointer

MAX_FILE_BYTES = 1 << 20  # 1 MiB; the largest real file is far below 64 KiB
MAX_DEPTH = 64  # nesting levels; the deepest real file has 10, every rule recurses safely to this
# libyaml's composer recurses in C: nesting in the tens of thousands (a 100 KB file of '[')
# overflows the C stack and kills the process. A text that might nest deeper than this is
# measured first through parser events, which do not recurse.
_MEASURE_DEPTH_ABOVE = 1000
# flow brackets, plus two levels per column of block indentation ("- - - x" nests too)
_MANY_BRACKETS = _MEASURE_DEPTH_ABOVE // 2
_LONG_LINE_PREFIX = re.compile(rf"^[ \t?:-]{{{_MEASURE_DEPTH_ABOVE // 4}}}", re.MULTILINE)
SCHEMA_COMMENT = re.compile(r"^# yaml-language-server: \$schema=(?P<target>\S+)\s*$")

_TAG = "tag:yaml.org,2002:"
_YAML11_BOOL_WORDS = frozenset({"yes", "no", "on", "off", "y", "n"})
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?")


class LoadProblem(NamedTuple):
    code: str
    message: str
    line: int | None
    column: int | None


@dataclass(frozen=True)
class Document:
    """One YAML file: its data as plain Python values, and its text for positions.

    The node tree is not kept: positions are only needed for files with findings, and
    recomposing one file is far cheaper than keeping every tree alive during a run.
    """

    path: str  # repo-relative, forward slashes
    kind: str
    data: Any
    text: str = field(repr=False, compare=False)

    @property
    def stem(self) -> str:
        name = self.path.rsplit("/", 1)[-1]
        return name.rsplit(".", 1)[0]

    @property
    def first_line(self) -> str:
        return self.text.split("\n", 1)[0]

    @cached_property
    def root(self) -> Node | None:
        loader = yaml.CSafeLoader(self.text)
        try:
            return loader.get_single_node()
        except yaml.YAMLError:
            return None
        finally:
            loader.dispose()

    def locate(self, pointer: str) -> tuple[int | None, int | None]:
        """Line and column (1-based) of the deepest node the pointer reaches.

        The empty pointer means the whole file (its schema comment, its place): line 1, column 1.
        """
        if not pointer:
            return (1, 1)
        node = self.root
        if node is None:
            return (1, 1)
        mark = node.start_mark
        for token in split_pointer(pointer):
            if isinstance(node, MappingNode):
                for key_node, value_node in node.value:
                    if key_node.value == token:
                        mark = key_node.start_mark
                        node = value_node
                        break
                else:
                    break
            elif isinstance(node, SequenceNode) and token.isdigit() and int(token) < len(node.value):
                node = node.value[int(token)]
                mark = node.start_mark
            else:
                break
        return (mark.line + 1, mark.column + 1)


class _Builder:
    """Turns a composed node tree into plain values, collecting problems on the way."""

    def __init__(self) -> None:
        self.problems: list[LoadProblem] = []
        self._depth = 0

    def problem(self, code: str, message: str, node: Node) -> None:
        self.problems.append(LoadProblem(code, message, node.start_mark.line + 1, node.start_mark.column + 1))

    def build(self, node: Node) -> Any:
        # anchors and aliases never reach the builder (load_text refuses them first), so every
        # node is built once
        if isinstance(node, ScalarNode):
            return self.scalar(node)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _TooDeep(node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, SequenceNode):
            if node.tag != _TAG + "seq":
                self.problem("SCH009", f"unsupported YAML tag {node.tag}; remove it", node)
            value: Any = [self.build(item) for item in node.value]
        else:
            value = self.mapping(node)  # type: ignore[arg-type]
        self._depth -= 1
        return value

    def mapping(self, node: MappingNode) -> dict[str, Any]:
        if node.tag != _TAG + "map":
            self.problem("SCH009", f"unsupported YAML tag {node.tag}; remove it", node)
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag != _TAG + "str":
                if isinstance(key_node, ScalarNode):
                    message = f"mapping key {key_node.value!r} is not a string; quote it (\"{key_node.value}\") or use a string key"
                else:
                    message = "a mapping key is a list or a mapping; use a string key"
                self.problem("SCH004", message, key_node)
                self.build(value_node)
                continue
            key = key_node.value
            if key in result:
                self.problem("SCH002", f"duplicate key {key!r}; keep one of the two entries", key_node)
            result[key] = self.build(value_node)
        return result

    def scalar(self, node: ScalarNode) -> Any:
        tag, value = node.tag, node.value
        plain = not node.style  # libyaml's composer gives plain scalars style '' (PyYAML's None)
        if tag == _TAG + "str":
            if plain and value.lower() in _YAML11_BOOL_WORDS:
                self.problem(
                    "SCH005",
                    f"unquoted {value!r} reads as a boolean in YAML 1.1 and a string in 1.2; "
                    f"write true/false, or quote it (\"{value}\")",
                    node,
                )
            return value
        if tag == _TAG + "null":
            return None
        if tag == _TAG + "bool":
            if value.lower() not in ("true", "false"):
                self.problem(
                    "SCH005",
                    f"unquoted {value!r} reads as a boolean in YAML 1.1 and a string in 1.2; "
                    f"write true/false, or quote it (\"{value}\")",
                    node,
                )
            return value.lower() in ("true", "yes", "on", "y")
        if tag == _TAG + "int":
            if _INT.fullmatch(value):
                return int(value)
            self.problem(
                "SCH009",
                f"{value!r} is a YAML 1.1 number form (octal, sexagesimal, hex or underscores) that "
                f"other parsers read differently; write a plain decimal or quote it",
                node,
            )
            return value
        if tag == _TAG + "float":
            if _FLOAT.fullmatch(value):
                return float(value)
            self.problem(
                "SCH009",
                f"{value!r} is not a plain JSON number (inf, nan and sexagesimal are not allowed); "
                f"write a decimal or quote it",
                node,
            )
            return value
        if tag == _TAG + "timestamp":
            return value  # dates and times stay strings, as in JSON
        self.problem("SCH009", f"unsupported YAML tag {tag}; remove it or quote the value", node)
        return value


class _TooDeep(Exception):
    def __init__(self, line: int, column: int) -> None:
        super().__init__(line, column)
        self.line, self.column = line, column


def _too_deep_problem(line: int | None, column: int | None) -> LoadProblem:
    return LoadProblem(
        "SCH001",
        f"YAML nested more than {MAX_DEPTH} levels deep; the checker stops here (no corpus file needs this)",
        line,
        column,
    )


def _may_nest_deeply(text: str) -> bool:
    """False when the nesting surely stays under _MEASURE_DEPTH_ABOVE: few flow brackets and
    no line indented (with `- `, `? `, `: ` counted as indentation) by a quarter of it."""
    if text.count("[") + text.count("{") > _MANY_BRACKETS:
        return True
    return _LONG_LINE_PREFIX.search(text) is not None


def _too_deep(text: str) -> tuple[int, int] | None:
    """Position of the first collection nested deeper than MAX_DEPTH, found through events."""
    loader = yaml.CSafeLoader(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH and event.start_mark is not None:
                    return (event.start_mark.line + 1, event.start_mark.column + 1)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except yaml.MarkedYAMLError as error:
        # libyaml 0.2.6 (PyYAML 6.0.4) has a nesting limit of its own (1,000 levels) and may reach
        # it while scanning ahead, before the events go past MAX_DEPTH: that is too deep as well
        if error.problem == "exceeded maximum nesting depth" and error.problem_mark is not None:
            return (error.problem_mark.line + 1, error.problem_mark.column + 1)
        return None  # not too deep before the error; composing reports the error
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return None


def _has_anchor(text: str) -> tuple[int, int] | None:
    """Position of the first anchor or alias, found through libyaml's events."""
    loader = yaml.CSafeLoader(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            if event is not None and getattr(event, "anchor", None) and event.start_mark is not None:
                return (event.start_mark.line + 1, event.start_mark.column + 1)
    finally:
        loader.dispose()
    return None


def load_text(text: str, path: str, kind: str) -> tuple[Document | None, list[LoadProblem]]:
    """Parse YAML text; the document is None only when nothing usable could be read."""
    if _may_nest_deeply(text) and (deep := _too_deep(text)):
        return None, [_too_deep_problem(*deep)]
    loader = yaml.CSafeLoader(text)
    try:
        root = loader.get_single_node()
    except yaml.composer.ComposerError as error:
        mark = error.problem_mark
        if "single document" in f"{error.context} {error.problem}":  # libyaml puts it in context
            return None, [
                LoadProblem(
                    "SCH008",
                    "the file holds more than one YAML document; keep one document per file (remove '---')",
                    mark.line + 1 if mark else None,
                    mark.column + 1 if mark else None,
                )
            ]
        return None, [_syntax_problem(error, text)]
    except yaml.YAMLError as error:
        return None, [_syntax_problem(error, text)]
    finally:
        loader.dispose()
    if ("&" in text or "*" in text) and (at := _has_anchor(text)):
        # The builder leaves a hole (None) where an alias was, rather than expanding it (alias
        # bombs); every later rule would then report that hole. Like a syntax error, an
        # anchor or alias stops the checks of this file until it is written out.
        return None, [LoadProblem("SCH003", "anchors and aliases (&name, *name) are not allowed; write values out", *at)]
    if root is None:
        return Document(path, kind, None, text), []
    builder = _Builder()
    try:
        data = builder.build(root)
    except _TooDeep as deep:
        return None, [_too_deep_problem(deep.line, deep.column)]
    return Document(path, kind, data, text), builder.problems


def _syntax_problem(error: yaml.YAMLError, text: str) -> LoadProblem:
    mark = getattr(error, "problem_mark", None)
    line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    lines = text.splitlines()
    if mark and mark.line < len(lines) and "\t" in lines[mark.line][: mark.column + 1]:
        # libyaml says only "found character that cannot start any token"
        return LoadProblem("SCH001", "YAML syntax error: a tab in the indentation; YAML indents with spaces only, replace the tab with spaces", line, column)
    problem = getattr(error, "problem", None) or str(error)
    context = getattr(error, "context", None)
    message = f"YAML syntax error: {problem}" + (f" ({context})" if context else "")
    return LoadProblem("SCH001", message + "; fix the indentation or quoting here", line, column)


def load_file(root: Path, path: str, kind: str) -> tuple[Document | None, list[LoadProblem]]:
    full = root / path
    try:
        size = full.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, [
                LoadProblem(
                    "SCH006",
                    f"file is {size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit; split it or move data out",
                    None,
                    None,
                )
            ]
        raw = full.read_bytes()
    except OSError as error:
        return None, [LoadProblem("SCH001", f"cannot read the file: {error.strerror}", None, None)]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        return None, [
            LoadProblem("SCH007", f"byte 0x{raw[error.start]:02x} is not valid UTF-8; save the file as UTF-8", line, column)
        ]
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        return None, [LoadProblem("SCH007", "the file contains NUL bytes; it is binary, not YAML text", line, None)]
    return load_text(text.removeprefix("\ufeff"), path, kind)


# ----------------------------------------------------------------------------- discovery

CORPUS_ROOTS = ("specs", "dialogues", "sandboxes", "review")
# every kind of file discovery finds; "unknown" is a YAML file where no corpus document belongs
CORPUS_KINDS = ("api", "case", "scenario", "state", "judges", "review-record", "unknown")


def kind_of(path: str) -> str | None:
    """The document kind of a repo-relative path, or None for files the validator ignores."""
    parts = path.split("/")
    if not parts[-1].endswith((".yaml", ".yml")):
        return None
    top = parts[0]
    if top == "specs":
        return "api"
    if top == "dialogues":
        return "case"
    if top == "sandboxes" and len(parts) == 3 and parts[2] in ("state.yaml", "state.yml"):
        return "state"
    if top == "sandboxes" and len(parts) == 4 and parts[2] == "scenarios":
        return "scenario"
    if top == "review" and len(parts) == 2 and parts[1] in ("judges.yaml", "judges.yml"):
        return "judges"
    if top == "review" and len(parts) == 3 and parts[1] == "queue":
        return "review-record"
    if top in CORPUS_ROOTS:
        return "unknown"
    return None


def discover(root: Path) -> list[tuple[str, str]]:
    """Every corpus YAML file under root as (repo-relative path, kind), sorted."""
    found: list[tuple[str, str]] = []
    for top in CORPUS_ROOTS:
        base = root / top
        if not base.is_dir():
            continue
        for directory, subdirs, files in os.walk(base):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith((".", "__")))
            rel_dir = Path(directory).relative_to(root).as_posix()
            for name in files:
                rel = f"{rel_dir}/{name}"
                kind = kind_of(rel)
                if kind is not None:
                    found.append((rel, kind))
    found.sort()
    return found


class CorpusDumper(yaml.SafeDumper):
    """PyYAML's safe dumper, quoting every string the corpus loader would not read back as
    written: y/n/yes/no/on/off in any case are YAML 1.1 booleans (rule SCH005); PyYAML quotes
    only the forms its own resolver knows, and writes ``N`` bare."""


CorpusDumper.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?i:y|n|yes|no|on|off)$"), list("yYnNoO"))



def find_repo_root(start: Path) -> Path:
    """The nearest folder at or above start that holds a corpus (specs/ or dialogues/, or the
    settings file callbank.yaml)."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / "specs").is_dir() or (candidate / "dialogues").is_dir() or (candidate / "callbank.yaml").is_file() or (candidate / "pyproject.toml").is_file():
            return candidate
    return start
