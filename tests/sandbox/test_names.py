"""Names as data: the state's `names` declaration, and the Sandbox helpers that resolve through it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.sandbox.toy import STATE, write_toy_repo
from validator.corpus.index import Corpus
from validator.sandbox.base import Sandbox
from validator.sandbox.names import KEY_FIELD, NameKind, declaration_problems, name_kinds, names_of, rows
from validator.sandbox.runtime import Runtime

STATE_WITH_NAMES: dict[str, Any] = {
    "sandbox": "demo",
    "clock": "2024-05-06T09:00:00+08:00",
    "counters": {},
    "names": {
        "city": {"table": "cities", "fields": [KEY_FIELD, "name", "aliases"]},
        "doctor": {"table": "doctors", "fields": ["name", "aliases"]},
        "track": {"table": "tracks", "fields": ["title"]},
    },
    "data": {
        "cities": {"HGH": {"name": "Hangzhou", "aliases": ["杭州", "HZ", ""]}, "PEK": {"name": "Beijing", "aliases": ["北京"]}},
        "doctors": [{"name": "Fang Yu", "aliases": ["方雨"]}, "not a record", {"name": "Yuan Hao", "aliases": []}],
        "tracks": {"T-1": {"title": {"en": "Paper Lanterns", "zh": "纸灯笼"}}},
    },
}


def _doctor_fold(text: str) -> str:
    text = text.strip().casefold().removeprefix("dr.").strip()
    return text.removesuffix("医生")


class Demo(Sandbox):
    name = "demo"
    name_folds: ClassVar[dict[str, Any]] = {"doctor": _doctor_fold}


def demo() -> Demo:
    return Demo(json.loads(json.dumps(STATE_WITH_NAMES)))


def test_a_declaration_reads_each_kind() -> None:
    kinds = name_kinds(STATE_WITH_NAMES)
    assert kinds["city"] == NameKind("city", "cities", (KEY_FIELD, "name", "aliases"))
    assert name_kinds({"data": {}}) == {}


def test_names_of_a_record_come_from_strings_lists_mappings_and_the_key() -> None:
    kinds = name_kinds(STATE_WITH_NAMES)
    cities = dict(rows(STATE_WITH_NAMES["data"], kinds["city"]))
    assert names_of(kinds["city"], "HGH", cities["HGH"]) == ("HGH", "Hangzhou", "杭州", "HZ")  # empty names dropped
    tracks = dict(rows(STATE_WITH_NAMES["data"], kinds["track"]))
    assert names_of(kinds["track"], "T-1", tracks["T-1"]) == ("Paper Lanterns", "纸灯笼")


def test_rows_of_a_list_table_are_its_records_by_position() -> None:
    kinds = name_kinds(STATE_WITH_NAMES)
    assert [key for key, _ in rows(STATE_WITH_NAMES["data"], kinds["doctor"])] == [0, 2]  # the string is no record


def test_the_sandbox_resolves_names_through_the_declaration() -> None:
    sandbox = demo()
    assert sandbox.find_named("city", " hangzhou ") == ("HGH", STATE_WITH_NAMES["data"]["cities"]["HGH"])
    assert sandbox.find_named("city", "杭州") is not None and sandbox.find_named("city", "hgh") is not None
    assert sandbox.find_named("city", "Hang") is None  # names are whole, never substrings
    assert sandbox.find_named("city", "") is None


def test_a_kind_may_fold_names_its_own_way() -> None:
    sandbox = demo()
    found = sandbox.find_named("doctor", "Dr. Fang Yu")
    assert found is not None and found[0] == 0
    assert sandbox.find_named("doctor", "方雨医生") == found
    assert sandbox.find_named("city", "Dr. Hangzhou") is None  # the doctor's fold is the doctor's only


def test_a_record_added_during_a_run_is_resolved_too() -> None:
    sandbox = demo()
    sandbox.data["cities"]["CTU"] = {"name": "Chengdu", "aliases": ["成都"]}
    assert sandbox.records_named("city", "成都") == [("CTU", {"name": "Chengdu", "aliases": ["成都"]})]


def test_an_undeclared_kind_is_a_sandbox_bug_with_a_clear_message() -> None:
    with pytest.raises(LookupError, match="declares no names of kind 'contact'"):
        demo().find_named("contact", "Mom")


@pytest.mark.parametrize(
    ("names", "problem"),
    [
        ({"city": {"table": "towns", "fields": ["name"]}}, "data has no table 'towns'"),
        ({"doctor": {"table": "doctors", "fields": [KEY_FIELD]}}, "'doctors' is a list"),
    ],
)
def test_a_declaration_that_does_not_fit_the_data_is_reported(names: dict[str, Any], problem: str) -> None:
    assert any(problem in found for found in declaration_problems({**STATE_WITH_NAMES, "names": names}))
    assert list(declaration_problems(STATE_WITH_NAMES)) == []


def test_a_state_whose_names_do_not_fit_cannot_be_loaded(tmp_path: Path) -> None:
    """The runtime refuses the sandbox (rule EXE004 reports it) rather than failing on first use."""
    root = write_toy_repo(tmp_path)
    state = {**STATE, "names": {"entry": {"table": "entries", "fields": ["name"]}}}
    (root / "sandboxes" / "toy" / "state.yaml").write_text(json.dumps(state), encoding="utf-8")
    runtime = Runtime.from_corpus(Corpus.load(root))
    assert "toy" not in runtime.classes
    assert "names.entry: data has no table 'entries'" in runtime.load_errors["toy"].message
