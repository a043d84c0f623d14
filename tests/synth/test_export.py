"""`callbank export`: SFT and DPO lines valid in their formats, and the contamination guard."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.support.openai_server import OpenAIServer, by_model, scripted
from tests.synth.helpers import GENERATOR, MODELS, SIMULATOR, config_file, export, lines, repository, simulator_by_request
from tests.synth.test_pipeline import BATCH, SIMULATOR_ANSWERS
from validator.synth.config import load_config
from validator.synth.formats import line_problems
from validator.synth.pipeline import SynthOptions, run_synth
from validator.synth.write import write_candidate

COPIED = "syn-copied-0001"


@pytest.fixture(scope="module")
def synth_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A repository and a synth folder holding two agreed cases and one disputed one."""
    tmp_path = tmp_path_factory.mktemp("export")
    root, out = repository(tmp_path), tmp_path / "out"
    with OpenAIServer(by_model({GENERATOR: scripted(*BATCH), SIMULATOR: simulator_by_request(SIMULATOR_ANSWERS)}), models=MODELS) as server:
        config = load_config(config_file(tmp_path / "synth.yaml", server.base_url))
        options = SynthOptions(root, out, "normal/single_turn/single", len(BATCH), 3, config, apis=("get_weather",), keep_disputed=True)
        report = asyncio.run(run_synth(options))
    assert report["accepted"] == 2 and report["disputed"] == 1
    return root, out


