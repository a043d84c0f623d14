"""Scenario rules on the new fields: calls inside `one_of` lists, facts, `compare.match`.

Each test writes one scenario into a copy of the minimal repository and checks it, so the rules
are seen exactly as `callbank check` and `callbank validate` report them.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import yaml

from tests.fixture_repos import REPOS
from validator import engine
from validator.rules.scenarios import scenario_calls

BASE: dict[str, Any] = {
    "id": "mini-0001",
    "mode": "multi_step",
    "sandboxes": ["mini"],
    "time": "2024-05-06T09:00:00+08:00",
    "user": {
        "en": {"goal": "Leave Li Na a note.", "script": ["Leave Li Na the note \"Lunch at noon\"."]},
        "zh": {"goal": "给李娜留言。", "script": ["给李娜留言“中午一起吃饭”。"]},
    },
    "reference_calls": [{"api": "send_note", "args": {"to": "Li Na", "text": {"$lang": {"en": "Lunch at noon", "zh": "中午一起吃饭"}}}}],
    "milestones": [{"id": "m1", "api": "send_note", "args": {"to": "Li Na"}}],
    "minefields": [{"api": "send_note", "args": {"urgent": True}}],
    "compare": {"text": ["mini.notes.*.text"]},
    "outputs": [{"phrase": {"en": ["sent", "left"], "zh": ["已发", "留好"]}}],
}


def findings(tmp_path: Path, scenario: dict[str, Any], *, execute: bool = False) -> list[tuple[str, str]]:
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    shutil.copytree(REPOS / "minimal", root, dirs_exist_ok=True)
    path = root / "sandboxes" / "mini" / "scenarios" / "mini-0001.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# yaml-language-server: $schema=../../../schemas/scenario.schema.json\n" + yaml.safe_dump(scenario, allow_unicode=True, sort_keys=False))
    diagnostics = engine.validate(root) if execute else engine.check(root)
    return sorted((d.code, d.message) for d in diagnostics)


def test_the_base_scenario_is_clean(tmp_path: Path) -> None:
    assert findings(tmp_path, BASE, execute=True) == []


def test_calls_inside_one_of_lists_are_checked_like_any_call(tmp_path: Path) -> None:
    scenario = {**BASE, "milestones": [{"id": "m1", "one_of": [[{"api": "send_note", "args": {"too": "Li Na"}}], [{"api": "get_wether"}]]}]}
    found = findings(tmp_path, scenario)
    assert [code for code, _ in found] == ["REF001", "SBX004"]
    assert "send_note has no parameter 'too'" in found[1][1]


def test_a_one_of_milestone_the_reference_calls_reach_by_either_list_is_clean(tmp_path: Path) -> None:
    lists = [[{"api": "get_weather"}, {"api": "send_note"}], [{"api": "send_note", "args": {"to": "Li Na"}}]]
    assert findings(tmp_path, {**BASE, "milestones": [{"id": "m1", "one_of": lists}]}, execute=True) == []
    unreached = {**BASE, "milestones": [{"id": "m1", "one_of": [[{"api": "get_weather"}], [{"api": "send_note", "args": {"to": "Wang Fang"}}]]}]}
    assert [code for code, _ in findings(tmp_path, unreached, execute=True)] == ["EXE010"]


def test_a_milestone_has_either_api_or_one_of(tmp_path: Path) -> None:
    both = {**BASE, "milestones": [{"id": "m1", "api": "send_note", "one_of": [[{"api": "send_note"}], [{"api": "get_weather"}]]}]}
    assert {code for code, _ in findings(tmp_path, both)} == {"SCH010"}
    single = {**BASE, "milestones": [{"id": "m1", "one_of": [[{"api": "send_note"}]]}]}
    assert {code for code, _ in findings(tmp_path, single)} == {"SCH010"}


def test_malformed_compare_matchers_are_found(tmp_path: Path) -> None:
    scenario = {**BASE, "compare": {"match": {"mini.notes.*.text": {"$contains": "Lunch"}}}}
    assert [code for code, _ in findings(tmp_path, scenario)] == ["SBX004"]


def test_facts_in_confirmations_are_checked_too(tmp_path: Path) -> None:
    milestone = {"id": "m1", "api": "send_note", "confirmed": [{"number": 1, "unit": "notes"}, {"phrase": {"en": ["The note was left for Li Na at noon"], "zh": ["已发"]}}]}
    scenario = {**BASE, "mode": "multi_turn", "milestones": [milestone]}
    scenario["user"] = {lang: {**side, "script": [*side["script"], "Yes." if lang == "en" else "好。"]} for lang, side in BASE["user"].items()}
    assert [code for code, _ in findings(tmp_path, scenario)] == ["SBX006", "SBX009"]


def test_scenario_calls_walks_every_pattern_with_its_pointer() -> None:
    data = {
        "reference_calls": [{"api": "a"}],
        "milestones": [{"id": "m", "api": "b"}, {"id": "n", "one_of": [[{"api": "c"}, {"api": "d"}], [{"api": "e"}]]}],
        "minefields": [{"api": "f"}],
    }
    assert [(key, call["api"], pointer) for key, call, pointer in scenario_calls(data)] == [
        ("reference_calls", "a", "/reference_calls/0"),
        ("milestones", "b", "/milestones/0"),
        ("milestones", "c", "/milestones/1/one_of/0/0"),
        ("milestones", "d", "/milestones/1/one_of/0/1"),
        ("milestones", "e", "/milestones/1/one_of/1/0"),
        ("minefields", "f", "/minefields/0"),
    ]
