"""A real model end to end: SmolLM2-135M-Instruct on the CPU behind llama.cpp's OpenAI-compatible
server, run by `callbank run --mode prompt` and scored by `callbank score`.

The model is far too small to do well; the test proves the pipeline on a real model's messy
output — every planned record is written, every unit gets a verdict from the taxonomy, nothing
crashes — and that a second invocation with other categories appends to the same predictions
file. Skipped when the `local-llm` extra is not installed (tests/support/local_llm.py).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.support.local_llm import LocalLLM
from validator.cli import cli
from validator.corpus.index import Corpus
from validator.models.runner import plan

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"
TAXONOMY = {
    "format", "wrong_call_count", "wrong_api", "missing_parameter", "unexpected_parameter", "wrong_type",
    "wrong_value", "special_not_detected", "special_wrong_detail", "agent_end_state", "minefield",
}  # fmt: skip
CASES = ["--category", "normal/single_turn/single", "--category", "special/incomplete"]
AGENT = ["--category", "agent/multi_step", "--lang", "en"]


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, [*args, "--repo", str(FIXTURE)], catch_exceptions=False)
    assert "Traceback" not in result.output, result.output
    return result


def test_smollm_prompt_mode_end_to_end(tmp_path: Path, local_llm: LocalLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a local server needs no key
    out = tmp_path / "smollm.jsonl"
    common = [
        "run", "--model", local_llm.model, "--base-url", local_llm.base_url, "--mode", "prompt", "--out", str(out),
        "--style", "minimal", "--limit", "1", "--max-tokens", "32", "--max-turns", "2", "--concurrency", "1", "--timeout", "300",
    ]  # fmt: skip  (the shortest prompts: prompt processing dominates on a CPU)
    started = time.monotonic()
    cases = invoke(*common, *CASES)  # one case of each of two categories, both languages
    assert cases.exit_code == 0, cases.output
    agent = invoke(*common, *AGENT)  # one scenario with its scripted user, appended to the same file
    assert agent.exit_code == 0, agent.output
    elapsed = time.monotonic() - started

    repo = Corpus.load(FIXTURE)
    planned = plan(repo, categories=CASES[1::2], limit=1)
    planned += plan(repo, categories=["agent/multi_step"], langs=["en"], limit=1)
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted((r["id"], r["lang"], r.get("step")) for r in written) == sorted(job.key for job in planned)
    assert all("usage" in r for r in written) and any(r["output"] for r in written if "output" in r)
    [episode] = [r for r in written if "calls" in r]
    assert episode["messages"][0]["role"] == "user" and len([m for m in episode["messages"] if m["role"] == "assistant"]) >= 1

    scored = invoke("score", str(out), "--format", "json", *CASES, "--category", "agent/multi_step")
    assert scored.exit_code == 0, scored.output  # the predictions file is clean
    report = json.loads(scored.stdout)
    results = {(r["id"], r["lang"]): r for r in report["results"]}
    for record in written:
        result = results[(record["id"], record["lang"])]
        assert not result["missing"]
        assert result["correct"] or result["error"] in TAXONOMY, result
    manifest = json.loads(Path(str(out) + ".manifest.json").read_text(encoding="utf-8"))
    assert [s["status"] for s in manifest["sessions"]] == ["complete", "complete"]
    tokens = sum(s["usage"]["total_tokens"] for s in manifest["sessions"])
    print(f"\nSmolLM2 end to end: {len(written)} records, {tokens} tokens, {elapsed:.1f} s; overall {report['overall']['score']}")


def test_fc_mode_on_a_server_that_drops_the_tools_says_so_once(tmp_path: Path, local_llm: LocalLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    """llama-cpp-python started without a function-calling chat format renders the model's own
    template, which has no place for tools: they vanish from the prompt and the model never calls.
    The run says so once (not per request) and keeps the warning in the manifest."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "dropped.jsonl"
    result = CliRunner().invoke(
        cli,
        [
            "run", "--model", local_llm.model, "--base-url", local_llm.base_url, "--mode", "fc", "--out", str(out),
            "--style", "minimal", "--lang", "en", "--limit", "1", "--max-tokens", "16", "--concurrency", "1", "--timeout", "300",
            "--category", "normal/single_turn", "--category", "special", "--repo", str(FIXTURE),
        ],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stderr.count("leaves the tools out of the prompt") == 1, result.stderr
    assert "--chat_format chatml-function-calling" in result.stderr  # what to do about it
    manifest = json.loads(Path(str(out) + ".manifest.json").read_text(encoding="utf-8"))
    assert [len(s.get("warnings", [])) for s in manifest["sessions"]] == [1]
    assert len(out.read_text(encoding="utf-8").splitlines()) == 5  # every record is still written
