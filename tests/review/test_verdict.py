"""Parsing judges' replies."""

from __future__ import annotations

import pytest

from validator.review.verdict import MalformedVerdict, Verdict, parse_verdict


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"verdict": "valid", "rationale": "ok", "problems": [], "suggested_fix": null}', Verdict("valid", "ok", (), None)),
        ('```json\n{"verdict": "Invalid", "problems": ["days should be 2"], "suggested_fix": "set days: 2"}\n```', Verdict("invalid", "", ("days should be 2",), "set days: 2")),
        ('Here is my verdict: {"verdict": "valid"} Hope it helps.', Verdict("valid", "", (), None)),
        ('{"verdict": "valid", "problems": null, "suggested_fix": "null"}', Verdict("valid", "", (), None)),
        ('{"verdict": "invalid", "problems": ["中文两边不一致", "  "]}', Verdict("invalid", "", ("中文两边不一致",), None)),
    ],
)
def test_usable_replies(reply: str, expected: Verdict) -> None:
    assert parse_verdict(reply) == expected


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (None, "empty"),
        ("   ", "empty"),
        ("The case is valid.", "no JSON object"),
        ("[1, 2]", "no JSON object"),
        ('{"verdict": "maybe"}', '"verdict" must be'),
        ('{"valid": true}', '"verdict" must be'),
        ('{"verdict": "invalid", "problems": []}', "at least one problem"),
        ('{"verdict": "valid", "problems": "none"}', '"problems" must be a list'),
        ('{"verdict": "valid", "problems": [], "suggested_fix": 3}', '"suggested_fix" must be'),
        ('{"verdict": "valid", "problems": [1]}', '"problems" must be a list'),
    ],
)
def test_malformed_replies(reply: str | None, reason: str) -> None:
    with pytest.raises(MalformedVerdict, match=reason):
        parse_verdict(reply)


def test_runaway_fields_are_cut() -> None:
    verdict = parse_verdict('{"verdict": "invalid", "problems": ["' + "x" * 10000 + '"]}')
    assert len(verdict.problems[0]) == 4000
