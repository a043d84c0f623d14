"""What a run says before it starts, and once its first records are back."""

from __future__ import annotations

from validator.corpus.index import Corpus
from validator.models.estimate import Load, Pace, describe_plan, duration, job_load, plan_load, text_tokens
from validator.models.runner import CaseJob, RetrievalJob, ScenarioJob, plan


def test_tokens_are_estimated_from_characters() -> None:
    assert text_tokens("") == 1 and text_tokens("a" * 400) == 101
    assert text_tokens("今天天气怎么样") == 8  # a Chinese character is about a token


def test_every_job_is_costed_by_its_first_request(repo: Corpus) -> None:
    jobs = plan(repo, syntax="tool_calls", langs=["en"], categories=["normal/multi_turn", "retrieval/call", "agent/multi_step"], limit=1)
    loads = {type(job).__name__: job_load(job, repo.specs, "tool_calls", "standard") for job in jobs}
    assert loads["CaseJob"].requests == 1 and loads["RetrievalJob"].requests == 3
    scenario = next(job for job in jobs if isinstance(job, ScenarioJob))
    assert loads["ScenarioJob"].requests == len(scenario.scenario.user["en"].script) + len(scenario.scenario.reference_calls)
    case = next(job for job in jobs if isinstance(job, CaseJob) and job.request.step == 1)  # a later checkpoint carries more history
    first = next(job for job in jobs if isinstance(job, CaseJob) and job.request.step == 0 and job.request.id == case.request.id)
    assert job_load(case, repo.specs, "tool_calls", "standard").tokens > job_load(first, repo.specs, "tool_calls", "standard").tokens
    # in fc mode the tools travel beside the prompt and are counted; in prompt mode they are in it
    [prompt_case] = [job for job in plan(repo, syntax="python", langs=["en"], categories=["normal/single_turn/single"], limit=1) if isinstance(job, CaseJob)]
    assert job_load(prompt_case, repo.specs, "python", "standard").tokens > 0
    assert any(isinstance(job, RetrievalJob) for job in jobs)


def test_the_plan_line_counts_records_requests_and_tokens(repo: Corpus) -> None:
    jobs = plan(repo, syntax="tool_calls", langs=["en", "zh"], categories=["normal/multi_turn", "retrieval/call", "agent/multi_step"], limit=1)
    summary, loads = plan_load(jobs, repo.specs, "tool_calls", "standard")
    assert summary.records == len(jobs) == summary.cases + summary.retrieval + summary.agent
    assert summary.requests == sum(load.requests for load in loads) and summary.tokens == sum(load.tokens for load in loads)
    line = describe_plan(summary, ["en", "zh"])
    assert line.startswith(f"plan: {len(jobs)} record(s) in en, zh — {summary.cases} case checkpoint(s), 2 retrieval episode(s), 2 agent episode(s)")
    assert f"at least {summary.requests} request(s)" in line


def test_the_pace_of_the_first_records_is_said_once_when_the_rest_is_long() -> None:
    pace = Pace([Load(1, 1000)] * 10)
    assert pace.record(Load(1, 1000), 10.0) is None and pace.record(Load(1, 1000), 20.0) is None
    line = pace.record(Load(1, 1000), 30.0)  # 3 of 10 done in 30 s: 70 s left
    assert line is not None and line.startswith("estimate: about 70 s for the 7 record(s) left, at the pace of the first 3 (30 s)")
    assert pace.record(Load(1, 1000), 40.0) is None  # once
    quick = Pace([Load(1, 1000)] * 10)
    assert [quick.record(Load(1, 1000), t) for t in (1.0, 2.0, 3.0)] == [None, None, None]  # 7 s left: not worth saying
    heavy = Pace([Load(1, 100)] * 3 + [Load(5, 100_000)])  # the episodes weigh what their tokens weigh
    assert [heavy.record(Load(1, 100), t) for t in (3.0, 6.0)] == [None, None]
    assert "about 56 min" in (heavy.record(Load(1, 100), 10.0) or "")
    assert duration(30) == "30 s" and duration(600) == "10 min" and duration(7200) == "2.0 h"
