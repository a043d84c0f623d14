"""`callbank new`: a skeleton with the next free id and both language sides, whose every blank is
a finding at its line until filled — and which passes the checks once filled."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.fixture_repos import REPOS
from validator import engine
from validator.cli import cli

BLANK = re.compile(r"~(?P<close>\}?)   # fill in:[^\n]*")  # a blank, maybe inside a flow mapping


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "hub"
    shutil.copytree(REPOS / "hub", root)
    return root


def new(repo: Path, *args: str) -> Path:
    result = CliRunner().invoke(cli, ["new", *args, "--repo", str(repo)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return repo / result.stdout.strip()


def fill(path: Path, *values: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(BLANK.findall(text)) == len(values), BLANK.findall(text)
    for value in values:
        text = BLANK.sub(lambda match, v=value: v + match["close"], text, count=1)  # type: ignore[misc]
    path.write_text(text, encoding="utf-8")


def findings(repo: Path, path: Path) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["check", "--repo", str(repo), "--format", "json", str(path)])
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_a_new_case_takes_the_next_id_and_passes_once_filled(repo: Path) -> None:
    path = new(repo, "case", "normal/single_turn/single", "--api", "send_message")
    assert path.relative_to(repo).as_posix() == "dialogues/normal/single_turn/single/st-single-0002.yaml"  # st-single-0001 exists
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=../../../../schemas/case.schema.json\nid: st-single-0002\n") and "\nen:\n" in text and "\nzh:\n" in text
    blank = findings(repo, path)
    blank_lines = {i + 1 for i, line in enumerate(text.splitlines()) if BLANK.search(line)}
    assert {f["code"] for f in blank} == {"SCH010"} and {5, 8, 14} <= {f["line"] for f in blank} <= blank_lines | {9, 15}  # at the blank, or at its turn
    fill(
        path,
        '"2024-07-15T09:00:00+08:00"',
        "Stuck in traffic on the ring road. Could you let Li Lei know by text that I'll be ten minutes late?",
        "{receiver: Li Lei, content: {$text: I'm running ten minutes late.}}",
        "环城路上堵死了，帮我给李雷发个短信，就说我要晚到十分钟。",
        "{receiver: 李雷, content: {$text: 我要晚到十分钟。}}",
    )
    assert findings(repo, path) == []
    assert [d.as_json() for d in engine.validate(repo)] == []  # its call runs in the sandbox too


def test_a_new_api_and_a_new_scenario_pass_once_filled(repo: Path) -> None:
    api = new(repo, "api", "set_timer", "--domain", "phone.clock")  # no sandbox: a spec-only distractor
    assert api.relative_to(repo).as_posix() == "specs/phone/set_timer.yaml"
    fill(
        api,
        "Start a countdown timer.",
        "开始一个倒计时。",
        "{minutes: {type: integer, minimum: 1, description: {en: Length of the countdown in minutes., zh: 倒计时的分钟数。}}}",
        "{type: object, properties: {timer_id: {type: string}}, required: [timer_id]}",
    )
    assert findings(repo, api) == []

    scenario = new(repo, "scenario", "phone")
    assert scenario.relative_to(repo).as_posix() == "sandboxes/phone/scenarios/phone-0003.yaml"  # phone-0001 and 0002 exist
    fill(
        scenario,
        '"2024-07-15T09:00:00+08:00"',
        'You want a reminder "Call Mum" tonight at 20:00.',
        "[Remind me to call Mum at eight tonight.]",
        "你想在今晚 20:00 收到“给妈妈打电话”的提醒。",
        "[提醒我今晚八点给妈妈打电话。]",
        '[{api: add_reminder, args: {title: {$lang: {en: Call Mum, zh: 给妈妈打电话}}, time: "2024-07-15T20:00"}}]',
        '[{id: m1, api: add_reminder, args: {time: "2024-07-15T20:00"}}]',
        "[{phrase: {en: [remind], zh: [提醒]}}]",
    )
    assert findings(repo, scenario) == []
    assert [d.as_json() for d in engine.validate(repo)] == []  # the scenario replays; the distractor needs no sandbox


def test_new_refuses_what_it_cannot_make(repo: Path) -> None:
    for args, said in (
        (["case", "normal/single"], "is not a category; the categories are normal/single_turn/single"),
        (["api", "send_message", "--domain", "phone.messages"], "exists already"),
        (["scenario", "garage"], "no sandbox 'garage'; the sandboxes are phone"),
    ):
        result = CliRunner().invoke(cli, ["new", *args, "--repo", str(repo)])
        assert result.exit_code == 2 and said in result.stderr, result.output
