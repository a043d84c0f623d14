"""What a run will ask of its server, said before it starts; and the time the rest will take, once
the first records are back.

A local model on a CPU spends its time reading prompts: the cost of a record is about the
prompt tokens of its requests. Before the run, every job's load is estimated from its first
request — the system prompt, the dialogue so far and, in ``--mode fc``, the tools — and from
how many requests it needs at least (one per case checkpoint; a retrieval episode searches, calls
and answers; an agent episode takes a turn per scripted line and per reference call). Tokens are
estimated from characters (four ASCII characters, or one other character, to a token: what
current tokenizers give for English, JSON and Chinese, within a factor of two). Once the first
records are back, their measured pace per estimated token gives the time the rest will take.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from validator.corpus.records import Spec
from validator.models.prompts import system_prompt
from validator.models.request import scenario_apis, tools_for
from validator.models.runner import CaseJob, Job, RetrievalJob, ScenarioJob

RETRIEVAL_REQUESTS = 3  # a search, a call with what it found, the answer
ESTIMATE_AFTER = 3  # records back before the pace is trusted
WORTH_SAYING = 60.0  # seconds: a shorter run needs no estimate


class Load(NamedTuple):
    requests: int  # at least
    tokens: int  # prompt tokens of those requests, estimated


def text_tokens(text: str) -> int:
    """Prompt tokens of text, estimated: four ASCII characters or one other character a token."""
    ascii_chars = sum(1 for ch in text if ch < "\x80")
    return ascii_chars // 4 + (len(text) - ascii_chars) + 1


def _request_tokens(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]], syntax: str) -> int:
    text = "\n".join(str(m.get("content") or "") + json.dumps(m.get("tool_calls") or "", ensure_ascii=False) for m in messages)
    if syntax == "tool_calls":  # in prompt mode the APIs are already in the system prompt
        text += json.dumps(list(tools), ensure_ascii=False)
    return text_tokens(text)


def job_load(job: Job, specs: Mapping[str, Spec], syntax: str, style: str) -> Load:
    """What one job asks of the server, at least."""
    if isinstance(job, CaseJob):
        return Load(1, _request_tokens(job.request.messages, job.request.tools, syntax))
    if isinstance(job, RetrievalJob):
        return Load(RETRIEVAL_REQUESTS, RETRIEVAL_REQUESTS * _request_tokens(job.request.messages, job.request.tools, syntax))
    scenario, lang = job.scenario, job.lang
    tools = tools_for(scenario_apis(scenario, specs), specs, lang)
    system = system_prompt(lang, syntax, tools=tools, time=scenario.time, policy=job.policy, style=style)
    script = scenario.user[lang].script if lang in scenario.user else ()
    requests = max(1, len(script) + len(scenario.reference_calls))
    return Load(requests, requests * _request_tokens([{"content": system}, *({"content": line} for line in script[:1])], tools, syntax))


class Plan(NamedTuple):
    records: int
    cases: int  # case checkpoints
    retrieval: int  # retrieval episodes
    agent: int  # agent episodes
    requests: int
    tokens: int


def plan_load(jobs: Sequence[Job], specs: Mapping[str, Spec], syntax: str, style: str) -> tuple[Plan, list[Load]]:
    loads = [job_load(job, specs, syntax, style) for job in jobs]
    plan = Plan(
        records=len(jobs),
        cases=sum(isinstance(job, CaseJob) for job in jobs),
        retrieval=sum(isinstance(job, RetrievalJob) for job in jobs),
        agent=sum(isinstance(job, ScenarioJob) for job in jobs),
        requests=sum(load.requests for load in loads),
        tokens=sum(load.tokens for load in loads),
    )
    return plan, loads


def _amount(tokens: int) -> str:
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    if tokens >= 10_000:
        return f"{round(tokens / 1000):,}k"
    return f"{tokens:,}"


def describe_plan(plan: Plan, langs: Sequence[str]) -> str:
    """One line: what the run will write and ask, before it starts."""
    parts = [f"{plan.cases:,} case checkpoint(s)"]
    if plan.retrieval:
        parts.append(f"{plan.retrieval:,} retrieval episode(s)")
    if plan.agent:
        parts.append(f"{plan.agent:,} agent episode(s)")
    return (
        f"plan: {plan.records:,} record(s) in {', '.join(langs)} — {', '.join(parts)}; "
        f"at least {plan.requests:,} request(s), about {_amount(plan.tokens)} prompt tokens"
    )


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Pace:
    """Measures the first records and says, once, how long the rest will take."""

    def __init__(self, loads: Sequence[Load]) -> None:
        self.total = sum(load.tokens for load in loads) or 1
        self.records = len(loads)
        self.done_tokens = 0
        self.done = 0
        self.said = False

    def record(self, load: Load, elapsed: float) -> str | None:
        """Count one finished record (its load, seconds since the run began); the estimate line the
        first time enough is known and the rest is long enough to be worth saying."""
        self.done += 1
        self.done_tokens += load.tokens
        if self.said or self.done < min(ESTIMATE_AFTER, self.records) or self.done >= self.records:
            return None
        self.said = True
        left = elapsed * (self.total - self.done_tokens) / max(self.done_tokens, 1)
        if left < WORTH_SAYING:
            return None
        return (
            f"estimate: about {duration(left)} for the {self.records - self.done:,} record(s) left, at the pace of the first "
            f"{self.done} ({duration(elapsed)}); Ctrl-C stops the run and the same command resumes it"
        )
