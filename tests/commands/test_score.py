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


# ----------------------------------------------------------------------------- what a run covered


def run_oracle(out: Path, *args: str, repo: Path = FIXTURE) -> None:
    result = CliRunner().invoke(cli, ["run", "--model", "oracle", "--out", str(out), "--repo", str(repo), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def scored(predictions: Path, *args: str) -> dict[str, object]:
    result = score(str(predictions), "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)  # type: ignore[no-any-return]


def test_a_partial_run_is_scored_on_the_units_it_covered(tmp_path: Path) -> None:
    out = tmp_path / "partial.jsonl"
    run_oracle(out, "--lang", "en", "--category", "normal/single_turn", "--limit", "1")
    report = scored(out)
    assert report["overall"]["score"] == 1.0 and report["missing"] == [] and report["overall"]["n"] == 2  # type: ignore[index]
    assert report["selection"] == {"source": "run", "options": "--lang en --category normal/single_turn --limit 1", "units": 2}
    assert report["run"]["model"] == "oracle" and report["run"]["mode"] == "prompt" and report["run"]["style"] == "standard"  # type: ignore[index]
    assert report["run"]["manifest"] == "partial.jsonl.manifest.json" and str(report["run"]["date"]).startswith("20")  # type: ignore[index]
    text = score(str(out)).output
    assert "run      oracle, prompt mode, standard prompts, 20" in text
    assert "scored   what the run covered: --lang en --category normal/single_turn --limit 1 (2 units; --all scores every unit)" in text
    everything = scored(out, "--all")  # the whole benchmark: what the run left out counts as missing
    assert everything["selection"]["source"] == "all" and everything["overall"]["score"] < 0.1 and len(everything["missing"]) > 30  # type: ignore[index, arg-type]


def test_every_session_of_a_run_is_covered(tmp_path: Path) -> None:
    out = tmp_path / "two.jsonl"
    run_oracle(out, "--lang", "en", "--category", "special/incomplete")
    run_oracle(out, "--lang", "zh", "--category", "normal/atom/bool", "--limit", "1")  # a second session, appended
    report = scored(out)
    assert {(r["id"], r["lang"]) for r in report["results"]} == {("incomplete-0001", "en"), ("bool-0001", "zh")}  # type: ignore[attr-defined]
    assert report["missing"] == [] and report["selection"]["options"] == "--lang en --category special/incomplete; --lang zh --category normal/atom/bool --limit 1"  # type: ignore[index]


def test_options_choose_the_units_and_limit_means_what_run_means(tmp_path: Path) -> None:
    from validator.corpus.index import Corpus
    from validator.models.runner import plan

    out = tmp_path / "all.jsonl"
    run_oracle(out)
    report = scored(out, "--limit", "1", "--category", "normal/multi_turn")
    planned = {(job.key[0], job.key[1]) for job in plan(Corpus.load(FIXTURE), categories=["normal/multi_turn"], limit=1)}
    assert {(r["id"], r["lang"]) for r in report["results"]} == planned and report["selection"]["source"] == "options"  # type: ignore[attr-defined, index]
    result = score(str(out), "--all", "--lang", "en")
    assert result.exit_code == 2 and "--all scores every unit" in result.output


def test_without_a_readable_manifest_every_unit_is_scored(tmp_path: Path) -> None:
    predictions = Path(write(tmp_path, [RIGHT]))
    report = scored(predictions)
    assert "run" not in report and report["selection"]["source"] == "all" and len(report["missing"]) > 30  # type: ignore[index, arg-type]
    Path(str(predictions) + ".manifest.json").write_text("{torn", encoding="utf-8")
    report = scored(predictions)
    assert any("predictions.jsonl.manifest.json cannot be read" in note for note in report["notes"])  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- a built dataset, no clone


def test_score_against_a_built_dataset_with_dataset_or_repo(tmp_path: Path) -> None:
    from tests.hub.helpers import FIXTURE as HUB
    from validator.hub.build import build

    dataset = tmp_path / "dataset"
    build(HUB, dataset)
    out = tmp_path / "oracle.jsonl"
    run_oracle(out, repo=HUB)
    for option in ("--dataset", "--repo"):
        result = CliRunner().invoke(cli, ["score", str(out), "--format", "json", option, str(dataset)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        assert report["overall"]["score"] == 1.0 and report["missing"] == [] and report["overall"]["n"] > 10
        assert f"scored against the dataset {dataset}, written out as a corpus" in report["notes"]
    both = CliRunner().invoke(cli, ["score", str(out), "--dataset", str(dataset), "--repo", str(HUB)])
    assert both.exit_code == 2 and "give one of them" in both.output


def test_outside_a_repository_score_says_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["score", write(tmp_path, [RIGHT])])
    assert result.exit_code == 2 and f"no callbank repository at or above {tmp_path}" in result.output and "--repo" in result.output
