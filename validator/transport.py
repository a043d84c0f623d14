"""The one transport policy of every OpenAI-compatible request: `run` (the model under test and
the user simulator) and `review` (the judges) both retry through :func:`call_with_retries`.

- transient failures — no connection, a timeout, 408/409/429 and every 5xx — are retried, at
  most ``retries`` times after the first attempt; anything else fails at once;
- the wait before retry *n* is ``base · 2^n`` seconds, at most ``ceiling`` (:class:`Backoff`);
  a caller may spread concurrent clients with jitter (the judges do, the run does not);
- a server's own wait wins, capped by ``ceiling``: ``retry-after-ms`` (milliseconds, as OpenAI
  sends it), else ``Retry-After`` in seconds or as an HTTP date.

When the last attempt fails, or a failure is not transient, :class:`TransportFailure` carries the
error and the number of attempts; each caller turns it into its own outcome (the run stops or
writes a rejected record, a judge is dropped).
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import openai

RETRYABLE_STATUS = frozenset({408, 409, 429})  # and every 5xx
T = TypeVar("T")
Sleep = Callable[[float], Awaitable[Any]]


def is_transient(error: BaseException) -> bool:
    """A failure worth retrying: no connection, a timeout, 408/409/429 or a server error."""
    if isinstance(error, openai.APIConnectionError):  # includes timeouts
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in RETRYABLE_STATUS or error.status_code >= 500
    return False


def status_of(error: BaseException) -> int | None:
    return error.status_code if isinstance(error, openai.APIStatusError) else None


def retry_after(error: BaseException, now: float | None = None) -> float | None:
    """Seconds the server asks to wait: ``retry-after-ms``, else ``Retry-After`` as seconds or an
    HTTP date (relative to now, a Unix time); None when it says nothing usable."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    milliseconds = _number(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # an HTTP date is GMT; a zone-less one is read as such
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def _number(value: Any) -> float | None:
    if value is None or not re.fullmatch(r"\s*\d+(\.\d+)?\s*", str(value)):
        return None
    return float(value)


@dataclass(frozen=True)
class Backoff:
    """The wait before each retry."""

    base: float = 1.0  # seconds before the first retry; doubles with each retry
    ceiling: float = 30.0  # no wait is longer, not even one a server asks for
    jitter: bool = False  # a random wait between half the delay and the delay

    def delay(self, retry: int, server_wait: float | None = None, rng: random.Random | None = None) -> float:
        if server_wait is not None:
            return max(0.0, min(self.ceiling, server_wait))
        ceiling = min(self.ceiling, self.base * 2.0**retry)
        if not self.jitter:
            return ceiling
        spread = rng.uniform(0, ceiling / 2) if rng is not None else random.uniform(0, ceiling / 2)
        return ceiling / 2 + spread


class TransportFailure(Exception):
    """A request that failed for good: not transient, or transient on every attempt."""

    def __init__(self, error: BaseException, attempts: int) -> None:
        super().__init__(describe(error))
        self.error = error
        self.attempts = attempts

    @property
    def transient(self) -> bool:
        return is_transient(self.error)


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    retries: int,
    backoff: Backoff,
    sleep: Sleep = asyncio.sleep,
    on_attempt: Callable[[], None] | None = None,
    on_retry: Callable[[float], None] | None = None,
) -> tuple[T, int]:
    """(result, attempts) of call(), retrying transient failures by the policy above.

    on_attempt runs before every attempt, on_retry with the wait before every retry (usage
    counters). Failures other than the SDK's (bugs) pass through untouched.
    """
    attempt = 0
    while True:
        if on_attempt is not None:
            on_attempt()
        try:
            return await call(), attempt + 1
        except (openai.APIConnectionError, openai.APIStatusError) as error:
            if not is_transient(error) or attempt >= retries:
                raise TransportFailure(error, attempt + 1) from error
            wait = backoff.delay(attempt, retry_after(error))
        if on_retry is not None:
            on_retry(wait)
        await sleep(wait)
        attempt += 1


def describe(error: BaseException) -> str:
    """One line saying what went wrong with a request."""
    if isinstance(error, openai.APITimeoutError):
        return "the request timed out"
    if isinstance(error, openai.APIConnectionError):
        cause = error.__cause__ or error
        while cause.__cause__ is not None and not str(cause).strip():
            cause = cause.__cause__
        detail = " ".join(str(cause).split()) or type(cause).__name__
        return f"cannot connect ({detail[:200]})"
    if isinstance(error, openai.APIStatusError):
        message = " ".join((getattr(error, "message", "") or str(error)).split())
        message = re.sub(r"^Error code: \d+ - ", "", message)  # the SDK's prefix repeats the status
        return f"HTTP {error.status_code}: {message[:200]}"
    return f"{type(error).__name__}: {' '.join(str(error).split())[:200]}"
