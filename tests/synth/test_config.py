"""The synth config and the command line: every mistake is one line naming the file and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.openai_server import OpenAIServer, Reply, always
from tests.synth.helpers import repository
from validator.cli import cli
from validator.errors import UserError
from validator.synth.config import load_config

GOOD = "generator: {base_url: 'http://127.0.0.1:9/v1', model: g}\nsimulator: {base_url: 'http://127.0.0.1:9/v1', model: s, syntax: json}\n"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "synth.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_config_loads_with_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD + "dedupe_threshold: 0.4\nsearch: {width: 2}\n"))
    assert (config.generator.model, config.simulator.syntax, config.dedupe_threshold) == ("g", "json", 0.4)
    assert (config.search.width, config.search.budget) == (2, 24)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("generator: {base_url: 'http://x/v1', model: g}\n", "simulator: is required"),
        (GOOD + "colour: red\n", "unknown key(s) colour"),
        (GOOD.replace("model: s,", "model: s, temprature: 1,"), "simulator: unknown key(s) temprature"),
        (GOOD.replace("'http://127.0.0.1:9/v1', model: g", "'ftp://x', model: g"), "generator.base_url: 'ftp://x' is not an http(s) URL"),
        (GOOD + "dedupe_threshold: 2\n", "dedupe_threshold: must be between 0.05 and 1.0"),
        (GOOD.replace("syntax: json", "syntax: xml"), "simulator.syntax: must be one of"),
        ("generator: [\n", "line 2: not valid YAML"),
    ],
)
def test_a_bad_config_is_refused_naming_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(UserError, match=None) as caught:
        load_config(write(tmp_path, text))
    assert str(caught.value).startswith(str(tmp_path / "synth.yaml")) and message in str(caught.value)


def test_the_command_exits_2_with_one_line_for_a_usage_mistake(tmp_path: Path) -> None:
    root = repository(tmp_path)
    config = write(tmp_path, GOOD)
    runner = CliRunner()
    base = ["synth", "cases", "--repo", str(root), "--config", str(config), "--out", str(tmp_path / "out")]
    result = runner.invoke(cli, [*base, "--category", "normal/chitchat"])
    assert result.exit_code == 2 and "synth plans only these categories" in result.output and "Traceback" not in result.output
    result = runner.invoke(cli, [*base, "--category", "retrieval/call"])  # the minimal repository has no tool search
    assert result.exit_code == 2 and "offers only search_tools, and no sandbox of this repository runs it" in result.output
    result = runner.invoke(cli, [*base, "--category", "normal/similar_api"])
    assert result.exit_code == 2 and "two runnable APIs of one domain" in result.output
    result = runner.invoke(cli, [*base, "--category", "special/incomplete", "--apis", "no_such_api"])
    assert result.exit_code == 2 and "--apis: no spec named no_such_api" in result.output
    result = runner.invoke(cli, [*base, "--category", "special/incomplete", "--sandbox", "nowhere"])
    assert result.exit_code == 2 and "--sandbox: no sandbox 'nowhere'" in result.output
    assert not (tmp_path / "out").exists()


def test_an_unreachable_model_is_refused_before_any_work(tmp_path: Path) -> None:
    root = repository(tmp_path)
    config = write(tmp_path, GOOD.replace("model: g}", "model: g, timeout: 2, max_retries: 0}"))
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["synth", "cases", "--repo", str(root), "--config", str(config), "--out", str(out), "--category", "special/incomplete", "--n", "1"])
    assert result.exit_code == 2, result.output
    assert "the generator (g)" in result.output and "is the server up?" in result.output and "Traceback" not in result.output
    assert not (out / "report.json").exists()


def test_a_model_failing_midway_stops_the_run_with_status_1_and_a_report(tmp_path: Path) -> None:
    root = repository(tmp_path)
    with OpenAIServer(always(Reply(status=503, error="overloaded")), models=["g", "s"]) as server:
        config = write(tmp_path, GOOD.replace("http://127.0.0.1:9/v1", server.base_url).replace("model: g}", "model: g, max_retries: 0}"))
        out = tmp_path / "out"
        command = ["synth", "cases", "--repo", str(root), "--config", str(config), "--out", str(out), "--category", "special/incomplete", "--n", "2"]
        result = CliRunner().invoke(cli, command)
    assert result.exit_code == 1, result.output
    assert "overloaded" in result.output and "run the same command again to resume" in result.output
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["stopped"] and report["candidates"] == 0
