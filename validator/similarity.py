"""Near-duplicate requests: one index, built once over the corpus, queried per candidate.

Two questions share this module: is a case's request, in either language, too close to another
case's (DLG041), and does a case repeat another's API sequence and sentence skeleton with other
values (DLG041 too)? The synthesis pipeline asks the first about every generated case before it
is written, and the export guard about every training example before it leaves.

How closeness is measured
    A text is normalised (``validator.textnorm.normalize_text``: NFKC, case folding, prose
    punctuation dropped, numbers kept) and cut into overlapping character shingles — 5
    characters in English (spaces kept, so words stay apart), 3 in Chinese (spaces removed).
    Two texts are near-duplicates when the Jaccard similarity of their shingle sets reaches a
    threshold: ``TEXT_THRESHOLD`` (0.5) for requests; ``SKELETON_THRESHOLD`` (0.6) for
    skeletons, which are compared only between cases with the same API sequence.

How it stays fast
    Every shingle set gets a MinHash signature (datasketch, ``NUM_PERM`` permutations of a
    CRC-32 of each shingle: deterministic across processes and about three times faster than
    datasketch's default SHA-1), cut into ``BANDS`` bands of ``ROWS`` rows — the banding of
    datasketch's MinHashLSH, done here in one numpy operation and one hash table, because
    datasketch's storage layer took a second to insert the corpus's 5,344 signatures: a pair
    is a candidate when one band agrees, which happens for
    99.6 % of pairs at similarity 0.5 and 4 % at 0.1, so a query reads a handful of candidates
    instead of the whole corpus. Every candidate is then confirmed by the exact Jaccard
    similarity of the shingle sets, so a verdict never rests on an estimate. The bands are
    fixed rather than derived from a threshold, which datasketch would compute by numerical
    integration at every start. Skeletons need no LSH: two skeletons are compared only when
    their cases have the same API sequence, which is an exact blocking key — the largest block
    (the irrelevant cases) holds 162 cases, and all blocks together about 22,000 pairs per
    language, so the exact Jaccard of every pair in a block costs less than indexing them. A
    block that grows past ``BLOCK_LSH_MIN`` cases (synthesised cases by the hundred thousand,
    many with one API) gets its own MinHash LSH index, built when first queried, so a query
    stays sublinear there too.

datasketch imports numpy and scipy (about half a second), so it is imported when the first
index is built, never when this module is.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from validator import matchers
from validator.corpus.records import Case, Dialogue, UserTurn
from validator.textnorm import normalize_text

if TYPE_CHECKING:
    from datasketch import MinHash

SHINGLE_SIZE: Final = {"en": 5, "zh": 3}
TEXT_THRESHOLD: Final = 0.5
SKELETON_THRESHOLD: Final = 0.6
NUM_PERM: Final = 128
BANDS: Final = 42  # 42 bands × 3 rows use 126 of the 128 permutations
ROWS: Final = 3
SEED: Final = 1  # fixed: the same text always gets the same signature
VALUE: Final = "§"  # what a masked value becomes in a skeleton
NUMBER: Final = "#"  # what a masked number becomes
BLOCK_LSH_MIN: Final = 512  # a skeleton block larger than this is searched through LSH

_DIGIT_RUN = re.compile(r"\d+(?:[.,:]\d+)*")
_REPEATED_MASK = re.compile(rf"[{VALUE}{NUMBER}](?:\s*[{VALUE}{NUMBER}])+")


def shingles(text: str, lang: str) -> frozenset[str]:
    """The character shingles of a text in lang (a text shorter than one shingle is one shingle)."""
    normal = normalize_text(text)
    if lang == "zh":
        normal = normal.replace(" ", "")
    size = SHINGLE_SIZE.get(lang, SHINGLE_SIZE["en"])
    if len(normal) <= size:
        return frozenset((normal,)) if normal else frozenset()
    return frozenset(normal[i : i + size] for i in range(len(normal) - size + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


@dataclass(frozen=True, slots=True)
class Match:
    """An indexed item close to the query: its key and the exact Jaccard similarity."""

    key: Hashable
    similarity: float


@dataclass
class ShingleIndex:
    """Shingle sets under keys, with MinHash LSH to find the close ones.

    ``add_many`` items (they are hashed in bulk), then ``query`` a shingle set — or ``query_key``
    an indexed item, whose band keys are kept — for the indexed items at or above ``threshold``,
    most similar first. Items with no shingles are kept out: an empty request is close to
    nothing."""

    threshold: float
    _sets: dict[Hashable, frozenset[str]] = field(default_factory=dict)
    _bands: dict[Hashable, list[int]] = field(default_factory=dict)
    # every band of every item in one table: a band key carries its band's salt, so two items
    # share a bucket only when one band of their signatures agrees
    _buckets: dict[int, list[Hashable]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self._sets)

    def __contains__(self, key: object) -> bool:
        return key in self._sets

    def add(self, key: Hashable, items: frozenset[str]) -> None:
        self.add_many(((key, items),))

    def add_many(self, entries: Iterable[tuple[Hashable, frozenset[str]]]) -> None:
        kept = [(key, items) for key, items in entries if items]
        for key, _ in kept:
            if key in self._sets:
                raise ValueError(f"{key!r} is indexed already")
        buckets = self._buckets
        for (key, items), bands in zip(kept, band_keys([items for _, items in kept]), strict=True):
            self._sets[key] = items
            self._bands[key] = bands
            for band in bands:
                bucket = buckets.get(band)
                if bucket is None:
                    buckets[band] = [key]
                else:
                    bucket.append(key)

    def query(self, items: frozenset[str], exclude: Hashable | None = None) -> list[Match]:
        """Indexed items whose exact similarity to items reaches the threshold (exclude left out)."""
        if not items or not self._sets:
            return []
        return self._confirm(items, band_keys([items])[0], exclude)

    def query_key(self, key: Hashable) -> list[Match]:
        """The other indexed items close to an indexed one (none for an item with no shingles)."""
        if key not in self._sets:
            return []
        return self._confirm(self._sets[key], self._bands[key], key)

    def _confirm(self, items: frozenset[str], bands: list[int], exclude: Hashable | None) -> list[Match]:
        candidates: set[Hashable] = set()
        for band in bands:
            bucket = self._buckets.get(band)
            if bucket is not None:
                candidates.update(bucket)
        candidates.discard(exclude)
        found = []
        for key in candidates:
            similarity = jaccard(items, self._sets[key])
            if similarity >= self.threshold:
                found.append(Match(key, similarity))
        return sorted(found, key=lambda m: (-m.similarity, str(m.key)))


def _shingle_hash(shingle: bytes) -> int:
    return zlib.crc32(shingle)


@cache
def _permutations() -> Any:
    """The permutations of every signature (datasketch draws them from SEED on each call; a query
    of one set would spend most of its time there)."""
    from datasketch import MinHash

    template = MinHash(num_perm=NUM_PERM, seed=SEED, hashfunc=_shingle_hash)
    return template.permutations, template.scheme


def signatures(sets: Sequence[frozenset[str]]) -> list[MinHash]:
    """The MinHash signature of every shingle set, computed in bulk."""
    from datasketch import MinHash

    # a MinHash is the minimum over its set, so the order a frozenset yields shingles in does not matter
    permutations, scheme = _permutations()
    found: list[MinHash] = MinHash.bulk([[s.encode("utf-8") for s in items] for items in sets], num_perm=NUM_PERM, seed=SEED, hashfunc=_shingle_hash, permutations=permutations, scheme=scheme)
    return found


# A band's ROWS hash values (each under 2**32) folded into one 64-bit key, salted per band: two
# bands collide only by chance, and a chance collision only adds a candidate, which the exact
# Jaccard then rejects.
_FOLD: Final = 0x9E3779B97F4A7C15
_BAND_SALT_SEED: Final = 0x5DEECE66D


def band_keys(sets: Sequence[frozenset[str]]) -> list[list[int]]:
    """Per shingle set, its ``BANDS`` LSH band keys: two sets are LSH candidates when one of
    their keys agrees (the banding datasketch's MinHashLSH does, in one array operation)."""
    import numpy as np

    if not sets:
        return []
    rows = np.vstack([signature.hashvalues[: BANDS * ROWS] for signature in signatures(sets)]).astype(np.uint64)
    rows = rows.reshape(len(sets), BANDS, ROWS)
    keys = np.zeros((len(sets), BANDS), dtype=np.uint64)
    for row in range(ROWS):
        keys = keys * np.uint64(_FOLD) + rows[:, :, row]
    salts = np.random.default_rng(_BAND_SALT_SEED).integers(0, 2**63, size=BANDS, dtype=np.uint64)
    keyed: list[list[int]] = (keys ^ salts).tolist()
    return keyed


# ----------------------------------------------------------------------------- what a case asks


def request_text(dialogue: Dialogue) -> str:
    """Everything the user says in one language side, one turn per line."""
    return "\n".join(turn.text for turn in dialogue.turns if isinstance(turn, UserTurn))


def api_sequence(case: Case) -> tuple[tuple[str, ...], ...]:
    """Per checkpoint, the sorted APIs of its first alternative, or the special answer's kind
    and API (taken from the first language side: both sides have the same structure, DLG004)."""
    dialogue = next(iter(case.dialogues.values()))
    sequence: list[tuple[str, ...]] = []
    for checkpoint in dialogue.checkpoints:
        if checkpoint.special is not None:
            sequence.append((f"special:{checkpoint.special.kind}", checkpoint.special.api or ""))
        else:
            sequence.append(tuple(sorted(call.api for call in checkpoint.first)))
    return tuple(sequence)


def _values(value: Any) -> Iterator[str]:
    """The strings an answer value holds (every ``$any`` option, matcher examples included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _values(item)
    elif isinstance(value, dict):
        if matchers.is_matcher(value):
            kind = matchers.matcher_kind(value)
            if kind == "$regex":
                yield from _values(value.get("$example"))
            elif kind is not None:
                yield from _values(value[kind])
        else:
            for item in value.values():
                yield from _values(item)


def skeleton(dialogue: Dialogue) -> str:
    """The user's words with the answer's values masked: every string value any checkpoint's
    answer holds becomes ``§``, every number ``#``, runs of masks one mask. Two requests with
    one frame and other values ("What's the city code for Xi'an?" / "… for Chengdu?") have one
    skeleton."""
    text = normalize_text(request_text(dialogue))
    values: set[str] = set()
    for checkpoint in dialogue.checkpoints:
        for alternative in checkpoint.alternatives:
            for call in alternative.calls:
                values.update(_values(dict(call.args)))
        if checkpoint.special is not None:
            values.update(_values(dict(checkpoint.special.params)))
    for value in sorted({normalize_text(v) for v in values}, key=len, reverse=True):
        if len(value) >= 2 and not value.isdigit():
            text = text.replace(value, VALUE)
    text = _DIGIT_RUN.sub(NUMBER, text)
    return _REPEATED_MASK.sub(VALUE, text)


# ----------------------------------------------------------------------------- the corpus index


@dataclass(frozen=True, slots=True)
class Neighbour:
    """Another case close to the one asked about, and why."""

    case_id: str
    lang: str
    kind: str  # "request" (the user's words) | "skeleton" (same API sequence, same sentence frame)
    similarity: float


class CorpusSimilarity:
    """The requests and skeletons of every case, per language, indexed once.

    ``neighbours(case)`` lists the other cases too close to a case — one of the indexed cases or
    a new candidate; ``close_texts(lang, text)`` the cases whose request is too close to a text
    (a training example, say)."""

    def __init__(self, cases: Iterable[Case], threshold: float = TEXT_THRESHOLD, block_lsh_min: int = BLOCK_LSH_MIN) -> None:
        self.threshold = threshold
        self.block_lsh_min = block_lsh_min
        self.requests: dict[str, ShingleIndex] = {}
        self.sequences: dict[str, tuple[tuple[str, ...], ...]] = {}
        # (API sequence, lang) -> case id -> skeleton shingles: the blocks skeletons are compared in
        self._skeletons: dict[tuple[tuple[tuple[str, ...], ...], str], dict[str, frozenset[str]]] = {}
        self._block_indexes: dict[tuple[tuple[tuple[str, ...], ...], str], ShingleIndex] = {}
        requests: dict[str, list[tuple[Hashable, frozenset[str]]]] = {}
        for case in cases:
            sequence = self.sequences[case.id] = api_sequence(case)
            for lang, dialogue in case.dialogues.items():
                requests.setdefault(lang, []).append((case.id, shingles(request_text(dialogue), lang)))
                self._skeletons.setdefault((sequence, lang), {})[case.id] = shingles(skeleton(dialogue), lang)
        for lang, entries in requests.items():
            self.requests[lang] = ShingleIndex(threshold)
            self.requests[lang].add_many(entries)

    def add(self, case: Case) -> None:
        """Index one more case (a synthesised candidate just accepted), so later ones are compared with it too."""
        if case.id in self.sequences:
            raise ValueError(f"{case.id!r} is indexed already")
        sequence = self.sequences[case.id] = api_sequence(case)
        for lang, dialogue in case.dialogues.items():
            self.requests.setdefault(lang, ShingleIndex(self.threshold)).add(case.id, shingles(request_text(dialogue), lang))
            frame = self._skeletons.setdefault((sequence, lang), {})[case.id] = shingles(skeleton(dialogue), lang)
            block_index = self._block_indexes.get((sequence, lang))
            if block_index is not None:
                block_index.add(case.id, frame)

    def close_texts(self, lang: str, text: str) -> list[Match]:
        """Indexed cases whose request in lang is too close to text (keys are case ids)."""
        index = self.requests.get(lang)
        return index.query(shingles(text, lang)) if index is not None else []

    def neighbours(self, case: Case) -> list[Neighbour]:
        """Other cases whose request (either language) is too close to this case's, or that have
        its API sequence and a skeleton too close to its skeleton; the closest first per kind."""
        found: list[Neighbour] = []
        indexed = case.id in self.sequences
        sequence = api_sequence(case)
        for lang, dialogue in case.dialogues.items():
            requests = self.requests.get(lang)
            if requests is not None:
                close = requests.query_key(case.id) if indexed else requests.query(shingles(request_text(dialogue), lang))
                found += [Neighbour(str(m.key), lang, "request", m.similarity) for m in close]
            block = self._skeletons.get((sequence, lang), {})
            own = block.get(case.id) if indexed else shingles(skeleton(dialogue), lang)
            if own:
                if len(block) > self.block_lsh_min:
                    close = self._block_index((sequence, lang)).query(own, exclude=case.id)
                    matches = [(str(m.key), m.similarity) for m in close]
                else:
                    similar = ((other, jaccard(own, frame)) for other, frame in block.items() if other != case.id)
                    matches = sorted((m for m in similar if m[1] >= SKELETON_THRESHOLD), key=lambda m: (-m[1], m[0]))
                found += [Neighbour(other, lang, "skeleton", similarity) for other, similarity in matches]
        return found

    def index_blocks(self) -> None:
        """Build now the LSH index of every skeleton block above ``block_lsh_min`` (else each is
        built when first queried): a caller that times its queries indexes first."""
        for key, block in self._skeletons.items():
            if len(block) > self.block_lsh_min:
                self._block_index(key)

    def _block_index(self, key: tuple[tuple[tuple[str, ...], ...], str]) -> ShingleIndex:
        index = self._block_indexes.get(key)
        if index is None:
            index = self._block_indexes[key] = ShingleIndex(SKELETON_THRESHOLD)
            index.add_many(self._skeletons[key].items())
        return index
