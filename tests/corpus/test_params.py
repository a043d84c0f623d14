"""The one argument validator: formats asserted the same way by the rules and the sandbox runtime."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixture_repos import materialise
from validator.corpus.index import Corpus
from validator.corpus.params import Compiled, CompileError, compile_schema, is_local_date_time, is_local_time
from validator.sandbox.runtime import Runtime


def compiled(schema: dict) -> Compiled:
    result = compile_schema(schema)
    assert isinstance(result, Compiled), result
    return result


def test_an_impossible_date_is_refused_by_check_and_by_the_runtime_alike(tmp_path: Path) -> None:
    corpus = Corpus.load(materialise("DLG010", "pass", tmp_path))
    api, name = "set_reminder", "date"
    assert corpus.specs[api].properties[name]["format"] == "date"
    rule_side = corpus.validators.parameter(api, name)
    assert isinstance(rule_side, Compiled) and rule_side.messages("2024-02-30") == ['"2024-02-30" is not a "date"']
    runtime = Runtime.from_corpus(corpus)
    assert runtime.parameter_errors(api, name, "2024-02-30") == ['"2024-02-30" is not a "date"']
    assert runtime.validators is not corpus.validators and runtime.parameter_errors(api, name, "2024-02-29") == []


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("date-time", "2024-06-12T19:00:00+08:00", "2024-06-12T19:00"),  # RFC 3339: seconds and an offset
        ("time", "19:00:00Z", "19:00"),
        ("date", "2024-02-29", "2024-02-30"),
        ("duration", "PT90M", "90 minutes"),
        ("email", "li.lei@example.com", "li.lei"),
        ("hostname", "mail.example.com", "-bad-.example"),
        ("ipv4", "192.168.1.20", "192.168.1.300"),
        ("ipv6", "::1", "1:::2"),
        ("uri", "https://example.com/a", "not a uri"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"),
    ],
)
def test_standard_formats_are_known_and_asserted(fmt: str, good: str, bad: str) -> None:
    validator = compiled({"type": "string", "format": fmt})
    assert validator.messages(good) == []
    assert validator.messages(bad), (fmt, bad)


def test_x_local_makes_seconds_and_offset_optional_but_keeps_dates_and_times_real() -> None:
    date_time = compiled({"type": "string", "format": "date-time", "x-local": True})
    assert [date_time.messages(v) for v in ("2024-06-12T19:00", "2024-06-12T19:00:30", "2024-06-12T19:00:00+08:00")] == [[], [], []]
    assert date_time.messages("2024-02-30T19:00") and date_time.messages("2024-06-12 19:00") and date_time.messages("2024-06-12T25:00")
    time = compiled({"type": "string", "format": "time", "x-local": True})
    assert time.messages("19:00") == [] and time.messages("07:05:59") == []
    assert time.messages("9:30") == ['"9:30" is not a "local time HH:MM[:SS]"'] and time.messages("24:00")
    strict = compiled({"type": "string", "format": "date-time"})
    assert "RFC 3339: seconds and a UTC offset" in strict.messages("2024-06-12T19:00")[0]  # the message says what is missing


def test_local_time_checks_existence() -> None:
    assert is_local_date_time("2024-02-29T23:59") and not is_local_date_time("2023-02-29T23:59")
    assert is_local_time("23:59:59.5") and not is_local_time("23:60")


def test_a_schema_that_does_not_compile_is_an_error_never_a_pass() -> None:
    result = compile_schema({"type": "string", "pattern": "^.{,3}$"})
    assert isinstance(result, CompileError) and "regex" in result.message
    assert isinstance(compile_schema("not a schema"), CompileError)


def test_values_that_are_not_json_are_problems_not_crashes() -> None:
    validator = compiled({"type": "object"})
    assert validator.problems({1: "x"}) or validator.problems(object())
