"""A synth run killed midway (SIGKILL, a real subprocess) asks nothing twice when started again,
and ends with exactly the files an uninterrupted run writes."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from tests.support.openai_server import ChatRequest, OpenAIServer, Reply, by_model
from tests.synth.helpers import GENERATOR, MODELS, SIMULATOR, config_file, repository, simulator_by_request, weather_call, weather_draft

CHAT = "/v1/chat/completions"
SEED = 5
REQUESTS = [
    ("Is it going to rain in Hangzhou over the next two days?", "杭州这两天会下雨吗？"),
    ("Could you pull up a two-day forecast for Hangzhou before my trip?", "出差前帮我查一下杭州未来两天的天气预报。"),
    ("I'm cycling around West Lake soon; how warm will Hangzhou be for two days?", "过两天去西湖边骑车，杭州这两天气温多少？"),
    ("Two days of Hangzhou weather, please, I need to pick a jacket.", "帮我看看杭州两天的天气，我好挑件外套。"),
]
ANSWERS = {text: weather_call("Hangzhou" if lang == 0 else "杭州", 2) for pair in REQUESTS for lang, text in enumerate(pair)}


def generator(hold_from: int | None = None, held: threading.Event | None = None) -> Callable[[ChatRequest], Reply]:
    """The draft of candidate i, told by the request's seed (each candidate asks with its own);
    from candidate hold_from on, the answer never comes in time."""

    def respond(request: ChatRequest) -> Reply:
        index = int(request.body["seed"]) - SEED * 100_000
        if hold_from is not None and index >= hold_from:
            assert held is not None
            held.set()
            return Reply(content="too late", delay=60)
        return Reply(content=weather_draft(*REQUESTS[index]))

    return respond


def command(root: Path, out: Path, config: Path) -> list[str]:
    return [
        sys.executable, "-m", "validator", "synth", "cases", "--repo", str(root), "--category", "normal/single_turn/single",
        "--apis", "get_weather", "--n", "4", "--seed", str(SEED), "--config", str(config), "--out", str(out),
    ]  # fmt: skip


def bodies(server: OpenAIServer) -> list[str]:
    return [repr((r.model, r.body.get("seed"), r.messages)) for r in server.chat_requests]


def written(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for folder in ("dialogues", "review") for p in sorted((out / folder).rglob("*.yaml"))}


def test_a_killed_run_resumes_without_asking_twice_or_losing_anything(tmp_path: Path) -> None:
    root = repository(tmp_path)
    out, reference = tmp_path / "out", tmp_path / "reference"

    held = threading.Event()
    with OpenAIServer(by_model({GENERATOR: generator(2, held), SIMULATOR: simulator_by_request(ANSWERS)}), models=MODELS) as first:
        config = config_file(tmp_path / "first.yaml", first.base_url)
        process = subprocess.Popen(command(root, out, config), cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert held.wait(60), process.communicate()
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
        asked_first = bodies(first)
    # two candidates answered in full (generator + two simulator steps each), the third's draft in flight
    assert len(asked_first) == 2 * 3 + 1
    assert len((out / "cache.jsonl").read_text(encoding="utf-8").splitlines()) == 6

    with OpenAIServer(by_model({GENERATOR: generator(), SIMULATOR: simulator_by_request(ANSWERS)}), models=MODELS) as second:
        config = config_file(tmp_path / "second.yaml", second.base_url)
        finished = subprocess.run(command(root, out, config), cwd=root, capture_output=True, text=True, timeout=120)
        assert finished.returncode == 0, finished.stderr
        asked_second = bodies(second)
    answered_first = asked_first[:6]
    assert not set(asked_second) & set(answered_first)  # nothing already answered is asked again
    assert len(asked_second) == 2 * 3  # the two candidates left, nothing more
    assert "4 of 4 candidate(s) accepted" in finished.stdout

    with OpenAIServer(by_model({GENERATOR: generator(), SIMULATOR: simulator_by_request(ANSWERS)}), models=MODELS) as clean:
        config = config_file(tmp_path / "clean.yaml", clean.base_url)
        subprocess.run(command(root, reference, config), cwd=root, capture_output=True, text=True, timeout=120, check=True)
    assert written(out) == written(reference) and len(written(out)) == 8
    assert not list(out.rglob(".*.tmp"))  # no temporary file left behind by the kill
