"""A batch of candidates, one of each failure among good ones, is sorted exactly (real sockets,
the scripted OpenAI-compatible server, the real client library)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.fixture_repos import REPOS
from tests.support.openai_server import ChatRequest, OpenAIServer, Reply, by_model, scripted, tool_call
from tests.synth.helpers import GENERATOR, MODELS, SIMULATOR, config_file, repository, simulator_by_request, weather_call, weather_draft
from validator.corpus.index import Corpus
from validator.engine import validate
from validator.rules.execution_context import Execution
from validator.synth.config import load_config
from validator.synth.execute import accept_aliases
from validator.synth.pipeline import SynthOptions, case_record, run_synth
from validator.synth.render import render_case

GOOD_1 = ("Is it going to rain in Hangzhou over the next two days? I'm planning a hike.", "我打算去爬山，杭州这两天会下雨吗？")
GOOD_2 = ("Could you pull up a two-day forecast for Hangzhou before my trip?", "出差前帮我查一下杭州未来两天的天气预报。")
SANDBOX_REJECTS = ("How's the weather in Atlantis for the next two days?", "亚特兰蒂斯接下来两天天气怎么样？")
DISAGREES = ("What's the weather in Hangzhou like this weekend, two days of it?", "杭州这个周末两天的天气如何？")
RULE_BREAK = ("Tell me the Hangzhou forecast for two days, I'm packing a bag.", "Tell me the Hangzhou forecast for two days please.")
DUPLICATE = ("What will the weather be like in Hangzhou for the next three days?", "杭州接下来三天天气怎么样？")

BATCH = [
    weather_draft(*GOOD_1),
    "Sure! Here is the case: get_weather(city='Hangzhou')",  # not JSON
    weather_draft(*SANDBOX_REJECTS, city_en="Atlantis", city_zh="亚特兰蒂斯"),
    weather_draft(*DISAGREES),
    weather_draft(*RULE_BREAK, city_zh="Hangzhou"),
    weather_draft(*DUPLICATE, days=3),
    weather_draft(*GOOD_2),
]
SIMULATOR_ANSWERS = {
    GOOD_1[0]: weather_call("Hangzhou", 2),
    GOOD_1[1]: weather_call("杭州", 2),
    GOOD_2[0]: weather_call("Hangzhou", 2),
    GOOD_2[1]: weather_call("杭州", 2),
    DISAGREES[0]: weather_call("Hangzhou", 1),  # one day, not two: the simulator reads it otherwise
    DISAGREES[1]: weather_call("杭州", 2),
    RULE_BREAK[0]: weather_call("Hangzhou", 2),
    RULE_BREAK[1]: weather_call("Hangzhou", 2),
    DUPLICATE[0]: weather_call("Hangzhou", 3),
    DUPLICATE[1]: weather_call("杭州", 3),
}
EXPECTED = [
    ("accepted", None, None),
    ("rejected", "generate", "invalid_json"),
    ("rejected", "execute", "api_error"),
    ("rejected", "consistency", "simulator_disagrees"),
    ("rejected", "check", "DLG002"),
    ("rejected", "dedupe", "near_duplicate"),
    ("accepted", None, None),
]


def run(root: Path, out: Path, config: Path, *, keep_disputed: bool = False) -> dict:
    options = SynthOptions(root, out, "normal/single_turn/single", len(BATCH), 3, load_config(config), apis=("get_weather",), keep_disputed=keep_disputed)
    return asyncio.run(run_synth(options))


def logs(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "candidates.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def server():
    responders = {GENERATOR: scripted(*BATCH), SIMULATOR: simulator_by_request(SIMULATOR_ANSWERS)}
    with OpenAIServer(by_model(responders), models=MODELS) as running:
        yield running


def test_each_bad_candidate_is_rejected_at_its_stage_with_its_reason(tmp_path: Path, server: OpenAIServer) -> None:
    root, out = repository(tmp_path), tmp_path / "out"
    report = run(root, out, config_file(tmp_path / "synth.yaml", server.base_url))

    found = [(log["outcome"], *((log["stages"][-1]["stage"], log["stages"][-1]["reason"]) if log["outcome"] == "rejected" else (None, None))) for log in logs(out)]
    assert found == EXPECTED
    details = {log["stages"][-1]["reason"]: log["stages"][-1]["detail"] for log in logs(out) if log["outcome"] == "rejected"}
    assert "not JSON" in details["invalid_json"]
    assert "unknown_city" in details["api_error"] or "No forecast" in details["api_error"]
    assert details["simulator_disagrees"].startswith("en step 0")
    assert "zh side" in details["DLG002"] or "Chinese" in details["DLG002"]
    assert "single-0001" in details["near_duplicate"]

    assert report["accepted"] == 2 and report["rejected"] == 5 and report["acceptance_rate"] == round(2 / 7, 4)
    assert report["rejections"] == {
        "generate": {"invalid_json": 1},
        "execute": {"api_error": 1},
        "consistency": {"simulator_disagrees": 1},
        "check": {"DLG002": 1},
        "dedupe": {"near_duplicate": 1},
    }
    funnel = {row["stage"]: (row["entered"], row["passed"]) for row in report["funnel"]}
    assert funnel == {"plan": (7, 7), "generate": (7, 6), "execute": (6, 5), "consistency": (5, 4), "check": (4, 3), "dedupe": (3, 2), "write": (2, 2)}
    assert report["models"]["generator"]["asked"] == 7 and report["models"]["simulator"]["asked"] == 10
    assert report["models"]["generator"]["prompt_tokens"] > 0
    assert json.loads((out / "report.json").read_text(encoding="utf-8")) == report
    assert "2 of 7 candidate(s) accepted" in (out / "report.md").read_text(encoding="utf-8")


def test_accepted_cases_validate_in_the_repository_with_pending_records(tmp_path: Path, server: OpenAIServer) -> None:
    root, out = repository(tmp_path), tmp_path / "out"
    report = run(root, out, config_file(tmp_path / "synth.yaml", server.base_url))
    assert len(report["written"]) == 2
    assert not (root / "review").exists() and len(list((root / "dialogues").rglob("*.yaml"))) == 1  # the corpus is untouched
    for path in report["written"]:
        case = yaml.safe_load((out / path).read_text(encoding="utf-8"))
        record = yaml.safe_load((out / "review" / "queue" / f"{case['id']}.yaml").read_text(encoding="utf-8"))
        assert record["status"] == "pending" and record["votes"] == [] and record["path"] == path
        assert record["provenance"]["generator"] == {"model": GENERATOR, "prompt_version": "generate.v1.en"}
        assert record["provenance"]["simulator"]["model"] == SIMULATOR and record["provenance"]["seed"] == 3
        assert record["provenance"]["consistency"] == "agreed"
    shutil.copytree(out / "dialogues", root / "dialogues", dirs_exist_ok=True)
    shutil.copytree(out / "review", root / "review")
    assert validate(root) == []


def test_keep_disputed_keeps_the_disagreement_for_review_with_the_simulators_answers(tmp_path: Path, server: OpenAIServer) -> None:
    root, out = repository(tmp_path), tmp_path / "out"
    report = run(root, out, config_file(tmp_path / "synth.yaml", server.base_url), keep_disputed=True)
    assert report["accepted"] == 2 and report["disputed"] == 1
    disputed = next(log for log in logs(out) if log["outcome"] == "disputed")
    record = yaml.safe_load((out / "review" / "queue" / f"{disputed['case_id']}.yaml").read_text(encoding="utf-8"))
    assert record["status"] == "pending" and record["provenance"]["consistency"] == "disputed"
    wrong = [answer for answer in record["provenance"]["simulator_answers"] if not answer["correct"]]
    assert [(a["lang"], a["step"], a["error"]) for a in wrong] == [("en", 0, "wrong_value")]
    assert '"days": 1' in wrong[0]["answer"]["tool_calls"][0]["function"]["arguments"]


def test_a_second_run_over_the_same_folder_asks_nothing_and_writes_the_same_files(tmp_path: Path, server: OpenAIServer) -> None:
    root, out = repository(tmp_path), tmp_path / "out"
    config = config_file(tmp_path / "synth.yaml", server.base_url)
    first = run(root, out, config)
    files = {p: p.read_bytes() for p in (out / "dialogues").rglob("*.yaml")} | {p: p.read_bytes() for p in (out / "review").rglob("*.yaml")}
    asked = server.count("/v1/chat/completions")
    second = run(root, out, config)
    assert server.count("/v1/chat/completions") == asked
    assert second["models"]["generator"] == {**first["models"]["generator"], "asked": 0, "cached": 7, "prompt_tokens": 0, "completion_tokens": 0, "latency_s": 0.0, "mean_latency_s": 0.0}
    assert second["written"] == first["written"]
    assert {p: p.read_bytes() for p in files} == files


def test_names_the_sandbox_resolves_alike_are_accepted_in_the_written_answer() -> None:
    """execute.accept_aliases on this repository's weather sandbox: 'Hangzhou' is also 杭州 and HZ there."""
    root = Path(__file__).resolve().parents[2]
    corpus = Corpus.load(root, kinds=("api", "state"))
    data = {
        "id": "syn-alias-0001",
        "category": "normal/single_turn/single",
        "apis": ["get_weather_forecast"],
        "time": "2024-07-15T09:00:00+08:00",
        "en": {"turns": [{"user": "What's the forecast for Hangzhou?"}, {"expect": {"calls": [{"api": "get_weather_forecast", "args": {"city": "Hangzhou"}}]}}]},
        "zh": {"turns": [{"user": "杭州天气预报怎么样？"}, {"expect": {"calls": [{"api": "get_weather_forecast", "args": {"city": "杭州"}}]}}]},
    }
    case = case_record("dialogues/normal/single_turn/single/syn-alias-0001.yaml", render_case(data))
    assert accept_aliases(data, case, Execution(corpus)) == 2
    en = data["en"]["turns"][1]["expect"]["calls"][0]["args"]["city"]
    zh = data["zh"]["turns"][1]["expect"]["calls"][0]["args"]["city"]
    assert en["$any"][0] == "Hangzhou" and {"杭州", "HZ"} <= set(en["$any"])
    assert zh["$any"][0] == "杭州" and {"Hangzhou", "HZ"} <= set(zh["$any"])


