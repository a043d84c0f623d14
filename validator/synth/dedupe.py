"""Stage 6, *deduplicate*: a candidate too close to an existing case or to a candidate accepted
earlier in the run is rejected.

Closeness is ``validator.similarity``'s (the index DLG041 uses): the user's words, normalised,
in each language, as sets of character shingles, found through MinHash LSH and confirmed by the
exact Jaccard similarity at the config's ``dedupe_threshold``; and, among cases with the same API
sequence, the sentence skeleton with the answer's values masked. The index is built once over
the corpus; every accepted candidate joins it.
"""

from __future__ import annotations

from collections.abc import Iterable

from validator.corpus.records import Case
from validator.similarity import CorpusSimilarity
from validator.synth.outcome import Rejected

STAGE = "dedupe"
# skeleton blocks (cases with one API sequence) larger than this are searched through LSH: synthesised
# cases pile up in a few blocks, and an exact comparison with each of their members is linear
BLOCK_LSH_MIN = 32


class Deduper:
    def __init__(self, cases: Iterable[Case], threshold: float) -> None:
        existing = list(cases)
        self.existing = frozenset(case.id for case in existing)
        self.index = CorpusSimilarity(existing, threshold, block_lsh_min=BLOCK_LSH_MIN)
        self.index.index_blocks()

    def require_new(self, case: Case) -> None:
        """Rejected when the case is a near-duplicate (the closest neighbour named)."""
        found = self.index.neighbours(case)
        if found:
            best = max(found, key=lambda n: n.similarity)
            whose = "the existing case" if best.case_id in self.existing else "the candidate"
            what = "request" if best.kind == "request" else "sentence frame with the same API sequence"
            raise Rejected(STAGE, "near_duplicate", f"its {best.lang} {what} is {best.similarity:.2f} similar to {whose} {best.case_id}", {"neighbour": best.case_id})

    def accept(self, case: Case) -> None:
        self.index.add(case)
