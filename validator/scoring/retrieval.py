"""Scoring a retrieval checkpoint: the model's own searches re-run, its other calls judged.

A retrieval record (``docs/predictions.md``) holds every call the model made in its episode,
in order: its ``search_tools`` calls — its queries — and the calls it made with what it found.
The verdict:

1. every search is run again against the catalog index (a :class:`Searcher`); what the record
   says the model saw is never read, so a record cannot claim a search found what it did not;
2. a non-search call is *retrieved* when a search before it (earlier in ``calls``) returned its
   API; a call to an API no earlier search returned is wrong, error type ``not_retrieved``,
   whatever its arguments — a model that searches for nonsense never finds the API;
3. the retrieved calls are compared with the checkpoint's answer exactly as a normal
   checkpoint's calls are (``validator.scoring.match``): every call the model made counts, and
   the one-to-one assignment makes their order irrelevant.

For partial credit a call that was not retrieved counts as a wrong API (and its arguments as
wrong arguments), and the expected call it may have meant as missed.

A record without ``calls`` (a harness that answers in one shot, ``output``/``tool_calls``) is
read like a normal answer; having searched for nothing, any call it makes is not retrieved.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from validator.corpus.index import Corpus
from validator.corpus.records import Checkpoint
from validator.sandbox.replay import runtime_of
from validator.scoring.literals import FormatError
from validator.scoring.match import Specs, Verdict, score_checkpoint
from validator.scoring.parse import Call, Parsed, calls_from_json, format_error, parse_prediction
from validator.toolsearch import SEARCH_API, found_names

MAX_EPISODE_CALLS = 200  # searches included; the runner's turn limit keeps real episodes far below


class Searcher(Protocol):
    """Runs one ``search_tools`` call against the catalog index: the API names it returns."""

    def search(self, args: Any, lang: str) -> list[str]: ...


class RuntimeSearcher:
    """The catalog index of a sandbox runtime: ``search_tools`` in a session of its sandbox.

    Searching changes no state, so one session serves every search; results are cached by
    their arguments (many records repeat a query).
    """

    def __init__(self, runtime: Any, sandbox: str) -> None:
        self.session = runtime.session([sandbox])
        self._cache: dict[tuple[str, str], list[str]] = {}

    def search(self, args: Any, lang: str) -> list[str]:
        try:
            key = (json.dumps(args, sort_keys=True, ensure_ascii=False), lang)
        except (TypeError, ValueError):
            return []
        if key not in self._cache:
            self._cache[key] = found_names(self.session.call(SEARCH_API, args, lang))
        return self._cache[key]


def load_searcher(corpus: Corpus) -> Searcher | None:
    """The catalog search of the corpus's sandboxes, or None when no loaded sandbox implements it."""
    runtime = runtime_of(corpus)
    sandbox = runtime.sandbox_of(SEARCH_API)
    return RuntimeSearcher(runtime, sandbox) if sandbox is not None else None


def episode_calls(record: Mapping[str, Any]) -> Parsed:
    """Every call of a retrieval record in order (searches included), or its format error /
    special answer."""
    if "calls" not in record:
        return parse_prediction(dict(record))
    value = record.get("calls")
    if value is None:
        return Parsed("calls")
    if not isinstance(value, list):
        return format_error('"calls" is not a list')
    try:
        return Parsed("calls", tuple(calls_from_json(value, MAX_EPISODE_CALLS)))
    except FormatError as error:
        return format_error(str(error))


def score_retrieval(checkpoint: Checkpoint, record: Mapping[str, Any], specs: Specs, lang: str, searcher: Searcher) -> Verdict:
    """The verdict for one retrieval checkpoint (see the module docstring)."""
    parsed = episode_calls(record)
    if parsed.kind != "calls":
        return score_checkpoint(checkpoint, parsed, specs, lang)
    found: set[str] = set()
    queries: list[str] = []
    retrieved: list[Call] = []
    missed: list[Call] = []
    for call in parsed.calls:
        if call.api == SEARCH_API:
            queries.append(repr(call.args.get("query"))[:60])
            found.update(searcher.search(call.args, lang))
        elif call.api in found:
            retrieved.append(call)
        else:
            missed.append(call)
    verdict = score_checkpoint(checkpoint, Parsed("calls", tuple(retrieved)), specs, lang)
    if not missed:
        return verdict
    names = ", ".join(dict.fromkeys(call.api for call in missed))
    if queries:
        shown = ", ".join(queries[:3]) + (" …" if len(queries) > 3 else "")
        detail = f"called {names}, which none of its searches before the call returned (queries: {shown})"
    else:
        detail = f"called {names} without searching for it (no search_tools call)"
    (api_tp, api_fp, api_fn), (tp, fp, fn) = verdict.api, verdict.params
    return Verdict(
        False,
        "not_retrieved",
        detail,
        (api_tp, api_fp + len(missed), api_fn),
        (tp, fp + sum(len(call.args) for call in missed), fn),
    )