def test_sft_lines_are_whole_conversations_in_the_chat_fine_tuning_format(synth_run: tuple[Path, Path], tmp_path: Path) -> None:
    root, out = synth_run
    status, output = export(root, "--format", "sft", "--synth", str(out), "--out", str(tmp_path / "sft.jsonl"))
    assert status == 0, output
    found = lines(tmp_path / "sft.jsonl")
    assert len(found) == 4  # two agreed cases, two languages each; the disputed one is not verified
    for line in found:
        assert line_problems("sft", line) == []
        roles = [m["role"] for m in line["messages"]]
        assert roles == ["system", "user", "assistant"]
        call = line["messages"][-1]["tool_calls"][0]["function"]
        assert call["name"] == "get_weather" and json.loads(call["arguments"])["days"] == 2
        assert {tool["function"]["name"] for tool in line["tools"]} == {"get_weather"}
    assert any("杭州" in line["messages"][1]["content"] for line in found)
    manifest = json.loads((tmp_path / "sft.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["format"] == "sft" and manifest["items"] == 4 and manifest["allow_overlap"] is None
    assert manifest["skipped"] == {"disputed (not verified)": 1} and manifest["guard"]["languages"] == ["en", "zh"]


def test_dpo_lines_pair_the_reference_with_the_simulators_wrong_step(synth_run: tuple[Path, Path], tmp_path: Path) -> None:
    root, out = synth_run
    status, output = export(root, "--format", "dpo", "--synth", str(out), "--out", str(tmp_path / "dpo.jsonl"))
    assert status == 0, output
    (line,) = lines(tmp_path / "dpo.jsonl")
    assert line_problems("dpo", line) == []
    assert line["rejected_error"] == "wrong_value"
    chosen = json.loads(line["chosen"][0]["tool_calls"][0]["function"]["arguments"])
    rejected = json.loads(line["rejected"][0]["tool_calls"][0]["function"]["arguments"])
    assert (chosen["days"], rejected["days"]) == (2, 1)
    assert [m["role"] for m in line["prompt"]] == ["system", "user"]


def test_an_item_copied_from_a_benchmark_case_is_refused_and_named(synth_run: tuple[Path, Path], tmp_path: Path) -> None:
    root, out = synth_run
    copied = tmp_path / "copied"
    shutil.copytree(out, copied)
    text = (root / "dialogues/normal/single_turn/single/single-0001.yaml").read_text(encoding="utf-8").replace("single-0001", COPIED)
    data = yaml.safe_load(text)
    write_candidate(
        copied,
        data,
        text,
        {
            "source": "callbank synth",
            "generator": {"model": "g", "prompt_version": "generate.v1.en"},
            "simulator": {"model": "s", "prompt_version": "run.v1.tool_calls"},
            "seed": 0,
            "recipe": "sha256:" + "0" * 64,
            "consistency": "agreed",
        },
    )

    target = tmp_path / "sft.jsonl"
    status, output = export(root, "--format", "sft", "--synth", str(copied), "--out", str(target))
    assert status == 1
    assert f"synth:{COPIED}: en request 1.00 like single-0001" in output and "zh request 1.00 like single-0001" in output
    assert "refused: 2 item(s)" in output  # one per language; the synthesised cases pass
    assert not target.exists() and not (tmp_path / "sft.jsonl.manifest.json").exists()

    status, output = export(root, "--format", "sft", "--synth", str(copied), "--out", str(target), "--allow-overlap", "ablation: measuring contamination on purpose")
    assert status == 0, output
    assert len(lines(target)) == 6
    manifest = json.loads((tmp_path / "sft.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["allow_overlap"]["reason"] == "ablation: measuring contamination on purpose"
    assert [entry["item"] for entry in manifest["allow_overlap"]["items"]] == [f"synth:{COPIED}", f"synth:{COPIED}"]

    status, output = export(root, "--format", "sft", "--synth", str(copied), "--out", str(target), "--allow-overlap", "  ")
    assert status == 2 and "needs a reason" in output


def test_scored_predictions_give_sft_for_right_and_dpo_for_wrong_answers_guarded(tmp_path: Path) -> None:
    root = repository(tmp_path)
    predictions = tmp_path / "predictions.jsonl"
    records = [
        {"id": "single-0001", "lang": "en", "step": 0, "output": "[get_weather(city='Hangzhou', days=3)]"},
        {"id": "single-0001", "lang": "zh", "step": 0, "output": "[get_weather(city='杭州')]"},
    ]
    predictions.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    status, output = export(root, "--format", "sft", "--predictions", str(predictions), "--out", str(tmp_path / "sft.jsonl"))
    assert status == 1 and "predictions:single-0001/en/0" in output  # the benchmark's own case
    reason = ["--allow-overlap", "in-distribution baseline, not for release"]
    assert export(root, "--format", "sft", "--predictions", str(predictions), "--out", str(tmp_path / "sft.jsonl"), *reason)[0] == 0
    (sft,) = lines(tmp_path / "sft.jsonl")
    assert line_problems("sft", sft) == [] and "Hangzhou" in sft["messages"][1]["content"]
    assert export(root, "--format", "dpo", "--predictions", str(predictions), "--out", str(tmp_path / "dpo.jsonl"), *reason)[0] == 0
    (dpo,) = lines(tmp_path / "dpo.jsonl")
    assert line_problems("dpo", dpo) == [] and dpo["rejected"] == [{"role": "assistant", "content": "[get_weather(city='杭州')]"}]
    assert dpo["rejected_error"] == "missing_parameter"  # days=3 is left out


@pytest.mark.parametrize(
    ("kind", "line", "problem"),
    [
        ("sft", {"messages": [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "c9", "content": "{}"}], "tools": []}, "no earlier message made"),
        ("sft", {"messages": [{"role": "user", "content": "hi"}, {"role": "user", "content": "again"}], "tools": []}, "must end with the assistant"),
        ("sft", {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant"}], "tools": []}, "/messages/1"),
        ("dpo", {"prompt": [{"role": "user", "content": "hi"}], "tools": [], "chosen": [], "rejected": [{"role": "assistant", "content": "x"}], "rejected_error": "e"}, "chosen"),
    ],
)
def test_the_format_checks_catch_broken_lines(kind: str, line: dict, problem: str) -> None:
    assert any(problem in found for found in line_problems(kind, line))
