"""What every OpenAI-compatible request shares: which failures are transient, how long the
server asks us to wait, and one line saying what went wrong.

Used by `run` (the model under test) and `review` (the judges); each keeps its own retry
policy (the judges add jitter), but they must agree on what a transient failure is.
"""

from __future__ import annotations

import re

import openai

RETRYABLE_STATUS = frozenset({408, 409, 429})  # and every 5xx


def is_transient(error: BaseException) -> bool:
    """A failure worth retrying: no connection, a timeout, 408/409/429 or a server error."""
    if isinstance(error, openai.APIConnectionError):  # includes timeouts
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in RETRYABLE_STATUS or error.status_code >= 500
    return False


def retry_after(error: BaseException) -> float | None:
    """Seconds the server's Retry-After header asks for, if any."""
    response = getattr(error, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


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
