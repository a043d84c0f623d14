"""What is scored: one unit per case and language (with its checkpoints), per scenario and language.

A case's checkpoints are its ``expect`` turns, numbered from 0 in dialogue order (the
prediction's ``step``). A scenario's category is ``agent/<mode>``. Categories group into the
three families of the overall score: ``normal`` (with ``retrieval/*``), ``special``, ``agent``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from validator.scoring.match import ApiSchemas

LANGS = ("en", "zh")
FAMILIES = ("normal", "special", "agent")


class CaseUnit(NamedTuple):
    id: str
    lang: str
    category: str
    checkpoints: tuple[Mapping[str, Any], ...]  # the answers, in dialogue order


class ScenarioUnit(NamedTuple):
    id: str
    lang: str
    category: str  # agent/multi_turn | agent/multi_step
    scenario: Mapping[str, Any]


class Units(NamedTuple):
    cases: list[CaseUnit]
    scenarios: list[ScenarioUnit]
    schemas: ApiSchemas
    known_ids: frozenset[str]  # every case and scenario id, selected or not


def family(category: str) -> str:
    """The overall-score family of a category: retrieval counts with normal."""
    top = category.split("/", 1)[0]
    return "normal" if top == "retrieval" else top


def selected(category: str, prefixes: Sequence[str]) -> bool:
    """Whether category is one of, or under one of, the given category prefixes (all when none)."""
    if not prefixes:
        return True
    return any(category == p or category.startswith(p.rstrip("/") + "/") for p in prefixes)


def checkpoint_answers(side: Any) -> tuple[Mapping[str, Any], ...]:
    turns = side.get("turns") if isinstance(side, dict) else None
    if not isinstance(turns, list):
        return ()
    return tuple(
        turn["expect"] for turn in turns if isinstance(turn, dict) and len(turn) == 1 and isinstance(turn.get("expect"), dict)
    )


def scenario_category(scenario: Mapping[str, Any]) -> str:
    return f"agent/{scenario.get('mode', 'multi_step')}"


def collect_units(
    cases: Mapping[str, Mapping[str, Any]],
    scenarios: Mapping[str, Mapping[str, Any]],
    specs: Mapping[str, Any],
    *,
    langs: Iterable[str] = LANGS,
    categories: Sequence[str] = (),
) -> Units:
    langs = [lang for lang in LANGS if lang in set(langs)]
    case_units: list[CaseUnit] = []
    for case_id in sorted(cases):
        case = cases[case_id]
        category = str(case.get("category", ""))
        if not selected(category, categories):
            continue
        for lang in langs:
            answers = checkpoint_answers(case.get(lang))
            if answers:
                case_units.append(CaseUnit(case_id, lang, category, answers))
    scenario_units: list[ScenarioUnit] = []
    for scenario_id in sorted(scenarios):
        scenario = scenarios[scenario_id]
        category = scenario_category(scenario)
        if not selected(category, categories):
            continue
        for lang in langs:
            scenario_units.append(ScenarioUnit(scenario_id, lang, category, scenario))
    return Units(case_units, scenario_units, ApiSchemas.from_specs(specs), frozenset(cases) | frozenset(scenarios))
