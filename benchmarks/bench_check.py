"""How much `callbank check` costs over merely parsing the same YAML with libyaml.

Two measures. The whole-process one, on this repository: `python -m validator check` against a
process that only parses the same files with PyYAML's CSafeLoader, both timed from outside
(wall clock, and CPU time of the process and its workers from os.wait4), in paired runs, ratio
printed (goal ≤ 1.5 in wall time); and `validate` against `check` + `exec` run one after the
other (validate parses once, so it should cost no more). The in-process one, on a synthetic
corpus of N cases (about 2 KB each) with their specs: check time / parse time (goal ≤ 1.5), the
same at 10×N (goal: linear), and a single-file check in a fresh process as pre-commit runs it
(goal < 0.5 s).

    python benchmarks/bench_check.py [--runs 5] [--cases 2000] [--repo-only | --synthetic-only]
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
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SPEC_COUNT = 40

SPEC = """# yaml-language-server: $schema=../../schemas/api.schema.json
name: api_{i}
domain: synth.group_{g}
sandbox: synth
description: {{en: Look up record number {i} in the synthetic catalog., zh: 在合成目录中查询第{i}条记录。}}
parameters:
  type: object
  properties:
    city: {{type: string, minLength: 1, description: {{en: City name., zh: 城市名称。}}}}
    days: {{type: integer, minimum: 1, maximum: 14, description: {{en: Number of days., zh: 天数。}}}}
    unit: {{type: string, enum: [celsius, fahrenheit], default: celsius, description: {{en: Unit., zh: 单位。}}}}
    tags: {{type: array, items: {{type: string, description: {{en: A tag., zh: 标签。}}}}, description: {{en: Tags., zh: 标签列表。}}}}
  required: [city, days]
  additionalProperties: false
returns: {{type: object}}
"""

CASE = """# yaml-language-server: $schema=../../../../schemas/case.schema.json
id: synth-{i:06d}
category: normal/single_turn/single
apis: [api_{a}, api_{b}]
time: "2024-06-11T16:00:00+08:00"
en:
  turns:
    - user: Please check the catalog entry for the city of Hangzhou over the next {d} days, and
        tag the request as travel planning and family so that I can find it again later on.
    - assistant: Sure, could you confirm whether you want the temperatures in Celsius or Fahrenheit?
    - user: Celsius is fine, thank you. Also remember that this is the record number {i}.
    - expect:
        calls:
          - api: api_{a}
            args:
              city: {{$any: [Hangzhou, hangzhou]}}
              days: {d}
              unit: {{$optional: celsius}}
              tags: {{$unordered: [travel planning, family]}}
zh:
  turns:
    - user: 请帮我查一下杭州未来{d}天的目录条目，并把这次请求标记为出行计划和家庭，方便我以后再找到它。
    - assistant: 好的，请问温度要用摄氏度还是华氏度显示？
    - user: 摄氏度就行，谢谢。另外记住这是第{i}条记录。
    - expect:
        calls:
          - api: api_{a}
            args:
              city: {{$any: [杭州, Hangzhou]}}
              days: {d}
              unit: {{$optional: celsius}}
              tags: {{$unordered: [出行计划, 家庭]}}
