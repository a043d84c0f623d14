"""The model-agnostic runner: the plan, bounded concurrency, stopping on the first failure."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from validator.corpus.index import Corpus
from validator.models import create_model
from validator.models.base import EndpointError, ModelContext, Reply, Request
from validator.models.episode import environments
from validator.models.retrieval import case_environments
from validator.models.runner import CaseJob, RetrievalJob, RunContext, ScenarioJob, execute, plan, predictions


def test_plan_order_keys_and_limit(repo: Corpus) -> None:
    jobs = plan(repo)
    assert len(jobs) == 46 and len({job.key for job in jobs}) == 46
    cases = [job for job in jobs if isinstance(job, (CaseJob, RetrievalJob))]
    # a retrieval checkpoint is one episode: one job per case and language
    assert {job.key for job in cases if isinstance(job, RetrievalJob)} == {
        (case_id, lang, 0) for case_id in ("retrieval-call-0001", "retrieval-plan-0001") for lang in ("en", "zh")
    }
    assert [job.key for job in cases] == sorted(job.key for job in cases)  # id, language, step
    assert all(isinstance(job, ScenarioJob) for job in jobs[len(cases) :])
    limited = plan(repo, limit=1, langs=["zh"])
    per_category = Counter(job.category for job in limited if job.key[2] == 0)
    assert set(per_category.values()) == {1}  # one case (or scenario) of each category
    assert {job.key[0] for job in limited if job.category == "normal/atom/number"} == {"number-0001"}
    assert {job.key for job in limited if job.category == "normal/multi_turn/adjust"} == {("adjust-0001", "zh", 0), ("adjust-0001", "zh", 1)}


def test_a_scenario_record_is_step_0_like_every_single_checkpoint(repo: Corpus) -> None:
    jobs = plan(repo, categories=["agent"], langs=["en"])
    assert jobs and {job.key[2] for job in jobs} == {0}


def test_a_corpus_with_a_broken_case_is_refused_before_any_work(tmp_path: Path) -> None:
    import shutil

    from tests.models.conftest import FIXTURE
    from validator.errors import UserError

    shutil.copytree(FIXTURE, tmp_path / "repo")
    broken = tmp_path / "repo" / "dialogues" / "normal" / "atom" / "bool" / "broken-0001.yaml"
    broken.write_text("id: broken-0001\ncategory: normal/atom/bool\nen: {turns: [{user: a, expect: {}}]}\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"1 corpus file\(s\) cannot be read or break their schema \(dialogues/normal/atom/bool/broken-0001\.yaml\); `callbank run` needs an intact corpus"):
        Corpus.load_benchmark(tmp_path / "repo", "run")


class SlowModel:
    """An async model that counts how many requests are in flight at once."""

    name = "slow"

    def __init__(self, fail_on: str | None = None) -> None:
        self.active = 0
        self.peak = 0
        self.asked: list[str] = []
        self.fail_on = fail_on

    def complete(self, request: Request) -> Reply:
        raise AssertionError("the runner uses acomplete when there is one")

    async def acomplete(self, request: Request) -> Reply:
        self.active += 1
        self.peak = max(self.peak, self.active)
        self.asked.append(request.id)
        try:
            await asyncio.sleep(0.01)
            if request.id == self.fail_on:
                raise EndpointError("the endpoint went away")
            return Reply("[]")
        finally:
            self.active -= 1


@pytest.mark.parametrize("concurrency", [1, 3])
def test_concurrency_is_bounded(repo: Corpus, concurrency: int) -> None:
    model = SlowModel()
    jobs = plan(repo, categories=["normal"])
    got: list[dict[str, Any]] = []
    asyncio.run(execute(jobs, RunContext(model, repo.specs, environments(repo)), lambda job, record: got.append(record), concurrency=concurrency))
    assert model.peak == concurrency and len(got) == len(jobs) == 30


def test_the_first_failure_stops_the_run(repo: Corpus) -> None:
    model = SlowModel(fail_on="list-0001")
    jobs = plan(repo, categories=["normal"])
    got: list[dict[str, Any]] = []
    with pytest.raises(EndpointError):
        asyncio.run(execute(jobs, RunContext(model, repo.specs, environments(repo)), lambda job, record: got.append(record), concurrency=2))
    assert "list-0001" not in {r["id"] for r in got} and len(model.asked) < len(jobs)


def test_oracle_through_execute_equals_predictions(repo: Corpus) -> None:
    """The built-in models take the same path as endpoints: the same records either way."""
    context = ModelContext(repo)
    for name in ("oracle", "null"):
        for syntax in ("python", "tool_calls"):
            model = create_model(name, context)
            sequential = list(
                predictions(model, repo, syntax=syntax, environment=environments(repo), case_environment=case_environments(repo))
            )  # fmt: skip
            got: list[dict[str, Any]] = []
            jobs = plan(repo, syntax=syntax)
            run_context = RunContext(model, repo.specs, environments(repo), syntax=syntax, case_environment=case_environments(repo))
            asyncio.run(execute(jobs, run_context, lambda job, record, got=got: got.append(record), concurrency=4))
            def key(r: dict[str, Any]) -> tuple[str, str, int]:
                return (r["id"], r["lang"], r.get("step", -1))

            assert sorted(got, key=key) == sorted(sequential, key=key) and len(got) == 46
