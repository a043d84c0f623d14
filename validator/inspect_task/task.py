"""The Inspect task: callbank's units as samples, callbank's runner as the solver, its scorer.

    inspect eval validator/inspect_task/task.py --model openai-api/local/NAME \\
        -T repo=. -T lang=en -T category=normal/atom -T mode=fc

A sample is one unit — a case or a scenario in one language (id ``<id>:<lang>``). The solver asks
the model what ``callbank run`` would ask: every checkpoint of a case given the dialogue so far,
a retrieval checkpoint as its live search episode, a scenario as an agent episode whose sandbox
APIs are Inspect tools (fc mode; prompt mode runs callbank's own episode through the adapter).
It keeps the unit's prediction records (``docs/predictions.md``) in the sample's store; the
scorer judges them with ``validator.scoring`` and its metrics give callbank's numbers:
accuracy (per unit), the √n-weighted overall score and each family's accuracy.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Metric, SampleScore, Score, Scorer, Target, accuracy, metric, scorer, stderr, value_to_float
from inspect_ai.solver import Generate, Solver, TaskState, solver

from validator.corpus.categories import FAMILIES, family
from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.errors import UserError
from validator.inspect_task.model import InspectModel
from validator.inspect_task.tools import run_scenario
from validator.loading import find_repo_root
from validator.models.base import complete_async
from validator.models.episode import environments, policy_text, run_episode_async
from validator.models.request import case_requests
from validator.models.retrieval import case_environments, retrieval_requests, run_retrieval_async
from validator.models.runner import case_record, search_policy
from validator.models.user import scripted_user
from validator.scoring.agent import load_replayer
from validator.scoring.metrics import family_weights
from validator.scoring.predictions import Prediction, Predictions
from validator.scoring.retrieval import load_searcher
from validator.scoring.scorer import score_units
from validator.scoring.units import CaseUnit, ScenarioUnit, collect_units
from validator.toolsearch import is_retrieval

RECORDS = "callbank_records"  # the store key of a sample's prediction records
SYNTAX = {"fc": "tool_calls", "prompt": "python"}


@cache
def load_corpus(root: str) -> Corpus:
    """The corpus under root, loaded once per process (every sample and the scorer share it)."""
    return Corpus.load_benchmark(Path(root), "inspect")


def samples(corpus: Corpus, langs: Sequence[str], categories: Sequence[str], limit: int | None = None) -> list[Sample]:
    """One sample per unit of the selection (``limit``: the first N cases or scenarios, by id, of each category, as ``callbank run --limit``)."""
    units = collect_units(corpus, langs=langs, categories=categories)
    out: list[Sample] = []
    chosen: dict[str, set[str]] = {}
    every: list[CaseUnit | ScenarioUnit] = [*units.cases, *units.scenarios]
    for unit in every:
        ids = chosen.setdefault(unit.category, set())
        if limit is not None and unit.id not in ids and len(ids) >= limit:
            continue
        ids.add(unit.id)
        if isinstance(unit, ScenarioUnit):
            kind = "scenario"
            opening = next(iter(unit.scenario.user[unit.lang].script), unit.id)
        else:
            kind = "retrieval" if is_retrieval(unit.category) else "case"
            opening = unit.case.dialogues[unit.lang].user_text() or unit.id
        out.append(Sample(input=opening, id=f"{unit.id}:{unit.lang}", metadata={"id": unit.id, "lang": unit.lang, "category": unit.category, "kind": kind}))
    return out


@solver
def callbank_solver(root: str, mode: str = "fc", style: str = "standard", max_turns: int | None = None) -> Solver:
    """Ask the model what ``callbank run`` asks, and keep the unit's prediction records."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        corpus = load_corpus(root)
        meta = state.metadata
        lang, syntax = meta["lang"], SYNTAX[mode]
        model = InspectModel(get_model(), style)
        records: list[dict[str, Any]] = []
        if meta["kind"] == "scenario":
            scenario = corpus.scenarios[meta["id"]]
            environment = environments(corpus)(scenario, lang)
            policy = policy_text(corpus, scenario, lang)
            user = scripted_user(scenario, lang)
            if mode == "fc":
                record, messages = await run_scenario(get_model(), scenario, lang, corpus.specs, environment, policy, user, style=style, max_turns=max_turns)
                state.messages = messages
            else:
                record = await run_episode_async(model, scenario, lang, corpus.specs, syntax, environment, policy, style=style, user=user, max_turns=max_turns)
                record = {**record, "step": 0}
            records.append(record)
        elif meta["kind"] == "retrieval":
            case = corpus.cases[meta["id"]]
            for request in retrieval_requests(case, lang, corpus.specs, syntax, style=style, policy=search_policy(corpus, lang)):
                records.append(await run_retrieval_async(model, request, case_environments(corpus)(case, lang), corpus.specs))
        else:
            for request in case_requests(corpus.cases[meta["id"]], lang, corpus.specs, syntax, style=style):
                records.append(case_record(request, await complete_async(model, request)))
        state.store.set(RECORDS, records)
        if model.outputs:
            state.output = model.outputs[-1]
        return state

    return solve


