"""What every layer knows about tool search, the one API of the retrieval categories.

A `retrieval/*` case offers only ``search_tools``. The search is live: a model's queries run
against the catalog index (the ``tools`` sandbox: BM25 over every spec of the repository)
when it is run, and again when it is scored; no case stores search results, since they
change whenever an API is added. This module holds the pieces the runner, the scorer, the
rules and the executor share: the API's name, how to read the names a search returned, and
the query the reference model writes for an API — the same query the fairness check
(EXE018) proves ranks the API within the default ``top_k``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

SEARCH_API = "search_tools"
DEFAULT_TOP_K = 5  # search_tools' declared default; EXE018 checks the reference query ranks within it
MAX_QUERY_CHARS = 400  # search_tools' maxLength for query

# a sentence ends at . ! ? followed by a space or the end, or at a CJK full stop / mark
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\s|$)|(?<=[。！？])")


def is_retrieval(category: Any) -> bool:
    return isinstance(category, str) and category.startswith("retrieval/")


def found_names(observation: Any) -> list[str]:
    """The API names a ``search_tools`` observation returned, best first ([] for an error)."""
    results = observation.get("results") if isinstance(observation, dict) else None
    if not isinstance(results, list):
        return []
    return [entry["name"] for entry in results if isinstance(entry, dict) and isinstance(entry.get("name"), str)]


def reference_query(spec: Mapping[str, Any], lang: str) -> str:
    """The query the reference model searches with for an API: the first sentence of its
    description in lang (a plain statement of what the API does, as a user of the catalog
    would phrase the need), cut to the query's maximum length."""
    description = spec.get("description")
    text = description.get(lang) if isinstance(description, dict) else description
    if not isinstance(text, str) or not text.strip():
        return str(spec.get("name", "")).replace("_", " ")
    text = text.strip()
    match = _SENTENCE_END.search(text)
    sentence = text[: match.start()].strip() if match and match.start() > 0 else text
    return sentence[:MAX_QUERY_CHARS]