"""


def make_corpus(root: Path, cases: int) -> list[Path]:
    (root / "sandboxes" / "synth").mkdir(parents=True)
    for name in ("sandbox.py", "state.yaml", "policy.en.md", "policy.zh.md"):
        (root / "sandboxes" / "synth" / name).write_text("# synthetic\n" if name.endswith(".md") else "")
    (root / "sandboxes" / "synth" / "state.yaml").write_text(
        "# yaml-language-server: $schema=../../schemas/state.schema.json\n"
        "sandbox: synth\nclock: \"2024-06-11T16:00:00+08:00\"\ncounters: {}\ndata: {}\n"
    )
    (root / "sandboxes" / "synth" / "policy.zh.md").write_text("# 合成沙盒\n")
    files = []
    for i in range(SPEC_COUNT):
        path = root / "specs" / "synth" / f"api_{i}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SPEC.format(i=i, g=i % 4), encoding="utf-8")
        files.append(path)
    folder = root / "dialogues" / "normal" / "single_turn" / "single"
    folder.mkdir(parents=True)
    for i in range(cases):
        path = folder / f"synth-{i:06d}.yaml"
        path.write_text(CASE.format(i=i, a=i % SPEC_COUNT, b=(i + 1) % SPEC_COUNT, d=1 + i % 14), encoding="utf-8")
        files.append(path)
    shutil.copytree(ROOT / "schemas", root / "schemas")
    return files


def parse_only(files: list[Path]) -> float:
    start = time.perf_counter()
    for path in files:
        yaml.load(path.read_bytes().decode("utf-8"), Loader=yaml.CSafeLoader)
    return time.perf_counter() - start


def check_time(root: Path) -> tuple[float, int]:
    from validator import engine

    start = time.perf_counter()
    findings = engine.check(root)
    return time.perf_counter() - start, len(findings)


# ----------------------------------------------------------------------------- whole process

# the parse-only process: the same files, read and parsed, nothing else
PARSE_ONLY = "import sys, yaml\nfor path in open(sys.argv[1], encoding='utf-8').read().splitlines():\n    yaml.load(open(path, 'rb').read().decode('utf-8'), Loader=yaml.CSafeLoader)\n"


def timed(command: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system, with the workers it waited for) and exit code of one process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, process.returncode


def callbank(*args: str) -> list[str]:
    return [sys.executable, "-m", "validator", *args]


def whole_process(root: Path, runs: int) -> None:
    from validator.loading import discover

    files = [str(root / path) for path, _ in discover(root)]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"whole process on {root} ({len(files)} corpus files, {os.cpu_count()} cores, load average {load}), {runs} paired runs, medians:")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as listing:
        listing.write("\n".join(files))
    try:
        parse_command = [sys.executable, "-c", PARSE_ONLY, listing.name]
        pairs = []
        for _ in range(runs):  # alternated, so a busy moment of the machine hits both sides
            parse = timed(parse_command, root)
            check = timed(callbank("check"), root)
            if parse[2] or check[2]:
                raise SystemExit(f"parse exited {parse[2]}, check exited {check[2]}: the benchmark needs a clean repository")
            pairs.append((parse, check))
        median = statistics.median
        parse_wall, parse_cpu = median(p[0] for p, _ in pairs), median(p[1] for p, _ in pairs)
        check_wall, check_cpu = median(c[0] for _, c in pairs), median(c[1] for _, c in pairs)
        print(f"  parse only  wall {parse_wall:5.2f} s  cpu {parse_cpu:5.2f} s")
        print(f"  check       wall {check_wall:5.2f} s  cpu {check_cpu:5.2f} s")
        print(f"  check / parse: wall {median(c[0] / p[0] for p, c in pairs):.2f}  cpu {median(c[1] / p[1] for p, c in pairs):.2f}  (goal: wall ≤ 1.5)")
        triples = []
        for _ in range(runs):
            validate, check, execute = timed(callbank("validate"), root), timed(callbank("check"), root), timed(callbank("exec"), root)
            triples.append((validate, check, execute))
        print(f"  validate    wall {median(v[0] for v, _, _ in triples):5.2f} s  cpu {median(v[1] for v, _, _ in triples):5.2f} s")
        print(f"  check+exec  wall {median(c[0] + e[0] for _, c, e in triples):5.2f} s  cpu {median(c[1] + e[1] for _, c, e in triples):5.2f} s")
        ratios = (median(v[0] / (c[0] + e[0]) for v, c, e in triples), median(v[1] / (c[1] + e[1]) for v, c, e in triples))
        print(f"  validate / (check + exec): wall {ratios[0]:.2f}  cpu {ratios[1]:.2f}  (goal: < 1, one parse fewer)")
    finally:
        os.unlink(listing.name)


# ----------------------------------------------------------------------------- in process, synthetic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5, help="paired runs of the whole-process measure")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--repo-only", action="store_true", help="only the whole-process measure on this repository")
    which.add_argument("--synthetic-only", action="store_true", help="only the in-process measure on a synthetic corpus")
    args = parser.parse_args()
    if not args.synthetic_only:
        whole_process(ROOT, args.runs)
    if not args.repo_only:
        synthetic(args.cases)


def synthetic(cases: int) -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (cases, cases * 10):
            root = Path(tmp) / f"corpus-{n}"
            files = make_corpus(root, n)
            size = sum(f.stat().st_size for f in files) / len(files)
            parse = parse_only(files)
            check, findings = check_time(root)
            if findings:
                raise SystemExit(f"the synthetic corpus has {findings} findings; the benchmark needs a clean corpus")
            rows.append((n, size, parse, check))
            print(f"N={n:>6}  avg file {size:,.0f} B  parse {parse:6.2f} s  check {check:6.2f} s  check/parse {check / parse:4.2f}")
        (n1, _, _, c1), (n2, _, _, c2) = rows
        print(f"linearity: check({n2}) / check({n1}) = {c2 / c1:.1f} (linear = {n2 / n1:.0f})")
        one = Path(tmp) / f"corpus-{cases}" / "dialogues" / "normal" / "single_turn" / "single" / "synth-000001.yaml"
        timings = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "validator", "check", str(one)], cwd=one.parents[4], check=True, capture_output=True)
            timings.append(time.perf_counter() - start)
        print(f"single-file check in a new process (as pre-commit runs it): best {min(timings):.3f} s, median {sorted(timings)[2]:.3f} s")


if __name__ == "__main__":
    main()
