"""What every importer shares: reading the peer's files, naming, converting schemas, and the
repository an import produces (its specs, cases, what was not converted, what was renamed).

An importer reads the user's copy of a peer benchmark and fills one :class:`Repository` per
language set; :mod:`validator.importers.write` writes them out. Nothing is repaired: a value
that breaks its schema, a "missing" parameter that is optional, a nested type that is not JSON
Schema — all are written as the source has them, for ``callbank check`` to report. What callbank
cannot express at all (an agent task that needs the peer's own code, a system message) is left
out and listed with the reason.

A source file that cannot be read as the peer's format (not JSON, a record without its id or
question) stops the import: :class:`SourceError` names the file, line and record.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validator.corpus.canonical import canonical_json
from validator.errors import UserError

# why an imported repository leaves out a rule: it holds callbank's own conventions, not the source's
IGNORED_BECAUSE = {
    "DLG021": "the source gives no domains, so every API is written in one (the peer's) and no case can show two of a domain",
    "DLG023": "the source gives each step of a multi-turn dialogue as a record of its own, so its first step holds one request",
    "REF003": "the source's APIs have no sandbox, so its answers call spec-only APIs",
    "SPC006": "parameter names keep the source's spelling (camelCase); callbank's own are lower-case identifiers",
}


class SourceError(UserError):
    """A source file is not in the peer's format: names the file, line and record."""


@dataclass(frozen=True, slots=True)
class Skipped:
    """A source item that was not converted, and why."""

    file: str  # relative to the source folder
    record: str  # the record's id (or line) in that file
    reason: str


@dataclass(frozen=True, slots=True)
class Renamed:
    """An API written under another name: the source's name is no identifier, or it names two
    different definitions (the later ones get a numbered suffix, in reading order)."""

    name: str  # callbank's name
    source: str  # the name in the source
    file: str
    record: str
    reason: str


@dataclass(frozen=True, slots=True)
class Where:
    """A place in the source: its file (relative to SRC), line and record id."""

    file: str
    line: int
    record: str

    def origin(self, peer: str, name: str | None = None) -> dict[str, Any]:
        """The ``origin`` mapping of a case or spec converted from here."""
        data: dict[str, Any] = {"peer": peer, "file": self.file, "line": self.line, "record": self.record}
        if name is not None:
            data["name"] = name
        return data

    def __str__(self) -> str:
        return f"{self.file}:{self.line} ({self.record})"


# ----------------------------------------------------------------------------- reading


def read_json_lines(src: Path, relative: str) -> Iterator[tuple[int, Any]]:
    """(line number, value) of every non-blank line of a JSON Lines file (the peers' ``.json``)."""
    path = src / relative
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SourceError(f"{path}: cannot be read as UTF-8 text ({error})") from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line, parse_constant=_no_constant)
        except json.JSONDecodeError as error:
            raise SourceError(f"{path}:{number}: not a JSON record ({error.msg} at column {error.colno}); each line holds one record") from None


def _no_constant(name: str) -> Any:
    raise json.JSONDecodeError(f"{name} is not a JSON value", name, 0)


def require(record: Any, keys: Mapping[str, type | tuple[type, ...]], src: Path, where: Where) -> dict[str, Any]:
    """The record, refused (SourceError) unless it is an object with these keys of these types."""
    if not isinstance(record, dict):
        raise SourceError(f"{src / where.file}:{where.line}: a record is a JSON object, not {type(record).__name__}")
    for key, kinds in keys.items():
        if key not in record:
            raise SourceError(f"{src / where.file}:{where.line} ({where.record}): the record has no {key!r}")
        if not isinstance(record[key], kinds):
            names = " or ".join(k.__name__ for k in (kinds if isinstance(kinds, tuple) else (kinds,)))
            raise SourceError(f"{src / where.file}:{where.line} ({where.record}): {key!r} is a {type(record[key]).__name__}, not a {names}")
    return record


def record_id(record: Any, line: int) -> str:
    """A record's id for messages: its ``id`` when it has one, else its line."""
    if isinstance(record, dict) and isinstance(record.get("id"), str | int):
        return str(record["id"])
    return f"line {line}"


# ----------------------------------------------------------------------------- names

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NOT_NAME = re.compile(r"[^a-z0-9]+")


def api_identifier(name: str) -> str:
    """callbank's spelling of an API name: a lower-case identifier (``[a-z][a-z0-9_]*``).

    Case boundaries become underscores (``getWeather`` → ``get_weather``, ``HTTPRequest`` →
    ``http_request``), every other character that is no letter or digit one underscore
    (``math.factorial`` → ``math_factorial``); a name that would start with a digit or be
    empty gets ``api_`` in front.
    """
    spaced = _CAMEL.sub("_", name)
    cleaned = _NOT_NAME.sub("_", spaced.lower()).strip("_")
    return cleaned if cleaned and cleaned[0].isalpha() else "api_" + cleaned


def case_identifier(text: str) -> str:
    """callbank's spelling of a case id: lower-case words joined by hyphens."""
    cleaned = _NOT_NAME.sub("-", text.lower()).strip("-")
    return cleaned or "case"