# --------------------------------------------------------------------------- a retrieval recipe

RT_GOOD = ("Will it rain in Hangzhou over the next two days? I'm planning a hike.", "我打算去爬山，杭州这两天会下雨吗？")
RT_NO_SEARCH = ("Could you pull up a two-day forecast for Hangzhou before my trip?", "出差前帮我查一下杭州未来两天的天气预报。")
RT_SEARCH_WRITTEN = json.dumps(
    {
        "en": {"turns": [{"user": "Find me the weather tool and check Hangzhou for two days."}, {"calls": [{"api": "search_tools", "args": {"query": "weather"}}]}]},
        "zh": {"turns": [{"user": "找个天气工具，查查杭州两天的天气。"}, {"calls": [{"api": "search_tools", "args": {"query": "天气"}}]}]},
    },
    ensure_ascii=False,
)
RT_BATCH = [weather_draft(*RT_GOOD), RT_SEARCH_WRITTEN, weather_draft(*RT_NO_SEARCH)]


def searching_simulator(request: ChatRequest) -> Reply:
    """Searches the catalog first, calls what it found with the user's values, then reports;
    for RT_NO_SEARCH it guesses the API's name without searching (the episode refuses the call)."""
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in request.last_user_message) else "en"
    city = "杭州" if lang == "zh" else "Hangzhou"
    results = [m for m in request.messages if m.get("role") == "tool"]
    if not results:
        if request.last_user_message in RT_NO_SEARCH:
            return weather_call(city, 2)
        return Reply(tool_calls=[tool_call("search_tools", {"query": "天气预报" if lang == "zh" else "weather forecast"})])
    if "\"results\"" in results[-1]["content"] and "get_weather" in results[-1]["content"]:  # what the search returned
        return weather_call(city, 2)
    return Reply(content="Highs of 24 and 26." if lang == "en" else "最高24度和26度。")


