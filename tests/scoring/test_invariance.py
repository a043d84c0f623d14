"""Invariance: argument order, call order, whitespace and quoting style never change a verdict."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from validator.corpus.index import Corpus

from .conftest import FIXTURE
from .oracle_checkpoints import Checkpoint, as_record, call_checkpoints, judge

REPO = Corpus.load(FIXTURE)
SCHEMAS = REPO.specs
CHECKPOINTS = call_checkpoints(REPO)
SETTINGS = settings(max_examples=200, deadline=None)

space = st.sampled_from(["", " ", "  ", "\n", "\t", " \n    "])


def literal(value: Any, quote: str, draw: Any) -> str:
    """A Python literal in a chosen quoting style, with random whitespace inside brackets."""
    if isinstance(value, str):
        if quote == '"':
            return json.dumps(value, ensure_ascii=draw(st.booleans()))
        if quote == "'''" and not any(c in value for c in "'\\\n"):
            return f"'''{value}'''"
        return repr(value)
    if isinstance(value, list):
        return "[" + draw(space) + ("," + draw(space)).join(literal(v, quote, draw) for v in value) + draw(space) + "]"
    if isinstance(value, dict):
        items = [f"{literal(k, quote, draw)}{draw(space)}:{draw(space)}{literal(v, quote, draw)}" for k, v in value.items()]
        return "{" + draw(space) + ("," + draw(space)).join(items) + draw(space) + "}"
    return repr(value)


def python_text(calls: list[dict[str, Any]], quote: str, draw: Any) -> str:
    rendered = []
    for call in calls:
        args = [f"{name}{draw(space)}={draw(space)}{literal(value, quote, draw)}" for name, value in call["args"].items()]
        rendered.append(f"{call['api']}{draw(space) if draw(st.booleans()) else ''}(" + draw(space) + ("," + draw(space)).join(args) + draw(space) + ")")
    return draw(space) + "[" + draw(space) + ("," + draw(space)).join(rendered) + draw(space) + "]" + draw(space)


def shuffled(calls: list[dict[str, Any]], draw: Any) -> list[dict[str, Any]]:
    order = draw(st.permutations(range(len(calls))))
    out = []
    for index in order:
        call = calls[index]
        names = draw(st.permutations(list(call["args"])))
        out.append({"api": call["api"], "args": {name: call["args"][name] for name in names}})
    return out


@SETTINGS
@given(st.data(), st.sampled_from(["'", '"', "'''"]))
def test_python_syntax_whitespace_quoting_and_order(data: st.DataObject, quote: str) -> None:
    checkpoint: Checkpoint = data.draw(st.sampled_from(CHECKPOINTS))
    calls = shuffled(checkpoint.calls, data.draw)
    text = python_text(calls, quote, data.draw)
    verdict = judge(checkpoint, {"output": text}, SCHEMAS)
    assert verdict.correct, (checkpoint.id, text, verdict)


@SETTINGS
@given(st.data(), st.sampled_from([None, 0, 2, "\t"]), st.booleans())
def test_json_and_tool_calls_order_and_layout(data: st.DataObject, indent: Any, ascii_only: bool) -> None:
    checkpoint: Checkpoint = data.draw(st.sampled_from(CHECKPOINTS))
    calls = shuffled(checkpoint.calls, data.draw)
    text = json.dumps([{"name": c["api"], "arguments": c["args"]} for c in calls], indent=indent, ensure_ascii=ascii_only)
    assert judge(checkpoint, {"output": text}, SCHEMAS).correct
    tool_calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": c["api"], "arguments": json.dumps(c["args"], indent=indent, ensure_ascii=ascii_only)}}
        for i, c in enumerate(calls)
    ]
    assert judge(checkpoint, {"output": None, "tool_calls": tool_calls}, SCHEMAS).correct


def test_every_order_of_the_parallel_case_passes() -> None:
    import itertools

    parallel = [c for c in CHECKPOINTS if c.id == "parallel-0001"]
    assert len(parallel) == 2
    for checkpoint in parallel:
        for order in itertools.permutations(checkpoint.calls):
            for syntax in ("python", "json", "tool_calls"):
                assert judge(checkpoint, as_record(list(order), syntax), SCHEMAS).correct
