"""`callbank leaderboard`: one row per run (shards grouped), from the manifests and the scores."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.support.openai_server import OpenAIServer, always
from validator.cli import cli

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, [*args, "--repo", str(FIXTURE)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("board")
    for index in (1, 2):
        assert invoke("run", "--model", "oracle", "--out", str(folder / f"oracle-{index}.jsonl"), "--shard", f"{index}/2", "--syntax", "json").exit_code == 0
    assert invoke("run", "--model", "null", "--out", str(folder / "null.jsonl")).exit_code == 0
    with OpenAIServer(always("[IRRELEVANT]"), models=["chatty"]) as server:
        result = invoke("run", "--model", "chatty", "--base-url", server.base_url, "--out", str(folder / "chatty.jsonl"), "--mode", "fc", "--style", "minimal")
        assert result.exit_code == 0, result.output
    (folder / "prices.yaml").write_text("currency: USD\nmodels:\n  chatty: {input: 1.5, output: 6}\n", encoding="utf-8")
    return folder


def test_rows_come_from_manifests_and_scores(runs: Path) -> None:
    files = [runs / name for name in ("null.jsonl", "oracle-2.jsonl", "chatty.jsonl", "oracle-1.jsonl")]
    result = invoke("leaderboard", *map(str, files), "--format", "json", "--prices", str(runs / "prices.yaml"))
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert [(row["rank"], row["model"], row["mode"], row["style"]) for row in rows] == [
        (1, "oracle", "prompt", "standard"), (2, "chatty", "fc", "minimal"), (3, "null", "prompt", "standard"),
    ]  # fmt: skip
    oracle, chatty, null = rows
    assert len(oracle["files"]) == 2 and oracle["overall"]["value"] == 1.0 and oracle["missing"] == 0 and oracle["gap"] == 0.0
    assert null["overall"] == {"value": 0.0, "ci": [0.0, 0.0], "n": null["units"]} and null["agent"]["value"] == 0.0
    assert 0.0 < chatty["overall"]["value"] < 1.0  # "[IRRELEVANT]" is right only where no API fits
    assert chatty["usage"]["reported"] and chatty["usage"]["prompt_tokens"] > 0 and chatty["usage"]["latency_s"]["p50"] is not None
    expected = (chatty["usage"]["prompt_tokens"] * 1.5 + chatty["usage"]["completion_tokens"] * 6) / 1e6
    assert chatty["usage"]["cost"]["model"] == pytest.approx(expected, abs=1e-6) and "unpriced" not in chatty["usage"]["cost"]
    assert oracle["usage"]["cost"]["unpriced"] == ["oracle"]


def test_markdown_and_csv(runs: Path) -> None:
    files = [str(runs / name) for name in ("oracle-1.jsonl", "oracle-2.jsonl", "null.jsonl", "chatty.jsonl")]
    markdown = invoke("leaderboard", *files, "--prices", str(runs / "prices.yaml")).output
    lines = markdown.splitlines()
    assert lines[0].startswith("| # | run | mode | style | overall | 95% CI | normal | special | agent |")
    assert lines[2].startswith("| 1 | oracle | prompt | standard | **1.000** | [1.000, 1.000] |") and "USD" in lines[3]
    table = list(csv.DictReader(io.StringIO(invoke("leaderboard", *files, "--format", "csv").output)))
    assert [row["model"] for row in table] == ["oracle", "chatty", "null"] and table[0]["overall"] == "1.0" and table[2]["overall"] == "0.0"
    assert table[1]["cost"] == "" and int(table[1]["prompt_tokens"]) > 0


def test_a_missing_shard_is_noted(runs: Path) -> None:
    markdown = invoke("leaderboard", str(runs / "oracle-1.jsonl")).output
    assert "- oracle: shard 2/2 of this run was not given: their records count as missing" in markdown
