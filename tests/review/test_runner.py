"""`callbank review run` against scripted judges on 127.0.0.1 (real sockets, real OpenAI client)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.review.helpers import FAST, ITEMS, VALID, corpus, item_of, judges_file, store_lines, verdict
from tests.support.openai_server import ChatRequest, OpenAIServer, Reply
from validator.errors import UserError
from validator.review.runner import run_review

CHAT = "/v1/chat/completions"


def run(root: Path, server: OpenAIServer, **options: object):  # type: ignore[no-untyped-def]
    judges = judges_file(root.parent / "judges.yaml", server.base_url)
    return run_review(root, judges_file=judges, policy=FAST, progress=False, **options)  # type: ignore[arg-type]


def record(root: Path, item_id: str) -> dict:
    text = (root / "review" / "queue" / f"{item_id}.yaml").read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=../../schemas/review-record.schema.json\n")
    return yaml.safe_load(text)


def test_unanimous_valid_queues_nothing(tmp_path: Path, server: OpenAIServer) -> None:
    root = corpus(tmp_path)
    summary = run(root, server)
    assert summary.complete and summary.asked == 15 and summary.accepted == 5 and summary.pending == 0
    assert server.count(CHAT) == 15
    for item_id in ITEMS:
        data = record(root, item_id)
        assert data["status"] == "accepted" and data["decided_by"] == "judges"
        assert data["accepted_hash"] == data["content_hash"]
        assert [v["verdict"] for v in data["votes"]] == ["valid"] * 3


def test_one_dissent_queues_the_case_with_every_rationale(tmp_path: Path, server: OpenAIServer) -> None:
    def respond(request: ChatRequest) -> str:
        if item_of(request.text) == "sp-incomplete-0001":
            if request.model == "model-b":
                return verdict("invalid", "`to` is required but the user could mean a group", rationale="ambiguous recipient", fix="name the colleague in missing")
            return verdict("valid", rationale=f"{request.model} agrees")
        return VALID

    server.responder = respond
    root = corpus(tmp_path)
    summary = run(root, server)
    assert summary.accepted == 4 and summary.pending == 1
    data = record(root, "sp-incomplete-0001")
    assert data["status"] == "pending" and "accepted_hash" not in data
    assert [(v["judge"], v["verdict"], v["rationale"]) for v in data["votes"]] == [
        ("judge-a", "valid", "model-a agrees"),
        ("judge-b", "invalid", "ambiguous recipient"),
        ("judge-c", "valid", "model-c agrees"),
    ]
    assert data["votes"][1]["problems"] == ["`to` is required but the user could mean a group"]
    assert data["votes"][1]["suggested_fix"] == "name the colleague in missing"
    assert data["votes"][1]["prompt_version"] == "special.v1" and data["votes"][1]["lang"] == "zh"


def test_malformed_verdicts_are_retried_then_recorded_as_a_judge_error(tmp_path: Path, server: OpenAIServer) -> None:
    asked: list[ChatRequest] = []

    def respond(request: ChatRequest) -> str:
        if item_of(request.text) == "single-0001" and request.model == "model-c":
            asked.append(request)
            return ["Sure! The case looks fine.", '{"verdict": "maybe"}', "```json\n{\"verdict\": \"invalid\", \"problems\": []}\n```"][len(asked) - 1]
        return VALID

    server.responder = respond
    root = corpus(tmp_path)
    summary = run(root, server)
    assert len(asked) == 3  # the first reply and two retries, each told what was wrong
    assert "no JSON object" in asked[1].messages[-1]["content"] and asked[1].messages[-2]["content"] == "Sure! The case looks fine."
    assert summary.judge_errors == 1 and summary.pending == 1
    vote = record(root, "single-0001")["votes"][2]
    assert vote["judge"] == "judge-c" and "verdict" not in vote
    assert vote["error"].startswith("malformed verdict in 3 replies") and "at least one problem" in vote["error"]
    assert record(root, "single-0001")["status"] == "pending"  # an error is not a vote: no unanimity


def test_a_malformed_reply_then_a_good_one_is_a_vote(tmp_path: Path, server: OpenAIServer) -> None:
    seen: set[str] = set()

    def respond(request: ChatRequest) -> str:
        key = f"{item_of(request.text)}/{request.model}"
        if key not in seen:
            seen.add(key)
            return "I think it is valid."
        return VALID

    server.responder = respond
    root = corpus(tmp_path)
    summary = run(root, server)
    assert summary.accepted == 5 and summary.judge_errors == 0 and server.count(CHAT) == 30
    assert {line["attempts"] for item in ITEMS for line in store_lines(root, item)} == {2}


def test_a_second_run_asks_nothing(tmp_path: Path, server: OpenAIServer) -> None:
    root = corpus(tmp_path)
    run(root, server)
    before = {p.name: p.read_bytes() for p in (root / "review").rglob("*") if p.is_file()}
    server.reset()
    summary = run(root, server)
    assert server.count() == 0  # not even the reachability probe
    assert summary.asked == 0 and summary.cached == 15 and summary.records_written == 0
    assert {p.name: p.read_bytes() for p in (root / "review").rglob("*") if p.is_file()} == before


def test_judge_errors_are_cached_unless_asked_to_retry_them(tmp_path: Path, server: OpenAIServer) -> None:
    server.responder = lambda request: "nonsense" if request.model == "model-a" and item_of(request.text) == "single-0001" else VALID
    root = corpus(tmp_path)
    run(root, server)
    server.reset()
    assert run(root, server).asked == 0 and server.count(CHAT) == 0
    server.responder = lambda request: VALID
    summary = run(root, server, retry_errors=True)
    assert summary.asked == 1 and server.count(CHAT) == 1
    assert record(root, "single-0001")["status"] == "accepted"
    assert [line.get("verdict", "error") for line in store_lines(root, "single-0001") if line["judge"] == "judge-a"] == ["error", "valid"]


def test_editing_one_case_reasks_only_about_that_case(tmp_path: Path, server: OpenAIServer) -> None:
    root = corpus(tmp_path)
    run(root, server)
    case = root / "dialogues/normal/single_turn/single/single-0001.yaml"
    case.write_text(case.read_text(encoding="utf-8").replace("days: 3}", "days: 3, unit: celsius}"), encoding="utf-8")
    server.reset()
    summary = run(root, server)
    assert summary.asked == 3 and summary.cached == 12
    assert {item_of(r.text) for r in server.chat_requests} == {"single-0001"}
    data = record(root, "single-0001")
    assert data["status"] == "accepted" and len(data["history"]) == 1
    assert data["history"][0]["content_hash"] != data["content_hash"]
    assert len(store_lines(root, "single-0001")) == 6  # append-only: the old votes stay, as history


def test_paths_limit_the_run(tmp_path: Path, server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus(tmp_path)
    monkeypatch.chdir(root)
    summary = run(root, server, paths=["dialogues/special"])
    assert summary.items == 2 and server.count(CHAT) == 6
    assert sorted(p.stem for p in (root / "review/queue").glob("*.yaml")) == ["sp-incomplete-0001", "sp-irrelevant-0001"]


def test_server_errors_and_rate_limits_are_retried(tmp_path: Path, server: OpenAIServer) -> None:
    failures = iter([Reply(status=500), Reply(status=429, headers={"retry-after": "0"}), Reply(status=503)])

    def respond(request: ChatRequest) -> str | Reply:
        return next(failures, VALID)

    server.responder = respond
    root = corpus(tmp_path)
    summary = run(root, server, concurrency=1)
    assert summary.complete and summary.accepted == 5 and server.count(CHAT) == 18


def test_a_judge_that_keeps_failing_is_dropped_and_asked_next_time(tmp_path: Path, server: OpenAIServer) -> None:
    server.responder = lambda request: Reply(status=500) if request.model == "model-b" else VALID
    root = corpus(tmp_path)
    summary = run(root, server)
    assert not summary.complete and summary.unanswered == 5
    assert any("judge-b" in p and "HTTP 500" in p for p in summary.problems)
    assert not list((root / "review/queue").glob("*.yaml"))  # no item has every judge's outcome
    server.responder = lambda request: VALID
    server.reset()
    summary = run(root, server)
    assert summary.complete and summary.asked == 5 and server.count(CHAT) == 5 and summary.accepted == 5


def test_an_unreachable_judge_is_one_clear_error_before_any_work(tmp_path: Path, server: OpenAIServer) -> None:
    root = corpus(tmp_path)
    judges = judges_file(root.parent / "judges.yaml", server.base_url)
    text = judges.read_text(encoding="utf-8").replace(server.base_url, "http://127.0.0.1:9/v1", 1)
    judges.write_text(text, encoding="utf-8")
    with pytest.raises(UserError) as raised:
        run_review(root, judges_file=judges, policy=FAST, progress=False)
    message = str(raised.value)
    assert "\n" not in message and "judge 'judge-a'" in message and "127.0.0.1:9" in message and "unreachable" in message
    assert server.count(CHAT) == 0 and store_lines(root, "single-0001") == []


def test_a_missing_api_key_is_a_clear_error(tmp_path: Path, server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CALLBANK_TEST_KEY", raising=False)
    root = corpus(tmp_path)
    judges = judges_file(root.parent / "judges.yaml", server.base_url, api_key_env="CALLBANK_TEST_KEY")
    with pytest.raises(UserError, match="CALLBANK_TEST_KEY is not set"):
        run_review(root, judges_file=judges, policy=FAST, progress=False)
    assert server.count() == 0


def test_the_api_key_is_sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CALLBANK_TEST_KEY", "s3cret")
    with OpenAIServer(lambda request: VALID, api_key="s3cret") as server:
        root = corpus(tmp_path)
        judges = judges_file(root.parent / "judges.yaml", server.base_url, api_key_env="CALLBANK_TEST_KEY")
        assert run_review(root, judges_file=judges, policy=FAST, progress=False).accepted == 5


def test_servers_without_a_models_route_are_probed_with_a_tiny_completion(tmp_path: Path) -> None:
    with OpenAIServer(lambda request: VALID, models_status=404) as server:
        root = corpus(tmp_path)
        summary = run(root, server)
        assert summary.accepted == 5
        assert server.count(CHAT) == 15 + 3  # three one-token probes
        assert all(r.body.get("max_tokens") == 1 for r in server.chat_requests[:3])


def test_judge_settings_reach_the_request(tmp_path: Path, server: OpenAIServer) -> None:
    root = corpus(tmp_path)
    judges = judges_file(root.parent / "judges.yaml", server.base_url, temperature=0.7, seed=11, max_tokens=300, json_mode=True)
    run_review(root, judges_file=judges, policy=FAST, progress=False)
    body = server.chat_requests[0].body
    assert (body["temperature"], body["seed"], body["max_tokens"], body["response_format"]) == (0.7, 11, 300, {"type": "json_object"})


def test_the_judge_sees_both_languages_and_the_rendered_specs(tmp_path: Path, server: OpenAIServer) -> None:
    root = corpus(tmp_path)
    run(root, server)
    prompts = {(item_of(r.text), r.model): r for r in server.chat_requests}
    english = prompts[("parallel-0001", "model-a")]
    system, user = english.messages[0]["content"], english.messages[1]["content"]
    assert "reviewer" in system and '"verdict"' in system
    assert "Tell Li Lei" in user and "给李雷留言" in user  # both sides
    assert "Send a short note to a colleague." in user and "给同事发一条简短的留言。" in user  # both renderings
    assert '"description": "Name of the colleague."' in user and '"description": "同事的姓名。"' in user
    chinese = prompts[("parallel-0001", "model-b")]
    assert "审核员" in chinese.messages[0]["content"]
    agent = prompts[("mini-0001", "model-a")].messages[1]["content"]
    assert "Send notes only when the user asks." in agent and "只有在用户要求时才发送留言。" in agent


def test_a_broken_judges_file_is_a_user_error(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    bad = tmp_path / "judges.yaml"
    bad.write_text("judges:\n  - {name: a, base_url: 'http://x/v1'}\n", encoding="utf-8")
    with pytest.raises(UserError, match='"model" is a required property'):
        run_review(root, judges_file=bad, policy=FAST, progress=False)
    bad.write_text("judges:\n  - {name: a, base_url: 'http://x/v1', model: m1}\n  - {name: a, base_url: 'http://x/v1', model: m2}\n", encoding="utf-8")
    with pytest.raises(UserError, match="two judges are named 'a'"):
        run_review(root, judges_file=bad, policy=FAST, progress=False)


def test_a_new_judge_is_asked_only_its_own_questions(tmp_path: Path, server: OpenAIServer) -> None:
    root = corpus(tmp_path)
    judges = judges_file(root.parent / "judges.yaml", server.base_url, models=("model-a", "model-b"))
    run_review(root, judges_file=judges, policy=FAST, progress=False)
    server.reset()
    judges = judges_file(root.parent / "judges.yaml", server.base_url)
    summary = run_review(root, judges_file=judges, policy=FAST, progress=False)
    assert summary.asked == 5 and {r.model for r in server.chat_requests} == {"model-c"}
    assert all(len(record(root, item)["votes"]) == 3 for item in ITEMS)
