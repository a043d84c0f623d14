"""The engine: finding masking happens after rule selection, and `validate` parses every file once."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.fixture_repos import REPOS, materialise
from validator import engine
from validator.corpus import index
from validator.corpus.index import Corpus


def found(root: Path, **options: Any) -> list[tuple[str, str, int | None, str]]:
    return [(d.code, d.location.path, d.location.line, d.location.pointer) for d in engine.check(root, **options)]


def test_a_specific_finding_hides_the_schema_violation_it_explains(tmp_path: Path) -> None:
    root = materialise("SPC002", "fail", tmp_path)
    assert found(root) == [("SPC002", "specs/mini/get_weather.yaml", 21, "/parameters/properties/days/type")]


@pytest.mark.parametrize("options", [{"ignore": ("SPC002",)}, {"select": ("SCH010",)}])
def test_ignoring_the_specific_rule_brings_back_the_schema_violation(tmp_path: Path, options: dict[str, Any]) -> None:
    root = materialise("SPC002", "fail", tmp_path)
    assert found(root, **options) == [("SCH010", "specs/mini/get_weather.yaml", 21, "/parameters/properties/days/type")]


def test_a_missing_language_side_is_a_required_property_once_dlg001_is_ignored(tmp_path: Path) -> None:
    root = materialise("DLG001", "fail", tmp_path)
    assert [d.code for d in engine.check(root)] == ["DLG001"]
    [diagnostic] = engine.check(root, ignore=("DLG001",))
    assert diagnostic.code == "SCH010" and diagnostic.message.startswith('"zh" is a required property')


def counting_parses(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    parsed: Counter[str] = Counter()
    real = index.load_file

    def counted(root: Path, path: str, kind: str) -> Any:
        parsed[path] += 1
        return real(root, path, kind)

    monkeypatch.setattr(index, "load_file", counted)
    return parsed


ROOT = REPOS / "scoring"  # check-clean, with findings for the exec stage (two stale tool results among them)


def exec_codes() -> list[str]:
    codes = [d.code for d in engine.execute(Corpus.load(ROOT))]
    assert codes.count("EXE017") == 2
    return codes


def test_validate_is_check_then_exec() -> None:
    assert engine.check(ROOT) == []
    expected = engine.execute(Corpus.load(ROOT))
    assert [d.code for d in expected].count("EXE017") == 2
    assert engine.validate(ROOT) == expected


def test_validate_parses_every_file_exactly_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = counting_parses(monkeypatch)
    corpus = Corpus(ROOT)
    expected = exec_codes()
    parsed.clear()
    assert [d.code for d in engine.validate(corpus.root, corpus=corpus)] == expected  # the exec stage ran too
    assert set(parsed) == {p for p, _ in corpus.discovered} and set(parsed.values()) == {1}


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="check only forks workers with two cores or more")
def test_with_workers_the_parent_parses_only_specs_and_states_and_adopts_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 0)
    parsed = counting_parses(monkeypatch)
    corpus = Corpus(ROOT)
    expected = exec_codes()
    parsed.clear()
    assert [d.code for d in engine.validate(corpus.root, corpus=corpus)] == expected
    shared = {p for p, kind in corpus.discovered if kind in engine.SHARED_KINDS}
    assert set(parsed) == shared and set(parsed.values()) == {1}
    assert set(corpus.files) == {p for p, _ in corpus.discovered}  # the workers' documents were adopted
    assert corpus.cases and all(f.record is not None for f in corpus.loaded())


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="exec only forks workers with two cores or more")
def test_exec_in_workers_finds_exactly_what_one_process_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    serial = engine.execute(Corpus.load(ROOT))
    assert [d.code for d in serial].count("EXE017") == 2
    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 0)
    monkeypatch.setattr(engine, "EXEC_CHUNK", 1)  # every file its own work unit, handed out in any order
    assert engine.execute(Corpus.load(ROOT)) == serial
