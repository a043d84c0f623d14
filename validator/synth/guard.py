"""The contamination guard of `callbank export`: no training item may repeat the benchmark.

An item comes from a case (a synthesised one, or one a model was run on). It overlaps the
benchmark when, in either language, the user's words share enough character n-grams with a
benchmark case's (Jaccard of 5-grams in English, 3-grams in Chinese, after normalisation, at the
threshold; ``validator.similarity``), or when it has a benchmark case's API sequence and a
sentence frame close to that case's with the values masked — a copied case with other names or
numbers. The index is built once over the benchmark's own cases, in both languages.

An agent scenario (a synthesised one, or one a model was run on) is compared with the
benchmark's scenarios the same way: the user's goal and script lines by character n-grams, and
the sequence of reference-call APIs with the goal's sentence frame (its call values masked).
The same reference calls with the same values (a copied scenario reworded) overlap too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from validator import matchers
from validator.corpus.records import Case, Scenario
from validator.similarity import NUMBER, SKELETON_THRESHOLD, TEXT_THRESHOLD, VALUE, CorpusSimilarity, ShingleIndex, jaccard, request_text, shingles
from validator.textnorm import normalize_text

_DIGIT_RUN = re.compile(r"\d+(?:[.,:]\d+)*")


@dataclass(frozen=True)
class Overlap:
    benchmark_case: str
    lang: str
    kind: str  # "request" | "skeleton" (cases); "goal" | "frame" | "calls" (scenarios)
    similarity: float

    def describe(self) -> str:
        what = {
            "request": "request",
            "skeleton": "API sequence and sentence frame",
            "goal": "goal and script",
            "frame": "call sequence and sentence frame",
            "calls": "reference calls",
        }[self.kind]
        return f"{self.lang} {what} {self.similarity:.2f} like {self.benchmark_case}"


def user_text(scenario: Scenario, lang: str) -> str:
    """The scenario's user in one language: the goal and every script line."""
    side = scenario.user.get(lang)
    return "\n".join([side.goal, *side.script]) if side is not None else ""


def call_sequence(scenario: Scenario) -> tuple[str, ...]:
    return tuple(str(call.get("api")) for call in scenario.data.get("reference_calls") or [] if isinstance(call, Mapping))


def _strings(value: Any, lang: str) -> Iterable[str]:
    rendered = matchers.render(value, lang)
    if isinstance(rendered, str):
        yield rendered
    elif isinstance(rendered, list):
        for item in rendered:
            yield from _strings(item, lang)
    elif isinstance(rendered, dict):
        for item in rendered.values():
            yield from _strings(item, lang)


def frame(scenario: Scenario, lang: str) -> str:
    """The user's words with the reference calls' values masked (``§``, numbers ``#``)."""
    text = normalize_text(user_text(scenario, lang))
    values = {normalize_text(v) for call in scenario.data.get("reference_calls") or [] if isinstance(call, Mapping) for v in _strings(call.get("args") or {}, lang)}
    for value in sorted(values, key=len, reverse=True):
        if len(value) >= 2 and not value.isdigit():
            text = text.replace(value, VALUE)
    return _DIGIT_RUN.sub(NUMBER, text)


def concrete_calls(scenario: Scenario, lang: str) -> str:
    """The reference calls with their values, as one comparable string."""
    calls = [{"api": call.get("api"), "args": matchers.render(call.get("args") or {}, lang)} for call in scenario.data.get("reference_calls") or [] if isinstance(call, Mapping)]
    return json.dumps(calls, ensure_ascii=False, sort_keys=True)


class ScenarioIndex:
    """The benchmark's scenarios, per language: user words, frames by call sequence, exact calls."""

    def __init__(self, scenarios: Iterable[Scenario], threshold: float) -> None:
        self.goals: dict[str, ShingleIndex] = {}
        self.frames: dict[tuple[tuple[str, ...], str], dict[str, frozenset[str]]] = {}
        self.calls: dict[tuple[str, str], str] = {}  # (lang, the calls as written) -> scenario id
        for scenario in scenarios:
            for lang in scenario.user:
                self.goals.setdefault(lang, ShingleIndex(threshold)).add(scenario.id, shingles(user_text(scenario, lang), lang))
                self.frames.setdefault((call_sequence(scenario), lang), {})[scenario.id] = shingles(frame(scenario, lang), lang)
                self.calls.setdefault((lang, concrete_calls(scenario, lang)), scenario.id)

    def overlaps(self, scenario: Scenario) -> list[Overlap]:
        found: list[Overlap] = []
        for lang in scenario.user:
            index = self.goals.get(lang)
            if index is not None:
                found += [Overlap(str(m.key), lang, "goal", m.similarity) for m in index.query(shingles(user_text(scenario, lang), lang))]
            own = shingles(frame(scenario, lang), lang)
            for other, shingled in self.frames.get((call_sequence(scenario), lang), {}).items():
                similarity = jaccard(own, shingled)
                if similarity >= SKELETON_THRESHOLD:
                    found.append(Overlap(other, lang, "frame", similarity))
            same = self.calls.get((lang, concrete_calls(scenario, lang)))
            if same is not None:
                found.append(Overlap(same, lang, "calls", 1.0))
        return found


class Guard:
    def __init__(self, benchmark: Iterable[Case], threshold: float = TEXT_THRESHOLD, scenarios: Iterable[Scenario] = ()) -> None:
        self.index = CorpusSimilarity(list(benchmark), threshold)
        self.scenarios = ScenarioIndex(scenarios, threshold)
        self._memo: dict[tuple[str, str], list[Overlap]] = {}

    def overlaps(self, item: Case | Scenario) -> list[Overlap]:
        """Every benchmark case (or scenario) the item's case (or scenario) is too close to, the closest first."""
        key = (item.id, item.path)
        if key not in self._memo:
            found: dict[tuple[str, str, str], Overlap] = {}
            if isinstance(item, Scenario):
                for overlap in self.scenarios.overlaps(item):
                    found.setdefault((overlap.benchmark_case, overlap.lang, overlap.kind), overlap)
            else:
                for lang, dialogue in item.dialogues.items():
                    for match in self.index.close_texts(lang, request_text(dialogue)):
                        found.setdefault((str(match.key), lang, "request"), Overlap(str(match.key), lang, "request", match.similarity))
                for neighbour in self.index.neighbours(item):
                    found.setdefault((neighbour.case_id, neighbour.lang, neighbour.kind), Overlap(neighbour.case_id, neighbour.lang, neighbour.kind, neighbour.similarity))
            self._memo[key] = sorted(found.values(), key=lambda o: (-o.similarity, o.benchmark_case, o.lang, o.kind))
        return self._memo[key]
