"""`callbank export` of agent scenarios: whole episodes as SFT, a failed episode's first wrong
step as DPO, from a synth folder and from `callbank run` predictions; the contamination guard
compares goal and script text and the reference calls with the benchmark's scenarios."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.support.openai_server import OpenAIServer, by_model, scripted
from tests.synth.helpers import GENERATOR, MODELS, SIMULATOR, config_file, export, lines, repository
from tests.synth.test_scenarios import NAME, SCENARIO, TEXT, agent
from validator.corpus.index import Corpus
from validator.models.episode import SessionEnvironment, run_episode
from validator.models.oracle import OracleModel
from validator.sandbox.replay import runtime_of, scenario_session
from validator.synth.config import load_config
from validator.synth.formats import line_problems
from validator.synth.scenarios import ScenarioOptions, run_scenarios

SYNTH_ID = "syn-mini-0-0000"
SYNTH_PATH = f"sandboxes/mini/scenarios/{SYNTH_ID}.yaml"


def synth_folder(tmp_path: Path, *, wrong_text: bool) -> tuple[Path, Path]:
    root, out = repository(tmp_path), tmp_path / "out"
    with OpenAIServer(by_model({GENERATOR: scripted(json.dumps(SCENARIO, ensure_ascii=False)), SIMULATOR: agent(wrong_text=wrong_text)}), models=MODELS) as server:
        config = load_config(config_file(tmp_path / "synth.yaml", server.base_url))
        report = asyncio.run(run_scenarios(ScenarioOptions(root, out, "mini", 1, 0, config, "multi_step", keep_disputed=True)))
    assert report["written"] == [SYNTH_PATH]
    return root, out


def test_an_agreed_scenario_is_one_whole_episode_per_language(tmp_path: Path) -> None:
    root, out = synth_folder(tmp_path, wrong_text=False)
    status, output = export(root, "--format", "sft", "--synth", str(out), "--out", str(tmp_path / "sft.jsonl"))
    assert status == 0, output
    found = lines(tmp_path / "sft.jsonl")
    assert len(found) == 2
    for line, lang in zip(found, ["en", "zh"], strict=True):
        assert line_problems("sft", line) == []
        roles = [m["role"] for m in line["messages"]]
        assert roles == ["system", "user", "assistant", "tool", "assistant"]  # the user, the call, its real result, the answer
        assert {"en": "Send notes only when the user asks.", "zh": "只有在用户要求时才发送留言。"}[lang] in line["messages"][0]["content"]  # the policy, as `run` shows it
        call = line["messages"][2]["tool_calls"][0]["function"]
        assert call["name"] == "send_note" and json.loads(call["arguments"]) == {"to": NAME[lang], "text": TEXT[lang]}
        assert json.loads(line["messages"][3]["content"]) == {"note_id": "N-1"}
        assert "N-1" in line["messages"][4]["content"]  # the oracle tells the outcome from the real result
        assert {tool["function"]["name"] for tool in line["tools"]} == {"get_weather", "send_note"}
    manifest = json.loads((tmp_path / "sft.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["items"] == 2 and manifest["skipped"] == {}


def test_a_disputed_scenario_gives_a_pair_at_the_simulators_first_wrong_call(tmp_path: Path) -> None:
    root, out = synth_folder(tmp_path, wrong_text=True)
    status, output = export(root, "--format", "dpo", "--synth", str(out), "--out", str(tmp_path / "dpo.jsonl"))
    assert status == 0, output
    (line,) = lines(tmp_path / "dpo.jsonl")  # only the English episode failed
    assert line_problems("dpo", line) == []
    assert [m["role"] for m in line["prompt"]] == ["system", "user"] and line["rejected_error"] == "agent_end_state"
    chosen = json.loads(line["chosen"][0]["tool_calls"][0]["function"]["arguments"])
    rejected = json.loads(line["rejected"][0]["tool_calls"][0]["function"]["arguments"])
    assert (chosen["text"], rejected["text"]) == ("The review moved to 3 pm.", "The review moved to 4 pm.")
    assert export(root, "--format", "sft", "--synth", str(out), "--out", str(tmp_path / "sft.jsonl"))[0] == 0
    assert json.loads((tmp_path / "sft.jsonl.manifest.json").read_text(encoding="utf-8"))["skipped"] == {"disputed (not verified)": 1}


@pytest.mark.parametrize(
    ("rewrite", "overlap"),
    [
        (lambda text: text, "en goal and script 1.00 like mini-0001"),
        # reworded goal and script, the same reference calls: still the benchmark's scenario
        (lambda text: text.replace("Let Wang Fang know by a note", "Leave a message for Wang Fang saying").replace("Send Wang Fang a note", "Message Wang Fang"), "en reference calls 1.00 like mini-0001"),
    ],
)
def test_a_scenario_copied_from_the_benchmark_is_refused(tmp_path: Path, rewrite, overlap: str) -> None:
    root, out = synth_folder(tmp_path, wrong_text=False)
    copied = (out / SYNTH_PATH).read_text(encoding="utf-8").replace(SYNTH_ID, "mini-0001")
    (root / "sandboxes/mini/scenarios").mkdir(parents=True, exist_ok=True)
    (root / "sandboxes/mini/scenarios/mini-0001.yaml").write_text(copied, encoding="utf-8")
    (out / SYNTH_PATH).write_text(rewrite((out / SYNTH_PATH).read_text(encoding="utf-8")), encoding="utf-8")
    status, output = export(root, "--format", "sft", "--synth", str(out), "--out", str(tmp_path / "sft.jsonl"))
    assert status == 1 and f"synth:{SYNTH_ID}/en: " in output and overlap in output, output
    assert not (tmp_path / "sft.jsonl").exists()


def test_agent_episodes_in_predictions_give_sft_when_right_and_dpo_at_the_wrong_step(tmp_path: Path) -> None:
    root, out = synth_folder(tmp_path, wrong_text=False)
    (root / "sandboxes/mini/scenarios").mkdir(parents=True)
    text = (out / SYNTH_PATH).read_text(encoding="utf-8").replace(SYNTH_ID, "mini-0001")
    (root / "sandboxes/mini/scenarios/mini-0001.yaml").write_text(text, encoding="utf-8")
    corpus = Corpus.load(root)
    scenario = corpus.scenarios["mini-0001"]
    runtime = runtime_of(corpus)
    records = []
    for lang in ("en", "zh"):
        record = run_episode(OracleModel(corpus), scenario, lang, corpus.specs, "tool_calls", SessionEnvironment(scenario_session(runtime, scenario.data), lang))
        records.append({**record, "step": 0})
    wrong = json.loads(json.dumps(records[0]))  # the English episode, with a mistyped note
    wrong["calls"][0]["args"]["text"] = "The review moved to 4 pm."
    call = wrong["messages"][1]["tool_calls"][0]["function"]
    call["arguments"] = json.dumps({"to": "Wang Fang", "text": "The review moved to 4 pm."})
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(json.dumps(wrong, ensure_ascii=False) + "\n" + json.dumps(records[1], ensure_ascii=False) + "\n", encoding="utf-8")
    reason = ["--allow-overlap", "the benchmark's own scenario, for a test"]

    status, output = export(root, "--format", "sft", "--predictions", str(predictions), "--out", str(tmp_path / "sft.jsonl"))
    assert status == 1 and "predictions:mini-0001/zh" in output  # the benchmark's own scenario
    assert export(root, "--format", "sft", "--predictions", str(predictions), "--out", str(tmp_path / "sft.jsonl"), *reason)[0] == 0
    (sft,) = lines(tmp_path / "sft.jsonl")  # the Chinese episode is right
    assert line_problems("sft", sft) == [] and [m["role"] for m in sft["messages"]] == ["system", "user", "assistant", "tool", "assistant"]
    assert export(root, "--format", "dpo", "--predictions", str(predictions), "--out", str(tmp_path / "dpo.jsonl"), *reason)[0] == 0
    (dpo,) = lines(tmp_path / "dpo.jsonl")
    assert line_problems("dpo", dpo) == [] and dpo["rejected_error"] == "agent_end_state"
    assert [m["role"] for m in dpo["prompt"]] == ["system", "user"]
    assert json.loads(dpo["chosen"][0]["tool_calls"][0]["function"]["arguments"]) == {"to": "Wang Fang", "text": TEXT["en"]}
    assert json.loads(dpo["rejected"][0]["tool_calls"][0]["function"]["arguments"])["text"] == "The review moved to 4 pm."