_TO_FLOAT = value_to_float()


def _right(sample_score: SampleScore) -> float:
    """1 for a right unit, 0 for a wrong one (the mean over epochs, when Inspect ran several)."""
    return float(_TO_FLOAT(sample_score.score.value))


@metric
def overall() -> Metric:
    """callbank's overall score: Σ w_k · accuracy_k over the families, w_k = √n_k / Σ √n_j."""

    def compute(scores: list[SampleScore]) -> float:
        counts: dict[str, list[float]] = {}
        for sample_score in scores:
            metadata = sample_score.score.metadata or {}
            slot = counts.setdefault(str(metadata.get("family")), [0.0, 0])
            slot[0] += _right(sample_score)
            slot[1] += 1
        weights = family_weights({name: int(n) for name, (_, n) in counts.items()})
        return sum(weight * counts[name][0] / counts[name][1] for name, weight in weights.items())

    return compute


def family_accuracy(name: str) -> Metric:
    """Accuracy over the units of one family (NaN when the selection has none)."""

    @metric(name=name)
    def family_metric() -> Metric:
        def compute(scores: list[SampleScore]) -> float:
            chosen = [s for s in scores if (s.score.metadata or {}).get("family") == name]
            return sum(_right(s) for s in chosen) / len(chosen) if chosen else float("nan")

        return compute

    return family_metric()


@scorer(metrics=[accuracy(), stderr(), overall(), *(family_accuracy(name) for name in FAMILIES)])
def callbank_scorer(root: str) -> Scorer:
    """Judge the unit's records with callbank's scorer (``validator.scoring``)."""

    async def score(state: TaskState, target: Target) -> Score:
        corpus = load_corpus(root)
        meta = state.metadata
        units = collect_units(corpus, langs=[meta["lang"]], categories=[meta["category"]])
        units = units._replace(cases=[u for u in units.cases if u.id == meta["id"]], scenarios=[u for u in units.scenarios if u.id == meta["id"]])
        records: list[dict[str, Any]] = state.store.get(RECORDS, [])
        predictions = Predictions({(r["id"], r["lang"], int(r.get("step") or 0)): Prediction(i + 1, r) for i, r in enumerate(records)}, [])
        replayer = load_replayer(corpus) if units.scenarios else None
        searcher = load_searcher(corpus) if meta["kind"] == "retrieval" else None
        [result] = score_units(units, predictions, corpus.specs, replayer, searcher).results
        metadata: dict[str, Any] = {"id": result.id, "lang": result.lang, "category": result.category, "family": family(result.category), "error": result.error, "records": records}
        if result.agent is not None:
            metadata["process"] = result.agent.process
        answer = "; ".join(str(r.get("output") or r.get("calls") or r.get("tool_calls") or "") for r in records)[:2000]
        return Score(value=CORRECT if result.correct else INCORRECT, answer=answer, explanation=result.detail or ("right" if result.correct else result.error or ""), metadata=metadata)

    return score


def corpus_root(repo: str) -> Path:
    """The corpus folder ``-T repo=`` names, relative to where ``inspect eval`` was started.

    Inspect imports a task file from inside the file's folder (it changes the working directory
    while it does), so a relative path is read against the shell's ``PWD``, which a change of
    directory inside the process leaves alone; the default ``.`` means the repository holding it.
    """
    shell = os.environ.get("PWD")
    base = Path(shell) if shell and Path(shell).is_dir() else Path.cwd()
    path = base / repo
    return find_repo_root(path) if repo == "." else path.resolve()


def _parts(value: str | Sequence[str]) -> tuple[str, ...]:
    """A task argument that names several things: ``a,b`` from Python, or the list ``inspect eval
    -T category=a,b`` makes of it."""
    items = value.split(",") if isinstance(value, str) else [str(item) for item in value]
    return tuple(item.strip() for item in items if item.strip())


@task
def callbank(
    repo: str = ".", lang: str | Sequence[str] = "all", category: str | Sequence[str] = "", mode: str = "fc", style: str = "standard", limit: int | None = None, max_turns: int | None = None
) -> Task:
    """callbank on Inspect. ``category``: comma-separated prefixes; ``mode``: fc (native tool
    calls) or prompt (``[Api(k=v)]`` text); ``style``: standard | condensed | minimal."""
    if mode not in SYNTAX:
        raise UserError(f"mode must be fc or prompt, not {mode!r}")
    root = str(corpus_root(repo))
    langs = LANGS if lang == "all" else _parts(lang)
    unknown = [name for name in langs if name not in LANGS]
    if unknown:
        raise UserError(f"lang must be all or a comma-separated list of {', '.join(LANGS)}, not {', '.join(unknown)}")
    categories = _parts(category)
    dataset = samples(load_corpus(root), langs, categories, limit)
    if not dataset:
        raise UserError(f"no case or scenario under {root} matches lang={lang!r} category={category!r}")
    return Task(dataset=MemoryDataset(dataset, name="callbank"), solver=callbank_solver(root, mode, style, max_turns), scorer=callbank_scorer(root), name="callbank")
