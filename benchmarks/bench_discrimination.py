"""Can the corpus rank models? Oracle predictions corrupted at known rates, scored by `callbank score`.

    python benchmarks/bench_discrimination.py [--repo .] [--seeds 5] [--accuracy 0.70] [--gap 0.05]

1. ``callbank run --model oracle`` writes the reference predictions (a fresh process).
2. For every seed, two simulated models are made from them: **A** answers a share
   ``1 - accuracy`` of the units of every category wrong (a unit is what the scorer counts: a
   case in one language, all its checkpoints; an agent scenario in one language), **B** a share
   ``gap`` smaller, so B is ``gap`` points better in every category. The two share how hard
   items are: B's wrong units are drawn from the same random ranking as A's, each unit keeping
   its rank with probability ``--overlap`` (default 0.5) and drawing a new one otherwise, as two
   real models agree on many of the items they miss.
3. A wrong unit gets one realistic corruption in one of its checkpoints:
   calls — the wrong API among the candidates (a same-domain rival when there is one), a wrong
   value (a date a day off, another enum value, a number off by one, a changed word), a
   required argument left out, or a special answer where calls are expected;
   special answers — a call to the API although the value is invalid, missing or no API fits,
   or the wrong kind of special answer;
   retrieval — the episode stops after searching, or its call has a wrong value;
   agent scenarios — the agent stops before its last write (a call that is not a lookup; the run
   ends there, so nothing after it is told to the user), or that write has a wrong value.
   How many of each kind the scorer found wrong is printed: a corruption the answer key still
   accepts (a changed word in a free-text field matched by ``$contains``) leaves its unit right,
   so the accuracy reached is printed next to the one aimed at.
4. Each file is scored by ``callbank score --format json`` in its own process.
5. Printed per category (the scorer's categories, leaves and families) and overall: the
   accuracy of A, the scorer's 95% CI half-width for A in points, and in how many seeds B is
   separated from A — a paired bootstrap (units resampled together, 2,000 resamples, seeded) of
   B − A whose 95% interval excludes 0; overall the weighted score's difference, with units
   resampled within each family. Goal: a half-width of at most 5 points per category and 1.5
   overall at about 70% accuracy; what is met is printed.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from validator.corpus.index import Corpus  # noqa: E402
from validator.corpus.records import Case, Scenario  # noqa: E402
from validator.models.render import python_calls  # noqa: E402
from validator.scoring.parse import parse_prediction  # noqa: E402
from validator.toolsearch import SEARCH_API  # noqa: E402

HALF_WIDTH_GOAL = 5.0  # points, per category
OVERALL_GOAL = 1.5  # points
RESAMPLES = 2000
IRRELEVANT = {"en": "[IRRELEVANT]", "zh": "【无关】"}
MISSING = {"en": "[MISSING] {api}: {params}", "zh": "【缺少参数】{api}：{params}"}
# calls that only read: an agent that stops early stops before its last call that is not one of these
READ_PREFIXES = ("get_", "list_", "search_", "find_", "check_", "quote_", "estimate_", "view_", "show_", "lookup_", "read_")

Unit = tuple[str, str]  # (id, lang)
Record = dict[str, Any]


# ----------------------------------------------------------------------------- corrupting one answer


class Corrupter:
    """Realistic wrong answers, made from the oracle's right ones."""

    def __init__(self, corpus: Corpus, rng: random.Random) -> None:
        self.corpus = corpus
        self.rng = rng
        self.kinds: Counter[str] = Counter()
        self.made: dict[Unit, str] = {}  # corrupted unit -> the kind of corruption

    def record(self, record: Record, item: Case | Scenario) -> Record:
        """A copy of record, answered wrong in one realistic way."""
        before = self.kinds.copy()
        wrong = self._corrupt(copy.deepcopy(record), item)
        (kind,) = (self.kinds - before).keys()
        self.made[(record["id"], record["lang"])] = kind
        return wrong

    def _corrupt(self, wrong: Record, item: Case | Scenario) -> Record:
        if isinstance(item, Scenario):
            return self._agent(wrong)
        if "calls" in wrong:
            return self._retrieval(wrong)
        parsed = parse_prediction(wrong)
        if parsed.kind == "special":
            return self._special(wrong, item, wrong["lang"])
        calls = [{"api": call.api, "args": dict(call.args)} for call in parsed.calls]
        return self._calls(wrong, item, calls, wrong["lang"])

    def _calls(self, record: Record, case: Case, calls: list[dict[str, Any]], lang: str) -> Record:
        options: list[tuple[str, Callable[[], list[dict[str, Any]] | str | None]]] = [
            ("wrong_api", lambda: self._wrong_api(case, calls)),
            ("wrong_value", lambda: self._wrong_value(calls)),
            ("missing_argument", lambda: self._missing_argument(calls)),
            ("special_instead", lambda: IRRELEVANT[lang]),
        ]
        self.rng.shuffle(options)
        for kind, make in options:
            made = make()
            if made is not None:
                self.kinds[kind] += 1
                record["output"] = made if isinstance(made, str) else python_calls(made)
                record.pop("tool_calls", None)
                return record
        raise AssertionError("special_instead always applies")

    def _wrong_api(self, case: Case, calls: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        if not calls:
            return None
        target = self.rng.randrange(len(calls))
        api = calls[target]["api"]
        others = [a for a in case.apis if a != api and a in self.corpus.specs and not self.corpus.specs[a].spec_only] or [a for a in case.apis if a != api]
        if not others:
            return None
        domain = self.corpus.specs[api].domain if api in self.corpus.specs else None
        rivals = [a for a in others if a in self.corpus.specs and self.corpus.specs[a].domain == domain]
        wrong = copy.deepcopy(calls)
        wrong[target]["api"] = self.rng.choice(rivals or others)
        return wrong

    def _wrong_value(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        with_args = [i for i, call in enumerate(calls) if call["args"]]
        if not with_args:
            return None
        wrong = copy.deepcopy(calls)
        call = wrong[self.rng.choice(with_args)]
        spec = self.corpus.specs.get(call["api"])
        required = [n for n in call["args"] if spec is not None and n in spec.required] or list(call["args"])
        name = self.rng.choice(required)
        schema = spec.properties.get(name, {}) if spec is not None else {}
        call["args"][name] = self._other_value(call["args"][name], schema)
        return wrong

    def _other_value(self, value: Any, schema: Any) -> Any:
        enum = schema.get("enum") if isinstance(schema, dict) else None
        if isinstance(enum, list) and len(enum) > 1 and value in enum:
            return self.rng.choice([v for v in enum if v != value])
        if isinstance(value, bool):
            return not value
        if isinstance(value, (int, float)):
            return value + 1
        if isinstance(value, str):
            try:
                day = dt.date.fromisoformat(value[:10])
            except ValueError:
                return value + (" 二" if any("\u4e00" <= c <= "\u9fff" for c in value) else " two")
            return (day + dt.timedelta(days=1)).isoformat() + value[10:]
        if isinstance(value, list) and value:
            return value[:-1] if len(value) > 1 else [self._other_value(value[0], schema.get("items", {}) if isinstance(schema, dict) else {})]
        if isinstance(value, dict) and value:
            key = self.rng.choice(sorted(value))
            properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
            return {**value, key: self._other_value(value[key], properties.get(key, {}))}
        return "unknown"

    def _missing_argument(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        places = [(i, name) for i, call in enumerate(calls) for name in call["args"] if call["api"] in self.corpus.specs and name in self.corpus.specs[call["api"]].required]
        if not places:
            return None
        wrong = copy.deepcopy(calls)
        i, name = self.rng.choice(places)
        del wrong[i]["args"][name]
        return wrong

    def _special(self, record: Record, case: Case, lang: str) -> Record:
        step = record.get("step") or 0
        checkpoint = case.dialogues[lang].checkpoints[step]
        special = checkpoint.special
        assert special is not None
        if special.kind == "irrelevant":
            api = self.rng.choice(list(case.apis))
            self.kinds["call_instead_of_irrelevant"] += 1
            record["output"] = python_calls([{"api": api, "args": {}}])
        elif special.kind == "error_param" and self.rng.random() < 0.5:
            self.kinds["call_with_the_invalid_value"] += 1
            record["output"] = python_calls([{"api": special.api, "args": dict(special.params)}])
        elif special.kind == "error_param":
            self.kinds["wrong_special_kind"] += 1
            record["output"] = MISSING[lang].format(api=special.api, params=", ".join(special.params))
        elif self.rng.random() < 0.5:
            self.kinds["call_with_a_guessed_value"] += 1
            record["output"] = python_calls([{"api": special.api, "args": dict.fromkeys(special.missing, "unknown")}])
        else:
            self.kinds["wrong_special_kind"] += 1
            record["output"] = IRRELEVANT[lang]
        return record

    def _retrieval(self, record: Record) -> Record:
        calls = record["calls"]
        found = [i for i, call in enumerate(calls) if call.get("api") != SEARCH_API]
        if found and self.rng.random() < 0.5:
            self.kinds["retrieval_stops_after_search"] += 1
            del calls[found[-1]]
        elif found:
            wrong = self._wrong_value([calls[found[-1]]])
            if wrong is None:
                self.kinds["retrieval_stops_after_search"] += 1
                del calls[found[-1]]
            else:
                self.kinds["retrieval_wrong_value"] += 1
                calls[found[-1]] = {**calls[found[-1]], **wrong[0]}
        return record

    def _agent(self, record: Record) -> Record:
        calls = record["calls"]
        writes = [i for i, call in enumerate(calls) if not str(call.get("api", "")).startswith(READ_PREFIXES)] or list(range(len(calls)))
        last = writes[-1] if writes else None
        wrong = self._wrong_value([calls[last]]) if last is not None and self.rng.random() < 0.5 else None
        if wrong is not None and last is not None:
            self.kinds["agent_wrong_value"] += 1
            calls[last] = {**calls[last], **wrong[0]}
        else:
            self.kinds["agent_stops_early"] += 1  # before its last write: what it was asked to do is not done
            self._stop_before(record, last if last is not None else len(calls))
        return record

    @staticmethod
    def _stop_before(record: Record, index: int) -> None:
        """The run ends before the message that makes call ``index``: that message, the calls it
        makes, the tool results and every word after it never come (an agent that stops does not
        go on to tell the user the outcome)."""
        calls = record["calls"]
        at = calls[index].get("at") if index < len(calls) else None
        if isinstance(at, int) and isinstance(record.get("messages"), list):
            record["messages"] = record["messages"][:at]
            record["calls"] = [call for call in calls if call.get("at", 0) < at]
        else:  # a record without message positions: only the calls can be cut
            del calls[index:]


# ----------------------------------------------------------------------------- two models, paired


def wrong_units(units_by_category: dict[str, list[Unit]], accuracy: float, gap: float, overlap: float, rng: random.Random) -> tuple[set[Unit], set[Unit]]:
    """The units A and B answer wrong: exact shares per category, B's ranking sharing A's for a
    share ``overlap`` of the units."""
    wrong_a: set[Unit] = set()
    wrong_b: set[Unit] = set()
    for category in sorted(units_by_category):
        units = sorted(units_by_category[category])
        rank_a = {u: rng.random() for u in units}
        rank_b = {u: rank_a[u] if rng.random() < overlap else rng.random() for u in units}
        n_a = round((1 - accuracy) * len(units))
        n_b = max(0, round((1 - accuracy - gap) * len(units)))
        wrong_a.update(sorted(units, key=rank_a.__getitem__)[:n_a])
        wrong_b.update(sorted(units, key=rank_b.__getitem__)[:n_b])
    return wrong_a, wrong_b


def write_model(path: Path, records: Sequence[Record], wrong: set[Unit], corpus: Corpus, corrupter: Corrupter, rng: random.Random) -> None:
    by_unit: dict[Unit, list[int]] = defaultdict(list)
    for i, record in enumerate(records):
        by_unit[(record["id"], record["lang"])].append(i)
    chosen = {rng.choice(by_unit[unit]) for unit in sorted(wrong)}  # one checkpoint of each wrong unit
    with path.open("w", encoding="utf-8") as out:
        for i, record in enumerate(records):
            item = corpus.item(record["id"])
            assert item is not None
            written = corrupter.record(record, item) if i in chosen else record
            out.write(json.dumps(written, ensure_ascii=False) + "\n")


def score(predictions: Path, repo: Path) -> dict[str, Any]:
    out = predictions.with_suffix(".score.json")
    subprocess.run([sys.executable, "-m", "validator", "score", str(predictions), "--repo", str(repo), "--format", "json", "--out", str(out)], check=False, capture_output=True)
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return report


def outcomes(report: dict[str, Any]) -> dict[Unit, tuple[str, bool]]:
    return {(r["id"], r["lang"]): (r["category"], bool(r["correct"])) for r in report["results"]}


def paired_separated(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> bool:
    """Whether the 95% paired-bootstrap interval of mean(b) − mean(a) excludes 0."""
    n = len(a)
    picks = rng.integers(0, n, size=(RESAMPLES, n))
    differences = (b[picks] - a[picks]).mean(axis=1)
    low, high = np.percentile(differences, [2.5, 97.5])
    return bool(low > 0 or high < 0)


def overall_separated(a: dict[Unit, tuple[str, bool]], b: dict[Unit, tuple[str, bool]], weights: dict[str, float], rng: np.random.Generator) -> bool:
    """The weighted overall score's paired difference, units resampled within each family."""
    total = np.zeros(RESAMPLES)
    for family, weight in weights.items():
        units = sorted(u for u, (category, _) in a.items() if _family(category) == family)
        if not units:
            continue
        left = np.array([a[u][1] for u in units], dtype=float)
        right = np.array([b[u][1] for u in units], dtype=float)
        picks = rng.integers(0, len(units), size=(RESAMPLES, len(units)))
        total += weight * (right[picks] - left[picks]).mean(axis=1)
    low, high = np.percentile(total, [2.5, 97.5])
    return bool(low > 0 or high < 0)


def _family(category: str) -> str:
    top = category.split("/", 1)[0]
    return "normal" if top == "retrieval" else top


def _in(category: str, row: str) -> bool:
    return category == row or category.startswith(row + "/")


# ----------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--accuracy", type=float, default=0.70, help="accuracy of model A (default 0.70)")
    parser.add_argument("--gap", type=float, default=0.05, help="how much better model B is (default 0.05)")
    parser.add_argument("--overlap", type=float, default=0.5, help="share of units whose difficulty A and B share (default 0.5)")
    args = parser.parse_args()
    repo = args.repo.resolve()
    corpus = Corpus.load(repo, ("api", "case", "scenario", "state"))
    with tempfile.TemporaryDirectory(prefix="callbank-discrimination-") as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        oracle = work / "oracle.jsonl"
        subprocess.run([sys.executable, "-m", "validator", "run", "--model", "oracle", "--repo", str(repo), "--out", str(oracle)], check=True, capture_output=True)
        records = [json.loads(line) for line in oracle.read_text(encoding="utf-8").splitlines() if line.strip()]
        units_by_category: dict[str, list[Unit]] = defaultdict(list)
        for record in records:
            item = corpus.item(record["id"])
            assert item is not None, record["id"]
            unit = (record["id"], record["lang"])
            if unit not in units_by_category[item.category]:
                units_by_category[item.category].append(unit)
        runs: list[tuple[dict[str, Any], dict[str, Any]]] = []
        kinds: Counter[str] = Counter()
        caught: Counter[str] = Counter()
        for seed in range(args.seeds):
            rng = random.Random(seed)
            wrong_a, wrong_b = wrong_units(units_by_category, args.accuracy, args.gap, args.overlap, rng)
            reports = []
            for name, wrong in (("a", wrong_a), ("b", wrong_b)):
                corrupter = Corrupter(corpus, rng)
                path = work / f"seed{seed}-{name}.jsonl"
                write_model(path, records, wrong, corpus, corrupter, rng)
                kinds.update(corrupter.kinds)
                reports.append(score(path, repo))
                verdicts = outcomes(reports[-1])
                caught.update(kind for unit, kind in corrupter.made.items() if not verdicts[unit][1])
            runs.append((reports[0], reports[1]))
        elapsed = time.perf_counter() - started
    print_results(runs, kinds, caught, args, elapsed)
    return 0


def print_results(runs: list[tuple[dict[str, Any], dict[str, Any]]], kinds: Counter[str], caught: Counter[str], args: argparse.Namespace, elapsed: float) -> None:
    rng = np.random.default_rng(20240611)
    rows = sorted(runs[0][0]["categories"])
    leaves = [r for r in rows if not any(other.startswith(r + "/") for other in rows)]
    print(f"model A at {args.accuracy:.0%} per category, model B {args.gap * 100:g} points better; {args.seeds} seeds; overlap {args.overlap}")
    print("corruptions (scored wrong / made): " + ", ".join(f"{k} {caught[k]}/{n}" for k, n in sorted(kinds.items())))
    print()
    print(f"{'category':<30} {'n':>5} {'acc A':>7} {'acc B':>7} {'±95% A':>7}  separated  goal ≤{HALF_WIDTH_GOAL:g}")
    met_leaves = 0
    for row in rows:
        halves, acc_a, acc_b, separated = [], [], [], 0
        n = 0
        for a, b in runs:
            entry_a, entry_b = a["categories"][row], b["categories"][row]
            n = entry_a["n"]
            low, high = entry_a["ci"]
            halves.append((high - low) / 2 * 100)
            acc_a.append(entry_a["accuracy"])
            acc_b.append(entry_b["accuracy"])
            units_a, units_b = outcomes(a), outcomes(b)
            keys = sorted(u for u, (category, _) in units_a.items() if _in(category, row))
            separated += paired_separated(np.array([units_a[k][1] for k in keys], dtype=float), np.array([units_b[k][1] for k in keys], dtype=float), rng)
        half = sum(halves) / len(halves)
        met = half <= HALF_WIDTH_GOAL
        met_leaves += met and row in leaves
        indent = "  " * row.count("/")
        print(f"{indent + row:<30} {n:>5} {np.mean(acc_a):>7.3f} {np.mean(acc_b):>7.3f} {half:>7.2f}  {separated:>2}/{len(runs):<2}      {'met' if met else 'NOT MET'}")
    halves, separated, score_a, score_b = [], 0, [], []
    for a, b in runs:
        low, high = a["overall"]["ci"]
        halves.append((high - low) / 2 * 100)
        score_a.append(a["overall"]["score"])
        score_b.append(b["overall"]["score"])
        weights = {family: entry["weight"] for family, entry in a["overall"]["families"].items()}
        separated += overall_separated(outcomes(a), outcomes(b), weights, rng)
    half = sum(halves) / len(halves)
    verdict = f"{'met' if half <= OVERALL_GOAL else 'NOT MET'} (goal ≤{OVERALL_GOAL:g})"
    print(f"{'overall (weighted)':<30} {runs[0][0]['overall']['n']:>5} {np.mean(score_a):>7.3f} {np.mean(score_b):>7.3f} {half:>7.2f}  {separated:>2}/{len(runs):<2}      {verdict}")
    print()
    print(f"leaf categories with a 95% half-width ≤ {HALF_WIDTH_GOAL:g} points: {met_leaves} of {len(leaves)}; overall ≤ {OVERALL_GOAL:g}: {'met' if half <= OVERALL_GOAL else 'not met'} ({half:.2f})")
    print(f"({elapsed:.0f} s: one oracle run and {2 * len(runs)} scorings, each a `callbank` process)")


if __name__ == "__main__":
    raise SystemExit(main())
