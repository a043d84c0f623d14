"""The ``tools`` sandbox: lexical search over the API catalog (API-Bank's levels 2 and 3).

``search_tools(query, top_k)`` ranks every spec of the catalog the runtime passes in
(``needs_catalog = True``) with BM25. A spec is one document made of weighted fields: its name
split on ``_``, its description in both languages, the descriptions of its parameters at every
depth (both languages) and its domain. Text is NFKC-normalised and lower-cased; English is cut
into words (a small stop-word list dropped, plurals folded to the singular), Chinese into
character bigrams plus single characters (a few function characters dropped from the single
characters), so a Chinese query works without a word segmenter or any model download.

A result shows the spec as a model would see it in the query's language — Chinese when the query
contains a CJK character, English otherwise: its name, description and parameters as a plain
JSON Schema with every description in that language. Ranking is by score, then by name, so
equal scores always come out in the same order. Only specs sharing at least one token with the
query are returned.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from validator.sandbox.base import ApiError, Sandbox
from validator.corpus.schemawalk import localize

_WORD = re.compile(r"[a-z0-9]+")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_STOP_WORDS = frozenset(
    """a an and any are as at be by can could do does e.g eg for from have how i if in into is it its
    me my of on or our please should some that the their them then there these this those to
    us want was we were what when where which who will with would you your""".split()
)
_STOP_CHARS = frozenset("的了吗呢吧啊呀我你他她它们把被给帮请一下个是在和与或要想能可以这那么什怎有也就都还会让")


def _stem(word: str) -> str:
    """Fold an English plural to its singular (dictionaries → dictionary, routes → route)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """English words and Chinese bigrams + unigrams of a text, in order of appearance."""
    text = unicodedata.normalize("NFKC", text).casefold()
    tokens: list[str] = []
    for word in _WORD.findall(text):
        if word not in _STOP_WORDS:
            tokens.append(_stem(word))
    for run in _CJK_RUN.findall(text):
        tokens.extend(ch for ch in run if ch not in _STOP_CHARS)
        tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
    return tokens


def has_cjk(text: str) -> bool:
    return _CJK_RUN.search(text) is not None


def _parameter_texts(schema: Any) -> list[str]:
    """Every description string inside a parameters schema, both languages, at every depth."""
    texts: list[str] = []
    if isinstance(schema, dict):
        description = schema.get("description")
        if isinstance(description, dict):
            texts.extend(str(v) for v in description.values() if isinstance(v, str))
        elif isinstance(description, str):
            texts.append(description)
        for name, child in (schema.get("properties") or {}).items():
            texts.append(str(name).replace("_", " "))
            texts.extend(_parameter_texts(child))
        if "items" in schema:
            texts.extend(_parameter_texts(schema["items"]))
    return texts


_INDEXES: dict[tuple[tuple[str, float], ...], tuple[list[dict[str, Any]], Any]] = {}


class ToolsSandbox(Sandbox):
    """Tool search over the catalog of API specs; the state holds only the ranking settings."""

    name = "tools"
    needs_catalog = True

    # ------------------------------------------------------------------ the index (private)

    def _index(self) -> tuple[list[dict[str, Any]], list[dict[str, float]], list[float], dict[str, int]]:
        """Specs sorted by name, their weighted term frequencies and lengths, document frequencies."""
        weights = self.data["field_weights"]
        # The index is a pure function of the (read-only) catalog and the weights; sessions and
        # their forks get new instances, so it is memoised per catalog object, not per instance.
        key = tuple(sorted((str(k), float(v)) for k, v in weights.items()))
        cached = _INDEXES.get(key)
        if cached is not None and cached[0] is self.catalog:
            return cached[1]
        specs = sorted((s for s in self.catalog if isinstance(s, dict) and isinstance(s.get("name"), str)), key=lambda s: s["name"])
        frequencies: list[dict[str, float]] = []
        lengths: list[float] = []
        document_frequency: dict[str, int] = {}
        for spec in specs:
            description = spec.get("description") or {}
            fields = {
                "name": spec["name"].replace("_", " "),
                "description": " ".join(str(v) for v in description.values()) if isinstance(description, dict) else str(description),
                "parameters": " ".join(_parameter_texts(spec.get("parameters") or {})),
                "domain": str(spec.get("domain") or "").replace(".", " ").replace("_", " "),
            }
            tf: dict[str, float] = {}
            for field, text in fields.items():
                weight = float(weights.get(field, 1))
                for token in tokenize(text):
                    tf[token] = tf.get(token, 0.0) + weight
            frequencies.append(tf)
            lengths.append(sum(tf.values()))
            for token in tf:
                document_frequency[token] = document_frequency.get(token, 0) + 1
        index = (specs, frequencies, lengths, document_frequency)
        if len(_INDEXES) >= 4:
            _INDEXES.clear()
        _INDEXES[key] = (self.catalog, index)
        return index

    # ------------------------------------------------------------------ tools.search

    def search_tools(self, query: str, top_k: int = 5) -> dict[str, Any]:
        terms = sorted(set(tokenize(query)))
        if not terms:
            raise ApiError("empty_query", query=query)
        specs, frequencies, lengths, document_frequency = self._index()
        if not specs:
            return {"results": []}
        k1 = float(self.data["bm25"]["k1"])
        b = float(self.data["bm25"]["b"])
        count = len(specs)
        average = sum(lengths) / count or 1.0
        idf = {t: math.log(1 + (count - document_frequency.get(t, 0) + 0.5) / (document_frequency.get(t, 0) + 0.5)) for t in terms}
        scored: list[tuple[float, str, int]] = []
        for position, (tf, length) in enumerate(zip(frequencies, lengths)):
            score = 0.0
            for term in terms:
                f = tf.get(term)
                if f:
                    score += idf[term] * f * (k1 + 1) / (f + k1 * (1 - b + b * length / average))
            if score > 0:
                scored.append((-round(score, 9), specs[position]["name"], position))
        scored.sort()
        lang = "zh" if has_cjk(query) else "en"
        results = []
        for _, _, position in scored[:top_k]:
            spec = specs[position]
            description = spec.get("description") or {}
            results.append(
                {
                    "name": spec["name"],
                    "description": (description.get(lang) or description.get("en") or "") if isinstance(description, dict) else str(description),
                    "parameters": localize(spec.get("parameters") or {"type": "object", "properties": {}}, lang),
                }
            )
        return {"results": results}
