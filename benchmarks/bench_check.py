"""How much `callbank check` costs over merely parsing the same YAML with libyaml.

Generates a synthetic corpus of N cases (about 2 KB each) with their specs, then reports in one
run: check time / CSafeLoader parse time (goal ≤ 1.5), the same at 10×N (goal: linear), and a
single-file check in a fresh process as pre-commit runs it (goal < 0.5 s).

    python benchmarks/bench_check.py [--cases 2000]
"""

from __future__ import annotations

import argparse
import shutil
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (args.cases, args.cases * 10):
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
        one = Path(tmp) / f"corpus-{args.cases}" / "dialogues" / "normal" / "single_turn" / "single" / "synth-000001.yaml"
        timings = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "validator", "check", str(one)], cwd=one.parents[4], check=True, capture_output=True)
            timings.append(time.perf_counter() - start)
        print(f"single-file check in a new process (as pre-commit runs it): best {min(timings):.3f} s, median {sorted(timings)[2]:.3f} s")


if __name__ == "__main__":
    main()
