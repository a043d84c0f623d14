"""The compiled reader of the common answer shape (``validator/scoring/_fastcalls.c``) returns
exactly what the reference reader returns, or declines.

The reference is ``parse_stripped`` — markers, Markdown fences, JSON, then CPython's parser and
the node-by-node conversion — which reads every answer. The compiled reader may only be faster:
for every text it reads, the reference reader gives the same calls, value for value and type
for type (``1`` is not ``1.0``, ``True`` is not ``1``); everything else it must decline (None),
so the reference reader gives the verdict or the error message. Checked on generated texts
(well-formed, then corrupted one character at a time), on an edge table, and on every oracle and
mutated answer the repository's cases produce.
"""

from __future__ import annotations

import shutil
import sysconfig
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator.scoring import parse
from validator.scoring.literals import MAX_DEPTH, MAX_NAME_CHARS, MAX_STRING_CHARS
from validator.scoring.parse import MAX_CALLS, Call, parse_stripped

from ..test_project import ROOT

read = parse._read_common_shape
needs_reader = pytest.mark.skipif(read is None, reason="the compiled reader is not built here (no C compiler at install)")


def fast(text: str) -> tuple[Call, ...] | None:
    assert read is not None
    return read(text, Call, MAX_CALLS, MAX_DEPTH, MAX_STRING_CHARS, MAX_NAME_CHARS)


def typed(value: Any) -> Any:
    """A value with every type spelled out, so 1 ≠ 1.0 ≠ True and a tuple ≠ a list."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [typed(item) for item in value])
    if isinstance(value, dict):
        return ("dict", [(key, typed(item)) for key, item in value.items()])
    return (type(value).__name__, repr(value))


def assert_agrees(text: str) -> bool:
    """The compiled reader agrees with the reference on text; True when it read it."""
    stripped = text.strip()
    if not stripped:
        return False
    calls = fast(stripped)
    if calls is None:
        return False
    reference = parse_stripped(stripped)
    assert reference.kind == "calls", f"{stripped!r}: compiled {calls!r}, reference {reference}"
    assert all(type(call) is Call for call in calls)
    assert typed(calls) == typed(reference.calls), stripped
    return True


def test_the_reader_is_built_where_a_compiler_is() -> None:
    """An install on a machine with a C compiler (CI's included) builds the reader; a broken build
    would otherwise leave scoring silently slow."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) on this machine")
    assert read is not None, "validator/scoring/_fastcalls.c was not built: reinstall (pip install -e .) and read the build's warning"


@needs_reader
def test_the_reader_is_built_from_todays_source() -> None:
    """An editable install compiles next to the source; after the C file changes, the old build
    would still be imported until callbank is reinstalled."""
    module = Path(parse.__file__).with_name("_fastcalls.c")
    built = [path for path in module.parent.glob("_fastcalls*") if path.suffix in (".so", ".pyd")]
    for path in built:  # in a wheel install the source is there too and older than the build
        assert path.stat().st_mtime >= module.stat().st_mtime, f"{path.name} is older than _fastcalls.c: reinstall (pip install -e .)"


# ----------------------------------------------------------------------------- the edge table

READ = [
    ("[f(a=1)]", [("f", {"a": 1})]),
    ("f(a=1)", [("f", {"a": 1})]),
    ("[]", []),
    ("[ ]", []),
    ("f()", [("f", {})]),
    ("[f(), g()]", [("f", {}), ("g", {})]),
    ("[f(a=1,), g(b=2),]", [("f", {"a": 1}), ("g", {"b": 2})]),
    ("[f(\n  a = 'x' ,\n\tb=[1, 2,],\n)]", [("f", {"a": "x", "b": [1, 2]})]),
    ("[f(a=-3, b=+10, c=- 2, d=-0.0, e=1e5, f=2.5E-3, g=0, h=0.5)]", [("f", {"a": -3, "b": 10, "c": -2, "d": -0.0, "e": 1e5, "f": 2.5e-3, "g": 0, "h": 0.5})]),
    ("[f(a=True, b=False, c=None)]", [("f", {"a": True, "b": False, "c": None})]),
    ("[f(a=\"double\", b='single', c='', d=\"it's\", e='say \"hi\"')]", [("f", {"a": "double", "b": "single", "c": "", "d": "it's", "e": 'say "hi"'})]),
    ("[f(city='杭州', note='café\tau lait')]", [("f", {"city": "杭州", "note": "café\tau lait"})]),
    ("[f(d={'k': [1, {'n': None}], \"e\": {}}, e=[[]])]", [("f", {"d": {"k": [1, {"n": None}], "e": {}}, "e": [[]]})]),
    ("[f(match=1, case=2, _=3, type=4)]", [("f", {"match": 1, "case": 2, "_": 3, "type": 4})]),
    ("[f(a=123456789012345678)]", [("f", {"a": 123456789012345678})]),
    ("[f(a=1)]  \n\t", [("f", {"a": 1})]),
    ("f (a=1)", [("f", {"a": 1})]),
]

