"""`callbank exec` / `validate`: what execution checks beyond the per-rule fixtures."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.fixture_repos import REPOS, materialise
from validator import engine
from validator.cli import cli
from validator.corpus.build import build_spec
from validator.corpus.index import Corpus
from validator.diagnostics import Diagnostic
from validator.loading import Document
from validator.rules.execution import signature_problems
from validator.sandbox.scan import ISOLATION, scan


def run_exec(root: Path) -> list[Diagnostic]:
    return engine.execute(Corpus.load(root))

ROOT = Path(__file__).resolve().parents[1]

EXTRA_METHODS = '''
    def count_notes(self) -> dict[str, Any]:
        if not self.data["notes"]:
            raise ApiError("no_notes")
        return {"count": len(self.data["notes"])}

    def check_day(self, day: int) -> dict[str, Any]:
        if self.now().day != day:
            raise ApiError("wrong_day")
        return {"day": day}
'''


def _spec(name: str, properties: dict, required: list[str], errors: dict) -> str:
    return json.dumps(
        {
            "name": name,
            "domain": "mini.notes",
            "sandbox": "mini",
            "description": {"en": "x", "zh": "x"},
            "parameters": {"type": "object", "properties": properties, "required": required, "additionalProperties": False},
            "returns": {"type": "object"},
            "errors": errors,
        }
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The minimal fixture repository with two more APIs that read the state and the clock."""
    root = tmp_path / "repo"
    shutil.copytree(REPOS / "minimal", root)
    sandbox = root / "sandboxes" / "mini" / "sandbox.py"
    sandbox.write_text(sandbox.read_text() + EXTRA_METHODS)
    (root / "specs" / "mini" / "count_notes.yaml").write_text(_spec("count_notes", {}, [], {"no_notes": {"en": "No notes.", "zh": "没有留言。"}}))
    day = {"day": {"type": "integer", "description": {"en": "Day.", "zh": "日。"}}}
    (root / "specs" / "mini" / "check_day.yaml").write_text(_spec("check_day", day, ["day"], {"wrong_day": {"en": "Wrong day.", "zh": "日期不对。"}}))
    return root


def _case(root: Path, name: str, body: dict) -> str:
    path = root / "dialogues" / "normal" / "multi_turn" / "adjust" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    apis = ["check_day", "count_notes", "get_weather", "send_note"]
    path.write_text(json.dumps({"id": name, "category": "normal/multi_turn/adjust", "apis": apis, "time": "2024-07-15T09:00:00+08:00", **body}, ensure_ascii=False, indent=1))
    return path.relative_to(root).as_posix()


def _turns(*answers: dict) -> dict:
    turns: list[dict] = []
    for answer in answers:
        turns += [{"user": "…"}, {"expect": answer}]
    return {"en": {"turns": turns}, "zh": {"turns": turns}}


NOTE = {"api": "send_note", "args": {"to": "Li Lei", "text": "Hi"}}
COUNT = {"api": "count_notes", "args": {}}


def _found(root: Path) -> list[tuple[str, str, str]]:
    return [(d.code, d.location.path, d.location.pointer) for d in run_exec(root)]


def test_the_minimal_repository_is_clean(repo: Path) -> None:
    assert run_exec(repo) == []


def test_checkpoints_run_in_order_in_one_session(repo: Path) -> None:
    _case(repo, "carry", _turns({"calls": [NOTE]}, {"calls": [COUNT]}))
    assert _found(repo) == []


def test_a_checkpoint_that_needs_an_earlier_one_fails_alone(repo: Path) -> None:
    path = _case(repo, "alone", _turns({"calls": [COUNT]}))
    assert _found(repo) == [("EXE005", path, "/en/turns/1/expect/calls/0"), ("EXE005", path, "/zh/turns/1/expect/calls/0")]


def test_other_alternatives_run_on_a_copy_and_the_first_carries_on(repo: Path) -> None:
    weather = {"api": "get_weather", "args": {"city": "Atlantis"}}
    path = _case(repo, "alternatives", _turns({"one_of": [{"calls": [NOTE]}, {"calls": [weather]}]}, {"calls": [COUNT]}))
    assert _found(repo) == [("EXE005", path, "/en/turns/1/expect/one_of/1/calls/0"), ("EXE005", path, "/zh/turns/1/expect/one_of/1/calls/0")]


def test_the_case_time_is_the_sandbox_clock(repo: Path) -> None:
    _case(repo, "today", {"time": "2024-06-11T16:00:00+08:00", **_turns({"calls": [{"api": "check_day", "args": {"day": 11}}]})})
    assert _found(repo) == []


def test_the_case_state_patch_applies(repo: Path) -> None:
    patch = {"mini": {"notes": [{"id": "N-0", "to": "x", "text": "y", "urgent": False}]}}
    _case(repo, "patched", {"state": patch, **_turns({"calls": [COUNT]})})
    assert _found(repo) == []


