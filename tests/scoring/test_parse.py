"""Parsing answers: the three syntaxes, literals only, bounded, never executed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from validator.scoring.parse import (
    MAX_CALLS,
    MAX_OUTPUT_CHARS,
    Call,
    parse_prediction,
    parse_text,
    parse_tool_calls,
)


def calls(text: str) -> list[Call]:
    parsed = parse_text(text)
    assert parsed.kind == "calls", parsed
    return list(parsed.calls)


def error(text: str) -> str:
    parsed = parse_text(text)
    assert parsed.kind == "format", parsed
    return parsed.error


# ----------------------------------------------------------------------------- Python syntax


def test_python_call_list() -> None:
    assert calls("[get_weather(city='Hangzhou', days=3), send_message(receiver=\"Li\", content='hi', urgent=True)]") == [
        Call("get_weather", {"city": "Hangzhou", "days": 3}),
        Call("send_message", {"receiver": "Li", "content": "hi", "urgent": True}),
    ]


def test_single_bare_call_and_tuple() -> None:
    assert calls("get_weather(city='Paris')") == [Call("get_weather", {"city": "Paris"})]
    assert calls("(f(a=1), g(b=2))") == [Call("f", {"a": 1}), Call("g", {"b": 2})]


def test_nested_literals() -> None:
    [call] = calls("[f(a={'k': [1, (2, 3), None, -4.5]}, b=[], c={})]")
    assert call.args == {"a": {"k": [1, [2, 3], None, -4.5]}, "b": [], "c": {}}


def test_plus_five_is_five_and_minus_five_is_minus_five() -> None:
    # BFCL decodes +5 as -5
    assert calls("[f(x=+5)]")[0].args == {"x": 5}
    assert calls("[f(x=-5)]")[0].args == {"x": -5}
    assert calls("[f(x=+2.5, y=-0.0)]")[0].args == {"x": 2.5, "y": -0.0}


@pytest.mark.parametrize(
    "text, reason",
    [
        ("[f(x=2+3)]", "arithmetic"),
        ("[f(x=2*3)]", "arithmetic"),
        ("[f(x=-(2+3))]", "sign"),
        ("[f(x=--5)]", "sign"),
        ("[f(x=-True)]", "sign"),
        ("[f(x=not True)]", "operator"),
        ("[f(x=~1)]", "operator"),
        ("[f(x=os)]", "name"),
        ("[f(x=true)]", "name"),
        ("[f(x=os.environ)]", "attribute"),
        ("[f(x=open('/etc/passwd'))]", "call"),
        ("[f(x=[i for i in range(3)])]", "comprehension"),
        ("[f(x=lambda: 1)]", "lambda"),
        ("[f(x=f'{1}')]", "f-string"),
        ("[f(x=b'bytes')]", "bytes"),
        ("[f(x=1j)]", "complex"),
        ("[f(x=...)]", "ellipsis"),
        ("[f(x={1, 2})]", "set"),
        ("[f(x=[*a])]", "unpacking"),
        ("[f(x={**a})]", "unpacking"),
        ("[f(**a)]", "unpacking"),
        ("[f(1)]", "positional"),
        ("[f(x=1, x=2)]", "twice"),
        ("[f(x={'a': 1, 'a': 2})]", "duplicate"),
        ("[f(x={1: 2})]", "string"),
        ("[f(x=1e999)]", "finite"),
        ("[f(x=(y:=1))]", "assignment"),
        ("[os.system(x=1)]", "plain API name"),
        ("[f(x=1)][0]", "subscripting"),
        ("[f(x=1), 2]", "not a call"),
        ("get_weather", "name"),
        ("[get_weather(city='x')", "not a call list"),
        ("Sure! I will call get_weather.", "not a call list"),
        ("[f(x=a if b else c)]", "conditional"),
    ],
)
def test_only_literals_are_values(text: str, reason: str) -> None:
    assert reason in error(text)


def test_huge_integers_and_other_parser_limits_are_format_errors() -> None:
    error("[f(x=" + "9" * 5000 + ")]")
    error("[f(x=" + "-" * 100_000 + "1)]")
    error("[f(x=" + "[" * 5000 + "]" * 5000 + ")]")
    error("[f(x=1)]\x00")


def test_invalid_escape_sequences_are_data_not_warnings(recwarn: pytest.WarningsRecorder) -> None:
    assert calls(r"[f(path='C:\data\x41')]")[0].args == {"path": "C:\\dataA"}
    assert not [w for w in recwarn if issubclass(w.category, (SyntaxWarning, DeprecationWarning))]


def test_code_fence_is_unwrapped_and_whitespace_ignored() -> None:
    assert calls("```python\n[f(a=1)]\n```") == [Call("f", {"a": 1})]
    assert calls("```\n  [ f ( a = 1 ) ,\n g(b = 'x') ]  \n```") == [Call("f", {"a": 1}), Call("g", {"b": "x"})]
    assert calls("\n\n  [f(a=1)]\t\n") == [Call("f", {"a": 1})]


def test_empty_answers_are_no_calls() -> None:
    for text in ("", "   \n", "[]", "```\n[]\n```", None):
        parsed = parse_text(text)
        assert parsed.kind == "calls" and parsed.calls == ()


# ----------------------------------------------------------------------------- JSON


def test_json_call_lists_in_common_shapes() -> None:
    expected = [Call("get_weather", {"city": "Hangzhou"})]
    assert calls('[{"api": "get_weather", "args": {"city": "Hangzhou"}}]') == expected
    assert calls('{"name": "get_weather", "arguments": {"city": "Hangzhou"}}') == expected
    assert calls('[{"name": "get_weather", "parameters": {"city": "Hangzhou"}}]') == expected
    assert calls('[{"name": "get_weather", "arguments": "{\\"city\\": \\"Hangzhou\\"}"}]') == expected
    assert calls('[{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Hangzhou"}}}]') == expected
    assert calls('[{"api": "list_notes"}]') == [Call("list_notes", {})]


@pytest.mark.parametrize(
    "text",
    [
        '[{"api": "f", "args": {"a": NaN}}]',
        '[{"api": "f", "args": {"a": Infinity}}]',
        '[{"api": "f", "args": {"a": 1, "a": 2}}]',
        '[{"api": "f", "name": "g"}]',
        '[{"api": "f", "args": {}, "arguments": {}}]',
        '[{"api": "f", "args": [1]}]',
        '[{"api": "f", "args": {}, "extra": 1}]',
        '[{"api": 3}]',
        '[{"api": "not an api"}]',
        "[1, 2]",
        '{"api": "f", "args": {',
        '{"a": 1}',
        '[{"api": "f", "args": "{not json"}]',
    ],
)
def test_malformed_json_calls_are_format_errors(text: str) -> None:
    error(text)


def test_deep_json_nesting_is_a_format_error() -> None:
    deep = '{"api": "f", "args": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    assert "nested" in error(deep) or "JSON" in error(deep)
    moderately = '{"api": "f", "args": {"a": ' + "[" * 40 + "]" * 40 + "}}"
    assert "nested deeper" in error(moderately)


# ----------------------------------------------------------------------------- tool_calls


def test_openai_tool_calls() -> None:
    parsed = parse_tool_calls(
        [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "杭州"}'}},
            {"id": "call_2", "type": "function", "function": {"name": "list_notes", "arguments": ""}},
            {"function": {"name": "f", "arguments": {"a": [1, 2]}}},
        ]
    )
    assert parsed.kind == "calls"
    assert list(parsed.calls) == [Call("get_weather", {"city": "杭州"}), Call("list_notes", {}), Call("f", {"a": [1, 2]})]


@pytest.mark.parametrize(
    "tool_calls",
    [
        "not a list",
        [None],
        [{"function": {"name": "f", "arguments": "[1, 2]"}}],
        [{"function": {"name": "f", "arguments": "{"}}],
        [{"function": {"arguments": "{}"}}],
        [{"function": {"name": "f", "arguments": "{\"a\": " + "[" * 50_000 + "]" * 50_000 + "}"}}],
        [{"function": {"name": "f", "arguments": "{}"}}] * (MAX_CALLS + 1),
    ],
)
def test_malformed_tool_calls_are_format_errors(tool_calls: object) -> None:
    assert parse_prediction({"id": "x", "lang": "en", "tool_calls": tool_calls}).kind == "format"


def test_native_mode_prose_is_no_calls_but_text_mode_prose_is_a_format_error() -> None:
    native = parse_prediction({"output": "I cannot help with that.", "tool_calls": []})
    assert native.kind == "calls" and native.calls == ()
    assert parse_prediction({"output": "I cannot help with that."}).kind == "format"
    # native mode still reads calls written as text, and tool calls win over text
    assert parse_prediction({"output": "[f(a=1)]", "tool_calls": None}).calls == (Call("f", {"a": 1}),)
    # tool calls next to a special marker are a hedged answer, not calls
    both = parse_prediction({"output": "[IRRELEVANT]", "tool_calls": [{"function": {"name": "g", "arguments": "{}"}}]})
    assert both.kind == "hedged"
    prose = parse_prediction({"output": "Here you go.", "tool_calls": [{"function": {"name": "g", "arguments": "{}"}}]})
    assert prose.calls == (Call("g", {}),)


# ----------------------------------------------------------------------------- safety


def test_payloads_never_execute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    payloads = [
        "[f(x=__import__('os').system('touch PWNED'))]",
        "__import__('os').system('touch PWNED')",
        "[f(x=exec(\"open('PWNED', 'w')\"))]",
        "[f(x=eval('__import__(\"os\").system(\"touch PWNED\")'))]",
        "[f(x=(lambda: open('PWNED', 'w'))())]",
        "[f(x=[open('PWNED', 'w') for _ in [1]])]",
        "[IRRELEVANT] __import__('os').system('touch PWNED')",
        "[INVALID] f: x=__import__('os').system('touch PWNED')",
    ]
    for payload in payloads:
        parsed = parse_text(payload)
        assert parsed.kind in ("format", "special")
        for tool_calls in ([{"function": {"name": "f", "arguments": payload}}],):
            assert parse_tool_calls(tool_calls).kind == "format"
    assert not (tmp_path / "PWNED").exists()
    assert os.listdir(tmp_path) == []


def test_ten_megabyte_output_is_a_format_error() -> None:
    big = "[f(x='" + "a" * (10 * 1024 * 1024) + "')]"
    assert "limit" in error(big)
    assert len(big) > MAX_OUTPUT_CHARS
    assert parse_prediction({"tool_calls": [{"function": {"name": "f", "arguments": '{"x": "' + "a" * (10 << 20) + '"}'}}]}).kind == "format"


def test_lone_surrogates_from_invalid_utf8_are_format_errors() -> None:
    broken = b"[f(x='caf\xe9')]".decode("utf-8", "surrogateescape")
    assert "UTF-8" in error(broken)
    assert "UTF-8" in error("[f(x='\\udc80')]")  # an escape that decodes to a lone surrogate
    assert "UTF-8" in error('[{"api": "f", "args": {"x": "\\udc80"}}]')
    assert parse_tool_calls([{"function": {"name": "f", "arguments": json.dumps({"x": "\udc80"})}}]).kind == "format"
