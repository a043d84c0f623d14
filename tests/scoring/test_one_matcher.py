"""One matcher implementation: what a checkpoint's matcher accepts is exactly what the scorer accepts.

The scorer (``validator.scoring.match.compare_call``), the rules (which validate
``concrete_values`` against the API schema) and the oracle (which answers ``render``) all go
through ``validator.matchers``. These properties hold over every call argument of the real
corpus and of the scoring fixture: for any value — the oracle's, each concrete value, their
case, typography and spacing variants, the declared default, near misses, arbitrary JSON — the
call with that argument is right exactly when ``matches`` accepts the value, and omitting the
argument is right exactly when the matcher allows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator.corpus import records
from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.matchers import concrete_values, is_omittable, matches, render
from validator.scoring.match import compare_call
from validator.scoring.parse import Call

from .conftest import FIXTURE

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Argument(NamedTuple):
    where: str
    lang: str
    call: records.Call  # the expected call (matchers and all)
    name: str


def arguments(corpus: Corpus) -> list[Argument]:
    found = []
    for case_id, case in sorted(corpus.cases.items()):
        for lang in LANGS:
            for checkpoint in case.dialogues[lang].checkpoints:
                for alternative in checkpoint.alternatives:
                    for call in alternative.calls:
                        for name in call.args:
                            found.append(Argument(f"{case_id} {lang} step {checkpoint.step}", lang, call, name))
    return found


REPOS = {"corpus": Corpus.load(ROOT), "fixture": Corpus.load(FIXTURE)}
SCHEMAS = {key: corpus.specs for key, corpus in REPOS.items()}
ARGUMENTS = [(key, argument) for key, repo in REPOS.items() for argument in arguments(repo)]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5, allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


def variants(value: Any) -> list[Any]:
    """Near misses and harmless variants of a concrete value."""
    if isinstance(value, str):
        return [
            value.upper(), value.lower(), value.title(), f"  {value} ", value.replace("'", "’"), value + ".",
            value[1:], value.replace(" ", ""), f"-{value}", value.replace("-", "—"),
        ]
    if isinstance(value, bool):
        return [not value, int(value)]
    if isinstance(value, (int, float)):
        return [value + 1, -value, float(value), str(value)]
    if isinstance(value, list):
        return [list(reversed(value)), value[:-1], [*value, value[0]] if value else [None]]
    if isinstance(value, dict):
        return [dict(list(value.items())[:-1]), {**value, "extra": 1}]
    return [0, ""]


@st.composite
def candidate(draw: st.DrawFn) -> tuple[str, Argument, Any]:
    key, argument = draw(st.sampled_from(ARGUMENTS))
    want = argument.call.args[argument.name]
    schema = parameter_schema(key, argument)
    pool = [render(want, argument.lang), *concrete_values(want, argument.lang, limit=8)]
    pool += [variant for value in list(pool) for variant in variants(value)]
    if isinstance(schema, dict) and "default" in schema:
        pool.append(schema["default"])
    value = draw(st.sampled_from(pool) | JSON)
    return key, argument, value


def parameter_schema(key: str, argument: Argument) -> Any:
    spec = SCHEMAS[key].get(argument.call.api)
    return spec.properties.get(argument.name) if spec is not None else None


def scorer_accepts(key: str, argument: Argument, args: dict[str, Any]) -> bool:
    rendered = render({k: v for k, v in argument.call.args.items() if k != argument.name}, argument.lang)
    check = compare_call(argument.call, Call(argument.call.api, {**rendered, **args}), SCHEMAS[key], argument.lang)
    return check.error is None


def test_the_corpus_has_material() -> None:
    assert len(ARGUMENTS) > 5000


@SETTINGS
@given(candidate())
def test_a_value_is_right_exactly_when_the_matcher_accepts_it(drawn: tuple[str, Argument, Any]) -> None:
    key, argument, value = drawn
    want = argument.call.args[argument.name]
    schema = parameter_schema(key, argument)
    assert scorer_accepts(key, argument, {argument.name: value}) == matches(want, value, argument.lang, schema), (argument.where, want, value)


def test_omitting_an_argument_is_right_exactly_when_the_matcher_allows_it() -> None:
    for key, argument in ARGUMENTS:
        want = argument.call.args[argument.name]
        assert scorer_accepts(key, argument, {}) == is_omittable(want), argument.where


def test_the_oracle_and_the_rules_see_values_the_scorer_accepts() -> None:
    for key, argument in ARGUMENTS:
        want = argument.call.args[argument.name]
        schema = parameter_schema(key, argument)
        assert matches(want, render(want, argument.lang), argument.lang, schema), argument.where
        for value in concrete_values(want, argument.lang):
            assert scorer_accepts(key, argument, {argument.name: value}), (argument.where, value)
