"""Benchmark of `callbank score`: scoring throughput and process start time.

    python benchmarks/bench_score.py [--predictions 100000]

Builds an in-memory corpus by cloning the normal and retrieval cases of the scoring fixture
repository (tests/fixtures/repos/scoring) under fresh ids, writes oracle predictions for every
checkpoint in the Python-call syntax (one in five answers then changed, so wrong answers and
their error diagnosis are timed too), and times reading + parsing + comparing + aggregating
them in one process (CPU and wall time). Then times `callbank score --help` as a fresh process
(best of five).
Goals: at least 20,000 predictions/s, a process start under 0.5 s.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from validator.corpus.index import Corpus  # noqa: E402
from validator.corpus.langs import LANGS  # noqa: E402
from validator.models.base import ModelContext  # noqa: E402
from validator.models.oracle import create  # noqa: E402
from validator.models.request import case_requests  # noqa: E402
from validator.models.runner import case_record  # noqa: E402
from validator.scoring.metrics import build_report  # noqa: E402
from validator.scoring.predictions import parse_predictions  # noqa: E402
from validator.scoring.scorer import score_units  # noqa: E402
from validator.scoring.units import collect_units  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "repos" / "scoring"


def build(target: int) -> tuple[Corpus, bytes]:
    fixture = Corpus.load(FIXTURE)
    templates = {i: c for i, c in fixture.cases.items() if c.family == "normal"}  # normal and retrieval
    oracle = create(ModelContext(fixture))
    per_case = {i: [case_record(r, oracle.complete(r)) for lang in LANGS for r in case_requests(c, lang, fixture.specs, "python")] for i, c in templates.items()}
    cases: dict = {}
    lines: list[str] = []
    serial = 0
    while len(lines) < target:
        for template_id, template in templates.items():
            serial += 1
            new_id = f"{template_id}-{serial}"
            cases[new_id] = dataclasses.replace(template, id=new_id)
            for template_record in per_case[template_id]:
                record = {**template_record, "id": new_id}
                if len(lines) % 5 == 4:  # a wrong answer: one value changed
                    record["output"] = record["output"].replace("'", "'x", 1) if "'" in record["output"] else "[]"
                lines.append(json.dumps(record, ensure_ascii=False))
                if len(lines) >= target:
                    break
            if len(lines) >= target:
                break
    corpus = Corpus(FIXTURE, discovered=())  # an index of the generated cases alone
    corpus.specs.update(fixture.specs)
    corpus.cases.update(cases)
    return corpus, ("\n".join(lines) + "\n").encode("utf-8")


def throughput(target: int) -> None:
    corpus, raw = build(target)
    units = collect_units(corpus)
    start, cpu_start = time.perf_counter(), time.process_time()
    predictions = parse_predictions(raw)
    scored = score_units(units, predictions, corpus.specs)
    report = build_report(scored, units)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    n = len(predictions.records)
    print(f"scored {n:,} predictions ({len(scored.results):,} units) in {elapsed:.2f} s wall, {cpu:.2f} s CPU")
    # CPU time is what one process costs; wall time also counts other processes on a busy machine
    print(f"throughput: {n / cpu:,.0f} predictions/s of CPU time, {n / elapsed:,.0f} per wall-clock second (goal ≥ 20,000)")
    print(f"overall {report['overall']['score']:.3f}; errors: {', '.join(f'{k} {v}' for k, v in report['errors'].items() if v)}")


def startup(repeat: int = 5) -> None:
    commands = {"python -m validator score --help": [sys.executable, "-m", "validator", "score", "--help"]}
    script = Path(sys.executable).with_name("callbank")
    if script.is_file():  # the installed console script itself (a version manager's shim adds its own start-up)
        commands["callbank score --help"] = [str(script), "score", "--help"]
    for label, command in commands.items():
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
            best = min(best, time.perf_counter() - start)
        print(f"`{label}` process start: {best:.3f} s (best of {repeat}; goal < 0.5 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--predictions", type=int, default=100_000)
    args = parser.parse_args()
    throughput(args.predictions)
    startup()


if __name__ == "__main__":
    main()