class ApiNames:
    """Names for the APIs of one repository, made unique in reading order.

    The first definition read under a source name gets the name's identifier; a different
    definition under the same name (or one whose identifier another name already took) gets
    ``_2``, ``_3`` … — so the same source files always give the same names. Identical
    definitions share one spec.
    """

    def __init__(self) -> None:
        self._by_definition: dict[tuple[str, str], str] = {}
        self._taken: set[str] = set()
        self.renamed: list[Renamed] = []

    def name(self, source: str, definition: Any, where: Where, reserved: frozenset[str] = frozenset()) -> tuple[str, bool]:
        """(callbank name, whether this definition is new) for an API read at where."""
        key = (source, canonical_json(definition))
        known = self._by_definition.get(key)
        if known is not None:
            return known, False
        base = api_identifier(source)
        unspellable = base == "api_"  # no Latin letter or digit (a Chinese name): numbered from 1
        if unspellable:
            base = "api"
        name, number = (f"{base}_1", 1) if unspellable else (base, 1)
        while name in self._taken or name in reserved:
            number += 1
            name = f"{base}_{number}"
        self._taken.add(name)
        self._by_definition[key] = name
        if name != source:
            if unspellable:
                reason = "has no Latin letter or digit to spell an identifier with; numbered in reading order"
            elif number > 1:
                reason = f"{base!r} already names a different definition read earlier"
            else:
                reason = "not a lower-case identifier"
            self.renamed.append(Renamed(name, source, where.file, where.record, reason))
        return name, True


# ----------------------------------------------------------------------------- schemas


def localized(text: Any, lang: str) -> Any:
    """A description as callbank writes it (``{en: text}``); anything but a string is kept."""
    return {lang: text} if isinstance(text, str) else text


def convert_property(schema: Any, lang: str, types: Mapping[str, str]) -> Any:
    """A peer's parameter schema in callbank's shape: descriptions per language, and the type
    names the peer documents as its own vocabulary (``types``: BFCL's ``dict`` → ``object``)
    translated; everything else — unknown keywords, types outside the vocabulary, missing
    ``items`` — as the source has it."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "description":
            out[key] = localized(value, lang)
        elif key == "type" and isinstance(value, str) and value in types:
            out[key] = types[value]
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: convert_property(sub, lang, types) for name, sub in value.items()}
        elif key == "items":
            out[key] = convert_property(value, lang, types)
        else:
            out[key] = value
    return out


def convert_parameters(parameters: Any, lang: str, types: Mapping[str, str]) -> dict[str, Any]:
    """The ``parameters`` of a spec from a peer's function parameters.

    The envelope is callbank's (``type: object``, ``additionalProperties: false``: a call may
    pass only the declared parameters — the peers' scorers reject unknown ones too); the
    peer's ``properties`` and ``required`` go in as they are, any other top-level key too.
    """
    source = parameters if isinstance(parameters, dict) else {}
    out: dict[str, Any] = {"type": "object"}
    properties = source.get("properties", {})
    out["properties"] = {name: convert_property(sub, lang, types) for name, sub in properties.items()} if isinstance(properties, dict) else properties
    for key, value in source.items():
        if key not in ("type", "properties", "additionalProperties"):
            out[key] = value
    out["additionalProperties"] = False
    return out


# ----------------------------------------------------------------------------- the output


@dataclass
class Repository:
    """One callbank repository an import writes: a language set of the source."""

    peer: str
    lang: str
    folder: str  # relative to --out: "" (the repository is --out itself) or "en" / "zh"
    ignore: tuple[str, ...]
    specs: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> document
    cases: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> document
    extra_files: dict[str, str] = field(default_factory=dict)  # path -> text (a sandbox copied in)
    skipped: list[Skipped] = field(default_factory=list)
    caveats: list[Skipped] = field(default_factory=list)  # converted, with something the source says that callbank drops
    names: ApiNames = field(default_factory=ApiNames)
    read: Counter[str] = field(default_factory=Counter)  # source file -> records read
    converted: Counter[str] = field(default_factory=Counter)  # source file -> cases written
    categories: Counter[str] = field(default_factory=Counter)  # callbank category -> cases
    notes: list[str] = field(default_factory=list)  # what the import does with the source as a whole

    def skip(self, where: Where, reason: str) -> None:
        self.skipped.append(Skipped(where.file, where.record, reason))

    def caveat(self, where: Where, note: str) -> None:
        self.caveats.append(Skipped(where.file, where.record, note))

    def add_spec(self, source_name: str, document: dict[str, Any], where: Where, reserved: frozenset[str] = frozenset()) -> str:
        """The callbank name of an API (its spec written the first time this definition is read)."""
        definition = {key: value for key, value in document.items() if key not in ("name", "origin")}
        name, new = self.names.name(source_name, definition, where, reserved)
        if new:
            self.specs[name] = {"name": name, **definition, "origin": where.origin(self.peer, source_name)}
        return name

    def add_case(self, identifier: str, category: str, document: dict[str, Any], where: Where) -> str:
        """Record a converted case (its id made unique in reading order); returns the id."""
        case_id, number = identifier, 1
        while case_id in self.cases:
            number += 1
            case_id = f"{identifier}-{number}"
        self.cases[case_id] = {"id": case_id, "category": category, **document, "origin": where.origin(self.peer)}
        self.converted[where.file] += 1
        self.categories[category] += 1
        return case_id

    @property
    def renamed(self) -> list[Renamed]:
        return self.names.renamed


@dataclass
class Imported:
    """Everything an import produced: one repository per language set of the source."""

    peer: str
    repositories: list[Repository]
