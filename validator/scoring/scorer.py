"""Scoring predictions against the selected units: one result per case or scenario and language.

``score_units`` pairs every checkpoint with its prediction record (by id, language and step),
parses and compares it, and reports what the file got wrong: records for unknown ids or
steps, and units without any prediction (counted wrong and listed). Retrieval checkpoints are
judged by ``validator.scoring.retrieval``, which re-runs the model's searches (``searcher``).
"""

from __future__ import annotations

from typing import NamedTuple

from validator.scoring.agent import AgentVerdict, ReferenceCache, Replayer, score_scenario
from validator.scoring.match import Specs, Verdict, score_checkpoint
from validator.scoring.parse import parse_prediction
from validator.scoring.predictions import Key, Prediction, Predictions
from validator.scoring.retrieval import Searcher, score_retrieval
from validator.scoring.units import CaseUnit, ScenarioUnit, Units
from validator.toolsearch import is_retrieval


class UnitResult(NamedTuple):
    id: str
    lang: str
    category: str
    correct: bool
    error: str | None  # taxonomy code of the first wrong checkpoint; None if right or missing
    detail: str
    step: int | None  # the first wrong (or missing) checkpoint of a case
    missing: bool  # some prediction is absent
    checkpoints: tuple[Verdict | None, ...] = ()  # per step (None: no prediction); cases only
    agent: AgentVerdict | None = None  # scenarios only


class Scored(NamedTuple):
    results: list[UnitResult]
    missing: list[Key]  # (id, lang, step) without a prediction
    problems: list[str]  # about the predictions file, by line
    ignored: int  # records of cases outside the selection (other language or category)
    notes: list[str]  # what could not be scored and why


def score_units(units: Units, predictions: Predictions, specs: Specs, replayer: Replayer | None = None, searcher: Searcher | None = None) -> Scored:
    records = predictions.records
    used: set[Key] = set()
    results: list[UnitResult] = []
    missing: list[Key] = []
    notes: list[str] = []
    unsearchable = 0
    for unit in units.cases:
        if searcher is None and is_retrieval(unit.category):
            unsearchable += 1
            used.update((unit.id, unit.lang, step) for step in range(len(unit.checkpoints)))
            continue
        result = _score_case(unit, specs, records, used, missing, searcher)
        results.append(result)
    if unsearchable:
        notes.append(
            f"{unsearchable} retrieval case runs not scored: the catalog search (the sandbox implementing "
            "search_tools) is not available to re-run the model's queries"
        )
    if units.scenarios:
        if replayer is None:
            notes.append(
                f"{len(units.scenarios)} agent scenario runs not scored: the sandbox runtime "
                "(validator.sandbox.replay) is not available"
            )
            used.update((unit.id, unit.lang, 0) for unit in units.scenarios)
        else:
            cache = ReferenceCache(replayer)
            for scenario_unit in units.scenarios:
                results.append(_score_scenario(scenario_unit, records, used, missing, replayer, cache))
    problems = list(predictions.problems)
    ignored = 0
    selected = {(unit.id, unit.lang): len(unit.checkpoints) for unit in units.cases}
    selected.update({(unit.id, unit.lang): 1 for unit in units.scenarios})
    for key, prediction in records.items():
        if key in used:
            continue
        identifier, lang, step = key
        if (identifier, lang) in selected:
            count = selected[(identifier, lang)]
            problems.append(
                f"{prediction.where}: {identifier} ({lang}) has {count} checkpoint(s), steps 0–{count - 1}; step {step} does not exist"
            )
        elif identifier in units.known_ids:
            ignored += 1
        else:
            problems.append(f"{prediction.where}: no case or scenario has the id {identifier[:80]!r}")
    problems.sort(key=_line_of)
    return Scored(results, missing, problems, ignored, notes)


def _line_of(message: str) -> tuple[str, int]:
    """(file, line) of a "[file ]line N: …" message, for sorting."""
    head = message.split(": ", 1)[0]
    file, _, line = head.rpartition("line ")
    return (file, int(line)) if line.isdigit() else (head, 0)


def _score_case(unit: CaseUnit, specs: Specs, records: dict[Key, Prediction], used: set[Key], missing: list[Key], searcher: Searcher | None) -> UnitResult:
    verdicts: list[Verdict | None] = []
    first_wrong: tuple[int, Verdict | None] | None = None
    for step, checkpoint in enumerate(unit.checkpoints):
        key = (unit.id, unit.lang, step)
        prediction = records.get(key)
        if prediction is None:
            verdicts.append(None)
            missing.append(key)
            if first_wrong is None:
                first_wrong = (step, None)
            continue
        used.add(key)
        if searcher is not None and is_retrieval(unit.category):
            verdict = score_retrieval(checkpoint, prediction.record, specs, unit.lang, searcher)
        else:
            verdict = score_checkpoint(checkpoint, parse_prediction(prediction.record), specs, unit.lang)
        verdicts.append(verdict)
        if not verdict.correct and first_wrong is None:
            first_wrong = (step, verdict)
    is_missing = any(v is None for v in verdicts)
    if first_wrong is None:
        return UnitResult(unit.id, unit.lang, unit.category, True, None, "", None, False, tuple(verdicts))
    step, wrong = first_wrong
    if wrong is None:
        return UnitResult(unit.id, unit.lang, unit.category, False, None, "no prediction", step, True, tuple(verdicts))
    return UnitResult(unit.id, unit.lang, unit.category, False, wrong.error, wrong.detail, step, is_missing, tuple(verdicts))


def _score_scenario(
    unit: ScenarioUnit, records: dict[Key, Prediction], used: set[Key], missing: list[Key], replayer: Replayer, cache: ReferenceCache
) -> UnitResult:
    key = (unit.id, unit.lang, 0)
    prediction = records.get(key)
    total = len(unit.scenario.milestones)
    if prediction is None:
        missing.append(key)
        return UnitResult(unit.id, unit.lang, unit.category, False, None, "no prediction", None, True, agent=AgentVerdict(False, None, "", 0, total))
    used.add(key)
    verdict = score_scenario(unit.scenario.data, prediction.record, unit.lang, replayer, cache)
    return UnitResult(unit.id, unit.lang, unit.category, verdict.correct, verdict.error, verdict.detail, None, False, agent=verdict)
