"""A run killed midway (SIGKILL, in a real subprocess) loses no vote received and duplicates none."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from tests.review.helpers import FAST, ITEMS, MODELS, VALID, corpus, judges_file, store_lines
from tests.support.openai_server import OpenAIServer, Reply
from validator.review.runner import run_review

CHAT = "/v1/chat/completions"


def total_lines(root: Path) -> int:
    return sum(len(store_lines(root, item)) for item in ITEMS)


def test_kill_midway_then_rerun_gives_exactly_one_vote_per_case_and_judge(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    with OpenAIServer(lambda request: Reply(content=VALID, delay=0.3), models=MODELS) as slow:
        judges = judges_file(tmp_path / "judges.yaml", slow.base_url)
        command = [sys.executable, "-m", "validator", "review", "run", "--repo", str(root), "--judges", str(judges), "--concurrency", "2", "--no-progress"]
        process = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while total_lines(root) < 4:
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "the run recorded no votes in time"
                time.sleep(0.02)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
        received = total_lines(root)
        assert 4 <= received < 15, "the kill came too late to test anything"
        assert slow.count(CHAT) >= received

    with OpenAIServer(lambda request: VALID, models=MODELS) as fast:
        judges = judges_file(tmp_path / "judges.yaml", fast.base_url)
        summary = run_review(root, judges_file=judges, policy=FAST, progress=False)
        assert summary.complete and summary.cached == received and summary.asked == 15 - received
        assert fast.count(CHAT) == 15 - received  # nothing already answered is asked again

    for item in ITEMS:
        lines = store_lines(root, item)
        assert sorted(line["judge"] for line in lines) == ["judge-a", "judge-b", "judge-c"], item
        data = yaml.safe_load((root / "review" / "queue" / f"{item}.yaml").read_text(encoding="utf-8"))
        assert data["status"] == "accepted" and len(data["votes"]) == 3
    assert not [p for p in (root / "review" / "queue").iterdir() if p.name.startswith(".")]  # no temporary files left
