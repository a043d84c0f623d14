"""`callbank exec` for retrieval cases: what must hold for a live-search case to be fair.

A retrieval case is judged on the calls a model makes after searching the catalog itself, so
its answer key is only defensible when

- **every API it expects can be found** (EXE018): the reference query for it — the first
  sentence of its description in the case's language, what the oracle searches with — ranks it
  within the default ``top_k`` of ``search_tools``. An API that its own description does not
  find would pass only a model that guesses names;
- **a plan is a plan** (EXE019): in `retrieval/plan`, some later call of the first alternative
  needs an earlier call — it uses a value the earlier call's real result holds and the user
  never said (an id, a date, an address), or it fails when run without the earlier calls
  (Wi-Fi off before a text). Two independent calls in one request are a parallel case.

The calls run in a fresh session of the case's sandboxes under its ``time`` and ``state``, as in
``callbank exec`` and ``callbank run``. Findings come back as data; the rules EXE018 and EXE019
(``validator.rules.execution``) report them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from validator import matchers
from validator.corpus.records import Calls, Case, Dialogue
from validator.sandbox.runtime import Runtime, Session
from validator.toolsearch import DEFAULT_TOP_K, SEARCH_API, found_names, is_retrieval, reference_query

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DECIMAL = re.compile(r"(?<![\d.])\d+\.\d+(?![\d.])")  # a price inside a text: "186.50 CNY"


class RetrievalFinding(NamedTuple):
    code: str
    pointer: str
    message: str
    lang: str


def check_retrieval_case(case: Case, runtime: Runtime, time_limit: float | None) -> Iterator[RetrievalFinding]:
    """EXE018 and EXE019 for one case (nothing for a case outside retrieval)."""
    if not is_retrieval(case.category):
        return
    search_sandbox = runtime.sandbox_of(SEARCH_API)
    if search_sandbox is None:
        return  # REF001 / EXE001 report a catalog without a runnable search
    searcher = runtime.session([search_sandbox], time_limit=time_limit)
    plan = case.category == "retrieval/plan"
    for lang, dialogue in case.dialogues.items():
        for checkpoint in dialogue.checkpoints:
            yield from _findable(checkpoint.alternatives, runtime, searcher, lang)
            if plan and checkpoint.alternatives:
                yield from _depends(case, checkpoint.alternatives[0], dialogue, runtime, lang, time_limit)


def _findable(options: tuple[Calls, ...], runtime: Runtime, searcher: Session, lang: str) -> Iterator[RetrievalFinding]:
    seen: set[str] = set()
    for alternative in options:
        for call in alternative.calls:
            api = call.api
            if api in seen or api == SEARCH_API:
                continue
            spec = runtime.specs.get(api)
            if spec is None:
                continue
            seen.add(api)
            query = reference_query(spec.document.data, lang)
            returned = found_names(searcher.call(SEARCH_API, {"query": query}, lang))
            if api not in returned:
                shown = ", ".join(returned) or "nothing"
                yield RetrievalFinding(
                    "EXE018",
                    call.pointer + "/api",
                    f"searching for {api} by the first sentence of its {lang} description ({query[:80]!r}) returns {shown}, "
                    f"not {api} within the top {DEFAULT_TOP_K}; make that sentence say plainly what {api} does (and how it differs from those)",
                    lang,
                )


def _depends(case: Case, option: Calls, dialogue: Dialogue, runtime: Runtime, lang: str, time_limit: float | None) -> Iterator[RetrievalFinding]:
    pointer = option.pointer
    rendered = [{"api": c.api, "args": matchers.render(c.args, lang)} for c in option.calls]
    if len(rendered) < 2 or not all(runtime.runnable(c["api"]) for c in rendered):
        return  # EXE005 / REF003 report calls that cannot run
    patch, clock = case.state, case.time
    names = sorted({runtime.sandbox_of(c["api"]) or "" for c in rendered})
    session = runtime.session(names, patch, clock, time_limit)
    outcomes = [session.run(c["api"], c["args"], lang) for c in rendered]
    if not all(outcome.ok for outcome in outcomes):
        return  # EXE005 reports the failing call
    said = matchers.normalize_text(dialogue.user_text())
    for j in range(1, len(rendered)):
        earlier = _Values([outcome.observation for outcome in outcomes[:j]])
        if any(earlier.holds(value) and not _said(value, said) for value in _leaf_values(rendered[j]["args"])):
            return
        alone = runtime.session(names, patch, clock, time_limit).run(rendered[j]["api"], rendered[j]["args"], lang)
        if not alone.ok:
            return
    apis = " → ".join(c["api"] for c in rendered)
    yield RetrievalFinding(
        "EXE019",
        pointer,
        f"no later call of this plan ({apis}) needs an earlier one: none uses a value from an earlier result that the user did not give, "
        "and each succeeds on its own; make a step depend on an earlier result (an id, a date, an address it returns) or move the case to parallel",
        lang,
    )


def _leaf_values(value: Any) -> Iterator[str | int | float]:
    """Every string and number inside a value (booleans and nulls say nothing about a source)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaf_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaf_values(item)
    elif (isinstance(value, str) and value.strip()) or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        yield value


class _Values:
    """What earlier results hold: their numbers, strings and the dates inside date-times, and
    their texts, in which a later value may appear as a phrase (a road named in an incident)."""

    def __init__(self, results: list[Any]) -> None:
        self.exact: set[str] = set()
        self.texts: list[str] = []
        for leaf in _leaf_values(results):
            self.exact.add(_key(leaf))
            if isinstance(leaf, str):
                date = _DATE.match(leaf.strip())
                if date:
                    self.exact.add(date.group(0))
                # a decimal written in a text is the number a later call passes (186.50 → 186.5)
                self.exact.update(_key(float(number)) for number in _DECIMAL.findall(leaf))
                self.texts.append(matchers.normalize_text(leaf))

    def holds(self, value: str | float) -> bool:
        if _key(value) in self.exact:
            return True
        if not isinstance(value, str):
            return False
        date = _DATE.match(value.strip())
        if date and date.group(0) in self.exact:
            return True
        phrase = matchers.normalize_text(value)
        return len(phrase) >= 3 and any(matchers.contains_phrase(text, phrase) for text in self.texts)


def _key(value: str | float) -> str:
    if isinstance(value, str):
        return value.strip().casefold()
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _said(value: str | float, said: str) -> bool:
    """Whether the user's words already give value (after the free-text normalisation)."""
    normalised = matchers.normalize_text(str(value) if not isinstance(value, str) else value)
    return bool(normalised) and matchers.contains_phrase(said, normalised)
