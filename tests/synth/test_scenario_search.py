"""Best-first search over the simulator's turns as the agent of a scenario: it finds the episode
that reaches the reference end state where greedy sampling does not (scripted replies, the
calls run in forks of the real sandbox session)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml

from tests.support.openai_server import ChatRequest, OpenAIServer, Reply, by_model, scripted, tool_call
from tests.synth.helpers import GENERATOR, MODELS, SIMULATOR, config_file, repository
from tests.synth.test_scenarios import NAME, SCENARIO, TEXT
from validator.corpus.index import Corpus
from validator.sandbox.runtime import Runtime
from validator.synth.cache import AnswerCache
from validator.synth.client import Asker
from validator.synth.config import SearchConfig, load_config
from validator.synth.scenario_search import ScenarioSearch
from validator.synth.scenarios import ScenarioOptions, ScenarioRecipe, draft_from_reply, render_scenario, run_scenarios, scenario_document, scenario_record


def agent(request: ChatRequest) -> Reply:
    """A simulator whose first sample mistypes the note (3 → 4 pm) and whose second gets it
    right; after the note it reports the id its own call returned."""
    lang = "zh" if "王芳" in request.text else "en"
    results = [m for m in request.messages if m.get("role") == "tool"]
    if not results:
        right = request.body.get("seed") == 1
        text = TEXT[lang] if right else TEXT[lang].replace("3", "4").replace("三", "四")
        return Reply(tool_calls=[tool_call("send_note", {"to": NAME[lang], "text": text})])
    note = json.loads(results[-1]["content"])["note_id"]
    return Reply(content=f"Sent: note {note} is with Wang Fang." if lang == "en" else f"已发送，留言编号 {note}。")


@pytest.fixture
def setup(tmp_path: Path):
    root = repository(tmp_path)
    corpus = Corpus.load(root)
    runtime = Runtime.from_corpus(corpus)
    recipe = ScenarioRecipe(0, 0, "mini", "multi_step", corpus.states["mini"].clock)
    doc = scenario_document(recipe, draft_from_reply(recipe, json.dumps(SCENARIO, ensure_ascii=False), ["send_note", "get_weather"]), runtime, corpus.schemas)
    scenario = scenario_record(recipe.path, render_scenario(doc))
    with OpenAIServer(by_model({SIMULATOR: agent, GENERATOR: lambda r: "unused"}), models=MODELS) as server:
        config = load_config(config_file(tmp_path / "synth.yaml", server.base_url))
        asker = Asker({"generator": config.generator, "simulator": config.simulator}, AnswerCache(tmp_path / "out"))
        yield scenario, doc, corpus, runtime, asker, server


def search(setup, lang: str, width: int, budget: int):
    scenario, doc, corpus, runtime, asker, _ = setup
    searcher = ScenarioSearch(scenario, doc, corpus.specs, runtime, {}, asker, "sha256:" + "0" * 64, "tool_calls", SearchConfig(width, budget))
    return asyncio.run(searcher.side(lang))


def test_greedy_sampling_ends_in_the_wrong_state(setup) -> None:
    found = search(setup, "en", width=1, budget=10)
    assert (found.verdict.correct, found.verdict.error, found.spent) == (False, "agent_end_state", 2)
    assert [step["inconsistency"] for step in found.steps] == [0.5, 0.0]  # the right API with another text, then the report


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_best_first_search_finds_the_consistent_episode(setup, lang: str) -> None:
    found = search(setup, lang, width=2, budget=10)
    assert found.verdict.correct, found.verdict.detail
    assert [c["args"]["text"] for c in found.record["calls"]] == [TEXT[lang]]
    assert found.spent == 4  # two samples of the first turn; the consistent one expanded first, two samples of the report
    assert [request.body.get("seed") for request in setup[5].chat_requests] == [None, 1, None, 1]
    # the wrong sample's call ran in its own fork: the chosen episode's sandbox holds one note
    assert found.record["messages"][-1]["content"].endswith(("N-1 is with Wang Fang.", "N-1。"))


def test_a_spent_budget_is_reported_and_a_second_search_asks_nothing(setup) -> None:
    found = search(setup, "en", width=2, budget=2)
    assert (found.verdict.correct, found.verdict.error, found.spent) == (False, "search_budget", 2)
    search(setup, "en", width=2, budget=10)
    asked = setup[5].count("/v1/chat/completions")
    again = search(setup, "en", width=2, budget=10)
    assert again.verdict.correct and setup[5].count("/v1/chat/completions") == asked  # every sample came from the cache


@pytest.mark.parametrize(("use_search", "accepted"), [(False, 0), (True, 1)])
def test_synth_scenarios_keeps_the_scenario_only_when_the_search_finds_the_episode(tmp_path: Path, use_search: bool, accepted: int) -> None:
    root, out = repository(tmp_path), tmp_path / "out"
    with OpenAIServer(by_model({GENERATOR: scripted(json.dumps(SCENARIO, ensure_ascii=False)), SIMULATOR: agent}), models=MODELS) as server:
        config = load_config(config_file(tmp_path / "synth.yaml", server.base_url, search={"width": 2, "budget": 8}))
        report = asyncio.run(run_scenarios(ScenarioOptions(root, out, "mini", 1, 0, config, "multi_step", search=use_search)))
    assert report["accepted"] == accepted
    if not use_search:
        assert report["rejections"] == {"consistency": {"simulator_disagrees": 1}}
    else:
        (path,) = report["written"]
        record = yaml.safe_load((out / "review/queue/syn-mini-0-0000.yaml").read_text(encoding="utf-8"))
        assert record["provenance"]["simulator"]["prompt_version"].endswith("+search.w2") and path.endswith("syn-mini-0-0000.yaml")


def test_the_command_takes_search_width_and_budget(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from validator.cli import cli

    root = repository(tmp_path)
    draft = json.dumps(SCENARIO, ensure_ascii=False)
    with OpenAIServer(by_model({GENERATOR: scripted(draft, draft), SIMULATOR: agent}), models=MODELS) as server:  # one draft per run
        config = config_file(tmp_path / "synth.yaml", server.base_url)
        base = ["synth", "scenarios", "--sandbox", "mini", "--n", "1", "--mode", "multi_step", "--repo", str(root), "--config", str(config)]
        greedy = CliRunner().invoke(cli, [*base, "--out", str(tmp_path / "greedy")])
        searched = CliRunner().invoke(cli, [*base, "--out", str(tmp_path / "searched"), "--search", "--width", "2", "--budget", "8"])
    assert greedy.exit_code == 0 and "0 of 1 candidate(s) accepted" in greedy.output, greedy.output
    assert searched.exit_code == 0 and "1 of 1 candidate(s) accepted" in searched.output, searched.output
    assert json.loads((tmp_path / "searched" / "report.json").read_text(encoding="utf-8"))["search"] is True
