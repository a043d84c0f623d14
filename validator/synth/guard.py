"""The contamination guard of `callbank export`: no training item may repeat the benchmark.

An item comes from a case (a synthesised one, or one a model was run on). It overlaps the
benchmark when, in either language, the user's words share enough character n-grams with a
benchmark case's (Jaccard of 5-grams in English, 3-grams in Chinese, after normalisation, at the
threshold; ``validator.similarity``), or when it has a benchmark case's API sequence and a
sentence frame close to that case's with the values masked — a copied case with other names or
numbers. The index is built once over the benchmark's own cases, in both languages.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from validator.corpus.records import Case
from validator.similarity import TEXT_THRESHOLD, CorpusSimilarity, request_text


@dataclass(frozen=True)
class Overlap:
    benchmark_case: str
    lang: str
    kind: str  # "request" | "skeleton"
    similarity: float

    def describe(self) -> str:
        what = "request" if self.kind == "request" else "API sequence and sentence frame"
        return f"{self.lang} {what} {self.similarity:.2f} like {self.benchmark_case}"


class Guard:
    def __init__(self, benchmark: Iterable[Case], threshold: float = TEXT_THRESHOLD) -> None:
        self.index = CorpusSimilarity(list(benchmark), threshold)
        self._memo: dict[tuple[str, str], list[Overlap]] = {}

    def overlaps(self, case: Case) -> list[Overlap]:
        """Every benchmark case the item's case is too close to, the closest first."""
        key = (case.id, case.path)
        if key not in self._memo:
            found: dict[tuple[str, str, str], Overlap] = {}
            for lang, dialogue in case.dialogues.items():
                for match in self.index.close_texts(lang, request_text(dialogue)):
                    found.setdefault((str(match.key), lang, "request"), Overlap(str(match.key), lang, "request", match.similarity))
            for neighbour in self.index.neighbours(case):
                found.setdefault((neighbour.case_id, neighbour.lang, neighbour.kind), Overlap(neighbour.case_id, neighbour.lang, neighbour.kind, neighbour.similarity))
            self._memo[key] = sorted(found.values(), key=lambda o: (-o.similarity, o.benchmark_case, o.lang, o.kind))
        return self._memo[key]
