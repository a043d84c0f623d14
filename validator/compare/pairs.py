"""Pairing two scored runs unit by unit, and the comparison report (plain JSON data).

Only units both runs answered are compared: a unit with a missing prediction in either run
(a checkpoint absent, a shard not given) is left out and counted, so a partial run cannot
look better or worse for what it skipped. Per category prefix (``normal``, ``normal/atom`` …)
and overall: both accuracies, the difference B − A with its paired bootstrap interval, the
exact McNemar p-value, and whether p < alpha. Overall is the √n-weighted score of
``callbank score`` over the paired units (McNemar over all of them, unweighted). Every unit that
flipped is listed, in both directions. Testing many categories at alpha = 0.05 finds about one
in twenty "significant" by chance; the per-category p-values are not corrected for that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from validator.compare.stats import Paired, bootstrap_interval, mcnemar_exact
from validator.corpus.categories import family
from validator.scoring.metrics import family_weights, prefixes
from validator.scoring.scorer import UnitResult

COMPARE_VERSION = 1
DEFAULT_ALPHA = 0.05

Outcome = tuple[bool, bool]  # (A right, B right)


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _tally(pairs: Sequence[Outcome]) -> Paired:
    return Paired(
        n=len(pairs),
        a_right=sum(a for a, _ in pairs),
        b_right=sum(b for _, b in pairs),
        a_only=sum(1 for a, b in pairs if a and not b),
        b_only=sum(1 for a, b in pairs if b and not a),
    )


def _entry(group: Paired, interval: tuple[float, float] | None, alpha: float, a: float, b: float) -> dict[str, Any]:
    p = mcnemar_exact(group.a_only, group.b_only)
    return {
        "n": group.n,
        "a": _r(a),
        "b": _r(b),
        "difference": _r(b - a),
        "ci": None if interval is None else [_r(interval[0]), _r(interval[1])],
        "p": float(f"{p:.4g}"),  # significant digits: a p of 1e-12 rounded to six places would read 0
        "significant": p < alpha,
        "a_right_b_wrong": group.a_only,
        "a_wrong_b_right": group.b_only,
    }


def compare_results(
    a: Sequence[UnitResult], b: Sequence[UnitResult], *, labels: tuple[Mapping[str, Any], Mapping[str, Any]], alpha: float = DEFAULT_ALPHA, notes: Sequence[str] = ()
) -> dict[str, Any]:
    """The comparison report of run B against run A."""
    by_key_a = {(r.id, r.lang): r for r in a if not r.missing}
    by_key_b = {(r.id, r.lang): r for r in b if not r.missing}
    keys = [key for key in by_key_a if key in by_key_b]
    pairs = {key: (by_key_a[key].correct, by_key_b[key].correct) for key in keys}
    category = {key: by_key_a[key].category for key in keys}
    report: dict[str, Any] = {
        "version": COMPARE_VERSION,
        "a": dict(labels[0]),
        "b": dict(labels[1]),
        "alpha": alpha,
        "paired": len(keys),
        "unpaired": {"a": len(a) - len(keys), "b": len(b) - len(keys)},
    }
    report["overall"] = _overall(pairs, category, alpha)
    groups: dict[str, list[Outcome]] = {}
    for key, outcome in pairs.items():
        for prefix in prefixes(category[key]):
            groups.setdefault(prefix, []).append(outcome)
    report["categories"] = {}
    for prefix in sorted(groups):
        group = _tally(groups[prefix])
        report["categories"][prefix] = _entry(group, bootstrap_interval([(group, 1.0)]), alpha, group.a_right / group.n, group.b_right / group.n)

    def flipped(want_a: bool) -> list[dict[str, Any]]:
        rows = []
        for key, (right_a, right_b) in pairs.items():
            if right_a == want_a and right_b != want_a:
                wrong = by_key_b[key] if want_a else by_key_a[key]
                rows.append({"id": key[0], "lang": key[1], "category": category[key], "error": wrong.error, "detail": wrong.detail})
        return sorted(rows, key=lambda row: (row["category"], row["id"], row["lang"]))

    report["flipped"] = {"a_right_b_wrong": flipped(True), "a_wrong_b_right": flipped(False)}
    report["notes"] = list(notes)
    return report


def _overall(pairs: Mapping[tuple[str, str], Outcome], category: Mapping[tuple[str, str], str], alpha: float) -> dict[str, Any]:
    if not pairs:
        return {"n": 0, "a": None, "b": None, "difference": None, "ci": None, "p": 1.0, "significant": False, "a_right_b_wrong": 0, "a_wrong_b_right": 0, "families": {}}
    by_family: dict[str, list[Outcome]] = {}
    for key, outcome in pairs.items():
        by_family.setdefault(family(category[key]), []).append(outcome)
    tallies = {name: _tally(outcomes) for name, outcomes in by_family.items()}
    weights = family_weights({name: group.n for name, group in tallies.items()})
    score_a = sum(weights[name] * group.a_right / group.n for name, group in tallies.items())
    score_b = sum(weights[name] * group.b_right / group.n for name, group in tallies.items())
    interval = bootstrap_interval([(tallies[name], weight) for name, weight in weights.items()])
    entry = _entry(_tally(list(pairs.values())), interval, alpha, score_a, score_b)
    entry["families"] = {
        name: {"n": group.n, "weight": _r(weights[name]), "a": _r(group.a_right / group.n), "b": _r(group.b_right / group.n)}
        for name, group in sorted(tallies.items())
    }
    return entry
