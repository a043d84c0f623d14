"""What is scored: one unit per case and language (with its checkpoints), per scenario and language.

A case's checkpoints are its ``expect`` turns, numbered from 0 in dialogue order (the
prediction's ``step``). A scenario has one record per language, also at step 0. The units are
read from the corpus's records; categories and families are ``validator.corpus.categories``'.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.corpus.records import Case, Checkpoint, Scenario
from validator.corpus.selection import Selection


class CaseUnit(NamedTuple):
    case: Case
    lang: str

    @property
    def id(self) -> str:
        return self.case.id

    @property
    def category(self) -> str:
        return self.case.category

    @property
    def checkpoints(self) -> tuple[Checkpoint, ...]:
        return self.case.dialogues[self.lang].checkpoints


class ScenarioUnit(NamedTuple):
    scenario: Scenario
    lang: str

    @property
    def id(self) -> str:
        return self.scenario.id

    @property
    def category(self) -> str:
        return self.scenario.category  # agent/multi_turn | agent/multi_step


class Units(NamedTuple):
    cases: list[CaseUnit]
    scenarios: list[ScenarioUnit]
    known_ids: frozenset[str]  # every case and scenario id, selected or not


def collect_units(
    corpus: Corpus,
    *,
    langs: Iterable[str] = LANGS,
    categories: Sequence[str] = (),
    limit: int | None = None,
    selections: Sequence[Selection] | None = None,
) -> Units:
    """The selected units, by id then language: of the languages (those the repository has),
    categories and limit given (``validator.corpus.selection``), or of any of several selections
    (a run's sessions)."""
    chosen = list(selections) if selections is not None else [Selection.of(langs, categories, limit)]
    wanted: set[tuple[str, str]] = set()
    for selection in chosen:
        wanted |= selection.keys(corpus)
    cases = [CaseUnit(case, lang) for case in corpus.cases_in() for lang in corpus.langs if (case.id, lang) in wanted]
    scenarios = [ScenarioUnit(scenario, lang) for scenario in corpus.scenarios_in() for lang in corpus.langs if (scenario.id, lang) in wanted]
    return Units(cases, scenarios, frozenset(corpus.cases) | frozenset(corpus.scenarios))
