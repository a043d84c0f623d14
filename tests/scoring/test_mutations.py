"""Mutation tests: every small change to a right answer is scored wrong, with the right error type."""

from __future__ import annotations

import copy
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from validator.corpus.index import Corpus
from validator.matchers import matches

from .conftest import FIXTURE
from .oracle_checkpoints import Checkpoint, as_record, call_checkpoints, judge

REPO = Corpus.load(FIXTURE)
SCHEMAS = REPO.specs
CHECKPOINTS = call_checkpoints(REPO)
SYNTAXES = st.sampled_from(["python", "json", "tool_calls"])
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])

Path = tuple[Any, ...]


def leaves(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    else:
        yield path, value


def set_at(value: Any, path: Path, new: Any) -> None:
    for key in path[:-1]:
        value = value[key]
    value[path[-1]] = new


def expected_arg(checkpoint: Checkpoint, call_index: int, name: str) -> Any:
    calls = [{"api": call.api, "args": call.args} for call in checkpoint.checkpoint.first]
    return calls[call_index]["args"][name]


def still_accepted(checkpoint: Checkpoint, call_index: int, name: str, value: Any) -> bool:
    """Whether the answer's own matcher still accepts the mutated argument (then it is no mutation)."""
    return matches(expected_arg(checkpoint, call_index, name), value, checkpoint.lang)


def pick_leaf(data: st.DataObject, kind: tuple[type, ...], exclude: tuple[type, ...] = ()) -> tuple[Checkpoint, list[dict[str, Any]], int, Path, Any]:
    candidates = [
        (checkpoint, i, path, leaf)
        for checkpoint in CHECKPOINTS
        for i, call in enumerate(checkpoint.calls)
        for path, leaf in leaves(call["args"])
        if isinstance(leaf, kind) and not isinstance(leaf, exclude)
    ]
    checkpoint, i, path, leaf = data.draw(st.sampled_from(candidates))
    return checkpoint, copy.deepcopy(checkpoint.calls), i, path, leaf


def assert_wrong(checkpoint: Checkpoint, calls: list[dict[str, Any]], syntax: str, error: str) -> None:
    verdict = judge(checkpoint, as_record(calls, syntax), SCHEMAS)
    assert not verdict.correct, (checkpoint.id, calls)
    assert verdict.error == error, (checkpoint.id, calls, verdict)


def test_oracle_answers_are_right_in_every_syntax() -> None:
    assert len(CHECKPOINTS) > 30
    for checkpoint in CHECKPOINTS:
        for syntax in ("python", "json", "tool_calls"):
            assert judge(checkpoint, as_record(checkpoint.calls, syntax), SCHEMAS).correct, checkpoint.id


@SETTINGS
@given(st.data(), SYNTAXES)
def test_flipping_a_boolean(data: st.DataObject, syntax: str) -> None:
    checkpoint, calls, i, path, leaf = pick_leaf(data, (bool,))
    set_at(calls[i]["args"], path, not leaf)
    assume(not still_accepted(checkpoint, i, path[0], calls[i]["args"][path[0]]))
    assert_wrong(checkpoint, calls, syntax, "wrong_value")


@SETTINGS
@given(st.data(), SYNTAXES, st.integers(min_value=1, max_value=10**6), st.booleans())
def test_changing_a_number(data: st.DataObject, syntax: str, delta: int, negative: bool) -> None:
    checkpoint, calls, i, path, leaf = pick_leaf(data, (int, float), exclude=(bool,))
    set_at(calls[i]["args"], path, leaf + (-delta if negative else delta))
    assume(not still_accepted(checkpoint, i, path[0], calls[i]["args"][path[0]]))
    assert_wrong(checkpoint, calls, syntax, "wrong_value")


REPLACEMENTS = "abcdefghijklmnopqrstuvwxyz0123456789北京杭州中"


@SETTINGS
@given(st.data(), SYNTAXES, st.sampled_from(REPLACEMENTS))
def test_changing_one_character_of_a_string(data: st.DataObject, syntax: str, replacement: str) -> None:
    checkpoint, calls, i, path, leaf = pick_leaf(data, (str,))
    positions = [k for k, c in enumerate(leaf) if unicodedata.normalize("NFKC", c).casefold().isalnum()]
    assume(positions)
    k = data.draw(st.sampled_from(positions))
    assume(leaf[k].casefold() != replacement.casefold())
    set_at(calls[i]["args"], path, leaf[:k] + replacement + leaf[k + 1 :])
    assume(not still_accepted(checkpoint, i, path[0], calls[i]["args"][path[0]]))
    assert_wrong(checkpoint, calls, syntax, "wrong_value")


@SETTINGS
@given(st.data(), SYNTAXES, st.sampled_from([("please ", " now"), ("the ", ""), ("", " city"), ("请", "谢谢"), ("“", "”")]))
def test_wrapping_a_string_in_extra_words(data: st.DataObject, syntax: str, wrap: tuple[str, str]) -> None:
    checkpoint, calls, i, path, leaf = pick_leaf(data, (str,))
    set_at(calls[i]["args"], path, wrap[0] + leaf + wrap[1])
    assume(not still_accepted(checkpoint, i, path[0], calls[i]["args"][path[0]]))
    assert_wrong(checkpoint, calls, syntax, "wrong_value")


@SETTINGS
@given(st.data(), SYNTAXES)
def test_dropping_a_required_argument(data: st.DataObject, syntax: str) -> None:
    candidates = [
        (checkpoint, i, name)
        for checkpoint in CHECKPOINTS
        for i, call in enumerate(checkpoint.calls)
        for name in REPO.specs[call["api"]].required
        if name in call["args"]
    ]
    checkpoint, i, name = data.draw(st.sampled_from(candidates))
    calls = copy.deepcopy(checkpoint.calls)
    del calls[i]["args"][name]
    assert_wrong(checkpoint, calls, syntax, "missing_parameter")


@SETTINGS
@given(st.data(), SYNTAXES, st.sampled_from(["color", "zz_unknown", "city_name", "verbose"]), st.sampled_from([True, 1, "x", None, [1]]))
def test_adding_an_unknown_argument(data: st.DataObject, syntax: str, name: str, value: Any) -> None:
    checkpoint = data.draw(st.sampled_from(CHECKPOINTS))
    calls = copy.deepcopy(checkpoint.calls)
    i = data.draw(st.integers(min_value=0, max_value=len(calls) - 1))
    assume(name not in REPO.specs[calls[i]["api"]].properties)
    calls[i]["args"][name] = value
    assert_wrong(checkpoint, calls, syntax, "unexpected_parameter")


@SETTINGS
@given(st.data(), SYNTAXES, st.sampled_from(["_v2", "s", "_api"]))
def test_renaming_the_api(data: st.DataObject, syntax: str, suffix: str) -> None:
    checkpoint = data.draw(st.sampled_from(CHECKPOINTS))
    calls = copy.deepcopy(checkpoint.calls)
    i = data.draw(st.integers(min_value=0, max_value=len(calls) - 1))
    calls[i]["api"] += suffix
    assert_wrong(checkpoint, calls, syntax, "wrong_api")


@SETTINGS
@given(st.data(), SYNTAXES, st.booleans())
def test_adding_a_call(data: st.DataObject, syntax: str, duplicate: bool) -> None:
    checkpoint = data.draw(st.sampled_from(CHECKPOINTS))
    calls = copy.deepcopy(checkpoint.calls)
    extra = copy.deepcopy(data.draw(st.sampled_from(calls))) if duplicate else {"api": "list_notes", "args": {}}
    calls.insert(data.draw(st.integers(min_value=0, max_value=len(calls))), extra)
    assert_wrong(checkpoint, calls, syntax, "wrong_call_count")


@SETTINGS
@given(st.data(), SYNTAXES)
def test_dropping_a_call(data: st.DataObject, syntax: str) -> None:
    checkpoint = data.draw(st.sampled_from(CHECKPOINTS))
    calls = copy.deepcopy(checkpoint.calls)
    del calls[data.draw(st.integers(min_value=0, max_value=len(calls) - 1))]
    assert_wrong(checkpoint, calls, syntax, "wrong_call_count")


@pytest.mark.parametrize("case_id", ["bool-0001", "parallel-0001", "object-0001", "list-0001"])
def test_fixture_has_material_for_every_mutation(case_id: str) -> None:
    assert any(c.id == case_id for c in CHECKPOINTS)
