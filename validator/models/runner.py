"""Running a model over the benchmark: one prediction record per case checkpoint and scenario.

The loop is model-agnostic — build the request, ask the model (``base.complete_async``), write
the record — so built-in models and endpoint clients share it; only the transport differs.

:func:`plan` lists the work as jobs in a fixed order (case id, language, step; then scenario
id, language), each with the key its record is found by: ``(id, lang, step)``, step 0 for a
scenario (``docs/predictions.md``: one convention in ``run`` and ``score``). A retrieval
checkpoint is a short episode of its own (``validator.models.retrieval``): the model searches
the catalog live, then calls. Every job is independent — a case checkpoint's history is the
case's own dialogue, an episode has its own sandbox session — so :func:`execute` runs up to
``concurrency`` of them at once on one event loop and hands each record over as it completes.
:func:`predictions` is the same, one job after another, for synchronous callers.

A run may repeat its scenarios (and optionally its cases) K times (``--repeats``): trial r of a
job is the same job with ``repeat`` r, written with ``"repeat": r`` (r ≥ 1) and found on resume
by its :attr:`trial_key`. Every trial 0 comes first, then trial 1 of the repeated jobs, and so
on. A shard (``validator.models.shards``) keeps the jobs of every I-th item of the selection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.corpus.records import Case, Scenario, Spec
from validator.corpus.selection import Selection
from validator.models.base import Model, Reply, Request, RequestRejected, complete_async
from validator.models.episode import Environment, OfflineEnvironment, policy_text, run_episode_async
from validator.models.request import case_requests
from validator.models.retrieval import retrieval_requests, run_retrieval_async
from validator.models.shards import Shard
from validator.models.user import UserFactory, scripted_user
from validator.scoring.predictions import SCENARIO_STEP, Key
from validator.toolsearch import SEARCH_API, is_retrieval

TrialKey = tuple[str, str, int, int]  # (id, lang, step, repeat)


def case_record(request: Request, reply: Reply) -> dict[str, Any]:
    """The prediction record of one case checkpoint (schemas/predictions.schema.json)."""
    record: dict[str, Any] = {"id": request.id, "lang": request.lang, "step": request.step, "output": reply.content or ""}
    if reply.tool_calls is not None:
        record["tool_calls"] = reply.tool_calls
    if reply.usage:
        record["usage"] = reply.usage
    return record


@dataclass(frozen=True)
class RunContext:
    """What every job needs: the model, the corpus's specs, sandboxes, the user side, settings.

    ``environment`` makes a scenario's sandbox session, ``case_environment`` a retrieval
    case's (``validator.models.retrieval.case_environments``).
    """

    model: Model
    specs: Mapping[str, Spec]
    environment: Callable[[Scenario, str], Environment]
    users: UserFactory = scripted_user
    syntax: str = "python"
    style: str = "standard"
    max_turns: int | None = None
    case_environment: Callable[[Case, str], Environment] | None = None


def with_repeat(record: dict[str, Any], repeat: int) -> dict[str, Any]:
    """The record, marked as trial ``repeat`` when it is a repeat (trial 0 carries no mark)."""
    return {**record, "repeat": repeat} if repeat else record


class _Trial:
    """What every job has: its key, its trial key (with the repeat), its item id."""

    repeat: int

    @property
    def key(self) -> Key:
        raise NotImplementedError

    @property
    def trial_key(self) -> TrialKey:
        return (*self.key, self.repeat)

    @property
    def item(self) -> str:
        return self.key[0]


@dataclass(frozen=True)
class CaseJob(_Trial):
    request: Request
    repeat: int = 0

    @property
    def key(self) -> Key:
        return (self.request.id, self.request.lang, self.request.step)

    @property
    def category(self) -> str:
        return self.request.category

    async def run(self, context: RunContext) -> dict[str, Any]:
        try:
            reply = await complete_async(context.model, self.request)
        except RequestRejected as error:
            return with_repeat({"id": self.request.id, "lang": self.request.lang, "step": self.request.step, "output": "", "error": str(error)}, self.repeat)
        return with_repeat(case_record(self.request, reply), self.repeat)


@dataclass(frozen=True)
class RetrievalJob(_Trial):
    """One retrieval checkpoint: an episode that starts from its opening request."""

    request: Request
    case: Case
    repeat: int = 0

    @property
    def key(self) -> Key:
        return (self.request.id, self.request.lang, self.request.step)

    @property
    def category(self) -> str:
        return self.request.category

    async def run(self, context: RunContext) -> dict[str, Any]:
        if context.case_environment is None:
            environment: Environment = OfflineEnvironment("retrieval cases need the sandbox runtime")
        else:
            environment = context.case_environment(self.case, self.request.lang)
        return with_repeat(await run_retrieval_async(context.model, self.request, environment, context.specs), self.repeat)


@dataclass(frozen=True)
class ScenarioJob(_Trial):
    scenario: Scenario
    lang: str
    policy: str
    repeat: int = 0

    @property
    def key(self) -> Key:
        return (self.scenario.id, self.lang, SCENARIO_STEP)

    @property
    def category(self) -> str:
        return self.scenario.category

    async def run(self, context: RunContext) -> dict[str, Any]:
        record = await run_episode_async(
            context.model,
            self.scenario,
            self.lang,
            context.specs,
            context.syntax,
            context.environment(self.scenario, self.lang),
            self.policy,
            style=context.style,
            user=context.users(self.scenario, self.lang),
            max_turns=context.max_turns,
        )
        return with_repeat({"id": record["id"], "lang": record["lang"], "step": SCENARIO_STEP, **record}, self.repeat)


Job = CaseJob | RetrievalJob | ScenarioJob


def plan(
    corpus: Corpus,
    *,
    syntax: str = "python",
    style: str = "standard",
    langs: Sequence[str] = LANGS,
    categories: Sequence[str] = (),
    limit: int | None = None,
    shard: Shard | None = None,
    repeats: int = 1,
    repeat_cases: bool = False,
) -> list[Job]:
    """Every job of the selection, in order; ``limit``: the first N cases (by id) of each
    category and the first N scenarios of each agent category, in every selected language
    (``validator.corpus.selection``, which ``callbank score`` reads the same way).

    ``shard``: only this slice of the items; ``repeats``: trials 1 … repeats−1 of every scenario
    (and of every case with ``repeat_cases``) follow the first trial of everything.
    """
    jobs = _first_trials(corpus, syntax=syntax, style=style, langs=langs, categories=categories, limit=limit)
    if shard is not None:
        jobs = shard.take(jobs, lambda job: job.item)
    again = [job for job in jobs if repeat_cases or isinstance(job, ScenarioJob)]
    return jobs + [replace(job, repeat=repeat) for repeat in range(1, repeats) for job in again]


def _first_trials(
    corpus: Corpus, *, syntax: str, style: str, langs: Sequence[str], categories: Sequence[str], limit: int | None
) -> list[Job]:
    jobs: list[Job] = []
    selection = Selection.of(langs, categories, limit)
    cases, scenarios = selection.items(corpus)
    chosen = [lang for lang in corpus.langs if lang in selection.langs]  # a one-language repository has one
    for case in cases:
        if is_retrieval(case.category):
            for lang in chosen:
                policy = search_policy(corpus, lang)
                jobs.extend(RetrievalJob(request, case) for request in retrieval_requests(case, lang, corpus.specs, syntax, style=style, policy=policy))
        else:
            jobs.extend(CaseJob(request) for lang in chosen for request in case_requests(case, lang, corpus.specs, syntax, style=style))
    for scenario in scenarios:
        jobs.extend(ScenarioJob(scenario, lang, policy_text(corpus, scenario, lang)) for lang in chosen)
    return jobs


def search_policy(corpus: Corpus, lang: str) -> str:
    """The policy of the sandbox implementing tool search: how to search, shown in retrieval runs."""
    spec = corpus.specs.get(SEARCH_API)
    sandbox = corpus.sandboxes.get(spec.sandbox) if spec is not None and spec.sandbox is not None else None
    text = corpus.read_text(sandbox.policy_path(lang)) if sandbox is not None else None
    return text.strip() if text is not None else ""


async def execute(
    jobs: Sequence[Job],
    context: RunContext,
    on_record: Callable[[Job, dict[str, Any]], None],
    *,
    concurrency: int = 1,
) -> None:
    """Run jobs, at most ``concurrency`` at a time; on_record(job, record) as each completes.

    The first exception stops the run: the jobs in flight are cancelled (their records were not
    handed over, so a resumed run does them again) and the exception is raised.
    """
    pending = iter(jobs)

    async def worker() -> None:
        for job in pending:  # one shared iterator: each job is taken by exactly one worker
            record = await job.run(context)
            on_record(job, record)

    workers = [asyncio.ensure_future(worker()) for _ in range(max(1, min(concurrency, len(jobs))))]
    try:
        await asyncio.gather(*workers)
    except BaseException:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        raise


def predictions(
    model: Model,
    corpus: Corpus,
    *,
    syntax: str = "python",
    langs: Sequence[str] = LANGS,
    categories: Sequence[str] = (),
    environment: Callable[[Scenario, str], Environment],
    case_environment: Callable[[Case, str], Environment] | None = None,
    style: str = "standard",
) -> Iterator[dict[str, Any]]:
    """Every record, one job after another, in plan order (for synchronous callers)."""
    context = RunContext(model, corpus.specs, environment, syntax=syntax, style=style, case_environment=case_environment)
    for job in plan(corpus, syntax=syntax, style=style, langs=langs, categories=categories):
        yield asyncio.run(job.run(context))
