"""Cost and latency: tokens, requests, retries and latency percentiles from the records, the
cost only from the user's price table, written into the run's manifest."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.support.openai_server import ChatRequest, OpenAIServer, Reply
from validator.cli import cli
from validator.errors import UserError
from validator.models.resume import manifest_path
from validator.runs.prices import read_prices
from validator.runs.usage import percentile, usage_totals

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"
PRICES = """\
# USD per million tokens
currency: USD
models:
  test-model: {input: 2.0, output: 8.0}
"""


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, [*args, "--repo", str(FIXTURE)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def test_percentiles_interpolate_between_ranks() -> None:
    assert percentile([], 50) is None
    assert percentile([3.0], 95) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([float(i) for i in range(1, 101)], 95) == pytest.approx(95.05)


def test_totals_count_cases_and_episodes() -> None:
    records = [
        {"id": "a", "lang": "en", "output": "", "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12, "latency_s": 0.5, "attempts": 3}},
        {"id": "b", "lang": "en", "calls": [], "messages": [], "usage": {"prompt_tokens": 30, "completion_tokens": 6, "total_tokens": 36, "turns": 2, "attempts": 2, "latencies_s": [1.0, 2.0]}},
        {"id": "c", "lang": "en", "output": "", "error": "context too long"},
        {"id": "d", "lang": "en", "output": "[f()]"},  # a built-in model reports nothing
    ]
    totals = usage_totals(records)
    assert (totals["records"], totals["completions"], totals["requests"], totals["retries"], totals["rejected"]) == (4, 3, 5, 2, 1)
    assert (totals["prompt_tokens"], totals["completion_tokens"], totals["total_tokens"]) == (40, 8, 48)
    assert totals["latency_s"] == {"n": 3, "p50": 1.0, "p95": 1.9, "mean": 1.167} and totals["reported"] is True


def test_a_run_records_its_usage_latency_and_cost_in_its_manifest(tmp_path: Path) -> None:
    lock = threading.Lock()
    failed: list[int] = []

    def respond(request: ChatRequest) -> Reply:
        with lock:
            if not failed:  # the first request fails once: a retry to count
                failed.append(request.index)
                return Reply(status=500)
        return Reply(content="I cannot help with that.", delay=0.01)

    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES, encoding="utf-8")
    out = tmp_path / "run.jsonl"
    with OpenAIServer(respond) as server:
        result = invoke(
            "run", "--model", "test-model", "--base-url", server.base_url, "--out", str(out), "--backoff", "0",
            "--category", "normal/single_turn", "--category", "agent/multi_turn", "--lang", "en", "--prices", str(prices),
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        chats = [r for r in server.requests if r.path.endswith("/chat/completions")]
    totals = json.loads(manifest_path(out).read_text())["totals"]
    # 3 single-turn checkpoints + one scenario whose scripted user speaks twice (2 model turns)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 4 and totals["records"] == 4
    assert totals["requests"] == len(chats) and totals["retries"] == 1 and totals["completions"] == len(chats) - 1
    served = [json.loads(line) for line in out.read_text().splitlines()]
    prompt = sum(r["usage"]["prompt_tokens"] for r in served)
    completion = sum(r["usage"]["completion_tokens"] for r in served)
    assert (totals["prompt_tokens"], totals["completion_tokens"]) == (prompt, completion) and prompt > 0 and completion > 0
    assert totals["latency_s"]["n"] == totals["completions"] and 0.01 <= totals["latency_s"]["p50"] <= totals["latency_s"]["p95"]
    assert totals["cost"] == {"currency": "USD", "source": str(prices), "model": pytest.approx((prompt * 2.0 + completion * 8.0) / 1e6, abs=1e-6)}


def test_without_a_price_table_there_is_no_cost(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    assert invoke("run", "--model", "oracle", "--out", str(out), "--category", "special").exit_code == 0
    totals = json.loads(manifest_path(out).read_text())["totals"]
    assert "cost" not in totals and totals["reported"] is False and totals["records"] == 6


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("models: {m: {input: 1, output: 2}}\n", "prices.yaml:1: give the prices' `currency`"),
        ("currency: USD\nmodels:\n  m: {input: 1}\n", "prices.yaml:3: model 'm': give exactly {input: PRICE, output: PRICE}"),
        ("currency: USD\nmodels:\n  m: {input: 1, output: -2}\n", "prices.yaml:3: model 'm': output must be a price ≥ 0, not -2"),
        ("currency: USD\nper_tokens: 0\nmodels: {m: {input: 1, output: 2}}\n", "prices.yaml:2: per_tokens must be a positive whole number"),
        ("currency: USD\nmodel: {}\n", "prices.yaml:2: unknown key 'model'"),
        ("currency: [\n", "prices.yaml:2:"),
    ],
)
def test_a_bad_price_table_is_named_by_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        read_prices(path)
    assert message in str(caught.value)
    result = invoke("run", "--model", "oracle", "--out", str(tmp_path / "x.jsonl"), "--prices", str(path))
    assert result.exit_code == 2 and message in result.output and not (tmp_path / "x.jsonl").exists()


def test_prices_are_per_million_tokens_unless_said_otherwise(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"currency": "EUR", "per_tokens": 1000, "models": {"m": {"input": 0.5, "output": 1}}}', encoding="utf-8")
    table = read_prices(path)
    assert table.cost("m", 2000, 1000) == 2.0 and table.cost("other", 1, 1) is None and table.currency == "EUR"
