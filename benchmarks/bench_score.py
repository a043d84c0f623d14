"""Benchmark of the scorer: records per second, adversarial lines, and (when installed) BFCL side by side.

    python benchmarks/bench_score.py [--records 20000] [--repo .]
    python benchmarks/bench_score.py --bfcl-repo DIR --bfcl-python VENV/bin/python

Scoring reads answers with the compiled reader of the common shape when it is built
(``validator/scoring/_fastcalls.c``, at install); the first line printed says whether it is.

1. **Records per second, one process.** Every case checkpoint of the repository gets its
   oracle answer (Python-call syntax) and six mutated answers — a value changed, an argument
   dropped, the API renamed, a call added, the text lower-cased, a special marker added next
   to the calls (hedged). Each record is parsed and compared (``parse_prediction`` +
   ``score_checkpoint``: the per-record work, without reading the file or aggregating the
   report), cycling until ``--records`` records are scored; CPU time in one process.
2. **Adversarial lines.** Prediction lines of 1 MiB built to make a backtracking reader
   quadratic (a 60,000-character ``[INVALID]`` line took 24.5 s before the special reader was
   rewritten), each read from the JSON line, parsed and scored; the slowest is the figure.
   Goal: under 0.5 s. Then ``callbank score --help`` is timed as a fresh process.
3. **BFCL's checker on the same outputs** (optional). ``--bfcl-repo`` is a repository made by
   ``callbank import bfcl`` from BFCL's own data (never committed); ``--bfcl-python`` is the
   Python of a separate virtual environment with ``pip install bfcl-eval`` (never a callbank
   dependency). The same oracle and mutated outputs are scored by callbank here and by BFCL's
   AST checker in that interpreter (its decoder included, data read from the installed
   package), each timing only its own scoring loop; the outputs name the APIs as each side's
   data does (callbank's identifiers / BFCL's ``math.factorial``), the text otherwise the same.
   An imported case names its BFCL entry in ``origin.record``. Only call checkpoints (BFCL's AST
   categories; irrelevance is not AST-checked there). Goal: callbank ≥ 2 × BFCL records per second.
   Beside it, CPython's own parser alone (``compile(..., ast.PyCF_ONLY_AST)``, which BFCL's
   decoder and callbank's Python-syntax reader both call) on the same outputs, in this process:
   the ceiling of any scorer that reads Python-call syntax with it.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from validator.corpus.build import build_checkpoint  # noqa: E402
from validator.corpus.index import Corpus  # noqa: E402
from validator.corpus.langs import LANGS  # noqa: E402
from validator.corpus.records import Checkpoint  # noqa: E402
from validator.models.render import python_calls  # noqa: E402
from validator.models.request import first_alternative  # noqa: E402
from validator.scoring import parse  # noqa: E402
from validator.scoring.match import Specs, score_checkpoint  # noqa: E402
from validator.scoring.parse import parse_prediction  # noqa: E402
from validator.scoring.predictions import parse_predictions  # noqa: E402
from validator.scoring.special import render_special  # noqa: E402

Item = tuple[Checkpoint, dict[str, Any], str, str]  # (checkpoint, record, lang, case id)


# ----------------------------------------------------------------------------- outputs


def mutations(calls: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(name, output) of answers that differ from the oracle's in one way."""
    text = python_calls(calls)
    if "'" in text:
        yield "value", text.replace("'", "'x", 1)
    with_args = [i for i, call in enumerate(calls) if call["args"]]
    if with_args:
        dropped = copy.deepcopy(calls)
        dropped[with_args[0]]["args"].popitem()
        yield "argument", python_calls(dropped)
    renamed = copy.deepcopy(calls)
    renamed[0]["api"] += "_v2"
    yield "api", python_calls(renamed)
    yield "extra_call", python_calls([*calls, calls[0]])
    yield "lower_case", text.lower()
    yield "hedged", "[IRRELEVANT]\n" + text


def outputs(corpus: Corpus) -> tuple[list[Item], list[Item]]:
    """Oracle and mutated records for every checkpoint of the repository's cases."""
    oracle: list[Item] = []
    mutated: list[Item] = []
    for case_id, case in sorted(corpus.cases.items()):
        for lang in LANGS:
            for checkpoint in case.dialogues[lang].checkpoints:
                key = {"id": case_id, "lang": lang, "step": checkpoint.step}
                if checkpoint.special is not None:
                    text = render_special(dict(checkpoint.answer), lang)
                    oracle.append((checkpoint, {**key, "output": text}, lang, case_id))
                    mutated.append((checkpoint, {**key, "output": text + "\n[get_weather(city='Paris')]"}, lang, case_id))
                    continue
                calls = first_alternative(checkpoint, lang)
                oracle.append((checkpoint, {**key, "output": python_calls(calls)}, lang, case_id))
                mutated.extend((checkpoint, {**key, "output": output}, lang, case_id) for _, output in mutations(calls))
    return oracle, mutated


