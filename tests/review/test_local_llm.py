"""A real small model as three judges: SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server.

The model is far too weak to judge anything; this proves the protocol with a real server and a
real model's messy replies: the run completes, each (case, judge) ends with exactly one outcome
(a vote or a judge error, never both), malformed replies never count as votes, records agree
with the cache, the gate agrees with the records, and a second run asks nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.review.helpers import corpus, store_lines
from tests.support.local_llm import LocalLLM
from validator import engine
from validator.review.client import RetryPolicy
from validator.review.gate import blocking
from validator.review.runner import run_review

ITEMS = ("sp-incomplete-0001", "sp-irrelevant-0001")
POLICY = RetryPolicy(attempts=2, base_delay=0.2, max_delay=1.0, verdict_attempts=2)


def test_smollm_as_three_judges(tmp_path: Path, local_llm: LocalLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus(tmp_path)
    # three judges on one model: different seeds and temperatures, one in JSON mode; the same
    # instruction language keeps llama.cpp's prompt cache warm between judges of one case
    judges = [
        {"name": "smol-greedy", "base_url": local_llm.base_url, "model": local_llm.model, "temperature": 0, "max_tokens": 160, "timeout": 600},
        {"name": "smol-warm", "base_url": local_llm.base_url, "model": local_llm.model, "temperature": 0.8, "seed": 7, "max_tokens": 160, "timeout": 600},
        {"name": "smol-json", "base_url": local_llm.base_url, "model": local_llm.model, "temperature": 0.3, "seed": 42, "max_tokens": 160, "json_mode": True, "timeout": 600},
    ]
    judges_path = tmp_path / "judges.yaml"
    judges_path.write_text("judges:\n" + "".join(f"  - {json.dumps(j)}\n" for j in judges), encoding="utf-8")
    monkeypatch.chdir(root)

    summary = run_review(root, ["dialogues/special"], judges_file=judges_path, concurrency=1, policy=POLICY, progress=False)
    print(summary.render())  # shown with -s: what the small model made of it
    assert summary.complete, summary.render()
    assert summary.items == 2 and summary.asked == 6 and summary.cached == 0

    errors = 0
    for item in ITEMS:
        lines = store_lines(root, item)
        assert sorted(line["judge"] for line in lines) == ["smol-greedy", "smol-json", "smol-warm"]
        for line in lines:
            assert ("error" in line) != ("verdict" in line)  # an outcome is a vote or a judge error
            if "verdict" in line:
                assert line["verdict"] in ("valid", "invalid") and isinstance(line["problems"], list)
                assert line["verdict"] == "valid" or line["problems"]  # an invalid vote names its problems
            else:
                errors += 1
        record = yaml.safe_load((root / "review/queue" / f"{item}.yaml").read_text(encoding="utf-8"))
        by_judge = {line["judge"]: line for line in lines}
        assert [v["judge"] for v in record["votes"]] == ["smol-greedy", "smol-warm", "smol-json"]
        for vote in record["votes"]:
            assert vote.get("verdict") == by_judge[vote["judge"]].get("verdict") and vote.get("error") == by_judge[vote["judge"]].get("error")
        unanimous = all(line.get("verdict") == "valid" for line in lines)
        assert record["status"] == ("accepted" if unanimous else "pending")
    assert summary.judge_errors == errors

    assert engine.check(root, ["review/queue"]) == []  # every record conforms to its schema
    pending = sorted(p.stem for p in (root / "review/queue").glob("*.yaml") if yaml.safe_load(p.read_text(encoding="utf-8"))["status"] == "pending")
    assert sorted(d.location.path for d in blocking(root) if d.code == "REV001") == [f"review/queue/{item}.yaml" for item in pending]

    again = run_review(root, ["dialogues/special"], judges_file=judges_path, concurrency=1, policy=POLICY, progress=False)
    assert again.asked == 0 and again.cached == 6 and again.records_written == 0
