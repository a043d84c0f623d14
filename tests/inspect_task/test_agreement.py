"""The Inspect task and `callbank run` + `callbank score` agree case by case.

Both paths talk to the same scripted OpenAI-compatible server on 127.0.0.1 (Inspect through its
own OpenAI-compatible provider), which answers each request by what it is — a case checkpoint,
a retrieval episode's turn, a scenario's turn — with the oracle's answer, or a wrong one for a
fixed set of units, whatever the exact formatting of the request. Each unit must get the same
verdict and error type from Inspect's scorer as from `callbank score`, and Inspect's overall
metric must equal callbank's overall score.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.support.corpus_responders import oracle_answers, oracle_episode
from tests.support.openai_server import ChatRequest, OpenAIServer, Reply
from validator.cli import cli
from validator.corpus.index import Corpus
from validator.models.base import ModelContext, Request
from validator.models.endpoint import native_messages, text_messages
from validator.models.oracle import create as create_oracle
from validator.models.render import tool_calls
from validator.models.runner import CaseJob, RetrievalJob, plan
from validator.scoring.parse import parse_text

inspect_ai = pytest.importorskip("inspect_ai", reason="the Inspect task needs the inspect extra")

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"
# units answered wrongly on purpose: a single call, a special case, a checkpoint of a multi-turn case, a scenario
WRONG = {("single-0001", "en"), ("incomplete-0001", "zh"), ("adjust-0001", "en"), ("office-0002", "zh"), ("retrieval-call-0001", "zh")}


def shape(messages: Sequence[Mapping[str, Any]]) -> str:
    """What a conversation says, whatever the client's formatting: roles, texts, calls with their arguments."""
    out = []
    for message in messages:
        calls = []
        for entry in message.get("tool_calls") or []:
            function = entry.get("function") or {}
            arguments = function.get("arguments")
            calls.append([function.get("name"), json.loads(arguments) if isinstance(arguments, str) and arguments else arguments or {}])
        content = message.get("content")
        out.append([message.get("role"), content if isinstance(content, str) else "" if content is None else json.dumps(content, ensure_ascii=False), calls])
    return json.dumps(out, ensure_ascii=False, sort_keys=True)


def with_calls(message: Mapping[str, Any]) -> Mapping[str, Any]:
    """A prompt-mode assistant turn whose text is calls, with those calls as ``tool_calls`` (the
    oracle counts the calls already made; a flattened conversation keeps them only as text)."""
    if message.get("role") != "assistant":
        return message
    parsed = parse_text(message.get("content"))
    if parsed.kind != "calls" or not parsed.calls:
        return message
    return {**message, "tool_calls": tool_calls([{"api": call.api, "args": call.args} for call in parsed.calls])}


class Responder:
    """Answers every request of either path the same way (thread-safe, stateless per request)."""

    def __init__(self, repo: Corpus, syntax: str) -> None:
        self.repo = repo
        self.oracle = create_oracle(ModelContext(repo))
        self.answers = oracle_answers(repo)
        self.episode = oracle_episode(repo)
        self.cases: dict[str, Request] = {}
        self.openings: dict[str, Request] = {}
        for job in plan(repo, syntax=syntax):
            if not isinstance(job, CaseJob | RetrievalJob):
                continue
            sent = native_messages(job.request.messages) if syntax == "tool_calls" else text_messages(job.request.messages, job.request.lang, syntax)
            if isinstance(job, CaseJob):
                self.cases[shape(sent)] = job.request
            elif isinstance(job, RetrievalJob):
                self.openings[shape(sent)] = job.request
        self.scenarios = {(scenario.user[lang].script[0]): (scenario, lang) for scenario in repo.scenarios.values() for lang in scenario.user if scenario.user[lang].script}
        self.syntax = syntax
        self.lock = threading.Lock()
        self.seen: list[str] = []

    def __call__(self, request: ChatRequest) -> Reply | str:
        messages = request.messages
        case = self.cases.get(shape(messages))
        if case is not None:
            self._note(f"case {case.id} {case.lang} {case.step}")
            if (case.id, case.lang) in WRONG and case.step == len(self.repo.cases[case.id].dialogues[case.lang].checkpoints) - 1:  # its last checkpoint
                return Reply(content="[IRRELEVANT]") if self.syntax != "tool_calls" else Reply(content="I cannot help.")
            return self.answers(case)
        for size in range(len(messages), 0, -1):
            opening = self.openings.get(shape(messages[:size]))
            if opening is not None:
                self._note(f"retrieval {opening.id} {opening.lang}")
                if (opening.id, opening.lang) in WRONG:
                    return Reply(content="I did not find it.")
                return self.episode(opening, request)
        users = [m for m in messages if m.get("role") == "user"]
        found = self.scenarios.get(str(users[0].get("content"))) if users else None
        if found is None:
            return Reply(status=500, error="the agreement responder does not know this request")
        scenario, lang = found
        self._note(f"scenario {scenario.id} {lang}")
        if (scenario.id, lang) in WRONG:
            return "Done."
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        conversation = list(messages) if self.syntax == "tool_calls" else [with_calls(m) for m in messages]
        reply = self.oracle.complete(Request("scenario", scenario.id, lang, turn, scenario.category, conversation, [], self.syntax))
        return Reply(content=reply.content, tool_calls=reply.tool_calls or None)

    def _note(self, what: str) -> None:
        with self.lock:
            self.seen.append(what)


