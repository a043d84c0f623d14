"""Comparing parsed calls with a checkpoint's answer: a verdict, an error type, partial credit.

Rules (``docs/scoring.md``):

* every leaf is compared — top-level and nested strings, numbers, booleans, lists, objects;
  an int equals the float of the same value, a boolean never equals a number;
* values are judged by ``validator.matchers.matches`` with the parameter's schema — the one
  matcher implementation the rules and the oracle use too (free-text strings folded, matchers
  honoured, defaults admitted);
* an argument the API does not declare is wrong, even when the answer names it;
* an argument the answer does not mention is accepted only when the API declares a
  ``default`` for it and the value equals that default (at any depth of an object);
* calls of one alternative are paired with the model's calls by an optimal one-to-one
  assignment (``validator.scoring.assign``), so call order never matters;
* of several alternatives (``one_of``) the best one decides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from validator.corpus import records
from validator.corpus.records import Checkpoint, Spec
from validator.matchers import is_matcher, is_omittable, literal_equal, matcher_kind, matches
from validator.scoring.assign import max_weight_assignment
from validator.scoring.parse import Call, Parsed
from validator.scoring.special import correction_problem, expected_special
from validator.scoring.taxonomy import CALL_ERROR_RANK

Counts = tuple[int, int, int]  # true positives, false positives, false negatives
ZERO: Counts = (0, 0, 0)


Specs = Mapping[str, Spec]  # API name -> spec: the parameter schemas the comparison reads


class CallCheck(NamedTuple):
    error: str | None  # a CALL_ERROR_RANK code, None when the call is right
    detail: str
    tp: int  # arguments right
    fp: int  # arguments given but wrong or unexpected
    fn: int  # expected arguments missing or wrong


class Verdict(NamedTuple):
    """One checkpoint scored."""

    correct: bool
    error: str | None = None
    detail: str = ""
    api: Counts = ZERO  # for API-F1 (call checkpoints only)
    params: Counts = ZERO  # for parameter-F1 (call checkpoints only)
    detected: bool | None = None  # special checkpoints: the right kind was given
    corrected: bool | None = None  # special checkpoints: … and the right detail


# ----------------------------------------------------------------------------- checkpoints


def score_checkpoint(checkpoint: Checkpoint, parsed: Parsed, specs: Specs, lang: str | None = None) -> Verdict:
    """The verdict for one checkpoint: ``checkpoint`` from the case, ``parsed`` from the model."""
    if checkpoint.special is not None:
        return _score_special(checkpoint.answer, parsed, lang)
    options = checkpoint.alternatives
    if parsed.kind == "format" or parsed.kind == "hedged":
        return Verdict(False, parsed.kind, parsed.error, *missed_counts(options[0].calls))
    if parsed.kind == "special":
        special = parsed.special
        kind = special.kind if special else "special"
        return Verdict(False, "wrong_call_count", f"gave a special answer ({kind}) where calls were expected", *missed_counts(options[0].calls))
    best: tuple[tuple[bool, float], Verdict] | None = None
    for alternative in options:
        verdict, weight = score_calls(alternative.calls, parsed.calls, specs, lang)
        key = (verdict.correct, weight)
        if best is None or key > best[0]:
            best = (key, verdict)
        if verdict.correct:
            break
    assert best is not None
    return best[1]


def _score_special(answer: Mapping[str, Any], parsed: Parsed, lang: str | None) -> Verdict:
    expected = expected_special(dict(answer))
    if parsed.kind == "format" or parsed.kind == "hedged":
        return Verdict(False, parsed.kind, parsed.error, detected=False, corrected=False)
    if parsed.kind == "calls":
        what = f"{len(parsed.calls)} call(s)" if parsed.calls else "nothing"
        return Verdict(False, "special_not_detected", f"answered {what}; expected a special answer ({expected.kind})", detected=False, corrected=False)
    actual = parsed.special
    assert actual is not None
    if actual.kind != expected.kind:
        return Verdict(False, "special_not_detected", f"said {actual.kind}; expected {expected.kind}", detected=False, corrected=False)
    problem = correction_problem(expected, actual, lang)
    if problem:
        return Verdict(False, "special_wrong_detail", problem, detected=True, corrected=False)
    return Verdict(True, detected=True, corrected=True)


def missed_counts(calls: Sequence[records.Call]) -> tuple[Counts, Counts]:
    """API and parameter counts when none of the expected calls was made."""
    return (0, 0, len(calls)), (0, 0, sum(_countable(call.args) for call in calls))


def _countable(args: Mapping[str, Any]) -> int:
    return sum(1 for value in args.values() if not is_omittable(value))


# ----------------------------------------------------------------------------- call lists


def score_calls(expected: Sequence[records.Call], actual: Sequence[Call], specs: Specs, lang: str | None = None) -> tuple[Verdict, float]:
    """Verdict and assignment weight of one alternative against the model's calls."""
    n_expected, n_actual = len(expected), len(actual)
    if n_expected == 1 and n_actual == 1:  # the common case, without assignment bookkeeping
        check = compare_call(expected[0], actual[0], specs, lang)
        if check.error is None:
            return Verdict(True, api=(1, 0, 0), params=(check.tp, check.fp, check.fn)), _weight(check)
        if check.error == "wrong_api":
            return Verdict(False, check.error, check.detail, (0, 1, 1), (0, check.fp, check.fn)), 0.0
        return Verdict(False, check.error, check.detail, (1, 0, 0), (check.tp, check.fp, check.fn)), _weight(check)
    api_counts = _api_counts(expected, actual)
    if n_expected == 0 or n_actual == 0:
        pairs, checks, weight = [], [], 0.0
    else:
        checks = [[compare_call(e, a, specs, lang) for a in actual] for e in expected]
        pairs = max_weight_assignment([[_weight(c) for c in row] for row in checks])
        weight = sum(_weight(checks[i][j]) for i, j in pairs)
    tp = fp = fn = 0
    paired_expected: set[int] = set()
    paired_actual: set[int] = set()
    worst: tuple[int, int, CallCheck] | None = None
    for i, j in pairs:
        check = checks[i][j]
        if check.error != "wrong_api":
            tp, fp, fn = tp + check.tp, fp + check.fp, fn + check.fn
            paired_expected.add(i)
            paired_actual.add(j)
        if check.error is not None:
            rank = (CALL_ERROR_RANK[check.error], i)
            if worst is None or rank < worst[:2]:
                worst = (*rank, check)
    fn += sum(_countable(expected[i].args) for i in range(n_expected) if i not in paired_expected)
    fp += sum(len(actual[j].args) for j in range(n_actual) if j not in paired_actual)
    params = (tp, fp, fn)
    weight -= RIGHT_CALL_WEIGHT * abs(n_expected - n_actual)  # a missing or extra call costs a whole right call
    if n_expected != n_actual:
        detail = f"made {n_actual} call(s), expected {n_expected}"
        if worst is None and n_actual > n_expected:
            extra = [actual[j].api for j in range(n_actual) if j not in {p[1] for p in pairs}]
            detail += f" (extra: {', '.join(extra)})" if extra else ""
        return Verdict(False, "wrong_call_count", detail, api_counts, params), weight
    if worst is not None:
        return Verdict(False, worst[2].error, worst[2].detail, api_counts, params), weight
    return Verdict(True, api=api_counts, params=params), weight


