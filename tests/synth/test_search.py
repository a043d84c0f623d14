"""Best-first search over the simulator's steps finds the consistent trajectory that greedy
sampling misses (scripted replies; the steps run in the real sandbox)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.support.openai_server import ChatRequest, OpenAIServer, Reply, by_model, scripted
from tests.synth.helpers import GENERATOR, MODELS, SIMULATOR, config_file, repository, weather_call
from validator.corpus.index import Corpus
from validator.sandbox.runtime import Runtime
from validator.synth.cache import AnswerCache
from validator.synth.client import Asker
from validator.synth.config import SearchConfig, load_config
from validator.synth.pipeline import SynthOptions, case_record, run_synth
from validator.synth.search import search_side

CASE = """\
id: syn-adjust-0001
category: normal/multi_turn/adjust
apis: [get_weather, send_note]
time: "2024-05-06T09:00:00+08:00"
en:
  turns:
    - user: What's the weather in Hangzhou for the next two days?
    - expect:
        calls:
          - {api: get_weather, args: {city: Hangzhou, days: 2}}
    - tool:
        - {api: get_weather, result: {city: Hangzhou, forecast: [{day: 1, high: 24}, {day: 2, high: 26}]}}
    - assistant: Highs of 24 and 26 degrees.
    - user: Add one more day to that.
    - expect:
        calls:
          - {api: get_weather, args: {city: Hangzhou, days: 3}}
zh:
  turns:
    - user: 杭州接下来两天天气怎么样？
    - expect:
        calls:
          - {api: get_weather, args: {city: 杭州, days: 2}}
    - tool:
        - {api: get_weather, result: {city: 杭州, forecast: [{day: 1, high: 24}, {day: 2, high: 26}]}}
    - assistant: 最高气温分别是24度和26度。
    - user: 再多查一天。
    - expect:
        calls:
          - {api: get_weather, args: {city: 杭州, days: 3}}
"""


def simulator(request: ChatRequest) -> Reply:
    """A simulator whose first sample misreads "two days" as one, and which then goes on from
    what it really saw: "one more day" is one more than the days its own result showed."""
    tools = [m for m in request.messages if m.get("role") == "tool"]
    if not tools:
        return weather_call("Hangzhou", 2 if request.body.get("seed") == 1 else 1)
    seen = len(json.loads(tools[-1]["content"])["forecast"])
    return weather_call("Hangzhou", seen + 1)


@pytest.fixture
def setup(tmp_path: Path):
    root = repository(tmp_path)
    corpus = Corpus.load(root)
    case = case_record("dialogues/normal/multi_turn/adjust/syn-adjust-0001.yaml", CASE)
    with OpenAIServer(by_model({SIMULATOR: simulator, GENERATOR: lambda r: "unused"}), models=MODELS) as server:
        config = load_config(config_file(tmp_path / "synth.yaml", server.base_url))
        asker = Asker({"generator": config.generator, "simulator": config.simulator}, AnswerCache(tmp_path / "out"))
        yield case, corpus, Runtime.from_corpus(corpus), asker, server


def search(setup, width: int, budget: int):
    case, corpus, runtime, asker, _ = setup
    return asyncio.run(search_side(case, "en", corpus.specs, asker, runtime, "sha256:" + "0" * 64, "tool_calls", SearchConfig(width, budget)))


def test_greedy_sampling_misses_the_consistent_trajectory(setup) -> None:
    checks, spent = search(setup, width=1, budget=10)
    assert spent == 2
    assert [(c.step, c.correct) for c in checks] == [(0, False), (1, False)]


def test_best_first_search_finds_it(setup) -> None:
    checks, spent = search(setup, width=2, budget=10)
    assert [(c.step, c.correct) for c in checks] == [(0, True), (1, True)]
    assert spent == 4  # two samples at step 0; the consistent one expanded first, two samples there
    server = setup[4]
    sent = [request.body.get("seed") for request in server.chat_requests]
    assert sent == [None, 1, None, 1]


def test_a_spent_budget_counts_the_unreached_steps_wrong(setup) -> None:
    checks, spent = search(setup, width=2, budget=2)
    assert spent == 2
    assert [(c.step, c.correct, c.error) for c in checks] == [(0, True, None), (1, False, "search_budget")]


def test_samples_are_cached_per_path_so_a_second_search_asks_nothing(setup) -> None:
    search(setup, width=2, budget=10)
    server = setup[4]
    asked = server.count("/v1/chat/completions")
    checks, _ = search(setup, width=2, budget=10)
    assert server.count("/v1/chat/completions") == asked and all(c.correct for c in checks)


ADJUST = {
    "en": {"turns": [
        {"user": "What's the weather in Hangzhou for the next two days?"},
        {"calls": [{"api": "get_weather", "args": {"city": "Hangzhou", "days": 2}}]},
        {"assistant": "Highs of 24 and 26 degrees."},
        {"user": "Add one more day to that."},
        {"calls": [{"api": "get_weather", "args": {"city": "Hangzhou", "days": 3}}]},
    ]},
    "zh": {"turns": [
        {"user": "杭州接下来两天天气怎么样？"},
        {"calls": [{"api": "get_weather", "args": {"city": "杭州", "days": 2}}]},
        {"assistant": "最高气温分别是24度和26度。"},
        {"user": "再多查一天。"},
        {"calls": [{"api": "get_weather", "args": {"city": "杭州", "days": 3}}]},
    ]},
}  # fmt: skip


def bilingual_simulator(request: ChatRequest) -> Reply:
    """As `simulator`, in the request's language."""
    city = "杭州" if "杭州" in request.text else "Hangzhou"
    tools = [m for m in request.messages if m.get("role") == "tool"]
    if not tools:
        return weather_call(city, 2 if request.body.get("seed") == 1 else 1)
    return weather_call(city, len(json.loads(tools[-1]["content"])["forecast"]) + 1)


@pytest.mark.parametrize(("search", "outcome"), [(False, "rejected"), (True, "accepted")])
def test_the_pipeline_keeps_the_case_only_when_the_search_finds_the_consistent_trajectory(tmp_path: Path, search: bool, outcome: str) -> None:
    root = repository(tmp_path)
    with OpenAIServer(by_model({GENERATOR: scripted(json.dumps(ADJUST, ensure_ascii=False)), SIMULATOR: bilingual_simulator}), models=MODELS) as server:
        config = load_config(config_file(tmp_path / "synth.yaml", server.base_url, search={"width": 2, "budget": 8}))
        options = SynthOptions(root, tmp_path / "out", "normal/multi_turn/adjust", 1, 0, config, apis=("get_weather",), search=search)
        report = asyncio.run(run_synth(options))
    assert (report["accepted"], report["rejected"]) == ((1, 0) if outcome == "accepted" else (0, 1))
    if outcome == "rejected":
        assert report["rejections"] == {"consistency": {"simulator_disagrees": 1}}