def records_per_second(items: list[Item], schemas: Specs, target: int) -> tuple[float, int, int]:
    """(records per CPU second, records scored, records right) scoring items cyclically."""
    done = right = 0
    start = time.process_time()
    while done < target:
        for answer, record, lang, _ in items:
            right += score_checkpoint(answer, parse_prediction(record), schemas, lang).correct
            done += 1
            if done >= target:
                break
    return done / (time.process_time() - start), done, right


# ----------------------------------------------------------------------------- adversarial lines


def adversarial_lines(size: int = 1 << 20) -> dict[str, bytes]:
    def line(record: dict[str, Any]) -> bytes:
        return json.dumps({"id": "x", "lang": "en", **record}, ensure_ascii=False).encode("utf-8")

    body = size - 200
    return {
        "[INVALID] api: aaa…": line({"output": "[INVALID] api: " + "a" * body}),
        "[INVALID] api: a=, a=, …": line({"output": "[INVALID] api: " + "a=[, " * (body // 5)}),
        "[MISSING] api: a, a, …": line({"output": "[MISSING] api: " + "a, " * (body // 3)}),
        "[IRRELEVANT] + call-shaped lines": line({"output": "[IRRELEVANT]\n" + "f(()\n" * (body // 5)}),
        "``` + spaces": line({"output": "```\n" + " " * body + "x"}),
        "one long $text argument": line({"output": f"[send_message(receiver='Li', content='{'late, -' * (60_000 // 8)}')]"}),
        "tool call, arguments of spaces": line({"output": "", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": " " * body}}]}),
        "markers on every line": line({"output": "[MISSING] a: b\n" * (body // 15)}),
    }


def adversarial(schemas: Specs) -> list[tuple[str, float, str]]:
    answer = build_checkpoint({"calls": [{"api": "send_message", "args": {"receiver": "Li", "content": {"$text": "late"}}}]})
    special = build_checkpoint({"special": "error_param", "api": "api", "params": {"a": -30}})
    results = []
    for name, raw in adversarial_lines().items():
        start = time.process_time()
        predictions = parse_predictions(raw)
        [prediction] = predictions.records.values()
        parsed = parse_prediction(prediction.record)
        verdict = score_checkpoint(special if "[INVALID]" in name else answer, parsed, schemas, "en")
        results.append((name, time.process_time() - start, f"{verdict.error}: {verdict.detail[:50]}"))
    return results


# ----------------------------------------------------------------------------- BFCL side by side

# BFCL's own evaluation of a prompting model's AST categories, per record: decode the text
# (``default_decode_ast_prompting``), then ``ast_checker`` against the possible answers. Run in
# the interpreter of a separate virtual environment holding bfcl-eval (never a callbank
# dependency), on the records the same package ships; only the loop is timed.
_BFCL_LOOP = r"""
import json, sys, time
from importlib import resources
from bfcl_eval.constants.enums import Language, ReturnFormat
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
from bfcl_eval.model_handler.utils import default_decode_ast_prompting

MODEL = "gorilla-openfunctions-v2"  # a prompting model whose function names keep their dots
items = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
data = resources.files("bfcl_eval") / "data"
wanted = {item["bfcl_id"] for item in items}
entries, answers = {}, {}
for path in [*data.glob("BFCL_v*.json"), *(data / "possible_answer").glob("BFCL_v*.json")]:
    if "format_sensitivity" in path.name:
        continue  # a list of other categories' ids, not records
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            if isinstance(record, dict) and record.get("id") in wanted:
                (answers if "possible_answer" in str(path) else entries)[record["id"]] = record
work = [(entries[i["bfcl_id"]]["function"], answers[i["bfcl_id"]]["ground_truth"], i["bfcl_id"].rsplit("_", 1)[0], i["output"]) for i in items]
right = errors = 0
start = time.process_time()
for functions, truth, category, output in work:
    try:
        decoded = default_decode_ast_prompting(output, ReturnFormat.PYTHON)
        right += bool(ast_checker(functions, decoded, truth, Language.PYTHON, category, MODEL)["valid"])
    except Exception:
        errors += 1  # BFCL counts an output it cannot decode as wrong
cpu = time.process_time() - start
print(json.dumps({"records": len(work), "right": right, "undecodable": errors, "cpu": cpu}))
"""


def source_name(corpus: Corpus, api: str) -> str:
    """The name BFCL gives an API that ``callbank import bfcl`` renamed (its spec's ``origin.name``)."""
    spec = corpus.specs.get(api)
    origin = spec.document.data.get("origin") if spec is not None and isinstance(spec.document.data, dict) else None
    return str(origin["name"]) if isinstance(origin, dict) and "name" in origin else api


def bfcl_pairs(corpus: Corpus) -> list[tuple[Item, dict[str, str]]]:
    """The oracle and mutated outputs of every call checkpoint of an imported BFCL repository,
    each as (callbank's item, BFCL's record): the same answer text, the APIs under each side's
    names. Irrelevance checkpoints are left out (BFCL does not run its AST checker on them)."""
    pairs = []
    for case_id, case in sorted(corpus.cases.items()):
        origin = case.data.get("origin")
        bfcl_id = str(origin["record"]) if isinstance(origin, dict) and "record" in origin else case_id
        for lang in corpus.langs:
            for checkpoint in case.dialogues[lang].checkpoints:
                if checkpoint.special is not None:
                    continue
                calls = first_alternative(checkpoint, lang)
                theirs = [{**call, "api": source_name(corpus, call["api"])} for call in calls]
                key = {"id": case_id, "lang": lang, "step": checkpoint.step}
                ours_texts = [("oracle", python_calls(calls)), *mutations(calls)]
                their_texts = [("oracle", python_calls(theirs)), *mutations(theirs)]
                for (name, ours), (same, text) in zip(ours_texts, their_texts, strict=True):
                    assert name == same
                    pairs.append(((checkpoint, {**key, "output": ours}, lang, case_id), {"bfcl_id": bfcl_id, "output": text, "kind": name}))
    return pairs


def bfcl_side_by_side(repo_dir: Path, python: str, target: int) -> None:
    corpus = Corpus.load(repo_dir)
    pairs = bfcl_pairs(corpus)
    chosen = (pairs * (target // max(len(pairs), 1) + 1))[:target]
    ours, done, right = records_per_second([item for item, _ in chosen], corpus.specs, target)
    with tempfile.TemporaryDirectory() as folder:
        paired = Path(folder) / "outputs.jsonl"
        paired.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for _, record in chosen), encoding="utf-8")
        completed = subprocess.run([python, "-c", _BFCL_LOOP, str(paired)], capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise SystemExit(f"BFCL's checker did not run in {python}:\n{completed.stderr[-2000:]}")
    theirs = json.loads(completed.stdout.strip().splitlines()[-1])
    bfcl_rate = theirs["records"] / theirs["cpu"]
    parser_rate = parser_alone([record["output"] for _, record in chosen])
    oracle_total = sum(1 for _, record in chosen if record["kind"] == "oracle")
    print(
        f"BFCL side by side on {done:,} outputs ({len(pairs):,} distinct, {oracle_total:,} of them oracle): "
        f"callbank {ours:,.0f} records/s of CPU time ({right:,} right), BFCL's decoder + AST checker {bfcl_rate:,.0f} records/s "
        f"({theirs['right']:,} right, {theirs['undecodable']:,} undecodable): {ours / bfcl_rate:.2f}× (goal ≥ 2×)"
    )
    print(f"CPython's parser alone on the same outputs: {parser_rate:,.0f} records/s of CPU time = {parser_rate / bfcl_rate:.2f}× BFCL (2× BFCL would be {2 * bfcl_rate:,.0f} records/s)")


def parser_alone(outputs: list[str]) -> float:
    """Records per CPU second of CPython's parser alone, each output read as BFCL's decoder
    frames it (one bracketed list); an output it cannot read costs its failed parse."""
    texts = [text.strip("`\n ") for text in outputs]
    texts = [("" if t.startswith("[") else "[") + t + ("" if t.endswith("]") else "]") for t in texts]
    start = time.process_time()
    for text in texts:
        with contextlib.suppress(SyntaxError):
            compile(text, "<prediction>", "eval", ast.PyCF_ONLY_AST)
    return len(texts) / (time.process_time() - start)


def startup(repeat: int = 5) -> None:
    """`callbank score --help` as a fresh process, best of repeat."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "validator", "score", "--help"], cwd=ROOT, check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    print(f"`callbank score --help` process start: {best:.3f} s (best of {repeat}; goal < 0.5 s)")


# ----------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("--bfcl-repo", type=Path, help="a repository made by `callbank import bfcl`")
    parser.add_argument("--bfcl-python", help="the Python of a virtual environment with bfcl-eval installed")
    args = parser.parse_args()
    reader = "compiled reader of the common shape + reference reader" if parse._read_common_shape else "reference reader only (the compiled reader is not built)"
    print(f"answers read by: {reader}")
    corpus = Corpus.load(args.repo)
    schemas = corpus.specs
    oracle, mutated = outputs(corpus)
    for label, items in (("oracle", oracle), ("mutated", mutated), ("oracle + mutated", oracle + mutated)):
        rate, done, right = records_per_second(items, schemas, args.records)
        print(f"{label:>16}: {rate:,.0f} records/s of CPU time ({done:,} records, {len(items):,} distinct, {right / done:.1%} right)")
    worst = 0.0
    for name, seconds, verdict in adversarial(schemas):
        worst = max(worst, seconds)
        print(f"  1 MiB line, {name:<34} {seconds:.3f} s  ({verdict})")
    print(f"slowest 1 MiB adversarial line: {worst:.3f} s (goal < 0.5 s)")
    startup()
    if args.bfcl_repo and args.bfcl_python:
        bfcl_side_by_side(args.bfcl_repo, args.bfcl_python, args.records)
    elif args.bfcl_repo or args.bfcl_python:
        parser.error("--bfcl-repo and --bfcl-python go together")


if __name__ == "__main__":
    main()
