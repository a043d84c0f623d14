"""What `callbank synth` costs without its models, and deduplication at scale.

Two measures, in process:

1. The model-free stages per candidate on this repository, in CPU time (the machine is shared
   with other jobs, so wall time measures the neighbours) (goal: under 50 ms together): *plan*
   (drawing recipes), *execute* (the reference calls in the real sandboxes, the case document,
   its schema), *check* (every check and exec rule on the candidate file in an overlay of the
   corpus), *dedupe* (the near-duplicate index over every case of the corpus) and *write* (the
   case file and its pending review record, fsync'd). The candidates are the corpus's own
   single-call cases given fresh ids, so execution, rules and the index do real work (each is
   of course a near-duplicate of its source: the dedupe stage rejects it, after the full query).
2. Deduplication against N = 100,000 existing cases (goal: under 1 ms per candidate after
   indexing): N synthetic bilingual cases with distinct requests are indexed once, then 1,000
   new candidates are checked against the index.

    python benchmarks/bench_synth.py [--candidates 100] [--existing 100000] [--queries 1000]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from validator.corpus.build import build_case  # noqa: E402
from validator.corpus.index import Corpus  # noqa: E402
from validator.corpus.records import Case  # noqa: E402
from validator.loading import Document  # noqa: E402
from validator.matchers import render  # noqa: E402
from validator.synth.checks import Checker  # noqa: E402
from validator.synth.dedupe import Deduper  # noqa: E402
from validator.synth.execute import accept_aliases, case_document  # noqa: E402
from validator.synth.outcome import Rejected  # noqa: E402
from validator.synth.pipeline import case_record  # noqa: E402
from validator.synth.plan import Recipe, plan, pool, sandbox_clocks  # noqa: E402
from validator.synth.render import case_path, render_case  # noqa: E402
from validator.synth.write import write_candidate  # noqa: E402

STAGE_GOAL_MS = 50.0
DEDUPE_GOAL_MS = 1.0


def drafts(corpus: Corpus, limit: int) -> list[tuple[Recipe, dict[str, Any]]]:
    """Recipes and drafts made from the corpus's runnable single-call cases."""
    found = []
    for case in corpus.cases_in(["normal/single_turn/single"]):
        if case.state or case.profile:
            continue
        draft: dict[str, Any] = {}
        for lang, dialogue in case.dialogues.items():
            turns: list[dict[str, Any]] = []
            for turn in dialogue.turns:
                if turn.kind == "user":
                    turns.append({"user": turn.text})  # type: ignore[union-attr]
                elif turn.kind == "expect":
                    calls = [{"api": call.api, "args": render(call.args, lang)} for call in turn.first]  # type: ignore[union-attr]
                    turns.append({"expect": {"calls": calls}})
            draft[lang] = turns
        recipe = Recipe(len(found), 0, case.category, tuple(case.apis[:1]), tuple(case.apis), case.time, 1)
        found.append((recipe, draft))
        if len(found) == limit:
            break
    return found


def stages(limit: int) -> dict[str, float]:
    corpus = Corpus.load(ROOT)
    started = time.process_time()
    specs = pool(corpus)
    recipes = plan("special/incomplete", specs, sandbox_clocks(corpus), limit, 1)
    plan_ms = (time.process_time() - started) * 1000 / len(recipes)
    checker = Checker(corpus)
    started = time.process_time()
    deduper = Deduper(corpus.cases.values(), 0.5)
    index_s = time.process_time() - started
    timings: dict[str, list[float]] = {"execute": [], "check": [], "dedupe": [], "write": []}
    outcomes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as out:
        for recipe, draft in drafts(corpus, limit):
            case_id = f"syn-bench-{recipe.index:05d}"
            try:
                began = time.process_time()
                data = case_document(recipe, draft, case_id, checker.execution.runtime, corpus.schemas)
                text = render_case(data)
                case = case_record(case_path(recipe.category, case_id), text)
                if accept_aliases(data, case, checker.execution):
                    text = render_case(data)
                    case = case_record(case_path(recipe.category, case_id), text)
                timings["execute"].append(time.process_time() - began)
                began = time.process_time()
                checker.require_clean(case_path(recipe.category, case_id), text)
                timings["check"].append(time.process_time() - began)
                began = time.process_time()
                try:
                    deduper.require_new(case)
                finally:
                    timings["dedupe"].append(time.process_time() - began)
            except Rejected as rejection:
                outcomes[f"{rejection.stage}/{rejection.reason}"] = outcomes.get(f"{rejection.stage}/{rejection.reason}", 0) + 1
            began = time.process_time()
            write_candidate(Path(out), data, text, {"source": "callbank synth"})
            timings["write"].append(time.process_time() - began)
    means = {stage: statistics.mean(values) * 1000 for stage, values in timings.items() if values}
    print(f"model-free stages on {ROOT.name} ({len(corpus.cases)} cases; {len(timings['execute'])} candidates from its single-call cases), CPU time:")
    print(f"  plan     {plan_ms:8.3f} ms per recipe")
    for stage, mean in means.items():
        print(f"  {stage:8} {mean:8.3f} ms per candidate (n = {len(timings[stage])})")
    total = plan_ms + sum(means.values())
    print(f"  total    {total:8.3f} ms per candidate (goal < {STAGE_GOAL_MS:g} ms): {'met' if total < STAGE_GOAL_MS else 'NOT met'}")
    print(f"  (dedupe index over the corpus built once in {index_s:.2f} s; outcomes: {outcomes or 'all clean'})")
    return {"total_ms": total, **means}