def _api_counts(expected: Sequence[records.Call], actual: Sequence[Call]) -> Counts:
    """Multiset overlap of API names (the basis of API-F1)."""
    if len(expected) == 1 and len(actual) == 1:
        return (1, 0, 0) if expected[0].api == actual[0].api else (0, 1, 1)
    wanted: dict[str, int] = {}
    for expected_call in expected:
        wanted[expected_call.api] = wanted.get(expected_call.api, 0) + 1
    tp = 0
    for call in actual:
        if wanted.get(call.api, 0) > 0:
            wanted[call.api] -= 1
            tp += 1
    return (tp, len(actual) - tp, len(expected) - tp)


RIGHT_CALL_WEIGHT = 3.0


def _weight(check: CallCheck) -> float:
    """Pairing preference: right calls (3) first, then same API with most arguments right (1–2)."""
    if check.error == "wrong_api":
        return 0.0
    judged = check.tp + check.fp + check.fn
    share = check.tp / judged if judged else 1.0
    return 1.0 + share + (1.0 if check.error is None else 0.0)


# ----------------------------------------------------------------------------- one call


def compare_call(expected: records.Call, actual: Call, specs: Specs, lang: str | None = None) -> CallCheck:
    api = expected.api
    wanted = expected.args
    if actual.api != api:
        return CallCheck("wrong_api", f"called {_short(actual.api)}, expected {api}", 0, len(actual.args), _countable(wanted))
    spec = specs.get(api)
    properties = spec.properties if spec is not None else None
    given = actual.args
    tp = fp = fn = 0
    errors: list[tuple[int, str, str]] = []
    for name, want in wanted.items():
        if name not in given:
            if not is_omittable(want):
                fn += 1
                errors.append((CALL_ERROR_RANK["missing_parameter"], "missing_parameter", f"{api}: argument {name!r} is missing"))
            continue
        got = given[name]
        schema = properties.get(name) if properties is not None else None
        if properties is not None and schema is None:  # the answer names it, the API does not have it
            fp += 1
            fn += 1
            errors.append((CALL_ERROR_RANK["unexpected_parameter"], "unexpected_parameter", f"{api} has no parameter {_short(name)}"))
            continue
        if matches(want, got, lang, schema):
            tp += 1
            continue
        fp += 1
        fn += 1
        if type_ok(schema, got, want):
            errors.append((CALL_ERROR_RANK["wrong_value"], "wrong_value", f"{api}: {name}={_short(got)}, expected {_short(want)}"))
        else:
            errors.append((CALL_ERROR_RANK["wrong_type"], "wrong_type", f"{api}: {name}={_short(got)} has the wrong type, expected {_short(want)}"))
    if len(given) > tp + fp:  # arguments the answer does not mention
        for name, got in given.items():
            if name in wanted:
                continue
            schema = properties.get(name) if properties is not None else None
            if isinstance(schema, dict) and "default" in schema:
                if literal_equal(schema["default"], got):
                    continue  # an unmentioned optional argument at its default
                fp += 1
                errors.append((CALL_ERROR_RANK["wrong_value"], "wrong_value", f"{api}: {name}={_short(got)} differs from its default {_short(schema['default'])}"))
            elif properties is not None and schema is None:
                fp += 1
                errors.append((CALL_ERROR_RANK["unexpected_parameter"], "unexpected_parameter", f"{api} has no parameter {_short(name)}"))
            else:
                fp += 1
                errors.append((CALL_ERROR_RANK["unexpected_parameter"], "unexpected_parameter", f"{api}: argument {_short(name)} is not expected"))
    if not errors:
        return CallCheck(None, "", tp, fp, fn)
    _, code, detail = min(errors, key=lambda e: e[0])
    return CallCheck(code, detail, tp, fp, fn)


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int, float),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def type_ok(schema: Any, got: Any, want: Any = None) -> bool:
    """Whether got has the JSON type its parameter schema asks for (recursively).

    Without a schema the expected value's own type decides; matchers that accept several
    types count as satisfied.
    """
    declared = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(declared, str) and declared in _JSON_TYPES:
        if isinstance(got, bool) and declared != "boolean":
            return False
        if not isinstance(got, _JSON_TYPES[declared]):
            return False
        if declared == "integer" and isinstance(got, float) and not got.is_integer():
            return False
        if declared == "array":
            assert isinstance(schema, dict) and isinstance(got, list)
            items = schema.get("items")
            return all(type_ok(items, item) for item in got) if isinstance(items, dict) else True
        if declared == "object":
            assert isinstance(schema, dict) and isinstance(got, dict)
            properties = schema.get("properties")
            if isinstance(properties, dict):
                return all(type_ok(properties[key], value) for key, value in got.items() if key in properties)
        return True
    return _same_json_type(want, got)


def _same_json_type(want: Any, got: Any) -> bool:
    if want is None:
        return got is None
    if is_matcher(want):
        kind = matcher_kind(want)
        body = want.get(kind) if kind else None
        if kind in ("$text", "$regex", "$contains"):
            return isinstance(got, str)
        if kind in ("$approx", "$range"):
            return isinstance(got, (int, float)) and not isinstance(got, bool)
        if kind == "$unordered":
            return isinstance(got, list)
        if kind == "$any" and isinstance(body, list):
            return any(_same_json_type(option, got) for option in body)
        if kind in ("$optional", "$literal"):
            return _same_json_type(body, got)
        return True
    if isinstance(want, bool) or isinstance(got, bool):
        return isinstance(want, bool) and isinstance(got, bool)
    if isinstance(want, (int, float)):
        return isinstance(got, (int, float))
    return type(want) is type(got)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
