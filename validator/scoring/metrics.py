"""Aggregating unit results into the report: accuracies, F1, special and agent metrics, CIs.

The report is plain JSON data (``version`` 1); ``validator.scoring.report`` only renders it.
Definitions are in ``docs/scoring.md``; in short:

* a unit is one case (or scenario) in one language; it is right when every checkpoint is;
* accuracy per category prefix (``normal``, ``normal/atom``, ``normal/atom/bool`` …), overall
  and per language;
* overall = Σ w_k·acc_k over the families normal (with retrieval), special and agent, with
  w_k = √n_k / Σ_j √n_j, n counted in units;
* multi-turn accuracy per dialogue and per checkpoint; special detection and correction over
  special checkpoints; agent end-to-end and process accuracy; API-F1 and parameter-F1
  (micro-averaged over checkpoints whose answer is calls);
* 95% bootstrap intervals (``validator.scoring.bootstrap``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from validator.corpus.categories import FAMILIES, family
from validator.corpus.langs import LANGS
from validator.scoring.bootstrap import accuracy_interval, mean_interval, weighted_interval
from validator.scoring.match import missed_counts
from validator.scoring.scorer import Scored, UnitResult
from validator.scoring.taxonomy import CODES
from validator.scoring.units import Units

REPORT_VERSION = 1


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _ci(interval: tuple[float, float] | None) -> list[float] | None:
    return None if interval is None else [round(interval[0], 6), round(interval[1], 6)]


def rate(correct: int, n: int) -> dict[str, Any]:
    return {"n": n, "correct": correct, "accuracy": _r(correct / n) if n else None, "ci": _ci(accuracy_interval(correct, n))}


def prefixes(category: str) -> list[str]:
    parts = category.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def build_report(scored: Scored, units: Units) -> dict[str, Any]:
    results = scored.results
    report: dict[str, Any] = {"version": REPORT_VERSION}
    report["overall"] = overall(results)
    report["languages"] = {lang: overall([r for r in results if r.lang == lang]) for lang in LANGS if any(r.lang == lang for r in results)}
    report["categories"] = categories(results)
    report["multi_turn"] = multi_turn(results)
    report["special"] = special(results, units)
    report["agent"] = agent(results)
    report["f1"] = f1(results, units)
    errors = Counter(r.error for r in results if r.error)
    report["errors"] = {code: errors.get(code, 0) for code in CODES}
    report["missing_units"] = sum(1 for r in results if r.missing)
    report["results"] = [
        {
            "id": r.id,
            "lang": r.lang,
            "category": r.category,
            "correct": r.correct,
            "error": r.error,
            "detail": r.detail,
            "step": r.step,
            "missing": r.missing,
            **({"process": _r(r.agent.process)} if r.agent is not None else {}),
        }
        for r in results
    ]
    report["missing"] = [{"id": i, "lang": lang, "step": step} for i, lang, step in scored.missing]
    report["problems"] = list(scored.problems)
    report["ignored"] = scored.ignored
    report["notes"] = list(scored.notes)
    return report


def overall(results: Sequence[UnitResult]) -> dict[str, Any]:
    counts = {name: [0, 0] for name in FAMILIES}
    for result in results:
        slot = counts[family(result.category)]
        slot[0] += result.correct
        slot[1] += 1
    weights = family_weights({name: n for name, (_, n) in counts.items()})
    families: dict[str, Any] = {}
    score = 0.0
    for name, weight in weights.items():
        correct, n = counts[name]
        score += weight * correct / n
        families[name] = {**rate(correct, n), "weight": _r(weight)}
    interval = weighted_interval([(counts[name][0], counts[name][1], weight) for name, weight in weights.items()])
    return {"score": _r(score) if weights else None, "ci": _ci(interval), "n": len(results), "families": families}


def categories(results: Sequence[UnitResult]) -> dict[str, Any]:
    tally: dict[str, dict[str, list[int]]] = {}
    for result in results:
        for prefix in prefixes(result.category):
            slot = tally.setdefault(prefix, {})
            for key in ("all", result.lang):
                pair = slot.setdefault(key, [0, 0])
                pair[0] += result.correct
                pair[1] += 1
    out: dict[str, Any] = {}
    for prefix in sorted(tally):
        slot = tally[prefix]
        entry = rate(*slot["all"])
        for lang in LANGS:
            if lang in slot:
                entry[lang] = rate(*slot[lang])
        out[prefix] = entry
    return out


def multi_turn(results: Sequence[UnitResult]) -> dict[str, Any] | None:
    dialogues = [r for r in results if r.category.startswith("normal/multi_turn")]
    if not dialogues:
        return None
    checkpoints = [v for r in dialogues for v in r.checkpoints]
    right = sum(1 for v in checkpoints if v is not None and v.correct)
    return {"dialogues": rate(sum(r.correct for r in dialogues), len(dialogues)), "checkpoints": rate(right, len(checkpoints))}


def special(results: Sequence[UnitResult], units: Units) -> dict[str, Any] | None:
    answers = {(u.id, u.lang): u.checkpoints for u in units.cases}
    per_kind: dict[str, list[int]] = {}  # kind -> [detected, corrected, n]
    for result in results:
        for checkpoint, verdict in zip(answers.get((result.id, result.lang), ()), result.checkpoints, strict=True):
            if checkpoint.special is None:
                continue
            slot = per_kind.setdefault(checkpoint.special.kind, [0, 0, 0])
            slot[0] += bool(verdict is not None and verdict.detected)
            slot[1] += bool(verdict is not None and verdict.corrected)
            slot[2] += 1
    if not per_kind:
        return None

    def entry(detected: int, corrected: int, n: int) -> dict[str, Any]:
        return {"n": n, "detection": rate(detected, n), "correction": rate(corrected, n)}

    totals = [sum(slot[i] for slot in per_kind.values()) for i in range(3)]
    return {**entry(*totals), "kinds": {kind: entry(*per_kind[kind]) for kind in sorted(per_kind)}}


def agent(results: Sequence[UnitResult]) -> dict[str, Any] | None:
    runs = [r for r in results if r.agent is not None]
    if not runs:
        return None
    modes: dict[str, Any] = {}
    for category in sorted({r.category for r in runs}):
        chosen = [r for r in runs if r.category == category]
        modes[category] = {"end_to_end": rate(sum(r.correct for r in chosen), len(chosen)), "process": _mean(_process(chosen))}
    return {"end_to_end": rate(sum(r.correct for r in runs), len(runs)), "process": _mean(_process(runs)), "modes": modes}


def _process(runs: Sequence[UnitResult]) -> list[float]:
    # A scenario whose right course is to change nothing has no milestones: its process score
    # would be 1.0 for any agent, the one that does nothing included, so it is not averaged.
    return [r.agent.process for r in runs if r.agent is not None and r.agent.total]


def _mean(values: Sequence[float]) -> dict[str, Any]:
    return {"n": len(values), "accuracy": _r(sum(values) / len(values)) if values else None, "ci": _ci(mean_interval(values))}


def f1(results: Sequence[UnitResult], units: Units) -> dict[str, Any]:
    answers = {(u.id, u.lang): u.checkpoints for u in units.cases}
    api = [0, 0, 0]
    params = [0, 0, 0]
    for result in results:
        for checkpoint, verdict in zip(answers.get((result.id, result.lang), ()), result.checkpoints, strict=True):
            if checkpoint.special is not None:
                continue
            api_counts, param_counts = missed_counts(checkpoint.first) if verdict is None else (verdict.api, verdict.params)
            _add(api, api_counts)
            _add(params, param_counts)
    return {"api": _f1(*api), "parameter": _f1(*params)}


def _add(total: list[int], counts: Iterable[int]) -> None:
    for i, value in enumerate(counts):
        total[i] += value


def _f1(tp: int, fp: int, fn: int) -> dict[str, Any]:
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    score = 2 * precision * recall / (precision + recall) if precision and recall else (0.0 if tp + fp + fn else None)
    return {"precision": _r(precision), "recall": _r(recall), "f1": _r(score), "tp": tp, "fp": fp, "fn": fn}


def family_weights(counts: Mapping[str, int]) -> dict[str, float]:
    """w_k = √n_k / Σ_j √n_j over the families with units."""
    roots = {name: math.sqrt(n) for name, n in counts.items() if n > 0}
    total = sum(roots.values())
    return {name: root / total for name, root in roots.items()}
