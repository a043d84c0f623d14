"""Mechanical fixes written back with minimal diffs: the value's own text changes, nothing else."""

from __future__ import annotations

import yaml

from validator.fixer import Fix, apply_fixes, narrowed

TEXT = """\
# yaml-language-server: $schema=../../../../schemas/case.schema.json
id: adjust-0001   # a comment on the id stays
en:
  turns:
    - tool:
        - {api: get_weather, result: {city: Hangzhou, forecast: [{day: 1, high: 30}]}}   # flow, with a comment
        - api: list_notes
          result:
            # the block result's own comment goes with the value it described
            - {id: N-1, title: Old}
          note: kept
    - assistant: Up to 24 °C today.
"""


def test_a_flow_value_is_replaced_in_place_and_everything_else_is_byte_identical() -> None:
    fixed = apply_fixes(TEXT, [Fix("x.yaml", "/en/turns/0/tool/0/result", {"city": "Hangzhou", "forecast": [{"day": 1, "high": 24}]})])
    old_lines, new_lines = TEXT.splitlines(), fixed.splitlines()
    changed = [(a, b) for a, b in zip(old_lines, new_lines, strict=True) if a != b]
    assert changed == [(old_lines[5], "        - {api: get_weather, result: {city: Hangzhou, forecast: [{day: 1, high: 24}]}}   # flow, with a comment")]


def test_a_block_value_stays_a_block_at_its_indentation() -> None:
    new = [{"id": "N-1", "title": "Old"}, {"id": "N-2", "title": "Groceries", "done": "N"}]
    fixed = apply_fixes(TEXT, [Fix("x.yaml", "/en/turns/0/tool/1/result", new)])
    assert yaml.safe_load(fixed)["en"]["turns"][0]["tool"][1] == {"api": "list_notes", "result": new, "note": "kept"}
    assert "          note: kept\n" in fixed and "# a comment on the id stays" in fixed
    assert "done: 'N'" in fixed  # a YAML 1.1 boolean spelling stays a string (SCH005)
    assert fixed.count("\n") == TEXT.count("\n") + 1  # one line more: the second item's second key


def test_several_fixes_in_one_file_and_a_pointer_that_names_nothing() -> None:
    import pytest

    from validator.errors import UserError

    fixed = apply_fixes(TEXT, [Fix("x.yaml", "/en/turns/0/tool/0/result/city", "杭州"), Fix("x.yaml", "/en/turns/1/assistant", "Up to 25 °C today.")])
    data = yaml.safe_load(fixed)
    assert data["en"]["turns"][0]["tool"][0]["result"]["city"] == "杭州" and data["en"]["turns"][1]["assistant"] == "Up to 25 °C today."
    with pytest.raises(UserError, match="no value at /en/turns/7"):
        apply_fixes(TEXT, [Fix("x.yaml", "/en/turns/7", 1)])


def test_a_changed_result_is_narrowed_to_the_fields_that_changed() -> None:
    old = {"booking_id": "B-1", "time": "2024-07-18T19:00", "guests": [{"name": "Li"}, {"name": "Wu"}]}
    new = {"booking_id": "B-1", "time": "2024-07-23T19:00", "guests": [{"name": "Li"}, {"name": "Wang"}]}
    assert narrowed("x.yaml", "/en/turns/2/tool/0/result", old, new) == [
        Fix("x.yaml", "/en/turns/2/tool/0/result/time", "2024-07-23T19:00"),
        Fix("x.yaml", "/en/turns/2/tool/0/result/guests/1/name", "Wang"),
    ]
    # keys or lengths that differ, or a type that changes (1 → 1.0), replace the value whole
    assert narrowed("x.yaml", "/r", {"a": 1}, {"a": 1, "b": 2}) == [Fix("x.yaml", "/r", {"a": 1, "b": 2})]
    assert narrowed("x.yaml", "/r", [1], [1, 2]) == [Fix("x.yaml", "/r", [1, 2])]
    assert narrowed("x.yaml", "/r", {"a": 1}, {"a": 1.0}) == [Fix("x.yaml", "/r/a", 1.0)]
    assert narrowed("x.yaml", "/r", {"a": [1]}, {"a": [1]}) == []


def test_a_quoted_string_keeps_its_quotes() -> None:
    text = "a: {time: \"2024-07-18T19:00\", day: '2024-07-18', plain: x}\n"
    fixed = apply_fixes(text, [Fix("x.yaml", "/a/time", "2024-07-23T19:00"), Fix("x.yaml", "/a/day", "it's 23"), Fix("x.yaml", "/a/plain", "2024-07-23")])
    assert fixed == "a: {time: \"2024-07-23T19:00\", day: 'it''s 23', plain: '2024-07-23'}\n"
    assert yaml.safe_load(fixed) == {"a": {"time": "2024-07-23T19:00", "day": "it's 23", "plain": "2024-07-23"}}
