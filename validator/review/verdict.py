"""A judge's reply → a verdict, or MalformedVerdict saying what is wrong with it.

The judge is asked for ``{"verdict": "valid"|"invalid", "rationale": str, "problems": [str],
"suggested_fix": str|null}``. Tolerated: a Markdown code fence around the object, text before
or after it, upper-case verdict words, a missing rationale or suggested_fix. Not tolerated (the
reply is malformed, so it is retried and finally recorded as a judge error, never as a vote):
no JSON object, a verdict other than valid/invalid, problems that are not a list of strings, an
``invalid`` verdict that names no problem.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

VERDICTS = ("valid", "invalid")
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
MAX_FIELD = 4000  # characters kept per text field: a runaway reply must not bloat the records


class Verdict(NamedTuple):
    verdict: str
    rationale: str
    problems: tuple[str, ...]
    suggested_fix: str | None


class MalformedVerdict(ValueError):
    """The reply is not a usable verdict; the message says why, for the retry and the record."""


def _candidates(text: str) -> list[str]:
    out = [text]
    out += [m.group(1) for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        out.append(text[start : end + 1])
    return out


def _json_object(text: str) -> dict[str, Any]:
    for candidate in _candidates(text.strip()):
        try:
            value = json.loads(candidate)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    raise MalformedVerdict("the reply holds no JSON object")


def _text(value: Any) -> str:
    return value[:MAX_FIELD] if isinstance(value, str) else ""


def parse_verdict(text: str | None) -> Verdict:
    if not text or not text.strip():
        raise MalformedVerdict("the reply is empty")
    data = _json_object(text)
    verdict = data.get("verdict")
    if not isinstance(verdict, str) or verdict.strip().lower() not in VERDICTS:
        raise MalformedVerdict(f'"verdict" must be "valid" or "invalid", not {json.dumps(verdict, ensure_ascii=False)[:80]}')
    verdict = verdict.strip().lower()
    problems = data.get("problems", [])
    if problems is None:
        problems = []
    if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
        raise MalformedVerdict('"problems" must be a list of strings')
    problems = [p.strip()[:MAX_FIELD] for p in problems if p.strip()]
    if verdict == "invalid" and not problems:
        raise MalformedVerdict('an "invalid" verdict must list at least one problem')
    fix = data.get("suggested_fix")
    if fix is not None and not isinstance(fix, str):
        raise MalformedVerdict('"suggested_fix" must be a string or null')
    fix = fix.strip()[:MAX_FIELD] if isinstance(fix, str) and fix.strip() and fix.strip().lower() not in ("null", "none") else None
    return Verdict(verdict, _text(data.get("rationale")).strip(), tuple(problems), fix)