def test_a_retrieval_recipe_is_searched_for_solved_as_an_episode_and_written(tmp_path: Path) -> None:
    root, out = tmp_path / "repo", tmp_path / "out"
    shutil.copytree(REPOS / "retrieval", root)
    with OpenAIServer(by_model({GENERATOR: scripted(*RT_BATCH), SIMULATOR: searching_simulator}), models=MODELS) as running:
        config = load_config(config_file(tmp_path / "synth.yaml", running.base_url))
        report = asyncio.run(run_synth(SynthOptions(root, out, "retrieval/call", len(RT_BATCH), 5, config, apis=("get_weather",))))
        offered = [[tool["function"]["name"] for tool in request.body.get("tools") or []] for request in running.chat_requests if request.model == SIMULATOR]
        generator_prompt = next(request.text for request in running.chat_requests if request.model == GENERATOR)
    found = [(log["outcome"], log["stages"][-1]["stage"], log["stages"][-1].get("reason")) for log in logs(out)]
    assert found == [("accepted", "write", None), ("rejected", "generate", "unknown_api"), ("rejected", "consistency", "simulator_disagrees")]
    assert "'search_tools' is not one of the candidate APIs (get_weather)" in logs(out)[1]["stages"][-1]["detail"]
    assert "en step 0" in logs(out)[2]["stages"][-1]["detail"]
    # the simulator was offered the search alone, and the API once a search had returned it
    assert offered[0] == ["search_tools"] and ["search_tools", "get_weather"] in offered
    assert '"name": "get_weather"' in generator_prompt and "search_tools" not in generator_prompt.split("What the case must exercise")[0]
    (path,) = report["written"]
    case = yaml.safe_load((out / path).read_text(encoding="utf-8"))
    assert case["category"] == "retrieval/call" and case["apis"] == ["search_tools"]
    assert [turn.get("expect", {}).get("calls") for turn in case["en"]["turns"]][1] == [{"api": "get_weather", "args": {"city": "Hangzhou", "days": 2}}]
    assert not any("tool" in turn for turn in case["en"]["turns"])  # search results and results are never stored
    record = yaml.safe_load((out / "review" / "queue" / f"{case['id']}.yaml").read_text(encoding="utf-8"))
    assert record["provenance"]["simulator"]["prompt_version"].startswith("retrieval.") and record["provenance"]["exercise"] == {"kind": "retrieve", "api": "get_weather"}
    shutil.copytree(out / "dialogues", root / "dialogues", dirs_exist_ok=True)
    shutil.copytree(out / "review", root / "review")
    assert validate(root) == []
