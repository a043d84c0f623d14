"""Asking a judge over an OpenAI-compatible endpoint: retries, backoff, and a reachability probe.

Two kinds of retry, both bounded:
- transport: through ``validator.transport``, the policy `callbank run` shares: connection
  errors, timeouts, 408/409/429 and 5xx are retried with exponential backoff, here with jitter
  so parallel judges do not retry in step (``retry-after-ms`` or ``Retry-After`` is honoured up
  to the maximum delay); anything else (400, 401, 404 …) fails at once. When every attempt fails the judge has *failed*: no vote
  is recorded and the question is asked again by the next run.
- verdict: a reply that is not a usable verdict is retried with a note saying what was wrong;
  after the last attempt the outcome is a *judge error*, which is recorded (and never counts as
  a vote).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

import openai

from validator.review.judges import Judge
from validator.review.verdict import MalformedVerdict, Verdict, parse_verdict
from validator.transport import Backoff, TransportFailure, call_with_retries, describe

PROBE_TIMEOUT = 15.0

CORRECTION = {
    "en": 'Your reply could not be used: {reason}. Reply again with ONLY the JSON object {{"verdict": "valid" or "invalid", "rationale": "...", "problems": [...], "suggested_fix": "..." or null}}.',
    "zh": '你的回复无法使用：{reason}。请重新回复，并且只回复 JSON 对象 {{"verdict": "valid" 或 "invalid", "rationale": "...", "problems": [...], "suggested_fix": "..." 或 null}}。',
}


class RetryPolicy(NamedTuple):
    attempts: int = 5  # transport attempts per request
    base_delay: float = 1.0  # seconds before the first retry; doubles each time
    max_delay: float = 30.0
    verdict_attempts: int = 3  # replies asked for per question before it is a judge error

    @property
    def backoff(self) -> Backoff:
        return Backoff(self.base_delay, self.max_delay, jitter=True)

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        return self.backoff.delay(retry, retry_after)


DEFAULT_POLICY = RetryPolicy()


class JudgeFailure(Exception):
    """The judge could not be asked (unreachable, refused, kept failing): no vote is recorded."""


class Outcome(NamedTuple):
    verdict: Verdict | None
    error: str | None  # set when every reply was malformed (a judge error)
    attempts: int  # replies received


Sleep = Callable[[float], Awaitable[Any]]


def make_client(judge: Judge) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=judge.base_url, api_key=judge.api_key(), max_retries=0, timeout=judge.timeout)


async def with_retries(call: Callable[[], Awaitable[Any]], policy: RetryPolicy, attempts: int | None = None, sleep: Sleep = asyncio.sleep) -> Any:
    """Await call(), retrying transient failures; JudgeFailure when it keeps failing."""
    total = attempts or policy.attempts
    try:
        result, _ = await call_with_retries(call, retries=total - 1, backoff=policy.backoff, sleep=sleep)
    except TransportFailure as failure:
        suffix = f" (after {failure.attempts} attempts)" if failure.attempts > 1 else ""
        raise JudgeFailure(describe(failure.error) + suffix) from failure.error
    return result


async def complete(client: openai.AsyncOpenAI, judge: Judge, messages: list[dict[str, str]], policy: RetryPolicy, sleep: Sleep = asyncio.sleep) -> str | None:
    options: dict[str, Any] = {"model": judge.model, "messages": messages, "temperature": judge.temperature}
    if judge.seed is not None:
        options["seed"] = judge.seed
    if judge.max_tokens is not None:
        options["max_tokens"] = judge.max_tokens
    if judge.json_mode:
        options["response_format"] = {"type": "json_object"}
    response = await with_retries(lambda: client.chat.completions.create(**options), policy, sleep=sleep)
    if not response.choices:
        return None
    content: str | None = response.choices[0].message.content
    return content


async def ask(client: openai.AsyncOpenAI, judge: Judge, messages: list[dict[str, str]], policy: RetryPolicy, sleep: Sleep = asyncio.sleep) -> Outcome:
    """One question: a verdict, or a judge error after policy.verdict_attempts malformed replies."""
    conversation = list(messages)
    reason = ""
    for attempt in range(1, policy.verdict_attempts + 1):
        reply = await complete(client, judge, conversation, policy, sleep)
        try:
            return Outcome(parse_verdict(reply), None, attempt)
        except MalformedVerdict as error:
            reason = str(error)
        conversation = list(messages)
        if reply and reply.strip():
            correction = CORRECTION.get(judge.lang, CORRECTION["en"]).format(reason=reason)
            conversation += [{"role": "assistant", "content": reply}, {"role": "user", "content": correction}]
    return Outcome(None, f"malformed verdict in {policy.verdict_attempts} replies; last: {reason}", policy.verdict_attempts)


async def probe(client: openai.AsyncOpenAI, judge: Judge, policy: RetryPolicy) -> None:
    """Prove the judge answers before any work starts: GET /models, else a one-token completion."""
    try:
        await with_retries(lambda: client.models.list(timeout=min(judge.timeout, PROBE_TIMEOUT)), policy, attempts=2)
        return
    except JudgeFailure as failure:
        cause = failure.__cause__
        if not (isinstance(cause, openai.APIStatusError) and cause.status_code in (404, 405, 501)):
            raise
    # some compatible servers do not list models: a one-token completion proves the route works
    await with_retries(
        lambda: client.chat.completions.create(
            model=judge.model, messages=[{"role": "user", "content": "ping"}], max_tokens=1, timeout=min(judge.timeout, PROBE_TIMEOUT)
        ),
        policy,
        attempts=2,
    )
