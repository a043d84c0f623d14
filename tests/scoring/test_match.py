"""Comparison rules: every leaf, types, defaults, matchers, optimal pairing, best alternative."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.corpus.build import build_checkpoint
from validator.corpus.index import Corpus
from validator.scoring.assign import max_weight_assignment
from validator.scoring.match import RIGHT_CALL_WEIGHT, Specs, Verdict, compare_call, pair_calls, pair_weight, score_checkpoint
from validator.scoring.parse import Call, parse_text


@pytest.fixture(scope="module")
def schemas(repo: Corpus) -> Specs:
    return repo.specs


def judge(schemas: Specs, answer: dict[str, Any], text: str, lang: str = "en") -> Verdict:
    return score_checkpoint(build_checkpoint(answer), parse_text(text), schemas, lang)


def calls(*items: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"calls": [{"api": api, "args": args} for api, args in items]}


WEATHER = calls(("get_weather", {"city": "Hangzhou"}))


def test_exact_answer_is_right(schemas: Specs) -> None:
    verdict = judge(schemas, WEATHER, "[get_weather(city='Hangzhou')]")
    assert verdict.correct and verdict.error is None
    assert verdict.api == (1, 0, 0) and verdict.params == (1, 0, 0)


@pytest.mark.parametrize(
    "text, error",
    [
        ("[get_weather(city='Hang zhou')]", "wrong_value"),  # spaces are collapsed, never deleted (a peer deletes them)
        ("[get_weather(city='Hangzhou City')]", "wrong_value"),  # never a substring match
        ("[get_weather(city='Hangzhou.')]", "wrong_value"),  # free text keeps punctuation
        ("[get_weather(city=1)]", "wrong_type"),
        ("[get_weather(city=['Hangzhou'])]", "wrong_type"),
        ("[get_weather()]", "missing_parameter"),
        ("[get_weather(city='Hangzhou', country='CN')]", "unexpected_parameter"),
        ("[get_forecast(city='Hangzhou')]", "wrong_api"),
        ("[get_weather(city='Hangzhou'), get_weather(city='Hangzhou')]", "wrong_call_count"),
        ("[]", "wrong_call_count"),
        ("", "wrong_call_count"),
        ("[IRRELEVANT]", "wrong_call_count"),
        ("get the weather", "format"),
    ],
)
def test_wrong_answers_and_their_error_type(schemas: Specs, text: str, error: str) -> None:
    verdict = judge(schemas, WEATHER, text)
    assert not verdict.correct and verdict.error == error, verdict


@pytest.mark.parametrize("city", ["hangzhou", "HANGZHOU", " Hangzhou ", "Ｈａｎｇｚｈｏｕ"])
def test_free_text_ignores_case_width_and_outer_spaces(schemas: Specs, city: str) -> None:
    assert judge(schemas, WEATHER, f"[get_weather(city={city!r})]").correct


def test_enumerations_and_patterned_strings_stay_exact(schemas: Specs) -> None:
    units = calls(("get_weather", {"city": "Hangzhou", "units": "fahrenheit"}))
    assert judge(schemas, units, "[get_weather(city='Hangzhou', units='fahrenheit')]").correct
    assert judge(schemas, units, "[get_weather(city='Hangzhou', units='Fahrenheit')]").error == "wrong_value"
    money = calls(("convert_currency", {"amount": 1, "from_currency": "USD", "to_currency": "CNY"}))
    assert judge(schemas, money, "[convert_currency(amount=1, from_currency='usd', to_currency='CNY')]").error == "wrong_value"
    flight = calls(("book_flight", {"from_city": "Shanghai", "to_city": "Beijing", "date": "2024-06-20"}))
    text = "[book_flight(from_city='shanghai', to_city='BEIJING', date='2024-06-20')]"
    assert judge(schemas, flight, text).correct
    assert judge(schemas, flight, text.replace("2024-06-20", "2024-06-20 ")).error == "wrong_value"


def test_optional_parameter_only_at_its_default(schemas: Specs) -> None:
    assert judge(schemas, WEATHER, "[get_weather(city='Hangzhou', units='celsius', days=1)]").correct
    assert judge(schemas, WEATHER, "[get_weather(city='Hangzhou', days=1.0)]").correct  # 1.0 is the JSON number 1
    verdict = judge(schemas, WEATHER, "[get_weather(city='Hangzhou', units='fahrenheit')]")
    assert verdict.error == "wrong_value" and "default" in verdict.detail
    # a parameter without a declared default is never silently accepted
    message = calls(("send_message", {"receiver": "Li", "content": "hi"}))
    assert judge(schemas, message, "[send_message(receiver='Li', content='hi', urgent=False)]").correct
    urgent = judge(schemas, message, "[send_message(receiver='Li', content='hi', urgent=True)]")
    assert urgent.error == "wrong_value"


def test_numbers_ints_for_number_and_booleans_never_numbers(schemas: Specs) -> None:
    money = calls(("convert_currency", {"amount": 100.0, "from_currency": "USD", "to_currency": "CNY"}))
    assert judge(schemas, money, "[convert_currency(amount=100, from_currency='USD', to_currency='CNY')]").correct
    assert judge(schemas, money, "[convert_currency(amount=100.5, from_currency='USD', to_currency='CNY')]").error == "wrong_value"
    assert judge(schemas, money, "[convert_currency(amount='100', from_currency='USD', to_currency='CNY')]").error == "wrong_type"
    days = calls(("get_weather", {"city": "X", "days": 1}))
    assert judge(schemas, days, "[get_weather(city='X', days=True)]").error == "wrong_type"
    assert judge(schemas, days, "[get_weather(city='X', days=1.5)]").error == "wrong_type"  # not an integer
    flag = calls(("send_message", {"receiver": "Li", "content": "hi", "urgent": True}))
    assert judge(schemas, flag, "[send_message(receiver='Li', content='hi', urgent=1)]").error == "wrong_type"
    assert judge(schemas, flag, "[send_message(receiver='Li', content='hi', urgent=False)]").error == "wrong_value"


def test_nested_objects_every_leaf_and_nested_defaults(schemas: Specs) -> None:
    answer = calls(("add_event", {"title": "Lunch", "start": "2024-06-12T12:30", "location": {"name": "Lakeside", "floor": 3}}))
    base = "[add_event(title='Lunch', start='2024-06-12T12:30', location={})]"
    assert judge(schemas, answer, base.format("{'name': 'Lakeside', 'floor': 3}")).correct
    assert judge(schemas, answer, base.format("{'floor': 3, 'name': 'Lakeside', 'private_room': False}")).correct
    assert judge(schemas, answer, base.format("{'name': 'Lakeside', 'floor': 4}")).error == "wrong_value"
    assert judge(schemas, answer, base.format("{'name': 'Lakeside', 'floor': '3'}")).error == "wrong_type"
    assert judge(schemas, answer, base.format("{'name': 'Lakeside'}")).error == "wrong_value"
    assert judge(schemas, answer, base.format("{'name': 'Lakeside', 'floor': 3, 'private_room': True}")).error == "wrong_value"
    assert judge(schemas, answer, base.format("{'name': 'Lakeside', 'floor': 3, 'wing': 'B'}")).error == "wrong_value"


def test_lists_are_ordered_unless_unordered(schemas: Specs) -> None:
    ordered = calls(("add_event", {"title": "T", "start": "2024-06-12T10:00", "attendees": ["A", "B"]}))
    unordered = calls(("add_event", {"title": "T", "start": "2024-06-12T10:00", "attendees": {"$unordered": ["A", "B"]}}))
    text = "[add_event(title='T', start='2024-06-12T10:00', attendees=['B', 'A'])]"
    assert judge(schemas, ordered, text).error == "wrong_value"
    assert judge(schemas, unordered, text).correct
    assert judge(schemas, unordered, text.replace("'B', 'A'", "'B', 'A', 'A'")).error == "wrong_value"


def test_matchers(schemas: Specs) -> None:
    answer = calls(
        (
            "send_message",
            {"receiver": {"$any": ["Zhang Wei", "张伟"]}, "content": {"$text": "I'll be late!"}, "urgent": {"$optional": True}},
        )
    )
    # $text: NFKC, case folding, punctuation as space, spaces collapsed — never a substring
    assert judge(schemas, answer, "[send_message(receiver='张伟', content='i’ll  BE late')]").correct
    assert judge(schemas, answer, "[send_message(receiver='张伟', content='I’ll be late.')]").correct
    assert judge(schemas, answer, "[send_message(receiver='张伟', content='ill be late')]").error == "wrong_value"
    assert judge(schemas, answer, "[send_message(receiver='张伟', content='Sorry, I’ll be late')]").error == "wrong_value"
    assert judge(schemas, answer, "[send_message(receiver='Zhang Wei', content='i\\'ll  BE late')]").correct
    assert judge(schemas, answer, "[send_message(receiver='Zhang Wei', content=\"I'll be late\", urgent=True)]").correct
    # an explicit default is accepted wherever omitting the argument is (urgent defaults to False)
    assert judge(schemas, answer, "[send_message(receiver='Zhang Wei', content=\"I'll be late\", urgent=False)]").correct
    assert judge(schemas, answer, "[send_message(receiver='Zhang', content=\"I'll be late\")]").error == "wrong_value"
    assert judge(schemas, answer, "[send_message(receiver='Zhang Wei', content=\"I'll be very late\")]").error == "wrong_value"
    approx = calls(("convert_currency", {"amount": {"$approx": 12.5, "$tol": 0.01}, "from_currency": "USD", "to_currency": "CNY"}))
    assert judge(schemas, approx, "[convert_currency(amount=12.505, from_currency='USD', to_currency='CNY')]").correct
    assert judge(schemas, approx, "[convert_currency(amount=12.6, from_currency='USD', to_currency='CNY')]").error == "wrong_value"
    ranged = calls(("convert_currency", {"amount": {"$range": [10, 20]}, "from_currency": "USD", "to_currency": "CNY"}))
    for amount, verdict in (("10", True), ("15.5", True), ("20", True), ("9.99", False), ("21", False), ("'15'", False)):
        judged = judge(schemas, ranged, f"[convert_currency(amount={amount}, from_currency='USD', to_currency='CNY')]")
        assert judged.correct is verdict, (amount, judged)
    regex = calls(("add_event", {"title": "T", "start": {"$regex": "2024-06-12T10:00(:00)?", "$example": "2024-06-12T10:00"}}))
    assert judge(schemas, regex, "[add_event(title='T', start='2024-06-12T10:00:00')]").correct
    assert judge(schemas, regex, "[add_event(title='T', start='2024-06-12T10:00 ')]").error == "wrong_value"
    literal = calls(("add_event", {"title": "T", "start": "2024-06-12T10:00", "location": {"$literal": {"name": "$HQ"}}}))
    assert judge(schemas, literal, "[add_event(title='T', start='2024-06-12T10:00', location={'name': '$HQ'})]").correct


def test_parallel_calls_in_every_order(schemas: Specs) -> None:
    expected = [
        ("get_weather", {"city": "Beijing"}),
        ("get_weather", {"city": "Shanghai"}),
        ("convert_currency", {"amount": 100, "from_currency": "USD", "to_currency": "CNY"}),
        ("send_message", {"receiver": "Li", "content": "hi"}),
    ]
    answer = calls(*expected)
    texts = {"get_weather": "get_weather(city='{city}')", "convert_currency": "convert_currency(amount=100, from_currency='USD', to_currency='CNY')"}
    rendered = [
        texts.get(api, "send_message(receiver='Li', content='hi')").format(**args) for api, args in expected
    ]
    orders = list(itertools.permutations(rendered))
    assert len(orders) == 24
    for order in orders:  # a greedy peer passes only 12 of these 24
        assert judge(schemas, answer, "[" + ", ".join(order) + "]").correct


def test_assignment_is_optimal_not_greedy(schemas: Specs) -> None:
    # first-fit would give the flexible expected call the model's first call and then fail
    answer = calls(("get_weather", {"city": {"$any": ["Beijing", "Shanghai"]}}), ("get_weather", {"city": "Beijing"}))
    assert judge(schemas, answer, "[get_weather(city='Beijing'), get_weather(city='Shanghai')]").correct
    assert judge(schemas, answer, "[get_weather(city='Shanghai'), get_weather(city='Beijing')]").correct
    repeated = calls(("get_weather", {"city": "Beijing"}), ("get_weather", {"city": "Beijing"}))
    # repeated calls are matched one-to-one, never many-to-one
    assert judge(schemas, repeated, "[get_weather(city='Beijing')]").error == "wrong_call_count"
    assert judge(schemas, repeated, "[get_weather(city='Beijing'), get_weather(city='Shanghai')]").error == "wrong_value"


def test_best_alternative_wins(schemas: Specs) -> None:
    answer = {
        "one_of": [
            {"calls": [{"api": "get_weather", "args": {"city": "Paris", "units": "fahrenheit"}}]},
            {"calls": [{"api": "get_weather", "args": {"city": "Paris"}}, {"api": "convert_currency", "args": {"amount": 1, "from_currency": "EUR", "to_currency": "USD"}}]},
        ]
    }
    assert judge(schemas, answer, "[get_weather(city='Paris', units='fahrenheit')]").correct
    assert judge(schemas, answer, "[convert_currency(amount=1, from_currency='EUR', to_currency='USD'), get_weather(city='Paris')]").correct
    # closest alternative explains the error: same call count, one value off
    wrong = judge(schemas, answer, "[get_weather(city='Paris', units='celsius')]")
    assert wrong.error == "wrong_value"


def test_error_precedence_within_a_call(schemas: Specs) -> None:
    answer = calls(("send_message", {"receiver": "Li", "content": "hi"}))
    assert judge(schemas, answer, "[send_message(content=1, color='red')]").error == "missing_parameter"
    assert judge(schemas, answer, "[send_message(receiver='Li', content=1, color='red')]").error == "unexpected_parameter"
    assert judge(schemas, answer, "[send_message(receiver=2, content='ho')]").error == "wrong_type"


def test_partial_credit_counts(schemas: Specs) -> None:
    answer = calls(("get_weather", {"city": "Beijing", "days": 3}), ("send_message", {"receiver": "Li", "content": "hi"}))
    verdict = judge(schemas, answer, "[get_weather(city='Beijing', days=2), get_forecast(city='x', date='2024-01-01')]")
    assert verdict.api == (1, 1, 1)  # get_weather right, get_forecast extra, send_message missed
    assert verdict.params == (1, 1 + 2, 1 + 2)  # city right; days wrong (fp+fn); forecast args fp; message args fn


def test_special_checkpoints(schemas: Specs) -> None:
    answer = {"special": "incomplete", "api": "book_flight", "missing": ["from_city"]}
    right = judge(schemas, answer, "[MISSING] book_flight: from_city")
    assert right.correct and right.detected and right.corrected
    detail = judge(schemas, answer, "[MISSING] book_flight: to_city")
    assert detail.error == "special_wrong_detail" and detail.detected and not detail.corrected
    for text in ("[book_flight(to_city='Beijing', date='2024-06-20', from_city='Shanghai')]", "", "[IRRELEVANT]"):
        verdict = judge(schemas, answer, text)
        assert verdict.error == "special_not_detected" and verdict.detected is False
    assert judge(schemas, answer, "no idea").error == "format"
    irrelevant = {"special": "irrelevant"}
    assert judge(schemas, irrelevant, "[IRRELEVANT]").correct
    # an undecodable answer is never a correct abstention (a peer counts it as one)
    assert judge(schemas, irrelevant, "[f(x=").error == "format"
    assert judge(schemas, irrelevant, "").error == "special_not_detected"


def test_contains_accepts_any_query_holding_every_phrase() -> None:
    from validator.matchers import matches, problems, render

    want = {"$contains": ["Harbor Logistics", ["price", "pricing", "报价"]]}
    assert list(problems(want)) == []
    assert matches(want, "harbor logistics pricing sheet")
    assert matches(want, "Harbor  Logistics 报价表")
    assert matches(want, render(want))
    assert not matches(want, "Harbor pricing")
    assert not matches(want, "Harbor Logisticsx price")
    assert not matches(want, 42)
    assert list(problems({"$contains": []}))
    assert list(problems({"$contains": ["ok", [""]]}))


def test_an_explicit_default_is_accepted_wherever_omitting_is(schemas: Specs) -> None:
    # seats defaults to 1; the answer allows omitting it or giving 2
    answer = calls(("book_flight", {"from_city": "Shanghai", "to_city": "Beijing", "date": "2024-06-20", "seats": {"$optional": 2}}))
    base = "[book_flight(from_city='Shanghai', to_city='Beijing', date='2024-06-20'{})]"
    assert judge(schemas, answer, base.format("")).correct
    assert judge(schemas, answer, base.format(", seats=2")).correct
    assert judge(schemas, answer, base.format(", seats=1")).correct  # the default, as good as omitting
    assert judge(schemas, answer, base.format(", seats=3")).error == "wrong_value"
    required = calls(("book_flight", {"from_city": "Shanghai", "to_city": "Beijing", "date": "2024-06-20", "seats": 2}))
    assert judge(schemas, required, base.format(", seats=1")).error == "wrong_value"  # not optional: the default is wrong


def test_an_argument_the_api_does_not_declare_fails_even_when_the_answer_names_it(schemas: Specs) -> None:
    answer = calls(("get_weather", {"city": "Hangzhou", "country": "CN"}))
    verdict = judge(schemas, answer, "[get_weather(city='Hangzhou', country='CN')]")
    assert verdict.error == "unexpected_parameter" and "no parameter" in verdict.detail


@pytest.mark.parametrize(
    "text",
    [
        "[ｇｅｔ_ｗｅａｔｈｅｒ(city='Hangzhou')]",
        '[{"name": "ｇｅｔ_ｗｅａｔｈｅｒ", "arguments": {"city": "Hangzhou"}}]',
        "[get_ｗeather(city='Hangzhou')]",
    ],
)
def test_full_width_api_names_are_wrong_in_every_syntax(schemas: Specs, text: str) -> None:
    assert judge(schemas, WEATHER, text).error == "wrong_api"


def test_full_width_argument_names_are_wrong_in_every_syntax(schemas: Specs) -> None:
    assert judge(schemas, WEATHER, "[get_weather(ｃｉｔｙ='Hangzhou')]").error == "missing_parameter"
    assert judge(schemas, WEATHER, '[{"name": "get_weather", "arguments": {"ｃｉｔｙ": "Hangzhou"}}]').error == "missing_parameter"
    # string values are data, not names: a full-width value is free text like any other
    assert judge(schemas, WEATHER, "[get_weather(city='Ｈａｎｇｚｈｏｕ')]").correct


def test_a_range_is_two_numbers_low_below_high() -> None:
    from validator import matchers

    assert list(matchers.problems({"$range": [1, 10]})) == []
    for body in ([10, 1], [1], [1, "10"], [1, 2, 3], 5, [True, 3]):
        assert [message for message, _ in matchers.problems({"$range": body})] == [
            "$range takes [low, high]: two numbers, low below high (both ends accepted)"
        ], body
    assert matchers.render({"$range": [5, 50]}) == 5
    assert matchers.concrete_values({"$optional": {"$range": [5, 50]}}) == [5, 50]


# ----------------------------------------------------------------------------- pairing shortcuts

_API = st.sampled_from(["f", "g"])
_WANT = st.sampled_from([1, 2, "x", True, {"$optional": 1}, {"$any": [1, 2]}, [1, 2]])
_GOT = st.sampled_from([1, 2, 2.0, "x", "X", True, [1, 2], [2, 1]])


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    st.lists(st.tuples(_API, st.dictionaries(st.sampled_from(["a", "b"]), _WANT, max_size=2)), min_size=1, max_size=3),
    st.lists(st.tuples(_API, st.dictionaries(st.sampled_from(["a", "b", "c"]), _GOT, max_size=3)), min_size=1, max_size=4),
)
def test_pairing_is_optimal_and_follows_the_answers_order(expected: list[tuple[str, dict[str, Any]]], actual: list[tuple[str, dict[str, Any]]]) -> None:
    """``pair_calls`` compares only what it needs, and its pairs are always an optimal assignment:
    a single call's partner is the first of the heaviest (the assignment's own tie rule); when
    every call of the shorter side has a right partner, first fit in the answers' order
    (docs/scoring.md); otherwise the assignment over every pair."""
    answer = build_checkpoint(calls(*expected)).alternatives[0].calls
    made = [Call(api, args) for api, args in actual]
    pairs, checks, weight = pair_calls(answer, made, {}, "en")
    every = [[pair_weight(compare_call(e, a, {}, "en")) for a in made] for e in answer]
    optimal = max_weight_assignment(every)
    assert weight == pytest.approx(sum(every[i][j] for i, j in optimal))  # optimal
    assert weight == pytest.approx(sum(every[i][j] for i, j in pairs))
    assert len(pairs) == min(len(answer), len(made))
    assert len({i for i, _ in pairs}) == len({j for _, j in pairs}) == len(pairs)  # one to one
    assert all(pair in checks for pair in pairs)
    if len(answer) == 1 or len(made) == 1:
        assert pairs == optimal
        assert sum(check.error is None for check in checks.values()) <= 1  # nothing compared after the first right partner
        return
    rows_expected = len(answer) <= len(made)
    shorter, longer = (len(answer), len(made)) if rows_expected else (len(made), len(answer))
    taken: list[int] = []
    for index in range(shorter):
        right = [other for other in range(longer) if other not in taken and every[index if rows_expected else other][other if rows_expected else index] == RIGHT_CALL_WEIGHT]
        if not right:
            assert pairs == optimal  # no all-right pairing by first fit: the full assignment
            return
        taken.append(right[0])
    first_fit = sorted((index, other) if rows_expected else (other, index) for index, other in enumerate(taken))
    assert pairs == first_fit
