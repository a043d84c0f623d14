"""Smoke run with the real small model the test extras serve (SmolLM2-135M on llama.cpp): its
cases are garbage, and the point is that the whole pipeline runs against a real server and
rejects each candidate at a stage, with a reason."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.support.local_llm import LocalLLM, local_llm  # noqa: F401  (pytest fixture)
from tests.synth.helpers import repository
from validator.synth.config import parse_config
from validator.synth.outcome import STAGES
from validator.synth.pipeline import SynthOptions, run_synth


def test_the_pipeline_runs_end_to_end_on_a_real_small_model(tmp_path: Path, local_llm: LocalLLM) -> None:  # noqa: F811
    model = {"base_url": local_llm.base_url, "model": local_llm.model, "max_tokens": 256, "temperature": 0.0}
    config = parse_config({"generator": model, "simulator": {**model, "syntax": "json"}}, tmp_path / "synth.yaml")
    out = tmp_path / "out"
    report = asyncio.run(run_synth(SynthOptions(repository(tmp_path), out, "special/incomplete", 2, 0, config)))

    assert report["stopped"] is None and report["candidates"] == 2
    assert report["models"]["generator"]["asked"] == 2 and report["models"]["generator"]["completion_tokens"] > 0
    logs = [json.loads(line) for line in (out / "candidates.jsonl").read_text(encoding="utf-8").splitlines()]
    for log in logs:
        last = log["stages"][-1]
        assert log["outcome"] in ("accepted", "rejected")
        if log["outcome"] == "rejected":
            assert last["stage"] in STAGES and last["reason"] and last["detail"]
    assert sum(row["rejected"] for row in report["funnel"]) == report["rejected"]
    assert (out / "report.md").read_text(encoding="utf-8").startswith("# synth special/incomplete")
