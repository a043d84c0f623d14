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
_new = tuple.__new__  # a NamedTuple from all its fields at once, on the paths every record takes
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
    if len(options) == 1:
        return score_calls(options[0].calls, parsed.calls, specs, lang)[0]
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
    return (0, 0, len(calls)), (0, 0, sum(call.judged for call in calls))


# ----------------------------------------------------------------------------- call lists


def score_calls(expected: Sequence[records.Call], actual: Sequence[Call], specs: Specs, lang: str | None = None) -> tuple[Verdict, float]:
    """Verdict and assignment weight of one alternative against the model's calls."""
    n_expected, n_actual = len(expected), len(actual)
    if n_expected == 1 and n_actual == 1:  # the common case, without assignment bookkeeping
        check = _compare(expected[0], actual[0], specs, lang)
        # Verdict's fields in order (correct, error, detail, api, params, detected, corrected),
        # through tuple.__new__: the NamedTuple constructor costs twice as much, once per record
        if check.error is None:
            return _new(Verdict, (True, None, "", (1, 0, 0), (check.tp, 0, 0), None, None)), RIGHT_CALL_WEIGHT
        if check.error == "wrong_api":
            return _new(Verdict, (False, "wrong_api", _detail(check.why), (0, 1, 1), (0, check.fp, check.fn), None, None)), 0.0
        verdict = _new(Verdict, (False, check.error, _detail(check.why), (1, 0, 0), (check.tp, check.fp, check.fn), None, None))
        return verdict, pair_weight(check)
    api_counts = _api_counts(expected, actual)
    pairs, checks, weight = pair_calls(expected, actual, specs, lang)
    # every argument of a call left unpaired (or paired with another API) is missed or extra:
    # start from all of them and take back those of the calls paired with their own API
    tp = 0
    fp = sum(len(call.args) for call in actual)
    fn = sum(call.judged for call in expected)
    worst: tuple[int, int, _Check] | None = None
    for i, j in pairs:
        check = checks[i, j]
        if check.error != "wrong_api":
            tp += check.tp
            fp += check.fp - len(actual[j].args)
            fn += check.fn - expected[i].judged
        if check.error is not None:
            rank = (CALL_ERROR_RANK[check.error], i)
            if worst is None or rank < worst[:2]:
                worst = (*rank, check)
    params = (tp, fp, fn)
    weight -= RIGHT_CALL_WEIGHT * abs(n_expected - n_actual)  # a missing or extra call costs a whole right call
    if n_expected != n_actual:
        detail = f"made {n_actual} call(s), expected {n_expected}"
        if worst is None and n_actual > n_expected:
            chosen = {j for _, j in pairs}
            extra = [actual[j].api for j in range(n_actual) if j not in chosen]
            detail += f" (extra: {', '.join(extra)})" if extra else ""
        return Verdict(False, "wrong_call_count", detail, api_counts, params), weight
    if worst is not None:
        return Verdict(False, worst[2].error, _detail(worst[2].why), api_counts, params), weight
    return Verdict(True, api=api_counts, params=params), weight


def pair_calls(
    expected: Sequence[records.Call], actual: Sequence[Call], specs: Specs, lang: str | None
) -> tuple[list[tuple[int, int]], dict[tuple[int, int], _Check], float]:
    """The optimal pairs (``max_weight_assignment``), the checks they need and their total weight."""
    if not expected or not actual:
        return [], {}, 0.0
    checks: dict[tuple[int, int], _Check] = {}
    if len(expected) == 1 or len(actual) == 1:
        # One side has a single call: it pairs with the first call of the other side that weighs
        # the most (the assignment's tie rule). A right call weighs RIGHT_CALL_WEIGHT, the most
        # any pair can, so the calls after the first right one need not be compared.
        best_weight, best = -1.0, (0, 0)
        for index in range(max(len(expected), len(actual))):
            key = (0, index) if len(expected) == 1 else (index, 0)
            check = checks[key] = _compare(expected[key[0]], actual[key[1]], specs, lang)
            weight = pair_weight(check)
            if weight > best_weight:
                best_weight, best = weight, key
            if check.error is None:
                break
        return [best], checks, best_weight
    right = _all_right_pairs(expected, actual, specs, lang, checks)
    if right is not None:
        return right, checks, RIGHT_CALL_WEIGHT * len(right)
    weights = []
    for i, expected_call in enumerate(expected):
        row = []
        for j, actual_call in enumerate(actual):
            known = checks.get((i, j))
            if known is None:
                known = checks[i, j] = _compare(expected_call, actual_call, specs, lang)
            row.append(pair_weight(known))
        weights.append(row)
    pairs = max_weight_assignment(weights)
    return pairs, checks, sum(weights[i][j] for i, j in pairs)


def _all_right_pairs(
    expected: Sequence[records.Call], actual: Sequence[Call], specs: Specs, lang: str | None, checks: dict[tuple[int, int], _Check]
) -> list[tuple[int, int]] | None:
    """Every call of the shorter side paired with a right call of the other, if first fit finds it.

    Each call of the shorter side (in order) takes the first call of the other side that is
    right for it and not yet taken. When every one finds a partner this pairing is optimal — each
    pair weighs RIGHT_CALL_WEIGHT, the most a pair can — and it is the optimal pairing that
    follows the answers' order (docs/scoring.md); otherwise None, and the checks made so far are
    reused by the full assignment.
    """
    rows_expected = len(expected) <= len(actual)
    shorter, longer = (expected, actual) if rows_expected else (actual, expected)
    taken: set[int] = set()
    pairs = []
    for index in range(len(shorter)):
        for other in range(len(longer)):
            if other in taken:
                continue
            key = (index, other) if rows_expected else (other, index)
            check = checks.get(key)
            if check is None:
                check = checks[key] = _compare(expected[key[0]], actual[key[1]], specs, lang)
            if check.error is None:
                taken.add(other)
                pairs.append(key)
                break
        else:
            return None
    return sorted(pairs)


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


