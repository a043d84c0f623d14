"""pass^k and pass@k over repeated runs (``callbank run --repeats K``).

A unit run K times (trials 0 … K−1, the records' ``repeat``) succeeded in c of its n trials.
Over all subsets of k of its trials, the share in which *every* trial succeeded is

    pass^k = C(c, k) / C(n, k)          (τ-bench's consistency measure)

and the share in which *at least one* succeeded is

    pass@k = 1 − C(n − c, k) / C(n, k)  (the unbiased estimator of Chen et al., 2021).

pass^1 = pass@1 = c / n. A category's value is the mean over its units with n ≥ k. Each trial
is scored exactly like trial 0 (``validator.scoring.scorer``); a case's trial counts only when
every checkpoint of the case has a record of that trial.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from validator.scoring.agent import Replayer
from validator.scoring.match import Specs
from validator.scoring.predictions import Key, Prediction, Predictions
from validator.scoring.retrieval import Searcher
from validator.scoring.scorer import score_units
from validator.scoring.units import CaseUnit, ScenarioUnit, Units


class Trials(NamedTuple):
    """One unit's repeated outcomes, in trial order (None: the trial is incomplete)."""

    id: str
    lang: str
    category: str
    outcomes: tuple[bool | None, ...]

    @property
    def n(self) -> int:
        return sum(1 for outcome in self.outcomes if outcome is not None)

    @property
    def c(self) -> int:
        return sum(1 for outcome in self.outcomes if outcome)


def pass_hat(n: int, c: int, k: int) -> float:
    """pass^k of a unit with c successes in n trials: every one of k trials drawn succeeds."""
    if not 1 <= k <= n or not 0 <= c <= n:
        raise ValueError(f"pass^k needs 1 ≤ k ≤ n and 0 ≤ c ≤ n (n={n}, c={c}, k={k})")
    return math.comb(c, k) / math.comb(n, k)


def pass_at(n: int, c: int, k: int) -> float:
    """pass@k of a unit with c successes in n trials: at least one of k trials drawn succeeds."""
    if not 1 <= k <= n or not 0 <= c <= n:
        raise ValueError(f"pass@k needs 1 ≤ k ≤ n and 0 ≤ c ≤ n (n={n}, c={c}, k={k})")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def unit_trials(units: Units, predictions: Predictions, specs: Specs, replayer: Replayer | None, searcher: Searcher | None) -> list[Trials]:
    """Every repeated unit's outcome in each trial, scored like trial 0."""
    repeated = {(key[0], key[1]) for key in predictions.trials}
    cases = [unit for unit in units.cases if (unit.id, unit.lang) in repeated]
    scenarios = [unit for unit in units.scenarios if (unit.id, unit.lang) in repeated]
    if not cases and not scenarios:
        return []
    count = 1 + max(max(slot) for slot in predictions.trials.values())
    every: list[CaseUnit | ScenarioUnit] = [*cases, *scenarios]
    outcomes: dict[tuple[str, str], list[bool | None]] = {(u.id, u.lang): [None] * count for u in every}
    for trial in range(count):
        records = _trial_records(predictions, trial)
        chosen_cases = [u for u in cases if _complete(u, records)]
        chosen_scenarios = [u for u in scenarios if (u.id, u.lang, 0) in records]
        subset = Units(chosen_cases, chosen_scenarios, units.known_ids)
        scored = score_units(subset, Predictions(records, []), specs, replayer, searcher)
        for result in scored.results:
            outcomes[(result.id, result.lang)][trial] = result.correct
    category = {(u.id, u.lang): u.category for u in every}
    return [Trials(identifier, lang, category[(identifier, lang)], tuple(values)) for (identifier, lang), values in outcomes.items()]


def _trial_records(predictions: Predictions, trial: int) -> dict[Key, Prediction]:
    if trial == 0:
        return dict(predictions.records)
    return {key: slot[trial] for key, slot in predictions.trials.items() if trial in slot}


def _complete(unit: CaseUnit, records: Mapping[Key, Prediction]) -> bool:
    return all((unit.id, unit.lang, step) in records for step in range(len(unit.checkpoints)))


def summarise(trials: Sequence[Trials]) -> dict[str, Any]:
    """pass^k and pass@k for k = 1 … the most trials any unit has, over the given units."""
    counted = [t for t in trials if t.n > 0]
    most = max((t.n for t in counted), default=0)
    hat: dict[str, float | None] = {}
    at: dict[str, float | None] = {}
    units: dict[str, int] = {}
    for k in range(1, most + 1):
        eligible = [t for t in counted if t.n >= k]
        units[str(k)] = len(eligible)
        hat[str(k)] = round(sum(pass_hat(t.n, t.c, k) for t in eligible) / len(eligible), 6)
        at[str(k)] = round(sum(pass_at(t.n, t.c, k) for t in eligible) / len(eligible), 6)
    return {"units": len(counted), "pass_hat": hat, "pass_at": at, "units_with_k": units}


def repeat_report(units: Units, predictions: Predictions, specs: Specs, replayer: Replayer | None, searcher: Searcher | None) -> dict[str, Any]:
    """The report's ``repeats`` section: overall, per category prefix, and per unit."""
    trials = unit_trials(units, predictions, specs, replayer, searcher)
    prefixes = sorted({"/".join(t.category.split("/")[: i + 1]) for t in trials for i in range(t.category.count("/") + 1)})
    return {
        "trials": max((len(t.outcomes) for t in trials), default=0),
        "overall": summarise(trials),
        "categories": {prefix: summarise([t for t in trials if t.category == prefix or t.category.startswith(prefix + "/")]) for prefix in prefixes},
        "units": [{"id": t.id, "lang": t.lang, "category": t.category, "n": t.n, "c": t.c, "outcomes": list(t.outcomes)} for t in trials],
    }
