"""The schemas themselves are valid draft 2020-12 schemas, and every kind has one."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from validator.schemas import COMMON, PREDICTIONS, SCHEMA_FILES, SchemaSet

SCHEMAS = Path(__file__).parents[1] / "schemas"


@pytest.mark.parametrize("name", sorted([*SCHEMA_FILES.values(), COMMON, PREDICTIONS]))
def test_schema_is_valid_against_the_2020_12_meta_schema(name: str) -> None:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_every_schema_file_is_used() -> None:
    assert {p.name for p in SCHEMAS.glob("*.schema.json")} == {*SCHEMA_FILES.values(), COMMON, PREDICTIONS}


def test_schema_set_reports_pointer_of_violation() -> None:
    errors = SchemaSet().errors("state", {"sandbox": "phone", "clock": "noon", "counters": {}, "data": {}})
    assert [pointer for _, pointer in errors] == ["/clock"]


@pytest.mark.parametrize(
    ("scenario_id", "valid"),
    [("phone-0001", True), ("smart_home-0001", True), ("smart_home_x-0001", True), ("smart__home-0001", False), ("_home-0001", False), ("home-_0001", False), ("Home-0001", False)],
)
def test_scenario_ids_may_start_with_a_folder_name_holding_underscores(scenario_id: str, valid: bool) -> None:
    pointers = [pointer for _, pointer in SchemaSet().errors("scenario", {"id": scenario_id})]
    assert ("/id" not in pointers) is valid
