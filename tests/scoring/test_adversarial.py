"""Adversarial answers: every text-driven path of parsing and scoring runs in linear time.

Hypothesis builds long strings by repeating short units chosen to provoke backtracking (runs of
letters, spaces, separators, unclosed quotes and brackets, ``name=`` fragments, marker
prefixes) and each path must handle them within a fixed CPU-time budget per character. The
budget is generous — about ten times what the linear code needs on a slow machine — while a
quadratic path (the old ``[INVALID]`` reader took 24.5 s on 60,000 characters) overshoots it
by orders of magnitude at this length. The examples are derandomised, so CI sees the same
strings on every run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator.corpus.build import build_checkpoint
from validator.corpus.index import Corpus
from validator.linear_regex import compile_regex
from validator.matchers import matches
from validator.scoring.match import score_checkpoint
from validator.scoring.parse import parse_prediction, parse_text
from validator.scoring.special import read_params
from validator.textnorm import fold_free_text, normalize_text

from .conftest import FIXTURE

LENGTH = 20_000
SECONDS_PER_CHAR = 20e-6  # 0.4 s for the whole string
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

UNITS = [
    "a", "Z", "1", "_", " ", "\t", "\n", "\r\n", "-", "−", "=", "＝", ",", "，", ";", "、", ":", "：", ".", "/", "*", "+",
    "'", '"', "“", "\\", "(", ")", "[", "]", "{", "}", "【", "】", "［", "`", "```", "a=", ", a=", "a = ", "f(", "x=1,",
    "[MISSING]", "[INVALID] f: ", "【无关】", "[IRRELEVANT]\n", "aaaaaaaa", "        ", "12,345", "-3 ", "3x**2",
]
PREFIXES = ["", "[INVALID] api: ", "[MISSING] api: ", "【参数错误】api：", "[INVALID] api(", "[IRRELEVANT]\n", "```json\n", "[f(x=", "{\"name\": \"f\", \"arguments\": "]
SUFFIXES = ["", "```", ")]", "x", "\n[get_weather(city='Paris')]", "'", "\n"]


@st.composite
def adversarial(draw: st.DrawFn) -> str:
    unit = "".join(draw(st.lists(st.sampled_from(UNITS), min_size=1, max_size=4)))
    body = (unit * (LENGTH // len(unit) + 1))[:LENGTH]
    return draw(st.sampled_from(PREFIXES)) + body + draw(st.sampled_from(SUFFIXES))


def within_budget(work: Callable[[], Any], text: str) -> None:
    start = time.process_time()
    work()
    spent = time.process_time() - start
    assert spent <= SECONDS_PER_CHAR * len(text), f"{spent:.2f} s CPU for {len(text):,} characters ({text[:60]!r}…)"


SCHEMAS = Corpus.load(FIXTURE).specs
SPECIAL = build_checkpoint({"special": "error_param", "api": "api", "params": {"a": -30, "x": "2024-02-30"}})
CALL = build_checkpoint({"calls": [{"api": "send_message", "args": {"receiver": "Li", "content": {"$text": "I'll be ten minutes late"}}}]})
# patterns that make a backtracking engine quadratic or exponential
PATTERNS = [
    "(?is).*login.*on-?call.*release.*",
    "(?is)(?=.*a)(?=.*1)(?=.*=).*",
    "(?i)(.*a.*1.*|.*1.*a.*)",
    "(a+)+b",
    "(?s)(\\s*,?\\s*)*x",
]


@SETTINGS
@given(adversarial())
def test_parsing_an_answer(text: str) -> None:
    within_budget(lambda: parse_text(text), text)


@SETTINGS
@given(adversarial())
def test_scoring_a_special_answer(text: str) -> None:
    within_budget(lambda: score_checkpoint(SPECIAL, parse_text("[INVALID] api: " + text), SCHEMAS, "en"), text)
    within_budget(lambda: read_params(text), text)


@SETTINGS
@given(adversarial())
def test_scoring_a_free_text_argument(text: str) -> None:
    record = {"output": f"[send_message(receiver={text[:60]!r}, content={text!r})]"}
    within_budget(lambda: score_checkpoint(CALL, parse_prediction(record), SCHEMAS, "en"), text)
    within_budget(lambda: (normalize_text(text), fold_free_text(text)), text)
    within_budget(lambda: matches({"$contains": ["ten minutes", ["late", "迟到"]]}, text), text)


@SETTINGS
@given(adversarial())
def test_native_tool_call_arguments(text: str) -> None:
    arguments = json.dumps({"receiver": "Li", "content": text}, ensure_ascii=False)
    for value in (arguments, text):
        record = {"output": text, "tool_calls": [{"type": "function", "function": {"name": "send_message", "arguments": value}}]}
        within_budget(lambda record=record: score_checkpoint(CALL, parse_prediction(record), SCHEMAS, "en"), text)


@SETTINGS
@given(adversarial(), st.sampled_from(PATTERNS))
def test_regex_answers(text: str, pattern: str) -> None:
    compiled = compile_regex(pattern)
    within_budget(lambda: compiled.fullmatch(text), text)


def test_a_one_mebibyte_invalid_line_is_scored_quickly() -> None:
    # the attack: about two hours at this size before the special reader was rewritten
    text = "[INVALID] api: " + "a" * ((1 << 20) - 20)
    start = time.process_time()
    verdict = score_checkpoint(SPECIAL, parse_prediction({"output": text}), SCHEMAS, "en")
    assert time.process_time() - start < 2.0
    assert verdict.error == "special_wrong_detail"
