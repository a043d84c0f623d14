"""Sharded runs: the halves of a run scored together equal the whole run; overlapping or
inconsistent shards are refused with a message naming the files and what differs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.support.corpus_responders import CorpusResponder, oracle_answers
from tests.support.openai_server import OpenAIServer, Reply, always
from validator.cli import cli
from validator.corpus.index import Corpus
from validator.errors import UserError
from validator.models.base import Request
from validator.models.resume import manifest_path
from validator.runs.load import load_run, load_runs

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, [*args, "--repo", str(FIXTURE)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def scored(*files: Path) -> dict[str, Any]:
    result = invoke("score", *map(str, files), "--format", "json")
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    report.pop("run", None)  # which manifest the report names (its file, its date) differs between the files of one run
    return report


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run of a half-right model over the scripted server: whole, and as shards 1/2 and 2/2."""
    folder = tmp_path_factory.mktemp("shards")
    repo = Corpus.load(FIXTURE)
    oracle = oracle_answers(repo)

    def answer(request: Request) -> Reply:  # right on about half the ids, wrong on the others
        return oracle(request) if sum(map(ord, request.id)) % 2 == 0 else Reply(content="I cannot help with that.")

    with OpenAIServer(CorpusResponder(repo, "python", answer, fallback=always("Done."))) as server:
        for name, extra in (("whole", ()), ("half1", ("--shard", "1/2")), ("half2", ("--shard", "2/2"))):
            result = invoke("run", "--model", "test-model", "--base-url", server.base_url, "--out", str(folder / f"{name}.jsonl"), "--backoff", "0", *extra)
            assert result.exit_code == 0, result.output
    return folder


def test_two_halves_scored_together_equal_the_whole_run(runs: Path) -> None:
    whole, together = scored(runs / "whole.jsonl"), scored(runs / "half1.jsonl", runs / "half2.jsonl")
    assert 0.1 < whole["overall"]["score"] < 0.8  # a run with right and wrong answers, not a trivial one
    assert together == whole
    half = scored(runs / "half1.jsonl")
    assert half["missing_units"] > 0 and half["notes"] == ["shard 2/2 of this run was not given: their records count as missing"]
    first, second = ({(r["id"], r["lang"], r["step"]) for r in map(json.loads, (runs / f"half{i}.jsonl").read_text().splitlines())} for i in (1, 2))
    assert first and second and not first & second  # disjoint, and together they are everything
    assert first | second == {(r["id"], r["lang"], r["step"]) for r in map(json.loads, (runs / "whole.jsonl").read_text().splitlines())}


def test_a_shard_given_twice_is_refused(runs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.jsonl"
    shutil.copyfile(runs / "half1.jsonl", copy)
    shutil.copyfile(manifest_path(runs / "half1.jsonl"), manifest_path(copy))
    result = invoke("score", str(runs / "half1.jsonl"), str(copy))
    assert result.exit_code == 2 and "are both shard 1/2 of one run; give each shard once" in result.output
    result = invoke("score", str(runs / "half1.jsonl"), str(runs / "half1.jsonl"))
    assert result.exit_code == 2 and "half1.jsonl is given twice" in result.output


def test_overlapping_files_are_refused(runs: Path, tmp_path: Path) -> None:
    # files of another harness (no manifest): only their records can be checked, and they overlap
    lines = (runs / "whole.jsonl").read_text().splitlines()
    (tmp_path / "a.jsonl").write_text("\n".join(lines[:30]) + "\n")
    (tmp_path / "b.jsonl").write_text("\n".join(lines[25:]) + "\n")
    result = invoke("score", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"))
    assert result.exit_code == 2
    assert "a.jsonl and " in result.output and "b.jsonl overlap: both hold 5 record(s)" in result.output
    (tmp_path / "b.jsonl").write_text("\n".join(lines[30:]) + "\n")
    assert scored(tmp_path / "a.jsonl", tmp_path / "b.jsonl") == scored(runs / "whole.jsonl")


def test_inconsistent_shards_are_refused(runs: Path, tmp_path: Path) -> None:
    for i in (1, 2):
        shutil.copyfile(runs / f"half{i}.jsonl", tmp_path / f"half{i}.jsonl")
    manifest = json.loads(manifest_path(runs / "half2.jsonl").read_text())
    manifest_path(tmp_path / "half1.jsonl").write_text(manifest_path(runs / "half1.jsonl").read_text())
    manifest_path(tmp_path / "half2.jsonl").write_text(json.dumps({**manifest, "style": "minimal"}))
    result = invoke("score", str(tmp_path / "half1.jsonl"), str(tmp_path / "half2.jsonl"))
    assert result.exit_code == 2 and 'are not parts of one run: style: "standard" → "minimal"' in result.output
    # report and compare group files into runs: two halves that would complete each other but disagree are refused too
    with pytest.raises(UserError, match=r"look like shards of one run, but their manifests differ: style"):
        load_runs([tmp_path / "half1.jsonl", tmp_path / "half2.jsonl"])
    shard = manifest["shard"]
    manifest_path(tmp_path / "half2.jsonl").write_text(json.dumps({**manifest, "shard": {**shard, "selection": {**shard["selection"], "limit": 1}}}))
    result = invoke("score", str(tmp_path / "half1.jsonl"), str(tmp_path / "half2.jsonl"))
    assert result.exit_code == 2 and 'selection: {"langs": ["en", "zh"], "categories": [], "limit": null} → {' in result.output
    result = invoke("score", str(runs / "whole.jsonl"), str(runs / "half1.jsonl"))
    assert result.exit_code == 2 and "whole.jsonl is not a shard, half1.jsonl is shard 1/2" in result.output
    (tmp_path / "bare.jsonl").write_text((runs / "half2.jsonl").read_text())
    result = invoke("score", str(runs / "half1.jsonl"), str(tmp_path / "bare.jsonl"))
    assert result.exit_code == 2 and "bare.jsonl has no manifest" in result.output


def test_load_runs_groups_the_shards_of_a_run_and_keeps_other_files_apart(runs: Path) -> None:
    grouped = load_runs([runs / "half2.jsonl", runs / "whole.jsonl", runs / "half1.jsonl"])
    assert [len(run.files) for run in grouped] == [2, 1]
    assert grouped[0].predictions.records.keys() == grouped[1].predictions.records.keys() == load_run([runs / "whole.jsonl"]).predictions.records.keys()
    assert [run.label for run in grouped] == ["test-model · prompt · standard (half2 + 1 more)", "test-model · prompt · standard (whole)"]


def test_shard_option_is_checked_before_any_work(tmp_path: Path) -> None:
    for bad, message in (("3", "is not I/N"), ("0/2", "I must be between 1 and N"), ("3/2", "I must be between 1 and N")):
        result = invoke("run", "--model", "oracle", "--out", str(tmp_path / "x.jsonl"), "--shard", bad)
        assert result.exit_code == 2 and message in result.output and not (tmp_path / "x.jsonl").exists()
    result = invoke("run", "--model", "oracle", "--out", str(tmp_path / "x.jsonl"), "--shard", "9/9", "--limit", "1", "--category", "special")
    assert result.exit_code == 2 and "shard 9/9 is empty" in result.output
