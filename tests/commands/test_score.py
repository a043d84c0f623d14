"""`callbank score`: reports in three formats, clear messages for every bad input, no tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from validator.cli import cli

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"
RIGHT = {"id": "single-0001", "lang": "en", "step": 0, "output": "[get_weather(city='Hangzhou')]"}


def score(*args: str) -> Result:
    result = CliRunner().invoke(cli, ["score", *args, "--repo", str(FIXTURE)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def write(tmp_path: Path, lines: list[object]) -> Path:
    path = tmp_path / "predictions.jsonl"
    path.write_bytes(b"".join((line if isinstance(line, bytes) else json.dumps(line, ensure_ascii=False).encode()) + b"\n" for line in lines))
    return str(path)  # type: ignore[return-value]


def test_text_report_by_default(tmp_path: Path) -> None:
    result = score(write(tmp_path, [RIGHT]), "--category", "normal/single_turn/single", "--lang", "en")
    assert result.exit_code == 0, result.output
    assert "overall  0.500" in result.output
    assert "single-0002 (en, step 0)" in result.output  # missing, listed


def test_json_and_markdown_and_out(tmp_path: Path) -> None:
    predictions = write(tmp_path, [RIGHT])
    result = score(predictions, "--format", "json", "--category", "normal")
    report = json.loads(result.output)
    assert report["version"] == 1 and report["categories"]["normal"]["correct"] == 1
    out = tmp_path / "report.md"
    result = score(predictions, "--format", "markdown", "--out", str(out))
    assert result.exit_code == 0 and result.output == ""
    assert out.read_text(encoding="utf-8").startswith("# callbank score")


def test_file_problems_exit_1_with_line_numbers(tmp_path: Path) -> None:
    predictions = write(
        tmp_path,
        [RIGHT, b"{broken", {"id": "ghost", "lang": "en", "output": "[]"}, RIGHT, {"id": "x", "lang": "de"}, b"\xff\xfe"],
    )
    result = score(predictions, "--category", "normal/single_turn/single")
    assert result.exit_code == 1
    for message in (
        "line 2: not valid JSON",
        "line 3: no case or scenario has the id 'ghost'",
        "line 4: duplicate record for single-0001 (en, step 0), first on line 1",
        'line 5: record \'x\': "lang" must be "en" or "zh"',
        "line 6: not valid JSON",
    ):
        assert message in result.output


def test_safety_payloads_through_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    payloads = [
        {"id": "single-0001", "lang": "en", "output": "[get_weather(city=__import__('os').system('touch PWNED'))]"},
        {"id": "single-0001", "lang": "zh", "output": "[get_weather(city='" + "x" * (10 << 20) + "')]"},
        {"id": "single-0002", "lang": "en", "output": "[" * 200_000},
        b'{"id": "single-0002", "lang": "zh", "output": "[send_message(receiver=\'\xe5\xbc\xa0\xe4\xbc\x9f\', content=\'\xff\')]"}',
    ]
    result = score(write(tmp_path, payloads), "--category", "normal/single_turn/single", "--format", "json")
    assert result.exit_code == 0
    report = json.loads(result.output)
    assert [r["error"] for r in report["results"]] == ["format"] * 4
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing.jsonl"], "no such predictions file"),
        (["."], "is a directory"),
    ],
)
def test_usage_errors_are_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    result = score(*args)
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_no_corpus_and_empty_selection(tmp_path: Path) -> None:
    predictions = write(tmp_path, [RIGHT])
    result = CliRunner().invoke(cli, ["score", predictions, "--repo", str(tmp_path)])
    assert result.exit_code == 2 and "is not a callbank repository" in result.output
    result = score(predictions, "--category", "normal/nothing")
    assert result.exit_code == 2 and "matches the selection" in result.output


def test_help_is_fast_to_reach() -> None:
    result = CliRunner().invoke(cli, ["score", "--help"])
    assert result.exit_code == 0 and "--format" in result.output and "PREDICTIONS" in result.output