def test_cases_with_an_unrunnable_api_are_skipped(repo: Path) -> None:
    _case(repo, "ghost", _turns({"calls": [{"api": "no_such_api", "args": {}}, COUNT]}))
    assert _found(repo) == []


def test_matchers_are_rendered_before_running(repo: Path) -> None:
    call = {"api": "send_note", "args": {"to": {"$any": ["Li Lei", "李雷"]}, "text": {"$text": "hi"}, "urgent": {"$optional": False}}}
    _case(repo, "matchers", _turns({"calls": [call]}))
    assert _found(repo) == []


# ----------------------------------------------------------------------------- parity


def _problems(source: str, spec: dict) -> list[str]:
    namespace: dict = {}
    exec(source, namespace)
    data = {"name": "f", "domain": "x", "sandbox": "x", "description": {"en": "F.", "zh": "F。"}, "returns": {"type": "object"}, **spec}
    return signature_problems(namespace["f"], build_spec(Document("specs/x/f.yaml", "api", data, "")))


SPEC = {
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "default": "celsius"}, "days": {"type": "integer"}},
        "required": ["city"],
        "additionalProperties": False,
    }
}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(self, city, unit='celsius', days=None): ...", []),
        ("def f(self, *, city, unit='celsius', days=1): ...", []),
        ("def f(self, city='x', unit='celsius', days=None): ...", ["'city' is required by the spec but has a default; remove the default"]),
        ("def f(self, city, unit, days=None): ...", ["'unit' is optional in the spec but has no default; give it one (the spec's default, or None)"]),
        ("def f(self, city, unit='metric', days=None): ...", ["the default of 'unit' is 'metric', but the spec's default is 'celsius'"]),
        ("def f(self, city, unit='celsius'): ...", ["has no parameter 'days', which the spec defines"]),
        ("def f(self, city, unit='celsius', days=None, extra=1): ...", ["parameter 'extra' is not in the spec's parameters"]),
        ("def f(self, city, **kwargs): ...", ["takes **kwargs; declare the spec's parameters by name", "has no parameter 'unit', which the spec defines", "has no parameter 'days', which the spec defines"]),
    ],
)
def test_signature_problems(source: str, expected: list[str]) -> None:
    assert _problems(source, SPEC) == expected


# ----------------------------------------------------------------------------- static scan


@pytest.mark.parametrize(
    ("source", "codes"),
    [
        ("import copy\nfrom datetime import datetime\nx = datetime.strptime('1', '%d')", []),
        ("import random", ["EXE016"]),
        ("from uuid import uuid4", ["EXE016"]),
        ("from datetime import date as Date\nDate.today()", ["EXE016"]),
        ("import datetime as dt\ndt.datetime.now()", ["EXE016"]),
        ("x = hash('a')", ["EXE016"]),
        ("from os import path", ["EXE014"]),
        ("import urllib.request", ["EXE014"]),
        ("open('x')", ["EXE014"]),
        ("self.now()", []),
    ],
)
def test_static_scan(source: str, codes: list[str]) -> None:
    assert ["EXE014" if breach.kind == ISOLATION else "EXE016" for breach in scan(ast.parse(source))] == codes


# ----------------------------------------------------------------------------- the corpus and the CLI


def test_the_corpus_executes_cleanly() -> None:
    found = run_exec(ROOT)
    assert found == [], "\n".join(f"{d.location.path}:{d.location.line}: {d.code} {d.message}" for d in found)


def test_validate_runs_exec_only_when_check_is_clean(tmp_path: Path) -> None:
    root = materialise("EXE001", "fail", tmp_path)
    assert [d.code for d in engine.validate(root)] == ["EXE001"]
    (root / "specs" / "mini" / "get_weather.yaml").write_text("name: [\n")
    codes = {d.code for d in engine.validate(root)}
    assert "SCH001" in codes and not any(code.startswith("EXE") for code in codes)


def test_exec_command_exit_codes_and_formats(tmp_path: Path) -> None:
    runner = CliRunner()
    clean = materialise("EXE001", "pass", tmp_path)
    dirty = materialise("EXE016", "fail", tmp_path)
    assert runner.invoke(cli, ["exec", "--repo", str(clean)]).exit_code == 0
    result = runner.invoke(cli, ["exec", "--repo", str(dirty), "--format", "json"])
    assert result.exit_code == 1
    assert "EXE016" in result.output
    github = runner.invoke(cli, ["exec", "--repo", str(dirty), "--format", "github"])
    assert github.output.startswith("::error file=sandboxes/mini/sandbox.py,line=3")
    assert runner.invoke(cli, ["exec", "--repo", str(dirty), "--ignore", "EXE016"]).exit_code == 0
    assert runner.invoke(cli, ["exec", "--repo", str(dirty), "--select", "NOPE"]).exit_code == 2


def test_validate_command(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["validate", "--repo", str(materialise("EXE010", "pass", tmp_path))]).exit_code == 0
    result = runner.invoke(cli, ["validate", "--repo", str(materialise("EXE010", "fail", tmp_path))])
    assert result.exit_code == 1 and "EXE010" in result.output
