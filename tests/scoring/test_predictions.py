"""Reading predictions files: every problem reported with its line, nothing raised."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.errors import UserError
from validator.scoring.parse import parse_prediction
from validator.scoring.predictions import parse_predictions, read_predictions


def test_records_are_keyed_by_id_lang_step() -> None:
    read = parse_predictions(
        b'{"id": "a", "lang": "en", "output": "[]"}\n'
        b'\n'
        b'{"id": "a", "lang": "zh", "step": 1, "output": "[]"}\r\n'
        b'{"id": "b", "lang": "en", "step": null, "calls": []}\n'
    )
    assert set(read.records) == {("a", "en", 0), ("a", "zh", 1), ("b", "en", 0)}
    assert read.records[("a", "zh", 1)].line == 3
    assert read.problems == []


@pytest.mark.parametrize(
    "line, message",
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"lang": "en"}', '"id"'),
        (b'{"id": "", "lang": "en"}', '"id"'),
        (b'{"id": 3, "lang": "en"}', '"id"'),
        (b'{"id": "a", "lang": "fr"}', '"lang"'),
        (b'{"id": "a"}', '"lang"'),
        (b'{"id": "a", "lang": "en", "step": -1}', '"step"'),
        (b'{"id": "a", "lang": "en", "step": true}', '"step"'),
        (b'{"id": "a", "lang": "en", "step": "1"}', '"step"'),
        (b"[" * 100_000, "not valid JSON"),
        (b'{"id": "caf\xe9", "lang": "en"}', "UTF-8"),
    ],
)
def test_malformed_lines_are_reported_with_their_number(line: bytes, message: str) -> None:
    read = parse_predictions(b'{"id": "ok", "lang": "en"}\n' + line + b"\n")
    assert len(read.problems) == 1
    assert read.problems[0].startswith("line 2: ") and message in read.problems[0]
    assert list(read.records) == [("ok", "en", 0)]


def test_duplicates_keep_the_first_and_are_reported() -> None:
    read = parse_predictions(b'{"id": "a", "lang": "en", "output": "first"}\n{"id": "a", "lang": "en", "step": 0, "output": "second"}\n')
    assert read.records[("a", "en", 0)].record["output"] == "first"
    assert read.problems == ["line 2: duplicate record for a (en, step 0), first on line 1; the first one is scored"]


def test_invalid_utf8_inside_an_answer_is_the_answers_format_error() -> None:
    read = parse_predictions(b'\xef\xbb\xbf{"id": "a", "lang": "en", "output": "[f(x=\'caf\xe9\')]"}\n')
    assert read.problems == []
    parsed = parse_prediction(read.records[("a", "en", 0)].record)
    assert parsed.kind == "format" and "UTF-8" in parsed.error


def test_missing_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such predictions file"):
        read_predictions(tmp_path / "nope.jsonl")
    with pytest.raises(UserError, match="directory"):
        read_predictions(tmp_path)
