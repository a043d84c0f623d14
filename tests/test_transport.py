"""The one retry policy of `run` and `review`, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import openai
import pytest

from tests.support.openai_server import OpenAIServer, Reply, scripted
from validator.models.endpoint import ChatClient, EndpointConfig
from validator.review.client import JudgeFailure, RetryPolicy, with_retries
from validator.transport import Backoff, TransportFailure, call_with_retries, retry_after


def http_date(seconds_from_now: float) -> str:
    return format_datetime(datetime.now(UTC) + timedelta(seconds=seconds_from_now), usegmt=True)


def run_calls(server: OpenAIServer, backoff: Backoff, retries: int = 4) -> tuple[Any, int, list[float]]:
    """Chat completions through call_with_retries; the waits are recorded, never slept."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def go() -> tuple[Any, int]:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        try:
            return await call_with_retries(
                lambda: client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}]), retries=retries, backoff=backoff, sleep=sleep
            )
        finally:
            await client.close()

    result, attempts = asyncio.run(go())
    return result, attempts, slept


def test_every_form_of_a_servers_wait_is_honoured() -> None:
    replies = scripted(
        Reply(status=429, headers={"retry-after": "2"}),  # seconds
        Reply(status=503, headers={"retry-after": http_date(5)}),  # an HTTP date
        Reply(status=429, headers={"retry-after-ms": "1500", "retry-after": "9"}),  # milliseconds win
        Reply(status=500),  # nothing said: the backoff's own wait (0.5 · 2^3 = 4)
        "fine",
    )
    with OpenAIServer(replies) as server:
        result, attempts, slept = run_calls(server, Backoff(base=0.5, ceiling=30.0))
    assert result.choices[0].message.content == "fine" and attempts == 5
    assert slept[0] == 2.0 and 3.0 <= slept[1] <= 5.0 and slept[2] == 1.5 and slept[3] == 4.0


def test_a_servers_wait_is_capped_and_failures_end_with_the_attempt_count() -> None:
    with OpenAIServer(scripted(Reply(status=429, headers={"retry-after": "600"}), then=Reply(status=502))) as server, pytest.raises(TransportFailure) as failure:
        run_calls(server, Backoff(base=1.0, ceiling=8.0), retries=2)
    assert failure.value.attempts == 3 and failure.value.transient and "HTTP 502" in str(failure.value)


def test_a_non_transient_failure_is_not_retried() -> None:
    with OpenAIServer(scripted(Reply(status=400, error="context too long"), "never asked")) as server:
        with pytest.raises(TransportFailure) as failure:
            run_calls(server, Backoff())
        assert server.count("/v1/chat/completions") == 1
    assert failure.value.attempts == 1 and not failure.value.transient


def test_backoff_doubles_up_to_its_ceiling_with_optional_jitter() -> None:
    plain = Backoff(base=1.0, ceiling=5.0)
    assert [plain.delay(n) for n in range(4)] == [1.0, 2.0, 4.0, 5.0]
    assert plain.delay(0, server_wait=-3) == 0.0
    rng = random.Random(7)
    jittered = [Backoff(base=1.0, ceiling=5.0, jitter=True).delay(n, rng=rng) for n in range(4) for _ in range(20)]
    assert all(0.5 <= wait <= 1.0 for wait in jittered[:20]) and all(2.5 <= wait <= 5.0 for wait in jittered[60:])
    assert len(set(jittered)) > 70  # spread, not one value


def test_retry_after_reads_nothing_usable_as_none() -> None:
    class Response:
        def __init__(self, headers: dict[str, str]) -> None:
            self.headers = headers

    class Failure(Exception):
        def __init__(self, headers: dict[str, str]) -> None:
            self.response = Response(headers)

    assert retry_after(Failure({})) is None
    assert retry_after(Failure({"retry-after": "soon"})) is None
    assert retry_after(Failure({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}), now=1445412470.0) == 10.0
    assert retry_after(Failure({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}), now=1445412490.0) == 0.0  # already past
    assert retry_after(ValueError("no response")) is None


def test_the_run_and_the_judges_share_the_loop_and_its_reading_of_retry_after() -> None:
    """An HTTP-date Retry-After is honoured by the model client (no jitter) and a judge (jitter)."""
    for_run = scripted(Reply(status=429, headers={"retry-after": http_date(4)}), "ok")
    with OpenAIServer(for_run) as server:
        slept: list[float] = []

        async def record(seconds: float) -> None:
            slept.append(seconds)

        client = ChatClient(EndpointConfig(server.base_url, "m", backoff=0.01), "x", sleep=record)
        result = asyncio.run(client.chat([{"role": "user", "content": "hi"}]))
        assert result.content == "ok" and result.usage["attempts"] == 2 and client.usage.retries == 1
        assert 2.0 <= slept[0] <= 4.0
    for_judge = scripted(Reply(status=429, headers={"retry-after-ms": "250"}), Reply(status=500), then=Reply(status=500))
    with OpenAIServer(for_judge) as server:
        waits: list[float] = []

        async def judge_sleep(seconds: float) -> None:
            waits.append(seconds)

        async def ask() -> Any:
            judge = openai.AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0)
            try:
                return await with_retries(lambda: judge.chat.completions.create(model="j", messages=[]), RetryPolicy(attempts=3, base_delay=1.0), sleep=judge_sleep)
            finally:
                await judge.close()

        with pytest.raises(JudgeFailure, match=r"HTTP 500: .* \(after 3 attempts\)"):
            asyncio.run(ask())
    assert waits[0] == 0.25 and 1.0 <= waits[1] <= 2.0  # the server's wait, then 2^1 with jitter