DECLINED = [
    " [f(a=1)]",  # leading space: the reference reader decides
    "[f(a=1, a=2)]",  # an argument given twice
    "[f(a=1), 1]",  # not a call
    "[if(a=1)]", "[f(if=1)]", "[f(True=1)]", "[f(__debug__=1)]", "[None(a=1)]",  # keywords
    "[f(a=b)]", "[f(a=true)]", "[f(a=none)]",  # names as values
    "[f(a='a' 'b')]", "[f(a=u'x')]", "[f(a=r'x')]", "[f(a=f'x')]", "[f(a=b'x')]", "[f(a='''x''')]",  # string forms
    "[f(a='\\n')]", "[f(a='x\\\ny')]", "[f(a='x\ny')]", "[f(a='x\ry')]", "[f(a='\x00')]", "[f(a='x)]",  # escapes, line ends, unclosed
    "[f(a=1_000)]", "[f(a=0x10)]", "[f(a=01)]", "[f(a=00)]", "[f(a=1.)]", "[f(a=.5)]", "[f(a=1e)]", "[f(a=1j)]", "[f(a=1.2.3)]",  # numbers
    "[f(a=1e400)]", "[f(a=-1e400)]", "[f(a=1234567890123456789)]",  # not finite, too long for the fast path
    "[f(a=-True)]", "[f(a=--1)]", "[f(a=-'x')]", "[f(a=1+2)]", "[f(a=-(1))]",  # operators
    "[f(a=(1, 2))]", "[f(a=(1))]", "[f(a={1, 2})]", "[f(a={'k': 1, 'k': 2})]", "[f(a={1: 2})]", "[f(a={**d})]",  # other literals
    "[f(1)]", "[f(*a)]", "[f(**a)]", "[f(a==1)]", "[f(a=1 b=2)]", "[f(a=1)(b=2)]", "[f.g(a=1)]", "[f(a=g())]",  # not keyword calls
    "[f(a=1)] # note", "[f(a=1)];", "[f(a=1)] x", "[f(a=1)]]", "(f(a=1),)", "f(a=1), g(b=2)", "f\n(a=1)",  # around the list
    "[ｇｅｔ(a=1)]", "[café(a=1)]", "[f(ｃity=1)]", "[f(a=1)]\u00a0", "[f(a=1)]\r\n", "[f(a=1)]\f",  # non-ASCII, other white space
    "[f(a=[" + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "])]",  # nested deeper than MAX_DEPTH
    "[f(a='" + "x" * (MAX_STRING_CHARS + 1) + "')]",  # a string over its cap
    "[" + "f" * (MAX_NAME_CHARS + 1) + "(a=1)]",  # a name over its cap
    "[" + ", ".join(["f()"] * (MAX_CALLS + 1)) + "]",  # more calls than MAX_CALLS
    "[f(a='\ud800')]",  # a lone surrogate
]


