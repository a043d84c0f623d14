"""What rules may know beyond their own document: the spec index, ids, sandboxes, schemas."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validator.schemas import SchemaSet


@dataclass(frozen=True)
class Context:
    root: Path
    specs: dict[str, dict[str, Any]]  # API name -> spec data (first file when names repeat)
    spec_paths: dict[str, list[str]]  # API name -> every file declaring it
    id_paths: dict[str, list[str]]  # case / scenario id (file stem) -> every file with it
    sandboxes: frozenset[str]  # folder names under sandboxes/
    schemas: SchemaSet
    # stems of spec files that could not be read: references to them are not "unknown APIs"
    unreadable_specs: frozenset[str] = frozenset()
    # compiled per-parameter validators, filled on demand during one run
    validators: dict[tuple[str, str], Any] = field(default_factory=dict)
    # results shared by several rules over one file (e.g. the argument pass), keyed by (topic, path)
    memo: dict[tuple[str, str], Any] = field(default_factory=dict)
