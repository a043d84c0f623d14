"""Two synthetic runs for the README's report screenshot: the oracle's answers, mutated.

    callbank run --model oracle --out oracle.jsonl
    python benchmarks/demo_runs.py oracle.jsonl demo          # demo/model-a.jsonl, demo/model-b.jsonl
    callbank report demo/model-a.jsonl demo/model-b.jsonl --out report.html

Each record is kept or spoiled with a seeded generator at a rate that depends on the run, the
category family and the language, so the runs differ where a real comparison would look:
a case answer gets one mutation (a changed value, a dropped argument, a renamed API, an extra
call, an empty answer), a scenario loses its last call. No model is involved and nothing here
claims to measure one; the manifests name the runs ``demo-model-a`` / ``demo-model-b``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from validator.corpus.index import Corpus

# spoil rate per (run, family, language)
RATES = {
    "model-a": {"normal": {"en": 0.12, "zh": 0.18}, "special": {"en": 0.30, "zh": 0.35}, "retrieval": {"en": 0.35, "zh": 0.40}, "agent": {"en": 0.45, "zh": 0.55}},
    "model-b": {"normal": {"en": 0.08, "zh": 0.10}, "special": {"en": 0.45, "zh": 0.45}, "retrieval": {"en": 0.25, "zh": 0.30}, "agent": {"en": 0.35, "zh": 0.40}},
}


def spoil_text(output: str, rng: random.Random) -> str:
    choice = rng.randrange(5)
    if choice == 0 and "'" in output:
        return output.replace("'", "'x", 1)
    if choice == 1 and ", " in output:  # the last argument dropped
        return output.rpartition(", ")[0] + ")]"
    if choice == 2 and "(" in output:
        name, _, rest = output.partition("(")
        return name + "_v2(" + rest
    if choice == 3 and output.startswith("[") and output.endswith("]"):
        return output[:-1] + ", " + output[1:]
    return ""


def spoil(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    if "messages" in record and "calls" in record and "output" not in record:  # a scenario
        return {**record, "calls": record["calls"][:-1]}
    if "calls" in record:  # a retrieval episode: drop its last call
        return {**record, "calls": record["calls"][:-1]}
    return {**record, "output": spoil_text(str(record.get("output") or ""), rng)}


def main(source: Path, folder: Path) -> None:
    corpus = Corpus.load(Path(__file__).resolve().parents[1])  # the repository the oracle ran on, wherever this is run from
    category = {**{i: c.category for i, c in corpus.cases.items()}, **{i: s.category for i, s in corpus.scenarios.items()}}
    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    manifest = json.loads(source.with_name(source.name + ".manifest.json").read_text(encoding="utf-8"))
    folder.mkdir(parents=True, exist_ok=True)
    for index, (name, rates) in enumerate(RATES.items()):
        rng = random.Random(20240611 + index)
        out = folder / f"{name}.jsonl"
        with out.open("w", encoding="utf-8") as handle:
            for record in records:
                kind = category[record["id"]].split("/")[0]
                kept = spoil(record, rng) if rng.random() < rates[kind][record["lang"]] else record
                handle.write(json.dumps(kept, ensure_ascii=False) + "\n")
        Path(str(out) + ".manifest.json").write_text(json.dumps({**manifest, "model": f"demo-{name}"}, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python benchmarks/demo_runs.py ORACLE.jsonl OUT_FOLDER")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