@needs_reader
@pytest.mark.parametrize(("text", "expected"), READ)
def test_reads_the_common_shape(text: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    assert typed(fast(text.strip())) == typed(tuple(Call(api, args) for api, args in expected))
    assert assert_agrees(text)


@needs_reader
@pytest.mark.parametrize("text", DECLINED)
def test_declines_everything_else(text: str) -> None:
    assert fast(text) is None


@needs_reader
def test_the_caps_are_the_reference_readers() -> None:
    """Right at each cap the reader still reads (the cap itself is allowed), one over it declines."""
    deepest = "[f(a=" + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + ")]"
    longest = "[f(a='" + "x" * MAX_STRING_CHARS + "')]"
    named = "[" + "f" * MAX_NAME_CHARS + "(a=1)]"
    most = "[" + ", ".join(["f()"] * MAX_CALLS) + "]"
    for text in (deepest, longest, named, most):
        assert assert_agrees(text), text[:40]


# ----------------------------------------------------------------------------- generated texts

SPACE = st.sampled_from(["", " ", "  ", "\n", "\t", " \n  "])
NAMES = st.sampled_from(["f", "get_weather", "a", "_x", "B2", "match", "True", "if", "None", "ｇｅｔ", "café", "x" * 300])
STRING_BODY = st.text(alphabet=st.sampled_from([*list("ab 杭州é'\"\\\t\n\r\x00{}[](),=:#"), "\u2028"]), max_size=8)
NUMBERS = st.sampled_from(["0", "7", "-3", "+10", "- 2", "01", "1_0", "0x1f", "2.5", "1.", ".5", "1e3", "1E-2", "-0.0", "1e999", "12345678901234567890", "3j"])


def _string(draw: st.DrawFn) -> str:
    quote = draw(st.sampled_from(["'", '"', "'''", "u'", "r'"]))
    closing = quote[-1] * (3 if quote == "'''" else 1)
    return quote + draw(STRING_BODY) + closing


@st.composite
def values(draw: st.DrawFn, depth: int = 0) -> str:
    kinds = ["string", "number", "constant", "name"] + (["list", "dict", "tuple", "set"] if depth < 3 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "string":
        return _string(draw)
    if kind == "number":
        return draw(NUMBERS)
    if kind == "constant":
        return draw(st.sampled_from(["True", "False", "None", "true", "null"]))
    if kind == "name":
        return draw(NAMES)
    items = draw(st.lists(values(depth + 1), max_size=3))
    space = draw(SPACE)
    trailing = draw(st.sampled_from(["", ","]))
    if kind == "dict":
        keys = draw(st.lists(st.one_of(st.builds(repr, st.sampled_from(["k", "v", "k"])), values(depth + 1)), min_size=len(items), max_size=len(items)))
        inner = ("," + space).join(f"{key}{draw(SPACE)}:{draw(SPACE)}{item}" for key, item in zip(keys, items, strict=True))
        return "{" + space + inner + (trailing if items else "") + space + "}"
    opening, closing = {"list": "[]", "tuple": "()", "set": "{}"}[kind]
    return opening + space + ("," + space).join(items) + (trailing if items else "") + space + closing


@st.composite
def calls(draw: st.DrawFn) -> str:
    arguments = draw(st.lists(st.tuples(NAMES, values()), max_size=4))
    space = draw(SPACE)
    inner = ("," + space).join(f"{name}{draw(SPACE)}={draw(SPACE)}{value}" for name, value in arguments)
    return draw(NAMES) + draw(st.sampled_from(["", " "])) + "(" + space + inner + draw(st.sampled_from(["", ","])) + space + ")"


@st.composite
def answers(draw: st.DrawFn) -> str:
    items = draw(st.lists(calls(), max_size=3))
    space = draw(SPACE)
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return "[" + space + ("," + space).join(items) + draw(st.sampled_from(["", ","])) + space + "]" + draw(st.sampled_from(["", " ", "\n"]))


@st.composite
def corrupted(draw: st.DrawFn) -> str:
    text = draw(answers())
    if not text:
        return text
    index = draw(st.integers(0, len(text) - 1))
    edit = draw(st.sampled_from(["delete", "insert", "replace"]))
    char = draw(st.sampled_from(list("()[]{},:=.'\"\\ \n#+-0eE_xｇ")))
    if edit == "delete":
        return text[:index] + text[index + 1 :]
    if edit == "insert":
        return text[:index] + char + text[index:]
    return text[:index] + char + text[index + 1 :]


GENERATED = settings(max_examples=600, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@needs_reader
@GENERATED
@given(answers())
def test_generated_answers_agree(text: str) -> None:
    assert_agrees(text)


@needs_reader
@GENERATED
@given(corrupted())
def test_corrupted_answers_agree(text: str) -> None:
    assert_agrees(text)


@needs_reader
def test_the_generator_reaches_both_sides() -> None:
    """The generated texts are both read and declined, so the agreement tests test something."""
    read_count = declined = 0

    @settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(answers())
    def count(text: str) -> None:
        nonlocal read_count, declined
        if assert_agrees(text):
            read_count += 1
        else:
            declined += 1

    count()
    assert read_count >= 30 and declined >= 30, (read_count, declined)


# ----------------------------------------------------------------------------- the corpus and size


@needs_reader
def test_every_corpus_answer_agrees_and_most_take_the_compiled_path() -> None:
    """Every oracle and mutated answer of the repository's cases (benchmarks/bench_score.py's
    records): the reader agrees wherever it reads, and it reads nearly every oracle answer."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_score
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    from validator.corpus.index import Corpus

    oracle, mutated = bench_score.outputs(Corpus.load(ROOT))
    oracle_read = sum(assert_agrees(record["output"]) for _, record, _, _ in oracle)
    for _, record, _, _ in mutated:
        assert_agrees(record["output"])
    calls_only = [record for checkpoint, record, _, _ in oracle if checkpoint.special is None]
    assert oracle_read >= 0.95 * len(calls_only), (oracle_read, len(calls_only))


@needs_reader
def test_a_megabyte_is_read_or_declined_in_linear_time() -> None:
    texts = [
        "[f(a=" + "[" * 1_000_000 + ")]",  # nesting: declined at MAX_DEPTH
        "[f(a='" + "x" * 1_000_000 + "')]",  # one long string: over the cap
        "[f(" + ", ".join(f"a{i}=1" for i in range(100_000)) + ")]",  # many arguments: read
        "[" + ", ".join(["f(a=1)"] * 100_000) + "]",  # many calls: declined after MAX_CALLS
        "[f(a=" + "1" * 1_000_000 + ")]",  # one long number
    ]
    for text in texts:
        start = time.process_time()
        fast(text)
        assert time.process_time() - start < 0.5, text[:30]
