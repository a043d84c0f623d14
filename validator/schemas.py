"""The JSON Schemas of every document kind, compiled once per run with jsonschema-rs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema_rs

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


class SchemaSet:
    """Compiled validators by document kind."""

    def __init__(self, root: Path | None = None) -> None:
        self.directory = schemas_dir(root)
        common = json.loads((self.directory / COMMON).read_text(encoding="utf-8"))
        self._registry = jsonschema_rs.Registry([(BASE_URI + COMMON, common)])
        self._validators: dict[str, Any] = {}

    def kinds(self) -> tuple[str, ...]:
        return tuple(SCHEMA_FILES)

    def validator(self, kind: str) -> Any:
        if kind not in self._validators:
            schema = json.loads((self.directory / SCHEMA_FILES[kind]).read_text(encoding="utf-8"))
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
