"""The names a sandbox resolves to one entity, declared as data in its ``state.yaml``.

A sandbox accepts several names for one thing: the saved place ``Work`` is also ``office``,
``公司`` and ``单位``; a contact is ``Mom``, ``Mum`` and ``妈妈``; a city is ``Xi'an`` and ``西安``.
Those names are data (lists in the state's records); which fields of which table hold them is
declared once, beside the data, under ``names``::

    names:
      saved_place: {table: saved_places, fields: [label, aliases]}
      place: {table: places, fields: [name, name_zh, aliases]}
      city: {table: cities, fields: [$key, name_zh]}

A *kind* (``saved_place``) names a table of ``data`` — a mapping of records by key, or a list of
records — and the fields of a record whose values name it: a string, a list of strings, or a
mapping of strings (``{en: …, zh: …}``); ``$key`` is the record's key in a mapping. Identifiers
(place ids, emails) are not names: a sandbox resolves them as identifiers, and answers may keep
them exact.

The sandbox resolves names only through this declaration (:class:`validator.sandbox.base.Sandbox`
``find_named``), and rule EXE021 reads the same declaration to know which values an answer must
accept as one: the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

KEY_FIELD = "$key"

Key = str | int  # a record's key in a mapping table, or its index in a list table


@dataclass(frozen=True, slots=True)
class NameKind:
    """One declared kind of name: which table, which fields of its records."""

    kind: str
    table: str
    fields: tuple[str, ...]


def name_kinds(state: Mapping[str, Any]) -> dict[str, NameKind]:
    """The kinds a state declares (none when it has no ``names``)."""
    declared = state.get("names") or {}
    return {kind: NameKind(kind, str(spec["table"]), tuple(str(f) for f in spec["fields"])) for kind, spec in declared.items()}


def rows(data: Mapping[str, Any], kind: NameKind) -> Iterator[tuple[Key, dict[str, Any]]]:
    """(key, record) of every record of the kind's table, in the table's order."""
    table = data.get(kind.table)
    pairs: Any = table.items() if isinstance(table, dict) else enumerate(table) if isinstance(table, list) else ()
    for key, record in pairs:
        if isinstance(record, dict):
            yield key, record


def names_of(kind: NameKind, key: Key, record: Mapping[str, Any]) -> tuple[str, ...]:
    """Every name of one record, in declaration order, each once."""
    found: list[str] = []
    for field in kind.fields:
        found.extend(_strings(key if field == KEY_FIELD else record.get(field)))
    return tuple(dict.fromkeys(name for name in found if name.strip()))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    if isinstance(value, dict):
        return [item for item in value.values() if isinstance(item, str)]
    return []


def fold_name(text: str) -> str:
    """How names compare unless a sandbox says otherwise: outer spaces trimmed, case folded."""
    return text.strip().casefold()


def declaration_problems(state: Mapping[str, Any]) -> Iterator[str]:
    """What keeps a state's ``names`` from describing its data (the shape is the schema's job)."""
    data = state.get("data")
    declared = state.get("names")
    if not isinstance(declared, dict) or not isinstance(data, dict):
        return
    for kind, spec in declared.items():
        if not isinstance(spec, dict):
            continue
        table = data.get(spec.get("table"))
        if not isinstance(table, (dict, list)):
            yield f"names.{kind}: data has no table {spec.get('table')!r} (a mapping or a list of records)"
        elif isinstance(table, list) and KEY_FIELD in (spec.get("fields") or []):
            yield f"names.{kind}: {KEY_FIELD} names a record by its key, but {spec.get('table')!r} is a list"