def vocabulary(corpus: Corpus) -> tuple[list[str], list[str]]:
    """The words of the corpus's English requests and the characters of its Chinese ones, each
    as often as the corpus uses them: sampling them gives requests with the corpus's word
    frequencies (a few very common words, a long tail), not one template with the values swapped."""
    english: list[str] = []
    chinese: list[str] = []
    for case in corpus.cases.values():
        for lang, dialogue in case.dialogues.items():
            text = " ".join(turn.text for turn in dialogue.turns if turn.kind == "user")  # type: ignore[union-attr]
            if lang == "en":
                english += re.findall(r"[A-Za-z']+|\d+", text)
            else:
                chinese += [c for c in text if "\u4e00" <= c <= "\u9fff"]
    return english, chinese


def synthetic_case(index: int, rng: random.Random, english: list[str], chinese: list[str]) -> Case:
    """A bilingual single-call case whose requests are drawn word by word from the corpus's vocabulary."""
    en = " ".join(rng.choice(english) for _ in range(rng.randint(8, 24)))
    zh = "".join(rng.choice(chinese) for _ in range(rng.randint(10, 30)))
    call = {"api": f"api_{index % 50}", "args": {"n": index}}
    data = {
        "id": f"bulk-{index:06d}",
        "category": "normal/single_turn/single",
        "apis": [call["api"]],
        "time": "2024-06-11T16:00:00+08:00",
        "en": {"turns": [{"user": en + "?"}, {"expect": {"calls": [call]}}]},
        "zh": {"turns": [{"user": zh + "。"}, {"expect": {"calls": [call]}}]},
    }
    return build_case(Document(f"dialogues/normal/single_turn/single/bulk-{index:06d}.yaml", "case", data, ""))


def dedupe_at_scale(existing: int, queries: int) -> float:
    rng = random.Random(7)
    english, chinese = vocabulary(Corpus.load(ROOT, kinds=("case",)))
    cases = [synthetic_case(i, rng, english, chinese) for i in range(existing)]
    candidates = [synthetic_case(existing + i, rng, english, chinese) for i in range(queries)]
    started = time.perf_counter()
    deduper = Deduper(cases, 0.5)
    indexed = time.perf_counter() - started
    rejected = 0
    started, cpu = time.perf_counter(), time.process_time()
    for case in candidates:
        try:
            deduper.require_new(case)
        except Rejected:
            rejected += 1
    per = (time.perf_counter() - started) * 1000 / queries
    per_cpu = (time.process_time() - cpu) * 1000 / queries
    print(f"dedupe against {existing:,} existing cases (both languages): indexed in {indexed:.1f} s;")
    print(
        f"  {per:.3f} ms wall, {per_cpu:.3f} ms CPU per candidate over {queries:,} candidates ({rejected} near-duplicates)"
        f" (goal < {DEDUPE_GOAL_MS:g} ms): {'met' if per_cpu < DEDUPE_GOAL_MS else 'NOT met'} (CPU time: other jobs share this machine)"
    )
    return per_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=int, default=100)
    parser.add_argument("--existing", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1_000)
    args = parser.parse_args()
    stages(args.candidates)
    dedupe_at_scale(args.existing, args.queries)


if __name__ == "__main__":
    main()
