"""Recorded tool results recomputed: the values EXE017 asks for, as data a fixer can write back."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

from tests.fixture_repos import REPOS, materialise
from validator import engine
from validator.corpus.index import Corpus
from validator.regenerate import stale_tool_results


def _set(data: Any, pointer: str, value: Any) -> None:
    *parents, last = [int(p) if p.isdigit() else p for p in pointer.strip("/").split("/")]
    for part in parents:
        data = data[part]
    data[last] = value


def test_each_stale_result_comes_with_the_value_that_clears_exe017(tmp_path: Path) -> None:
    root = materialise("EXE017", "fail", tmp_path)
    stale = stale_tool_results(Corpus.load(root))
    assert [(s.path, s.pointer, s.api) for s in stale] == [
        ("dialogues/normal/multi_turn/adjust/adjust-0001.yaml", "/en/turns/2/tool/0/result", "get_weather")
    ]
    assert stale[0].recorded == {"city": "Hangzhou", "forecast": [{"day": 1, "high": 30}]}
    assert stale[0].actual == {"city": "Hangzhou", "forecast": [{"day": 1, "high": 24}]}
    for entry in stale:  # what a fixer does, minus keeping the layout
        path = root / entry.path
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text)
        _set(data, entry.pointer, entry.actual)
        header = text.splitlines()[0]  # the schema line
        path.write_text(header + "\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    assert [d.code for d in engine.validate(root)] == []
    assert stale_tool_results(Corpus.load(root)) == []


def test_only_the_selected_files_are_executed(tmp_path: Path) -> None:
    root = materialise("EXE017", "fail", tmp_path)
    assert stale_tool_results(Corpus.load(root), ["dialogues/normal/single_turn/single/single-0001.yaml"]) == []


def test_adding_an_api_leaves_every_recorded_result_as_it_was(tmp_path: Path) -> None:
    """Search results are never recorded, so a new spec cannot make a file nobody touched stale."""
    root = tmp_path / "repo"
    shutil.copytree(REPOS / "retrieval", root)
    assert stale_tool_results(Corpus.load(root)) == [] and engine.validate(root) == []
    (root / "specs" / "mini" / "get_air_quality.yaml").write_text(
        "# yaml-language-server: $schema=../../schemas/api.schema.json\nname: get_air_quality\ndomain: mini.weather\nspec_only: true\n"
        "description: {en: Air quality index of a city today., zh: 查询某个城市今天的空气质量指数。}\n"
        "parameters: {type: object, properties: {city: {type: string, description: {en: City name., zh: 城市名称。}}}, required: [city], additionalProperties: false}\n"
        "returns: {type: object}\n",
        encoding="utf-8",
    )
    assert stale_tool_results(Corpus.load(root)) == [] and engine.validate(root) == []
