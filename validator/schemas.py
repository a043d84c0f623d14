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
from typing import Any, NamedTuple

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


class Violation(NamedTuple):
    message: str
    pointer: str  # JSON pointer of the offending value
    allowed: tuple[str, ...]  # an `enum`'s values, complete (jsonschema_rs names two "or N other candidates")


def allowed_values(error: Any) -> tuple[str, ...]:
    """Every value an ``enum`` violation (a jsonschema_rs error) allows; () for other errors."""
    options = getattr(error.kind, "options", None) if type(error.kind).__name__ == "Enum" else None
    return tuple(option if isinstance(option, str) else json.dumps(option, ensure_ascii=False) for option in options or ())


def error_message(error: Any, noun: str = "an allowed value") -> str:
    """jsonschema_rs's message, with an enum's values listed in full (it names two, then "or N
    other candidates")."""
    allowed = allowed_values(error)
    if not allowed:
        return str(error.message)
    return f"{json.dumps(error.instance, ensure_ascii=False)} is not {noun}; the allowed values are {', '.join(allowed)}"


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
        return [(violation.message, violation.pointer) for violation in self.violations(kind, data)]

    def violations(self, kind: str, data: Any) -> list[Violation]:
        """Every violation with the allowed values where the schema lists them; empty when valid."""
        validator = self.validator(kind)
        if validator.is_valid(data):
            return []
        found = []
        for error in validator.iter_errors(data):
            pointer = "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in error.instance_path)
            message = error_message(error, "a category" if pointer == "/category" else "an allowed value")
            found.append(Violation(message, pointer, allowed_values(error)))
        return found


def load_predictions_schema() -> dict[str, Any]:
    """The schema of a prediction record (docs/predictions.md), as shipped with the package."""
    schema: dict[str, Any] = json.loads((schemas_dir() / PREDICTIONS).read_text(encoding="utf-8"))
    return schema


def schema_comment_target(path: str, kind: str) -> str:
    """The `$schema=` target a file at path must name: the relative path to its schema."""
    depth = path.count("/")
    return "../" * depth + "schemas/" + SCHEMA_FILES[kind]
