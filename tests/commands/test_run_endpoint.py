"""`callbank run` against an OpenAI-compatible server on 127.0.0.1 (real sockets, scripted replies).

The server (tests/support/openai_server.py) answers what each test scripts; the predictions are
scored by `callbank score`, so each test checks the whole pipeline: the requests the runner
builds, the transport (retries, errors), the records, and the scores they earn.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner, Result

from tests.support.corpus_responders import CorpusResponder, agent_script, oracle_answers, oracle_episode
from tests.support.local_llm import free_port
from tests.support.openai_server import ChatRequest, OpenAIServer, Reply, Responder, always, by_model, scripted, tool_call
from validator.cli import cli
from validator.corpus.index import Corpus
from validator.models.base import Request
from validator.models.runner import plan

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"
ROOT = Path(__file__).resolve().parents[2]
CHAT = "/v1/chat/completions"
TAXONOMY = {
    "format", "wrong_call_count", "wrong_api", "missing_parameter", "unexpected_parameter", "wrong_type",
    "wrong_value", "special_not_detected", "special_wrong_detail", "agent_end_state", "minefield",
}  # fmt: skip


@pytest.fixture(scope="module")
def repo() -> Corpus:
    return Corpus.load(FIXTURE)


@pytest.fixture(autouse=True)
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, [*args, "--repo", str(FIXTURE)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def run(server: OpenAIServer, out: Path, *args: str, model: str = "test-model") -> Result:
    return invoke("run", "--model", model, "--base-url", server.base_url, "--out", str(out), "--backoff", "0", *args)


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def report(out: Path, *args: str) -> dict[str, Any]:
    result = invoke("score", str(out), "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def results_by_id(scored: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["id"], r["lang"]): r for r in scored["results"]}


# ----------------------------------------------------------------------------- both modes score as deserved


@pytest.mark.parametrize("mode", ["prompt", "fc"])
def test_right_replies_score_one(tmp_path: Path, repo: Corpus, mode: str) -> None:
    syntax = "tool_calls" if mode == "fc" else "python"
    responder = CorpusResponder(repo, syntax, oracle_answers(repo), episode=oracle_episode(repo), root=FIXTURE)
    out = tmp_path / "right.jsonl"
    with OpenAIServer(responder) as server:
        result = run(server, out, "--mode", mode, "--category", "normal", "--category", "special", "--category", "retrieval")
        assert result.exit_code == 0, result.output
        # 36 one-shot checkpoints; a retrieval episode asks once per search, per call and once more
        # for the closing text: (3 + 5) turns in each language
        assert server.count(CHAT) == len(responder.seen) == 36 + 16 and None not in responder.seen
        body = server.chat_requests[0].body
    assert body["temperature"] == 0 and body["max_tokens"] == 1024 and body["model"] == "test-model"
    assert ("tools" in body) == (mode == "fc")
    if mode == "prompt":
        system = body["messages"][0]["content"]
        assert "[search_books(author=" in system or "search_books(author=" in system  # the one-shot example
        assert all(m["role"] != "tool" and "tool_calls" not in m for m in body["messages"])
    written = records(out)
    one_shot = [r for r in written if not r["id"].startswith("retrieval-")]
    assert len(written) == 40 and len(one_shot) == 36
    assert all(("tool_calls" in r) == (mode == "fc") for r in one_shot)
    assert all("calls" in r and "tool_calls" not in r for r in written if r not in one_shot)
    assert all(r["usage"]["attempts"] == 1 and "prompt_tokens" in r["usage"] for r in one_shot)
    scored = report(out, "--category", "normal", "--category", "special", "--category", "retrieval")
    assert scored["overall"]["score"] == 1.0 and scored["missing"] == []
    assert "wrote 40 prediction record(s)" in result.output and "tokens:" in result.output


WRONG = {
    # (case id, lang): (prompt-mode text, fc-mode tool calls, expected error)
    ("single-0001", "en"): ("[get_weather(city='Beijing')]", [tool_call("get_weather", {"city": "Beijing"})], "wrong_value"),
    ("single-0002", "en"): ("[add_event(title='late', start='2024-06-11T10:00')]", [tool_call("add_event", {"title": "late", "start": "2024-06-11T10:00"})], "wrong_api"),
    ("incomplete-0001", "en"): ("[book_flight(to_city='Beijing', date='2024-06-14')]", [tool_call("book_flight", {"to_city": "Beijing", "date": "2024-06-14"})], "special_not_detected"),
    ("irrelevant-0001", "en"): ("Let me check.\n[MISSING] get_weather: city", [], "special_not_detected"),  # a marker, the wrong kind
}


@pytest.mark.parametrize("mode", ["prompt", "fc"])
def test_wrong_replies_score_zero_with_their_error_type(tmp_path: Path, repo: Corpus, mode: str) -> None:
    syntax = "tool_calls" if mode == "fc" else "python"

    def answer(request: Request) -> Reply:
        text, calls, _ = WRONG[(request.id, request.lang)]
        return Reply(tool_calls=calls, content=None if calls else text) if mode == "fc" else Reply(content=text)

    out = tmp_path / "wrong.jsonl"
    selection = ["--lang", "en", "--category", "normal/single_turn/single", "--category", "special/incomplete", "--category", "special/irrelevant"]
    with OpenAIServer(CorpusResponder(repo, syntax, answer)) as server:
        assert run(server, out, "--mode", mode, *selection).exit_code == 0
    scored = results_by_id(report(out, *selection))
    assert {key: (r["correct"], r["error"]) for key, r in scored.items()} == {key: (False, error) for key, (_, _, error) in WRONG.items()}


def test_unreadable_text_is_a_format_error_in_prompt_mode(tmp_path: Path) -> None:
    out = tmp_path / "format.jsonl"
    with OpenAIServer(always("I would call get_weather for Hangzhou.")) as server:
        assert run(server, out, "--lang", "en", "--category", "normal/single_turn/single").exit_code == 0
    scored = results_by_id(report(out, "--lang", "en", "--category", "normal/single_turn/single"))
    assert {r["error"] for r in scored.values()} == {"format"}


# ----------------------------------------------------------------------------- retrieval: live search


class ReadingAgent:
    """A model that searches, reads the real results it is sent, and calls the API they name:
    the first result of each search, with a value from an earlier result where the task needs it.
    It keeps what each request offered (fc tools) and what it read, for the test to check."""

    PLANS: ClassVar[dict[str, tuple[str, list[str], str]]] = {
        "What's the weather in Tokyo?": ("en", ["current weather in a city"], "weather"),
        "东京天气怎么样？": ("zh", ["当前天气"], "weather"),
        "Convert 100 US dollars to yuan and text the result to Zhang Wei.": ("en", ["convert currency", "send a text message"], "plan"),
        "把100美元换算成人民币，再把结果发短信告诉张伟。": ("zh", ["货币换算", "发短信"], "plan"),
    }

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.offered: list[list[str]] = []  # tool names of each request (fc mode)
        self.picked: list[str] = []  # the API each search's first result named

    def _results(self, request: ChatRequest) -> Any:
        """The latest result the model was sent, decoded (a tool message, or the results text)."""
        last = request.messages[-1]
        text = str(last.get("content"))
        if self.mode == "prompt":
            text = text.split("\n", 1)[1].split(": ", 1)[1]
        return json.loads(text)

    def _call(self, name: str, args: dict[str, Any]) -> Reply:
        if self.mode == "fc":
            return Reply(tool_calls=[tool_call(name, args, call_id=f"call_{len(self.picked)}_{name}")])
        return Reply(content=f"[{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})]")

    def __call__(self, request: ChatRequest) -> Reply:
        opening = next(m["content"] for m in request.messages if m["role"] == "user")
        lang, queries, kind = self.PLANS[opening]
        if self.mode == "fc":
            self.offered.append([t["function"]["name"] for t in request.body.get("tools") or []])
        turn = sum(1 for m in request.messages if m["role"] == "assistant")
        if kind == "weather":
            if turn == 0:
                return self._call("search_tools", {"query": queries[0]})
            if turn == 1:
                self.picked.append(self._results(request)["results"][0]["name"])
                return self._call(self.picked[-1], {"city": "Tokyo" if lang == "en" else "东京"})
            return Reply(content=f"{self._results(request)['temperature']:g} °C")
        if turn in (0, 2):
            amount = self._results(request)["amount"] if turn == 2 else None
            self.amount = amount
            return self._call("search_tools", {"query": queries[turn // 2]})
        if turn == 1:
            self.picked.append(self._results(request)["results"][0]["name"])
            return self._call(self.picked[-1], {"amount": 100, "from_currency": "USD", "to_currency": "CNY"})
        if turn == 3:
            self.picked.append(self._results(request)["results"][0]["name"])
            text = f"100 US dollars is {self.amount:g} yuan" if lang == "en" else f"100美元是{self.amount:g}元人民币"
            return self._call(self.picked[-1], {"receiver": "Zhang Wei" if lang == "en" else "张伟", "content": text})
        return Reply(content="Done." if lang == "en" else "已发送。")


@pytest.mark.parametrize("mode", ["prompt", "fc"])
def test_a_model_that_searches_reads_and_calls_scores_right(tmp_path: Path, mode: str) -> None:
    """Both retrieval cases, live: searches answered by the catalog, a plan chaining two found APIs."""
    agent = ReadingAgent(mode)
    out = tmp_path / "retrieval.jsonl"
    with OpenAIServer(agent) as server:
        result = run(server, out, "--mode", mode, "--category", "retrieval", "--concurrency", "1")
        assert result.exit_code == 0, result.output
        bodies = [r.body for r in server.chat_requests]
    # the first result of each search named the API the case needs: the real index answered
    assert agent.picked == ["get_weather", "get_weather", "convert_currency", "send_message", "convert_currency", "send_message"]
    if mode == "fc":
        assert agent.offered[0] == ["search_tools"] and "get_weather" in agent.offered[1]  # found → callable
        assert all("tools" in body for body in bodies)
    else:
        assert all("tools" not in body for body in bodies)
        assert any('"parameters"' in str(m.get("content")) for body in bodies for m in body["messages"] if m["role"] == "user")
    written = {(r["id"], r["lang"]): r for r in records(out)}
    sent = written[("retrieval-plan-0001", "en")]["calls"][-1]
    assert sent == {"api": "send_message", "args": {"receiver": "Zhang Wei", "content": "100 US dollars is 720 yuan"}}  # 720 came from convert_currency
    scored = report(out, "--category", "retrieval")
    assert {(r["id"], r["lang"]): r["correct"] for r in scored["results"]} == dict.fromkeys(written, True)
    assert scored["overall"]["score"] == 1.0


def test_a_model_that_guesses_past_a_useless_search_is_not_retrieved(tmp_path: Path) -> None:
    def respond(request: ChatRequest) -> Reply:
        turn = sum(1 for m in request.messages if m["role"] == "assistant")
        if turn == 0:
            return Reply(tool_calls=[tool_call("search_tools", {"query": "zzz"})])
        if turn == 1:
            return Reply(tool_calls=[tool_call("get_weather", {"city": "Tokyo"})])
        assert "search_tools first" in str(request.messages[-1]["content"])  # the guessed call was not run
        return Reply(content="Sorry.")

    out = tmp_path / "guess.jsonl"
    with OpenAIServer(respond) as server:
        assert run(server, out, "--mode", "fc", "--lang", "en", "--category", "retrieval/call").exit_code == 0
    [result] = report(out, "--lang", "en", "--category", "retrieval/call")["results"]
    assert (result["correct"], result["error"]) == (False, "not_retrieved")


# ----------------------------------------------------------------------------- agents


OFFICE_1_EN = 'Please save a note called "Groceries": milk and eggs.'
OFFICE_3_EN = "Delete all my notes."


def test_agent_scenarios_run_to_completion_with_the_scripted_user(tmp_path: Path) -> None:
    script = agent_script(
        {
            OFFICE_1_EN: ["[add_note(title='Groceries', body='milk and eggs')]", "Saved: the note id is N-2."],
            OFFICE_3_EN: ["[delete_note(note_id='N-1')]", "All gone."],
        }
    )
    out = tmp_path / "agent.jsonl"
    with OpenAIServer(script) as server:
        result = run(server, out, "--lang", "en", "--category", "agent/multi_step", "--concurrency", "2")
        assert result.exit_code == 0, result.output
        assert server.count(CHAT) == 4
        [second] = [r.messages for r in server.chat_requests if r.messages[1]["content"] == OFFICE_1_EN and len(r.messages) > 2]
    by_id = {r["id"]: r for r in records(out)}
    assert by_id["office-0001"]["calls"] == [{"api": "add_note", "args": {"title": "Groceries", "body": "milk and eggs"}, "at": 1}]
    assert by_id["office-0001"]["messages"][-1] == {"role": "assistant", "content": "Saved: the note id is N-2."}
    assert by_id["office-0001"]["usage"]["total_tokens"] > 0
    scored = results_by_id(report(out, "--lang", "en", "--category", "agent/multi_step"))
    assert scored[("office-0001", "en")]["correct"] is True
    assert (scored[("office-0003", "en")]["correct"], scored[("office-0003", "en")]["error"]) == (False, "minefield")
    # prompt mode: the call went back as the assistant's text, its result as a user message
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"] == "[add_note(title='Groceries', body='milk and eggs')]"
    assert second[3]["content"].startswith("Results of the API calls") and '"note_id": "N-2"' in second[3]["content"]


def test_fc_agent_gets_tool_messages(tmp_path: Path) -> None:
    script = agent_script({OFFICE_1_EN: [Reply(tool_calls=[tool_call("add_note", {"title": "Groceries", "body": "milk and eggs"}, "c1")]), "Saved. The note id is N-2."]})
    out = tmp_path / "fc-agent.jsonl"
    with OpenAIServer(script) as server:
        assert run(server, out, "--mode", "fc", "--lang", "en", "--category", "agent/multi_step", "--limit", "1").exit_code == 0
        second = server.chat_requests[1].body
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool"]
    assert json.loads(second["messages"][3]["content"]) == {"note_id": "N-2"} and "name" not in second["messages"][3]
    assert {t["function"]["name"] for t in second["tools"]} >= {"add_note", "delete_note", "list_notes"}
    scored = results_by_id(report(out, "--lang", "en", "--category", "agent/multi_step"))
    assert scored[("office-0001", "en")]["correct"] is True


def test_user_simulator_plays_the_user_until_stop(tmp_path: Path) -> None:
    user_turns: list[ChatRequest] = []

    def user(request: ChatRequest) -> str:
        user_turns.append(request)
        return OFFICE_1_EN if len(user_turns) == 1 else "Thanks! ###STOP###"

    agent = agent_script({OFFICE_1_EN: ["[add_note(title='Groceries', body='milk and eggs')]", "Saved as N-2."]})
    out = tmp_path / "sim.jsonl"
    with OpenAIServer(by_model({"test-model": agent, "sim": user}), models=["test-model", "sim"]) as server:
        result = run(server, out, "--lang", "en", "--category", "agent/multi_step", "--limit", "1", "--user-model", "sim")
        assert result.exit_code == 0, result.output
    assert "user simulator sim:" in result.output
    [record] = records(out)
    assert [m["role"] for m in record["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert len(user_turns) == 2
    system = user_turns[0].messages[0]["content"]
    assert "Groceries" in system and "###STOP###" in system  # the goal, the end marker
    # the simulator sees the agent's words as the user's, its own as the assistant's, never calls
    assert [m["role"] for m in user_turns[1].messages] == ["system", "user", "assistant", "user"]
    assert user_turns[1].messages[-1]["content"] == "Saved as N-2."
    manifest = json.loads(Path(str(out) + ".manifest.json").read_text(encoding="utf-8"))
    assert manifest["user"] == {"model": "sim", "endpoint": server.base_url}


# ----------------------------------------------------------------------------- fc mode on real servers


def llama_cpp_python(inner: Responder) -> Responder:
    """A server that validates messages as llama-cpp-python's does: an assistant message with
    ``content: null`` fails its request model, one without ``content`` its chat template — HTTP
    500 both, the same every time — and tools count only when a tool choice is asked for."""

    def respond(request: ChatRequest) -> str | Reply | dict[str, Any]:
        for message in request.messages:
            if message.get("role") == "assistant" and "content" not in message:
                return Reply(status=500, error="'dict object' has no attribute 'content'")
            if message.get("role") == "assistant" and message["content"] is None:
                return Reply(status=500, error="7 validation errors: Input should be a valid string")
            if message.get("role") == "tool" and not any(
                call.get("id") == message.get("tool_call_id") for m in request.messages for call in m.get("tool_calls") or []
            ):
                return Reply(status=500, error=f"tool_call_id {message.get('tool_call_id')} answers no call")
        if request.body.get("tools") and request.body.get("tool_choice") is None:
            return Reply(content="(the tools were left out of the prompt)")
        return inner(request)

    return respond


def test_fc_history_with_calls_is_served_by_a_llama_cpp_like_server(tmp_path: Path, repo: Corpus) -> None:
    """Multi-turn cases (earlier calls and results in the history) and an agent episode in fc mode."""
    script = agent_script({OFFICE_1_EN: [Reply(tool_calls=[tool_call("add_note", {"title": "Groceries", "body": "milk and eggs"})]), "Saved as N-2."]})
    responder = CorpusResponder(repo, "tool_calls", oracle_answers(repo), fallback=script)
    out = tmp_path / "fc.jsonl"
    selection = ["--lang", "en", "--category", "normal/multi_turn", "--category", "agent/multi_step", "--limit", "1"]
    with OpenAIServer(llama_cpp_python(responder)) as server:
        result = run(server, out, "--mode", "fc", *selection)
        assert result.exit_code == 0, result.output
    written = records(out)
    assert "plan: 5 record(s) in en — 4 case checkpoint(s), 1 agent episode(s)" in result.output
    assert not [r for r in written if "error" in r] and {r["id"] for r in written} == {"adjust-0001", "switch-0001", "office-0001"}
    scored = report(out, *selection)
    assert scored["overall"]["score"] == 1.0 and scored["missing"] == []


def test_a_request_the_server_always_fails_is_that_records_error(tmp_path: Path, repo: Corpus) -> None:
    """An HTTP 500 repeated for one request no longer stops the run for a resume that fails the same way."""
    oracle = oracle_answers(repo)

    def answer(request: Request) -> Reply:
        if (request.id, request.step) == ("adjust-0001", 1):
            return Reply(status=500, error="'dict object' has no attribute 'content'")
        return oracle(request)

    out = tmp_path / "one-bad.jsonl"
    selection = ["--lang", "en", "--category", "normal/multi_turn", "--concurrency", "1"]
    with OpenAIServer(CorpusResponder(repo, "tool_calls", answer)) as server:
        result = run(server, out, "--mode", "fc", *selection)
        assert result.exit_code == 0, result.output
        again = run(server, out, "--mode", "fc", *selection)
    by_key = {(r["id"], r["step"]): r for r in records(out)}
    assert "the same answer 2 times" in by_key[("adjust-0001", 1)]["error"] and "error" not in by_key[("adjust-0001", 0)]
    assert again.exit_code == 0 and "nothing to do" in again.output


def test_a_server_that_drops_the_tools_is_reported_once(tmp_path: Path) -> None:
    out = tmp_path / "dropped.jsonl"
    with OpenAIServer(always("I would check the weather."), tools_in_prompt=False) as server:
        result = run(server, out, "--mode", "fc", "--lang", "en", "--category", "normal", "--concurrency", "1")
        assert result.exit_code == 0, result.output
    assert result.output.count("leaves the tools out of the prompt") == 1 and "warning: " in result.output
    manifest = json.loads(Path(str(out) + ".manifest.json").read_text(encoding="utf-8"))
    [warning] = manifest["sessions"][-1]["warnings"]
    assert "--chat_format chatml-function-calling" in warning


def test_a_server_not_set_up_for_tools_stops_the_run_at_once(tmp_path: Path) -> None:
    out = tmp_path / "vllm.jsonl"
    said = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
    with OpenAIServer(always(Reply(status=400, error=said))) as server:
        result = run(server, out, "--mode", "fc", "--lang", "en", "--category", "normal/single_turn", "--concurrency", "1")
        assert server.count(CHAT) == 1
    assert result.exit_code == 1 and "--enable-auto-tool-choice" in result.output and out.read_text() == ""


# ----------------------------------------------------------------------------- transport


def test_retries_on_500_and_429_then_succeeds(tmp_path: Path) -> None:
    out = tmp_path / "retry.jsonl"
    script = scripted(Reply(status=500), Reply(status=429, headers={"retry-after": "0"}), Reply(status=503), "[get_weather(city='Hangzhou')]")
    with OpenAIServer(script) as server:
        result = run(server, out, "--lang", "en", "--category", "normal/single_turn/single", "--limit", "1")
        assert result.exit_code == 0, result.output
        assert server.count(CHAT) == 4 and server.count("/v1/models") == 1
    [record] = records(out)
    assert record["usage"]["attempts"] == 4
    assert "4 request(s), 3 retries" in result.output


@pytest.mark.parametrize("status", [503, 429])  # "later": a 500 that repeats is the request's (below)
def test_retries_stop_after_the_limit(tmp_path: Path, status: int) -> None:
    out = tmp_path / "limit.jsonl"
    with OpenAIServer(always(Reply(status=status, error="busy"))) as server:
        result = run(server, out, "--lang", "en", "--category", "normal/single_turn/single", "--max-retries", "2", "--concurrency", "1")
        assert result.exit_code == 1
        assert server.count(CHAT) == 3  # one attempt and two retries, then the run stops
    assert f"kept failing after 3 attempts: HTTP {status}" in result.output and "run the same command again" in result.output
    assert out.read_text() == ""
    manifest = json.loads(Path(str(out) + ".manifest.json").read_text(encoding="utf-8"))
    assert manifest["sessions"][-1]["status"] == "failed" and manifest["sessions"][-1]["usage"]["retries"] == 2


def test_timeouts_are_retried_too(tmp_path: Path) -> None:
    out = tmp_path / "slow.jsonl"
    with OpenAIServer(always(Reply(content="[x()]", delay=3))) as server:
        started = time.monotonic()
        result = run(server, out, "--lang", "en", "--category", "normal/single_turn/single", "--timeout", "0.3", "--max-retries", "1", "--concurrency", "1")
        assert result.exit_code == 1 and "timed out" in result.output
        assert server.count(CHAT) == 2 and time.monotonic() - started < 3


def test_a_rejected_request_is_recorded_and_the_run_goes_on(tmp_path: Path) -> None:
    out = tmp_path / "rejected.jsonl"
    script = scripted(Reply(status=400, error="context length exceeded"), "[get_weather(city='Hangzhou')]")
    with OpenAIServer(script) as server:
        result = run(server, out, "--lang", "en", "--category", "normal/single_turn/single", "--concurrency", "1")
        assert result.exit_code == 0 and server.count(CHAT) == 2
    first, second = records(out)
    assert first["output"] == "" and "context length exceeded" in first["error"] and "error" not in second


# ----------------------------------------------------------------------------- errors before any work


def one_line_error(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_unreachable_endpoint(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = invoke("run", "--model", "m", "--base-url", url, "--out", str(tmp_path / "x.jsonl"))
    one_line_error(result, "cannot reach", url)
    assert not (tmp_path / "x.jsonl").exists()


def test_wrong_model_name(tmp_path: Path) -> None:
    with OpenAIServer(always("x"), models=["test-model", "other"]) as server:
        result = run(server, tmp_path / "x.jsonl", model="tset-model")
        assert server.count(CHAT) == 0
    one_line_error(result, "'tset-model' is not served", "test-model, other")


def test_wrong_model_without_a_models_list(tmp_path: Path) -> None:
    with OpenAIServer(by_model({"test-model": always("x")}), models_status=404) as server:
        one_line_error(run(server, tmp_path / "x.jsonl", model="nope"), "'nope' is not served")
        assert run(server, tmp_path / "y.jsonl", "--lang", "en", "--category", "special/irrelevant").exit_code == 0


def test_missing_key_for_a_remote_endpoint(tmp_path: Path) -> None:
    result = invoke("run", "--model", "gpt-x", "--base-url", "https://api.example.invalid/v1", "--out", str(tmp_path / "x.jsonl"), "--api-key-env", "CALLBANK_TEST_NO_SUCH_KEY")
    one_line_error(result, "CALLBANK_TEST_NO_SUCH_KEY is not set")


def test_key_from_the_environment_and_a_refused_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIServer(always("[IRRELEVANT]"), api_key="sekrit") as server:
        monkeypatch.setenv("MY_KEY", "sekrit")
        result = run(server, tmp_path / "ok.jsonl", "--api-key-env", "MY_KEY", "--lang", "en", "--category", "special/irrelevant")
        assert result.exit_code == 0, result.output
        monkeypatch.setenv("MY_KEY", "wrong")
        one_line_error(run(server, tmp_path / "no.jsonl", "--api-key-env", "MY_KEY"), "refused the API key from MY_KEY")


def test_option_errors(tmp_path: Path) -> None:
    out = str(tmp_path / "x.jsonl")
    one_line_error(invoke("run", "--model", "gpt-9", "--out", out), "unknown model 'gpt-9'", "--base-url")
    one_line_error(invoke("run", "--model", "m", "--base-url", "127.0.0.1:8000", "--out", out), "not an http(s) URL")
    one_line_error(invoke("run", "--model", "oracle", "--mode", "fc", "--syntax", "python", "--out", out), "--mode fc")
    one_line_error(invoke("run", "--model", "oracle", "--concurrency", "0", "--out", out), "--concurrency")
    one_line_error(invoke("run", "--model", "oracle", "--user-model", "sim", "--out", out), "--user-base-url")


# ----------------------------------------------------------------------------- resuming


def test_rerun_skips_finished_records_and_refuses_another_run(tmp_path: Path, repo: Corpus) -> None:
    out = tmp_path / "resume.jsonl"
    selection = ["--lang", "zh", "--category", "normal/atom"]
    with OpenAIServer(CorpusResponder(repo, "python", oracle_answers(repo), styles=("standard", "minimal"))) as server:
        assert run(server, out, *selection, "--limit", "1").exit_code == 0
        first = server.count(CHAT)
        result = run(server, out, *selection)
        assert result.exit_code == 0 and server.count(CHAT) == 6  # the 6 atom checkpoints in zh, each asked once
        assert f"({first} already there)" in result.output
        again = run(server, out, *selection)
        assert "nothing to do" in again.output and server.count(CHAT) == 6
        other = run(server, out, *selection, "--style", "minimal")
        one_line_error(other, "different run", "style")
        assert run(server, out, *selection, "--style", "minimal", "--overwrite").exit_code == 0
        assert server.count(CHAT) == 12
    manifest = json.loads(Path(str(out) + ".manifest.json").read_text(encoding="utf-8"))
    assert manifest["style"] == "minimal" and len(manifest["sessions"]) == 1
    for key in ("model", "endpoint", "mode", "style", "prompt_version", "prompt_hash", "corpus_version", "seed", "created"):
        assert key in manifest


def _wait_for_lines(path: Path, count: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= count:
            return
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        time.sleep(0.02)
    raise AssertionError(f"{path} did not reach {count} lines")


def test_a_killed_run_resumes_without_repeating_finished_requests(tmp_path: Path, repo: Corpus) -> None:
    """`callbank run` as a process: killed (SIGKILL), interrupted (SIGINT), then run to the end."""
    out = tmp_path / "killed.jsonl"
    answers = oracle_answers(repo)
    responder = CorpusResponder(repo, "python", lambda request: Reply(content=answers(request).content, delay=0.15))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OPENAI_API_KEY", None)
    with OpenAIServer(responder) as server:
        command = [
            sys.executable, "-m", "validator", "run", "--model", "test-model", "--base-url", server.base_url,
            "--out", str(out), "--repo", str(FIXTURE), "--category", "normal", "--concurrency", "2",
        ]  # fmt: skip

        def start() -> subprocess.Popen[bytes]:
            return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)

        process = start()
        _wait_for_lines(out, 4, process)
        process.kill()
        process.wait(timeout=10)
        after_kill = {(r["id"], r["lang"], r["step"]) for r in map(json.loads, out.read_text(encoding="utf-8").splitlines()[:-1])}

        process = start()
        _wait_for_lines(out, len(after_kill) + 3, process)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=20)
        assert process.returncode == 130 and b"interrupted" in stderr and b"Traceback" not in stderr
        manifest = json.loads(Path(str(out) + ".manifest.json").read_text(encoding="utf-8"))
        assert [s["status"] for s in manifest["sessions"]] == ["running", "interrupted"]  # SIGKILL leaves no end

        final = subprocess.run(command, capture_output=True, env=env, timeout=120, check=False)
        assert final.returncode == 0, final.stderr.decode()
    keys = [(r["id"], r["lang"], r["step"]) for r in records(out)]
    planned = {job.key for job in plan(repo, categories=["normal"])}
    assert len(keys) == len(set(keys)) and set(keys) == planned  # every normal checkpoint, once
    assert after_kill and all(responder.count(key) == 1 for key in after_kill)  # never asked again
    # at most the requests in flight at each stop were asked twice (2 workers × 2 stops)
    assert len(responder.seen) - len(keys) <= 4
    assert report(out, "--category", "normal")["overall"]["score"] == 1.0


@pytest.mark.parametrize("syntax", ["python", "tool_calls"])
def test_an_endpoint_serving_the_oracle_writes_what_the_oracle_writes(tmp_path: Path, repo: Corpus, syntax: str) -> None:
    """Only the transport differs between `--model oracle` and an endpoint."""
    builtin, served = tmp_path / "builtin.jsonl", tmp_path / "served.jsonl"
    selection = ["--syntax", syntax, "--category", "normal", "--category", "special", "--category", "retrieval"]
    assert invoke("run", "--model", "oracle", "--out", str(builtin), *selection).exit_code == 0
    with OpenAIServer(CorpusResponder(repo, syntax, oracle_answers(repo), episode=oracle_episode(repo), root=FIXTURE)) as server:
        assert run(server, served, *selection).exit_code == 0

    def answers(path: Path) -> dict[tuple[str, str, int], tuple[str, Any, Any]]:
        def calls(r: dict[str, Any]) -> list[tuple[str, Any]] | None:
            return [(c["function"]["name"], c["function"]["arguments"]) for c in r["tool_calls"]] if "tool_calls" in r else None

        return {(r["id"], r["lang"], r["step"]): (r["output"], calls(r), r.get("calls")) for r in records(path)}

    assert answers(builtin) == answers(served) and len(answers(served)) == 40
