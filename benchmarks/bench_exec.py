"""How long `callbank exec` takes over the whole corpus (goal: under 3 s on a 2-core machine).

Runs exec in fresh processes, as CI does (`python -m validator exec`), and reports the median
wall time and the median CPU time (user + system) of the child: on a busy machine the wall time
measures the neighbours, the CPU time measures exec. Also reports the in-process phases (load,
sandbox import, cases, scenarios) for the last run and the corpus size.

    python benchmarks/bench_exec.py [--runs 5] [--repo PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_SECONDS = 3.0


def timed_run(repo: Path) -> tuple[float, float, int]:
    """(wall seconds, child CPU seconds, exit code) of one `callbank exec` in a fresh process."""
    before = os.times()
    began = time.perf_counter()
    completed = subprocess.run([sys.executable, "-m", "validator", "exec", "--repo", str(repo)], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - began
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if completed.returncode not in (0, 1):
        sys.exit(f"exec failed:\n{completed.stderr}")
    return wall, cpu, completed.returncode


def phases(repo: Path) -> dict[str, float | int]:
    from validator.corpus.index import Corpus
    from validator.rules.execution_cases import execute_case
    from validator.rules.execution_context import Execution
    from validator.rules.execution_scenarios import execute_scenario

    began = time.perf_counter()
    loaded = Corpus.load(repo)
    loaded_at = time.perf_counter()
    execution = Execution(loaded)
    runtime = execution.runtime
    runtime_at = time.perf_counter()
    for case in loaded.cases.values():
        list(execute_case(case, execution))
    cases_at = time.perf_counter()
    for scenario in loaded.scenarios.values():
        list(execute_scenario(scenario, execution))
    done = time.perf_counter()
    return {
        "load YAML": loaded_at - began,
        "import sandboxes": runtime_at - loaded_at,
        "cases": cases_at - runtime_at,
        "scenarios": done - cases_at,
        "n_cases": len(loaded.cases),
        "n_scenarios": len(loaded.scenarios),
        "n_sandboxes": len(runtime.classes),
        "n_apis": sum(len(m) for m in runtime.methods.values()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repo", type=Path, default=ROOT)
    options = parser.parse_args()
    runs = [timed_run(options.repo) for _ in range(options.runs)]
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    info = phases(options.repo)
    print(
        f"corpus: {info['n_cases']} cases, {info['n_scenarios']} scenarios, "
        f"{info['n_sandboxes']} sandboxes, {info['n_apis']} runnable APIs"
    )
    print("in-process phases: " + ", ".join(f"{k} {v:.2f} s" for k, v in info.items() if not k.startswith("n_")))
    print(f"callbank exec: median wall {wall:.2f} s, median CPU {cpu:.2f} s over {options.runs} runs "
          f"(goal < {GOAL_SECONDS:.0f} s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    verdict = "ok" if min(wall, cpu) < GOAL_SECONDS else "SLOWER THAN THE GOAL"
    print(f"verdict: {verdict}")
    sys.exit(0 if verdict == "ok" else 1)


if __name__ == "__main__":
    main()
