"""`callbank synth scenarios`: a scenario replayed, its milestones and outputs derived from real
results, kept only when the simulator, run as the agent, reaches the reference end state."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import yaml

from tests.support.openai_server import ChatRequest, OpenAIServer, Reply, by_model, scripted, tool_call
from tests.synth.helpers import GENERATOR, MODELS, SIMULATOR, config_file, repository
from validator.engine import validate
from validator.synth.config import load_config
from validator.synth.scenarios import ScenarioOptions, run_scenarios

TEXT = {"en": "The review moved to 3 pm.", "zh": "评审改到下午三点了。"}
NAME = {"en": "Wang Fang", "zh": "王芳"}
SCENARIO = {
    "user": {
        "en": {
            "goal": "Let Wang Fang know by a note that the review moved to 3 pm.",
            "known": ['The text: "The review moved to 3 pm."'],
            "script": ['Send Wang Fang a note: "The review moved to 3 pm."'],
        },
        "zh": {"goal": "给王芳留言，告诉她评审改到下午三点了。", "known": ["留言原文：“评审改到下午三点了。”"], "script": ["给王芳留个言：“评审改到下午三点了。”"]},
    },
    "reference_calls": [{"api": "send_note", "args": {"to": {"$lang": NAME}, "text": {"$lang": TEXT}}}],
    "minefields": [{"api": "get_weather"}, {"api": "send_note"}],  # the second is a reference API: dropped
    "outcome_words": {"en": ["sent", "left"], "zh": ["已发", "留好", "发送"]},
}
READ_ONLY = {**SCENARIO, "reference_calls": [{"api": "get_weather", "args": {"city": "Hangzhou"}}]}


def agent(wrong_text: bool = False):
    def respond(request: ChatRequest) -> Reply:
        lang = "zh" if "王芳" in request.text else "en"
        if not any(m.get("role") == "tool" for m in request.messages):
            text = "The review moved to 4 pm." if wrong_text and lang == "en" else TEXT[lang]
            return Reply(tool_calls=[tool_call("send_note", {"to": NAME[lang], "text": text})])
        return Reply(content="Sent: note N-1 is with Wang Fang." if lang == "en" else "已发送，留言编号 N-1。")

    return respond


def run(tmp_path: Path, server: OpenAIServer, **options: object) -> tuple[Path, Path, dict]:
    root, out = repository(tmp_path), tmp_path / "out"
    config = load_config(config_file(tmp_path / "synth.yaml", server.base_url))
    report = asyncio.run(run_scenarios(ScenarioOptions(root, out, "mini", 1, 0, config, "multi_step", **options)))  # type: ignore[arg-type]
    return root, out, report


def test_an_agreed_scenario_is_written_with_derived_milestones_and_outputs_and_validates(tmp_path: Path) -> None:
    with OpenAIServer(by_model({GENERATOR: scripted(json.dumps(SCENARIO, ensure_ascii=False)), SIMULATOR: agent()}), models=MODELS) as server:
        root, out, report = run(tmp_path, server)
    assert report["accepted"] == 1, report["rejections"]
    (path,) = report["written"]
    assert path == "sandboxes/mini/scenarios/syn-mini-0-0000.yaml"
    doc = yaml.safe_load((out / path).read_text(encoding="utf-8"))
    assert doc["milestones"] == [{"id": "m1", "api": "send_note"}]  # the free-text arguments are the end state's to check
    assert doc["minefields"] == [{"api": "get_weather"}]
    assert doc["outputs"] == [{"code": "N-1", "about": SCENARIO["outcome_words"]}]  # the id the real call returned
    record = yaml.safe_load((out / "review/queue/syn-mini-0-0000.yaml").read_text(encoding="utf-8"))
    assert record["status"] == "pending" and record["provenance"]["exercise"] == {"kind": "scenario", "mode": "multi_step"}
    shutil.copytree(out / "sandboxes", root / "sandboxes", dirs_exist_ok=True)
    shutil.copytree(out / "review", root / "review")
    assert validate(root) == []


def test_a_simulator_that_ends_elsewhere_rejects_the_scenario(tmp_path: Path) -> None:
    with OpenAIServer(by_model({GENERATOR: scripted(json.dumps(SCENARIO, ensure_ascii=False)), SIMULATOR: agent(wrong_text=True)}), models=MODELS) as server:
        _, out, report = run(tmp_path, server)
    assert report["rejections"] == {"consistency": {"simulator_disagrees": 1}}
    (log,) = [json.loads(line) for line in (out / "candidates.jsonl").read_text(encoding="utf-8").splitlines()]
    assert log["stages"][-1]["detail"].startswith("en: agent_end_state: end state differs")


def test_a_scenario_that_changes_nothing_is_rejected_at_execute(tmp_path: Path) -> None:
    with OpenAIServer(by_model({GENERATOR: scripted(json.dumps(READ_ONLY, ensure_ascii=False)), SIMULATOR: agent()}), models=MODELS) as server:
        _, _, report = run(tmp_path, server)
    assert report["rejections"] == {"execute": {"no_state_change": 1}}
    assert server.count("/v1/chat/completions") == 1  # the simulator was never asked
