"""Which part of the benchmark a run asks and a score counts: ``--lang``, ``--category`` and
``--limit``, one meaning for ``callbank run`` and ``callbank score``.

``limit`` keeps the first N cases (by id) of each category and the first N scenarios of each agent
category, in every selected language — a small stratified slice. A run's manifest records the
selection of each of its sessions, so ``score`` can count exactly the units the run covered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.corpus.records import Case, Scenario


class Selection(NamedTuple):
    langs: tuple[str, ...] = LANGS
    categories: tuple[str, ...] = ()  # category prefixes; none: every category
    limit: int | None = None  # at most this many items per category

    @classmethod
    def of(cls, langs: Iterable[str] = LANGS, categories: Iterable[str] = (), limit: int | None = None) -> Selection:
        wanted = set(langs)
        return cls(tuple(lang for lang in LANGS if lang in wanted), tuple(categories), limit)

    @classmethod
    def from_session(cls, session: Mapping[str, Any]) -> Selection | None:
        """The selection a manifest's session records (``langs``, ``categories``, ``limit``), or None
        when it does not say."""
        langs, categories, limit = session.get("langs"), session.get("categories"), session.get("limit")
        if not isinstance(langs, list) or not all(isinstance(lang, str) for lang in langs):
            return None
        if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
            return None
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
            return None
        return cls.of(langs, categories, limit)

    @property
    def everything(self) -> bool:
        return set(self.langs) == set(LANGS) and not self.categories and self.limit is None

    def items(self, corpus: Corpus) -> tuple[list[Case], list[Scenario]]:
        """The selected cases and scenarios (any language), by id."""
        taken: dict[str, int] = {}

        def admit(category: str) -> bool:
            if self.limit is not None and taken.get(category, 0) >= self.limit:
                return False
            taken[category] = taken.get(category, 0) + 1
            return True

        cases = [case for case in corpus.cases_in(self.categories) if admit(case.category)]
        scenarios = [scenario for scenario in corpus.scenarios_in(self.categories) if admit(scenario.category)]
        return cases, scenarios

    def keys(self, corpus: Corpus) -> set[tuple[str, str]]:
        """(id, language) of every selected unit."""
        cases, scenarios = self.items(corpus)
        ids = [case.id for case in cases] + [scenario.id for scenario in scenarios]
        return {(identifier, lang) for identifier in ids for lang in self.langs}

    def options(self) -> str:
        """The selection as the command-line options that make it."""
        words = [] if set(self.langs) == set(LANGS) else [f"--lang {lang}" for lang in self.langs]
        words += [f"--category {category}" for category in self.categories]
        if self.limit is not None:
            words.append(f"--limit {self.limit}")
        return " ".join(words) or "everything"
