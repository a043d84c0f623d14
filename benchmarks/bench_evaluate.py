"""Benchmark of the evaluator's commands: report, compare, leaderboard and sharded scoring.

    python benchmarks/bench_evaluate.py [--oracle oracle.jsonl] [--category PREFIX …] [--runs 1] [--browser]
    python benchmarks/bench_evaluate.py --page report.html      # only item 5, on a page made before

Every command runs as its own process (``python -m validator …``, as a user runs it) and is
timed by the CPU time it used (``os.wait4``), which a busy machine inflates far less than wall
time; wall time is printed beside it. The inputs are real runs of the whole corpus (or of
``--category``): the oracle's (made here with ``callbank run --model oracle`` unless ``--oracle``
gives one), two runs spoiled from it by ``benchmarks/demo_runs.py``, and the oracle run again in
four shards (``--shard i/4``). Every evaluator command scores its runs first, so each is measured
against scoring the same runs:

1. ``report A B`` / (``score A`` + ``score B``) — what the page, its charts and every unit's
   detail add to scoring. Goal ≤ 1.5. The page's size is printed (goal: ≤ 25 MB for two runs
   of the whole corpus, plotly.js included).
2. ``compare A B`` / (``score A`` + ``score B``) — the bootstrap and McNemar tests. Goal ≤ 1.2.
3. ``leaderboard A B`` / (``score A`` + ``score B``). Goal ≤ 1.2.
4. ``score`` of the four shards / ``score`` of the whole run — reading and checking the shards
   as one run. Goal ≤ 1.1.
5. With ``--browser`` (playwright and a Chromium, the test extra): the page opened in headless
   Chromium until its charts are drawn, and one filter click until the rows are redrawn, as wall
   time. Goals ≤ 10 s and ≤ 1 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import demo_runs  # noqa: E402

GOALS = {"report": 1.5, "compare": 1.2, "leaderboard": 1.2, "shards": 1.1}


def timed(arguments: Sequence[str], runs: int) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``python -m validator arguments``, medians of runs."""
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "validator", *arguments], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        wall.append(time.perf_counter() - start)
        if os.waitstatus_to_exitcode(status) != 0:
            assert process.stderr is not None
            sys.exit(f"callbank {' '.join(arguments)} failed: {process.stderr.read().decode()[-800:]}")
        cpu.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(cpu), statistics.median(wall)


def line(name: str, cpu: float, wall: float) -> None:
    print(f"  {name:<44} CPU {cpu:7.2f} s   wall {wall:7.2f} s")


def browser_times(page_path: Path) -> tuple[float, float] | None:
    """(seconds until the charts are drawn, seconds for one filter click), or None without a browser."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if executable is None:
        return None
    flags = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=flags, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            start = time.perf_counter()
            page.goto(page_path.resolve().as_uri())
            page.wait_for_selector(".js-plotly-plot")
            page.wait_for_function("document.querySelectorAll('#browser-rows tr.unit').length > 0")
            opened = time.perf_counter() - start
            before = page.locator("#browser-count").get_attribute("data-matching")  # rows shown stop at a page of 200
            start = time.perf_counter()
            page.click("#filter-status button[data-value=wrong]")
            page.wait_for_function(f"document.getElementById('browser-count').dataset.matching !== {before!r}")
            clicked = time.perf_counter() - start
        finally:
            browser.close()
    return opened, clicked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--oracle", type=Path, help="an oracle run of the same selection to start from (default: made here)")
    parser.add_argument("--category", action="append", default=[], help="restrict every run and command to these categories")
    parser.add_argument("--runs", type=int, default=1, help="repetitions of each command (medians are reported)")
    parser.add_argument("--browser", action="store_true", help="also time the page in headless Chromium")
    parser.add_argument("--page", type=Path, help="only open this report in Chromium and time it (no commands are run)")
    arguments = parser.parse_args()
    if arguments.page is not None:
        found = browser_times(arguments.page)
        if found is None:
            sys.exit("no playwright or no chromium: the page cannot be opened")
        print(f"page opened, charts drawn {found[0]:.2f} s (≤ 10 s); filter click, rows redrawn {found[1]:.2f} s (≤ 1 s)")
        return
    selection = [part for category in arguments.category for part in ("--category", category)]
    with tempfile.TemporaryDirectory(prefix="bench-evaluate-") as temporary:
        folder = Path(temporary)
        oracle = arguments.oracle
        if oracle is None:
            oracle = folder / "oracle.jsonl"
            print("making the oracle run …")
            timed(["run", "--model", "oracle", "--out", str(oracle), "--no-progress", *selection], 1)
        shards = [folder / f"oracle.shard-{index}.jsonl" for index in range(1, 5)]
        for index, shard in enumerate(shards, start=1):
            timed(["run", "--model", "oracle", "--shard", f"{index}/4", "--out", str(shard), "--no-progress", *selection], 1)
        demo_runs.main(oracle, folder / "demo")
        a, b = str(folder / "demo" / "model-a.jsonl"), str(folder / "demo" / "model-b.jsonl")
        page = folder / "report.html"

        print(f"\nCPU and wall time per command (median of {arguments.runs}); load average {os.getloadavg()[0]:.1f}")
        score_a = timed(["score", a, *selection], arguments.runs)
        score_b = timed(["score", b, *selection], arguments.runs)
        line("score A", *score_a)
        line("score B", *score_b)
        both = score_a[0] + score_b[0]
        measured = {
            "report": timed(["report", a, b, "--out", str(page), *selection], arguments.runs),
            "compare": timed(["compare", a, b, *selection], arguments.runs),
            "leaderboard": timed(["leaderboard", a, b, *selection], arguments.runs),
        }
        for name, (cpu, wall) in measured.items():
            line(f"{name} A B", cpu, wall)
        whole = timed(["score", str(oracle), *selection], arguments.runs)
        sharded = timed(["score", *map(str, shards), *selection], arguments.runs)
        line("score the whole oracle run", *whole)
        line("score its four shards together", *sharded)

        print("\nratio                                           figure   goal")
        ratios = {name: measured[name][0] / both for name in measured} | {"shards": sharded[0] / whole[0]}
        labels = {name: f"{name} A B / (score A + score B)" for name in measured} | {"shards": "score 4 shards / score whole"}
        for name, ratio in ratios.items():
            verdict = "ok" if ratio <= GOALS[name] else "OVER"
            print(f"  {labels[name]:<44} {ratio:6.2f}   ≤ {GOALS[name]}  {verdict}")
        size = page.stat().st_size / 1e6
        print(f"  report page size                             {size:6.1f} MB   (≤ 25 MB for two whole-corpus runs)")
        if arguments.browser:
            found = browser_times(page)
            if found is None:
                print("  (no playwright or no chromium: the page was not opened)")
            else:
                opened, clicked = found
                print(f"  page opened, charts drawn                   {opened:6.2f} s    ≤ 10 s")
                print(f"  filter click, rows redrawn                  {clicked:6.2f} s    ≤ 1 s")


if __name__ == "__main__":
    main()