def pair_weight(check: _Check | CallCheck) -> float:
    """Pairing preference: right calls (3, ``RIGHT_CALL_WEIGHT``) first, then same API with most arguments right (1–2)."""
    if check.error == "wrong_api":
        return 0.0
    judged = check.tp + check.fp + check.fn
    share = check.tp / judged if judged else 1.0
    return 1.0 + share + (1.0 if check.error is None else 0.0)


# ----------------------------------------------------------------------------- one call


def compare_call(expected: records.Call, actual: Call, specs: Specs, lang: str | None = None) -> CallCheck:
    """One expected call against one call of the model: the worst error (if any) and the counts."""
    check = _compare(expected, actual, specs, lang)
    return CallCheck(check.error, _detail(check.why), check.tp, check.fp, check.fn)


class _Check(NamedTuple):
    """``CallCheck`` before its detail is written: ``why`` holds what the message needs, so a
    pairing matrix writes only the messages of the calls it reports."""

    error: str | None
    why: tuple[Any, ...]
    tp: int
    fp: int
    fn: int


_RIGHT = (None,)
_SCALARS = frozenset({str, int, float, bool})
_MISSING = object()
_RANK_MISSING = CALL_ERROR_RANK["missing_parameter"]
_RANK_UNEXPECTED = CALL_ERROR_RANK["unexpected_parameter"]
_RANK_TYPE = CALL_ERROR_RANK["wrong_type"]
_RANK_VALUE = CALL_ERROR_RANK["wrong_value"]
_NO_ERROR_RANK = len(CALL_ERROR_RANK)


def _compare(expected: records.Call, actual: Call, specs: Specs, lang: str | None) -> _Check:
    api = expected.api
    wanted = expected.args
    given = actual.args
    if actual.api != api:
        return _new(_Check, ("wrong_api", ("wrong_api", actual.api, api), 0, len(given), expected.judged))
    spec = specs.get(api)
    properties = spec.properties if spec is not None else None
    tp = fp = fn = 0
    rank = _NO_ERROR_RANK  # the worst error so far: the first of the lowest rank, as listed
    why: tuple[Any, ...] = _RIGHT
    for name, want in wanted.items():
        got = given.get(name, _MISSING)
        if got is _MISSING:
            if not is_omittable(want):
                fn += 1
                if rank > _RANK_MISSING:
                    rank, why = _RANK_MISSING, ("missing_parameter", api, name)
            continue
        if properties is None:
            schema = None
        else:
            schema = properties.get(name)
            if schema is None:  # the answer names it, the API does not have it
                fp += 1
                fn += 1
                if rank > _RANK_UNEXPECTED:
                    rank, why = _RANK_UNEXPECTED, ("no_parameter", api, name)
                continue
        if (type(want) in _SCALARS and type(got) is type(want) and got == want) or matches(want, got, lang, schema):
            tp += 1  # (an identical string, number or boolean matches under every rule, without asking)
            continue
        fp += 1
        fn += 1
        if type_ok(schema, got, want):
            if rank > _RANK_VALUE:
                rank, why = _RANK_VALUE, ("wrong_value", api, name, got, want)
        elif rank > _RANK_TYPE:
            rank, why = _RANK_TYPE, ("wrong_type", api, name, got, want)
    if len(given) > tp + fp:  # arguments the answer does not mention
        for name, got in given.items():
            if name in wanted:
                continue
            schema = properties.get(name) if properties is not None else None
            if isinstance(schema, dict) and "default" in schema:
                if literal_equal(schema["default"], got):
                    continue  # an unmentioned optional argument at its default
                fp += 1
                if rank > _RANK_VALUE:
                    rank, why = _RANK_VALUE, ("not_default", api, name, got, schema["default"])
            else:
                fp += 1
                if rank > _RANK_UNEXPECTED:
                    rank, why = _RANK_UNEXPECTED, ("no_parameter" if properties is not None and schema is None else "not_expected", api, name)
    return _new(_Check, (why[0] and _ERROR_OF[why[0]], why, tp, fp, fn))  # (as Verdict in score_calls)


_ERROR_OF = {
    "wrong_api": "wrong_api",
    "missing_parameter": "missing_parameter",
    "no_parameter": "unexpected_parameter",
    "not_expected": "unexpected_parameter",
    "wrong_type": "wrong_type",
    "wrong_value": "wrong_value",
    "not_default": "wrong_value",
}


def _detail(why: tuple[Any, ...]) -> str:
    """The report's message for a call's worst error (``""`` when the call is right)."""
    kind = why[0]
    if kind is None:
        return ""
    if kind == "wrong_api":
        return f"called {_short(why[1])}, expected {why[2]}"
    if kind == "missing_parameter":
        return f"{why[1]}: argument {why[2]!r} is missing"
    if kind == "no_parameter":
        return f"{why[1]} has no parameter {_short(why[2])}"
    if kind == "not_expected":
        return f"{why[1]}: argument {_short(why[2])} is not expected"
    if kind == "wrong_value":
        return f"{why[1]}: {why[2]}={_short(why[3])}, expected {_short(why[4])}"
    if kind == "wrong_type":
        return f"{why[1]}: {why[2]}={_short(why[3])} has the wrong type, expected {_short(why[4])}"
    return f"{why[1]}: {why[2]}={_short(why[3])} differs from its default {_short(why[4])}"  # not_default


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
