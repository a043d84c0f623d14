"""`callbank review run`: ask every judge about every case not yet answered, then file the records.

1. Read the judges, the corpus and the vote cache; work out which (item, judge) questions have
   no outcome for the item's current content, the judge's model and the prompt version.
2. When something must be asked: check the API keys and probe every judge needed, so a wrong URL
   or key is one clear error before any work starts.
3. Ask, at most ``concurrency`` questions at a time, with a progress bar. Each outcome is appended
   to the vote cache the moment it arrives; when an item has every judge's outcome its record is
   written (atomically). A judge that keeps failing is dropped for the rest of the run; its
   questions stay unanswered and the next run asks them.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validator.corpus.index import Corpus
from validator.corpus.records import Spec
from validator.errors import UserError
from validator.review import JUDGES_FILE
from validator.review.client import DEFAULT_POLICY, JudgeFailure, RetryPolicy, ask, make_client, probe
from validator.review.items import Item, collect_items, target_paths
from validator.review.judges import Judge, load_judges
from validator.review.lock import run_lock
from validator.review.material import material_for
from validator.review.prompts import Prompt, load_prompt
from validator.review.records import read_record, remove_stale_temporaries, updated_record, vote_entry, write_record
from validator.review.resolve import now_utc
from validator.review.votes import VoteKey, VoteStore


@dataclass
class RunSummary:
    items: int = 0
    asked: int = 0  # outcomes received in this run
    cached: int = 0  # outcomes already in the cache
    accepted: int = 0  # items whose record is accepted
    pending: int = 0  # items whose record is pending (or rejected)
    judge_errors: int = 0  # malformed-verdict errors received in this run
    unanswered: int = 0  # questions left for the next run (a judge failed)
    records_written: int = 0
    problems: list[str] = field(default_factory=list)  # skipped files, failed judges, unreadable records

    @property
    def complete(self) -> bool:
        return not self.unanswered and not self.problems

    def render(self) -> str:
        lines = [
            f"callbank review: {self.items} item(s); {self.asked} vote(s) asked, {self.cached} cached; "
            f"{self.accepted} accepted, {self.pending} queued for humans; {self.judge_errors} judge error(s); "
            f"{self.records_written} record(s) written"
        ]
        if self.unanswered:
            lines.append(f"{self.unanswered} question(s) could not be asked; run again to ask them")
        lines += [f"  {p}" for p in self.problems]
        return "\n".join(lines)


@dataclass
class _Plan:
    item: Item
    keys: dict[str, VoteKey]  # judge name → key of the wanted outcome
    outcomes: dict[str, dict[str, Any]]  # judge name → stored outcome
    prompts: dict[str, Prompt]  # judge name → prompt


def _plan(items: list[Item], judges: list[Judge], store: VoteStore, retry_errors: bool) -> list[_Plan]:
    plans = []
    for item in items:
        stored = store.load(item.id)
        keys, outcomes, prompts = {}, {}, {}
        for judge in judges:
            prompt = load_prompt(item.family, judge.lang)
            key = VoteKey(item.content_hash, judge.name, judge.model, prompt.name, judge.lang)
            keys[judge.name], prompts[judge.name] = key, prompt
            outcome = stored.get(key)
            if outcome is not None and not (retry_errors and outcome.get("error")):
                outcomes[judge.name] = outcome
        plans.append(_Plan(item, keys, outcomes, prompts))
    return plans


def _file_record(root: Path, plan: _Plan, judges: list[Judge], summary: RunSummary) -> None:
    votes = [vote_entry(plan.outcomes[j.name]) for j in judges]
    try:
        existing = read_record(root, plan.item.id)
    except UserError as error:
        summary.problems.append(str(error))
        return
    record = updated_record(existing, plan.item, votes)
    if write_record(root, record):
        summary.records_written += 1
    if record["status"] == "accepted":
        summary.accepted += 1
    else:
        summary.pending += 1


async def _probe_all(judges: list[Judge], clients: dict[str, Any], policy: RetryPolicy) -> None:
    async def one(judge: Judge) -> str | None:
        try:
            await probe(clients[judge.name], judge, policy)
        except JudgeFailure as failure:
            return f"judge {judge.name!r} ({judge.model} at {judge.base_url}) is unreachable: {failure}"
        return None

    failures = [f for f in await asyncio.gather(*(one(j) for j in judges)) if f]
    if failures:
        raise UserError("; ".join(failures) + "; nothing was asked")


async def _ask_all(
    root: Path, plans: list[_Plan], judges: list[Judge], store: VoteStore, specs: Mapping[str, Spec], concurrency: int, policy: RetryPolicy, progress: bool, summary: RunSummary
) -> None:
    needed = {j.name for p in plans for j in judges if j.name not in p.outcomes}
    by_name = {j.name: j for j in judges}
    for name in sorted(needed):
        by_name[name].api_key()  # a missing key is a UserError before anything is sent
    clients = {name: make_client(by_name[name]) for name in needed}
    try:
        await _probe_all([by_name[n] for n in sorted(needed)], clients, policy)
        from tqdm import tqdm

        questions = [(p, by_name[n]) for p in plans for n in (j.name for j in judges) if n not in p.outcomes]
        semaphore = asyncio.Semaphore(max(1, concurrency))
        failed: dict[str, str] = {}
        materials: dict[str, dict[str, str]] = {}  # item id → material, rendered once for all judges
        bar = tqdm(total=len(questions), unit="vote", desc="review", disable=not progress or None, file=sys.stderr, dynamic_ncols=True)

        async def question(plan: _Plan, judge: Judge) -> None:
            async with semaphore:
                if judge.name in failed:
                    summary.unanswered += 1
                    bar.update(1)
                    return
                if plan.item.id not in materials:
                    materials[plan.item.id] = material_for(plan.item, specs, root)
                messages = plan.prompts[judge.name].messages(materials[plan.item.id])
                try:
                    outcome = await ask(clients[judge.name], judge, messages, policy)
                except JudgeFailure as failure:
                    failed.setdefault(judge.name, str(failure))
                    summary.unanswered += 1
                    return
                finally:
                    bar.update(1)
            key = plan.keys[judge.name]
            line: dict[str, Any] = {"id": plan.item.id, **key._asdict(), "attempts": outcome.attempts, "at": now_utc()}
            if outcome.verdict is None:
                line["error"] = outcome.error
                summary.judge_errors += 1
            else:
                line |= {"verdict": outcome.verdict.verdict, "rationale": outcome.verdict.rationale, "problems": list(outcome.verdict.problems), "suggested_fix": outcome.verdict.suggested_fix}
            store.append(plan.item.id, line)
            plan.outcomes[judge.name] = line
            summary.asked += 1
            if len(plan.outcomes) == len(judges):
                _file_record(root, plan, judges, summary)

        try:
            await asyncio.gather(*(question(p, j) for p, j in questions))
        finally:
            bar.close()
        for name, message in sorted(failed.items()):
            summary.problems.append(f"judge {name!r} failed and was dropped for the rest of the run: {message}")
    finally:
        for client in clients.values():
            await client.close()


def run_review(
    root: Path,
    paths: Sequence[str] = (),
    judges_file: Path | None = None,
    concurrency: int = 4,
    policy: RetryPolicy = DEFAULT_POLICY,
    progress: bool = True,
    retry_errors: bool = False,
) -> RunSummary:
    root = Path(root)
    judges = load_judges(judges_file or root / JUDGES_FILE, root)
    if concurrency < 1:
        raise UserError("--concurrency must be at least 1")
    corpus = Corpus.load(root, kinds=("api", "case", "scenario"))
    items, skipped = collect_items(corpus, target_paths(root, paths))
    summary = RunSummary(items=len(items), problems=list(skipped))
    store = VoteStore(root)
    with run_lock(root):
        remove_stale_temporaries(root)
        plans = _plan(items, judges, store, retry_errors)
        summary.cached = sum(len(p.outcomes) for p in plans)
        for plan in plans:
            if len(plan.outcomes) == len(judges):
                _file_record(root, plan, judges, summary)
        if any(len(p.outcomes) < len(judges) for p in plans):
            asyncio.run(_ask_all(root, plans, judges, store, corpus.specs, concurrency, policy, progress, summary))
    return summary
