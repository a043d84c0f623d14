"""Running a model over the benchmark: one prediction record per case checkpoint and scenario.

The loop is model-agnostic — build the request, ask the model (``base.complete_async``), write
the record — so built-in models and endpoint clients share it; only the transport differs.

:func:`plan` lists the work as jobs in a fixed order (case id, language, step; then scenario
id, language), each with the key its record is found by (``(id, lang, step)``, step ``None``
for a scenario). A retrieval checkpoint is a short episode of its own
(``validator.models.retrieval``): the model searches the catalog live, then calls. Every job
is independent — a case checkpoint's history is the case's own dialogue, an episode has its
own sandbox session — so :func:`execute` runs up to
``concurrency`` of them at once on one event loop and hands each record over as it completes.
:func:`predictions` is the same, one job after another, for synchronous callers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from validator.models.base import Model, Reply, Request, RequestRejected, complete_async
from validator.models.episode import Environment, policy_text, run_episode_async
from validator.models.episode import OfflineEnvironment
from validator.models.request import case_requests
from validator.models.retrieval import retrieval_requests, run_retrieval_async
from validator.models.user import UserFactory, scripted_user
from validator.scoring.units import LANGS, scenario_category, selected
from validator.toolsearch import SEARCH_API, is_retrieval

Key = tuple[str, str, int | None]  # (id, lang, step); step None for a scenario


def case_record(request: Request, reply: Reply) -> dict[str, Any]:
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
    specs: Mapping[str, Any]
    environment: Callable[[Mapping[str, Any], str], Environment]
    users: UserFactory = scripted_user
    syntax: str = "python"
    style: str = "standard"
    max_turns: int | None = None
    case_environment: Callable[[Mapping[str, Any], str], Environment] | None = None


@dataclass(frozen=True)
class CaseJob:
    request: Request

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
            return {"id": self.request.id, "lang": self.request.lang, "step": self.request.step, "output": "", "error": str(error)}
        return case_record(self.request, reply)


@dataclass(frozen=True)
class RetrievalJob:
    """One retrieval checkpoint: an episode that starts from its opening request."""

    request: Request
    case: Mapping[str, Any]

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
        return await run_retrieval_async(context.model, self.request, environment, context.specs)


@dataclass(frozen=True)
class ScenarioJob:
    scenario: Mapping[str, Any]
    lang: str
    policy: str

    @property
    def key(self) -> Key:
        return (str(self.scenario["id"]), self.lang, None)

    @property
    def category(self) -> str:
        return scenario_category(self.scenario)

    async def run(self, context: RunContext) -> dict[str, Any]:
        return await run_episode_async(
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


Job = CaseJob | RetrievalJob | ScenarioJob


class Plan(NamedTuple):
    jobs: list[Job]
    unreadable: list[str]  # ids of cases whose dialogue cannot be turned into requests (`callbank check` says why)


def plan(
    cases: Mapping[str, Any],
    scenarios: Mapping[str, Any],
    specs: Mapping[str, Any],
    *,
    syntax: str = "python",
    style: str = "standard",
    langs: Sequence[str] = LANGS,
    categories: Sequence[str] = (),
    limit: int | None = None,
    root: Path | None = None,
) -> Plan:
    """Every job of the selection, in order; ``limit``: the first N cases (by id) of each
    category and the first N scenarios of each agent category, in every selected language."""
    jobs: list[Job] = []
    unreadable: list[str] = []
    taken: dict[str, int] = {}

    def admit(category: str) -> bool:
        if not selected(category, categories):
            return False
        if limit is not None and taken.get(category, 0) >= limit:
            return False
        taken[category] = taken.get(category, 0) + 1
        return True

    for case_id in sorted(cases):
        case = cases[case_id]
        if not isinstance(case, dict) or not admit(str(case.get("category", ""))):
            continue
        retrieval = is_retrieval(case.get("category"))
        try:
            if retrieval:
                requests = [
                    r
                    for lang in LANGS
                    if lang in langs
                    for r in retrieval_requests(case, lang, specs, syntax, style=style, policy=search_policy(root, specs, lang))
                ]
            else:
                requests = [r for lang in LANGS if lang in langs for r in case_requests(case, lang, specs, syntax, style=style)]
        except (AttributeError, KeyError, TypeError, ValueError):  # a malformed dialogue
            unreadable.append(case_id)
            continue
        jobs.extend(RetrievalJob(request, case) if retrieval else CaseJob(request) for request in requests)
    for scenario_id in sorted(scenarios):
        scenario = scenarios[scenario_id]
        if not isinstance(scenario, dict) or not admit(scenario_category(scenario)):
            continue
        for lang in LANGS:
            if lang in langs:
                jobs.append(ScenarioJob(scenario, lang, policy_text(root, scenario, lang)))
    return Plan(jobs, unreadable)


def search_policy(root: Path | None, specs: Mapping[str, Any], lang: str) -> str:
    """The policy of the sandbox implementing tool search: how to search, shown in retrieval runs."""
    spec = specs.get(SEARCH_API)
    sandbox = spec.get("sandbox") if isinstance(spec, Mapping) else None
    return policy_text(root, {"sandboxes": [sandbox]}, lang) if isinstance(sandbox, str) else ""


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
    cases: Mapping[str, Any],
    scenarios: Mapping[str, Any],
    specs: Mapping[str, Any],
    *,
    syntax: str = "python",
    langs: Sequence[str] = LANGS,
    categories: Sequence[str] = (),
    environment: Callable[[Mapping[str, Any], str], Environment],
    case_environment: Callable[[Mapping[str, Any], str], Environment] | None = None,
    root: Path | None = None,
    style: str = "standard",
) -> Iterator[dict[str, Any]]:
    """Every record, one job after another, in plan order (for synchronous callers)."""
    context = RunContext(model, specs, environment, syntax=syntax, style=style, case_environment=case_environment)
    for job in plan(cases, scenarios, specs, syntax=syntax, style=style, langs=langs, categories=categories, root=root).jobs:
        yield asyncio.run(job.run(context))
