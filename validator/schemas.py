"""The JSON Schemas of every document kind, compiled once per run with jsonschema-rs.

The schemas are written for callbank's two languages. A repository whose settings name fewer
(``callbank.yaml``, ``validator.corpus.config``) gets them specialised: every object schema
whose properties are the languages (a case's sides, a bilingual text, a scenario's user) keeps
only the repository's, so an English-only repository's cases have an ``en`` side and nothing
else, and its descriptions are ``{en: …}``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema_rs

from validator.corpus.langs import LANGS as ALL_LANGS  # the languages the schemas are written for

SCHEMA_FILES = {
    "api": "api.schema.json",
    "case": "case.schema.json",
    "scenario": "scenario.schema.json",
    "state": "state.schema.json",
    "judges": "judges.schema.json",
    "review-record": "review-record.schema.json",
}
COMMON = "common.schema.json"
PREDICTIONS = "predictions.schema.json"  # not a corpus document: a line of a predictions file
BASE_URI = "https://callbank.dev/schemas/"


def schemas_dir(root: Path | None = None) -> Path:
    """The repository's own schemas/ when it has one, else the copy shipped with the package."""
    if root is not None and (root / "schemas" / COMMON).is_file():
        return root / "schemas"
    package = Path(__file__).resolve().parent
    shipped = package / "schemas"
    return shipped if shipped.is_dir() else package.parent / "schemas"


def specialise(schema: Any, langs: Sequence[str]) -> Any:
    """The schema with every language-keyed object narrowed to langs (a copy; the input is kept)."""
    if isinstance(schema, list):
        return [specialise(item, langs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: specialise(value, langs) for key, value in schema.items()}
    properties = out.get("properties")
    if isinstance(properties, dict) and all(lang in properties for lang in ALL_LANGS):
        dropped = [lang for lang in ALL_LANGS if lang not in langs]
        out["properties"] = {key: value for key, value in properties.items() if key not in dropped}
        if isinstance(out.get("required"), list):
            out["required"] = [key for key in out["required"] if key not in dropped]
    return out


class SchemaSet:
    """Compiled validators by document kind, for the repository's languages."""

    def __init__(self, root: Path | None = None, langs: Sequence[str] = ALL_LANGS) -> None:
        self.directory = schemas_dir(root)
        self.langs = tuple(langs)
        common = self._read(COMMON)
        self._registry = jsonschema_rs.Registry([(BASE_URI + COMMON, common)])
        self._validators: dict[str, Any] = {}

    def _read(self, name: str) -> Any:
        schema = json.loads((self.directory / name).read_text(encoding="utf-8"))
        return schema if set(self.langs) == set(ALL_LANGS) else specialise(schema, self.langs)

    def kinds(self) -> tuple[str, ...]:
        return tuple(SCHEMA_FILES)

    def validator(self, kind: str) -> Any:
        if kind not in self._validators:
            schema = self._read(SCHEMA_FILES[kind])
            self._validators[kind] = jsonschema_rs.validator_for(schema, registry=self._registry)
        return self._validators[kind]

    def errors(self, kind: str, data: Any) -> list[tuple[str, str]]:
        """(message, JSON pointer) of every violation; empty when valid."""
        validator = self.validator(kind)
        if validator.is_valid(data):
            return []
        found = []
        for error in validator.iter_errors(data):
            pointer = "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in error.instance_path)
            found.append((error.message, pointer))
        return found


def load_predictions_schema() -> dict[str, Any]:
    """The schema of a prediction record (docs/predictions.md), as shipped with the package."""
    schema: dict[str, Any] = json.loads((schemas_dir() / PREDICTIONS).read_text(encoding="utf-8"))
    return schema


def schema_comment_target(path: str, kind: str) -> str:
    """The `$schema=` target a file at path must name: the relative path to its schema."""
    depth = path.count("/")
    return "../" * depth + "schemas/" + SCHEMA_FILES[kind]
