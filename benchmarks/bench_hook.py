"""How long the pre-commit hook takes for typical commits (goal: under 2 s on a 2-core machine).

The hook runs `callbank check --exec FILES` in a fresh process (pre-commit's entry). This
times it, as a child process, for commits of different reach on this repository: one case; a
case and a scenario; one spec (its cases and scenarios run again); one `sandbox.py` (every case
and scenario of that sandbox runs again — the widest a contributor's commit usually gets).
Reports the median wall time and the median CPU time (user + system) of the child: on a busy
machine the wall time measures the neighbours, the CPU time measures the hook.

    python benchmarks/bench_hook.py [--runs 5] [--repo PATH]
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
GOAL_SECONDS = 2.0


def timed_run(repo: Path, files: list[str]) -> tuple[float, float, int]:
    """(wall seconds, child CPU seconds, exit code) of one hook run in a fresh process."""
    before = os.times()
    began = time.perf_counter()
    completed = subprocess.run([sys.executable, "-m", "validator", "check", "--exec", "--repo", str(repo), *files], cwd=repo, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - began
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu, completed.returncode


def commits(repo: Path) -> dict[str, list[str]]:
    def first(pattern: str) -> str:
        found = sorted(repo.glob(pattern))
        if not found:
            raise SystemExit(f"no file matches {pattern} under {repo}")
        return found[0].relative_to(repo).as_posix()

    case = first("dialogues/normal/atom/enum/*.yaml")
    return {
        "one case": [case],
        "a case and a scenario": [case, first("sandboxes/*/scenarios/*.yaml")],
        "one spec": [first("specs/shopping/*.yaml")],
        "one sandbox.py (phone)": ["sandboxes/phone/sandbox.py"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repo", type=Path, default=ROOT)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of {args.runs} runs; goal: a typical commit under {GOAL_SECONDS:g} s")
    for name, files in commits(args.repo).items():
        walls, cpus = [], []
        for _ in range(args.runs):
            wall, cpu, status = timed_run(args.repo, files)
            if status not in (0, 1):
                raise SystemExit(f"{name}: the hook exited with status {status}")
            walls.append(wall)
            cpus.append(cpu)
        print(f"{name:<26} wall {statistics.median(walls):5.2f} s   CPU {statistics.median(cpus):5.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