def callbank_verdicts(server: OpenAIServer, out: Path, mode: str) -> tuple[dict[tuple[str, str], tuple[bool, str | None]], float]:
    runner = CliRunner()
    result = runner.invoke(cli, ["run", "--model", "test-model", "--base-url", server.base_url, "--out", str(out), "--mode", mode, "--backoff", "0", "--repo", str(FIXTURE)])
    assert result.exit_code == 0, result.output
    scored = runner.invoke(cli, ["score", str(out), "--format", "json", "--repo", str(FIXTURE)])
    assert scored.exit_code == 0, scored.output
    report = json.loads(scored.stdout)
    return {(r["id"], r["lang"]): (r["correct"], r["error"]) for r in report["results"]}, report["overall"]["score"]


def inspect_verdicts(server: OpenAIServer, logs: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[tuple[str, str], tuple[bool, str | None]], dict[str, float]]:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from validator.inspect_task.task import callbank

    monkeypatch.setenv("LOCAL_API_KEY", "no-key")
    # a model of its own (memoize=False): Inspect keeps models by name, and one made for an earlier
    # test's server would still point at that server's closed port
    model = get_model("openai-api/local/test-model", base_url=server.base_url, memoize=False)
    [log] = inspect_eval(
        callbank(repo=str(FIXTURE), mode=mode),
        model=model,
        log_dir=str(logs),
        display="none",
        temperature=0,
        max_tokens=1024,
        max_connections=4,
        max_retries=1,  # Inspect's default backs off for up to 30 minutes: a refused request must fail the test now
        timeout=120,
    )
    assert log.status == "success", log.error
    verdicts: dict[tuple[str, str], tuple[bool, str | None]] = {}
    assert log.samples is not None
    for sample in log.samples:
        assert sample.scores is not None
        [score] = sample.scores.values()
        metadata = score.metadata or {}
        verdicts[(metadata["id"], metadata["lang"])] = (score.value == "C", metadata["error"])
    assert log.results is not None
    metrics = {name: metric.value for scorer in log.results.scores for name, metric in scorer.metrics.items()}
    return verdicts, metrics


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_inspect_and_callbank_agree_unit_by_unit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    repo = Corpus.load(FIXTURE)
    responder = Responder(repo, "tool_calls" if mode == "fc" else "python")
    with OpenAIServer(responder) as server:
        ours, overall = callbank_verdicts(server, tmp_path / "run.jsonl", mode)
        theirs, metrics = inspect_verdicts(server, tmp_path / "logs", mode, monkeypatch)
    assert len(ours) == 42 and ours.keys() == theirs.keys()
    disagreements = {key: (ours[key], theirs[key]) for key in ours if ours[key] != theirs[key]}
    assert disagreements == {}
    wrong = {key for key, (correct, _) in ours.items() if not correct}
    assert wrong == WRONG  # the spoiled units fail, and only they
    assert 0 < overall < 1 and metrics["overall"] == pytest.approx(overall, abs=1e-6)
    assert metrics["accuracy"] == pytest.approx(sum(c for c, _ in ours.values()) / len(ours), abs=1e-6)
