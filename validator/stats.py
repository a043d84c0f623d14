"""Corpus statistics as plain data: the figures `callbank stats` prints.

Three groups of figures:

- **size**: cases per category × language, APIs per domain, calls, arguments, turns;
- **difficulty** (issue 13): candidates and rivals, calls per parallel checkpoint, multi-turn
  depth, the argument kinds that need work, how long and how messy the user's messages are,
  how agent scenarios spread over sandboxes. A feature a rule can check (DLG040) is counted
  twice: as declared in ``features:`` (a claim DLG040 holds true) and as found by the same
  check in every case, claimed or not; the judgements no rule can make (colloquial, typo,
  English locale, near miss, documented constraint) only as declared;
- **targets**: each goal of the issue with its figure, marked met or not met.

Cases are counted once (both language sides share one structure, DLG003/DLG004); message
lengths are counted per language: English words, and Chinese characters with each number or
English word inside the Chinese counting one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import median
from typing import Any, Final

from validator.corpus.categories import CASE_CATEGORIES
from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.corpus.records import Case
from validator.rules import features as feature_checks

CASES_PER_SUBCATEGORY: Final = 150
SCENARIOS: Final = 150
SCENARIO_SANDBOXES: Final = 8
MULTI_SANDBOX_SCENARIOS: Final = 25
RIVALS_SHARE: Final = 0.30
PARALLEL_MEAN_CALLS: Final = 3.0
PARALLEL_MAX_CALLS: Final = 6
MULTI_TURN_DEEP_SHARE: Final = 0.40
DEEP_CHECKPOINTS: Final = 3

ARGUMENT_FEATURES: Final = ("relative_date", "unit_conversion", "from_tool_result", "nested_args", "optional_set", "doc_constraint")
LANGUAGE_FEATURES: Final = ("colloquial", "typo", "code_switch", "long_message", "english_locale")


def _distribution(values: list[int]) -> dict[str, float | int]:
    if not values:
        return {"count": 0, "min": 0, "mean": 0.0, "max": 0}
    return {"count": len(values), "min": min(values), "mean": round(sum(values) / len(values), 2), "max": max(values)}


def _lengths(values: list[int]) -> dict[str, float | int]:
    if not values:
        return {"messages": 0, "mean": 0.0, "median": 0, "p90": 0, "max": 0}
    ordered = sorted(values)
    return {
        "messages": len(values),
        "mean": round(sum(values) / len(values), 1),
        "median": median(ordered),
        "p90": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
        "max": ordered[-1],
    }


def _share(count: int, total: int) -> dict[str, float | int]:
    return {"count": count, "of": total, "share": round(count / total, 4) if total else 0.0}


def _target(name: str, value: float | int, goal: str, met: bool) -> dict[str, Any]:
    return {"target": name, "value": value, "goal": goal, "met": met}


def corpus_stats(corpus: Corpus) -> dict[str, Any]:
    """Every figure of `callbank stats`, as JSON-ready data."""
    figures = size_stats(corpus)
    figures["difficulty"] = difficulty_stats(corpus)
    figures["targets"] = targets(figures)
    return figures


def size_stats(corpus: Corpus) -> dict[str, Any]:
    """Counts per category × language, APIs per domain, calls per checkpoint, arguments per call, turns per dialogue."""
    categories: Counter[tuple[str, str]] = Counter()
    calls_per_checkpoint: list[int] = []
    args_per_call: list[int] = []
    turns_per_dialogue: list[int] = []
    checkpoints_per_dialogue: list[int] = []
    for case in corpus.cases.values():
        for lang, dialogue in case.dialogues.items():
            categories[(case.category, lang)] += 1
            turns_per_dialogue.append(len(dialogue.turns))
            checkpoints_per_dialogue.append(len(dialogue.checkpoints))
            for checkpoint in dialogue.checkpoints:
                if checkpoint.alternatives:
                    calls_per_checkpoint.append(len(checkpoint.first))
                    args_per_call.extend(len(call.args) for call in checkpoint.first)
    for scenario in corpus.scenarios.values():
        for lang in scenario.user:
            categories[(scenario.category, lang)] += 1
    domains: Counter[str] = Counter()
    runnable = spec_only = 0
    for spec in corpus.specs.values():
        domains[spec.domain.split(".")[0]] += 1
        if spec.spec_only:
            spec_only += 1
        else:
            runnable += 1
    names = sorted({c for c, _ in categories})
    langs = corpus.langs
    return {
        "languages": list(langs),
        "categories": {name: {lang: categories[(name, lang)] for lang in langs} for name in names},
        "totals": {lang: sum(categories[(n, lang)] for n in names) for lang in langs},
        "apis": {"total": runnable + spec_only, "runnable": runnable, "spec_only": spec_only, "per_domain": dict(sorted(domains.items()))},
        "calls_per_checkpoint": _distribution(calls_per_checkpoint),
        "arguments_per_call": _distribution(args_per_call),
        "turns_per_dialogue": _distribution(turns_per_dialogue),
        "checkpoints_per_dialogue": _distribution(checkpoints_per_dialogue),
        "sandboxes": len(corpus.sandbox_names),
        "scenarios": len(corpus.scenarios),
    }


def difficulty_stats(corpus: Corpus) -> dict[str, Any]:
    """The figures that say whether the corpus can separate strong models."""
    cases = corpus.cases_in()
    found = {name: [case for case in cases if feature_checks.contains(case, corpus, name)] for name in feature_checks.CHECKED}
    declared = Counter(name for case in cases for name in case.features)
    total = len(cases)
    rivals = [c for c in found["many_candidates"] if c in found["cross_domain"] and c in found["rival_api"]]
    return {
        "cases": total,
        "candidates": {
            "mean": round(sum(len(c.apis) for c in cases) / total, 2) if total else 0.0,
            "many_cross_domain_with_rival": _share(len(rivals), total),
            "many_candidates": _share(len(found["many_candidates"]), total),
        },
        "parallel": _parallel(corpus.cases_in(["normal/single_turn/parallel"])),
        "multi_turn": _multi_turn(corpus.cases_in(["normal/multi_turn"])),
        "arguments": {name: _feature(name, declared, found, total) for name in ARGUMENT_FEATURES},
        "language": {
            "message_tokens": {lang: _lengths([feature_checks.message_tokens(t, lang) for c in cases if lang in c.dialogues for t in feature_checks.user_turns(c.dialogues[lang])])
                               for lang in corpus.langs},
            "features": {name: _feature(name, declared, found, total) for name in LANGUAGE_FEATURES},
        },
        "special": _special(corpus.cases_in(["special"])),
        "scenarios": _scenarios(corpus),
    }


def _feature(name: str, declared: Counter[str], found: dict[str, list[Case]], total: int) -> dict[str, Any]:
    figure: dict[str, Any] = {"declared": _share(declared[name], total), "checked": name in found}
    if name in found:
        figure["found"] = _share(len(found[name]), total)
    return figure


def _parallel(cases: Sequence[Case]) -> dict[str, Any]:
    calls: list[int] = []
    repeated = 0
    for case in cases:
        dialogue = next(iter(case.dialogues.values()))
        for checkpoint in dialogue.checkpoints:
            if checkpoint.alternatives:
                calls.append(len(checkpoint.first))
                repeated += feature_checks.repeats_api(checkpoint)
    return {"cases": len(cases), "calls_per_checkpoint": _distribution(calls), "repeated_api": _share(repeated, len(calls))}


def _multi_turn(cases: Sequence[Case]) -> dict[str, Any]:
    depths = [len(next(iter(case.dialogues.values())).checkpoints) for case in cases]
    deep = sum(1 for d in depths if d >= DEEP_CHECKPOINTS)
    return {"dialogues": len(cases), "checkpoints": _distribution(depths), "with_3_or_more_checkpoints": _share(deep, len(cases))}


def _special(cases: Sequence[Case]) -> dict[str, Any]:
    near = sum(1 for case in cases if "near_miss" in case.features)
    return {"cases": len(cases), "near_miss_declared": _share(near, len(cases))}


def _scenarios(corpus: Corpus) -> dict[str, Any]:
    scenarios = corpus.scenarios_in()
    per_sandbox: Counter[str] = Counter(name for s in scenarios for name in set(s.sandboxes))
    spanning = sum(1 for s in scenarios if len(set(s.sandboxes)) >= 2)
    return {
        "total": len(scenarios),
        "per_sandbox": {name: per_sandbox[name] for name in corpus.sandbox_names},
        "sandboxes_used": sum(1 for n in per_sandbox.values() if n),
        "spanning_2_or_more": spanning,
        "per_mode": dict(sorted(Counter(s.mode for s in scenarios).items())),
    }


def targets(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """Each goal of issue 13 with the corpus's figure, met or not."""
    found: list[dict[str, Any]] = []
    for name in CASE_CATEGORIES:
        n = min(figures["categories"].get(name, {}).get(lang, 0) for lang in figures.get("languages", LANGS))
        found.append(_target(f"cases in {name}", n, f">= {CASES_PER_SUBCATEGORY}", n >= CASES_PER_SUBCATEGORY))
    difficulty = figures["difficulty"]
    scenarios = difficulty["scenarios"]
    found.append(_target("agent scenarios", scenarios["total"], f">= {SCENARIOS}", scenarios["total"] >= SCENARIOS))
    found.append(_target("sandboxes with scenarios", scenarios["sandboxes_used"], f">= {SCENARIO_SANDBOXES}", scenarios["sandboxes_used"] >= SCENARIO_SANDBOXES))
    found.append(
        _target("scenarios spanning 2+ sandboxes", scenarios["spanning_2_or_more"], f">= {MULTI_SANDBOX_SCENARIOS}", scenarios["spanning_2_or_more"] >= MULTI_SANDBOX_SCENARIOS)
    )
    rivals = difficulty["candidates"]["many_cross_domain_with_rival"]["share"]
    found.append(_target("cases with 8+ candidates across domains and a same-domain rival", rivals, f">= {RIVALS_SHARE:.0%}", rivals >= RIVALS_SHARE))
    parallel = difficulty["parallel"]
    calls = parallel["calls_per_checkpoint"]
    found.append(_target("mean calls per parallel checkpoint", calls["mean"], f">= {PARALLEL_MEAN_CALLS:g}", calls["mean"] >= PARALLEL_MEAN_CALLS))
    found.append(_target("most calls in a parallel checkpoint", calls["max"], f"<= {PARALLEL_MAX_CALLS}", 0 < calls["max"] <= PARALLEL_MAX_CALLS))
    repeated = parallel["repeated_api"]["count"]
    found.append(_target("parallel checkpoints repeating an API", repeated, "> 0", repeated > 0))
    deep = difficulty["multi_turn"]["with_3_or_more_checkpoints"]["share"]
    found.append(_target("multi-turn dialogues with 3+ checkpoints", deep, f">= {MULTI_TURN_DEEP_SHARE:.0%}", deep >= MULTI_TURN_DEEP_SHARE))
    return found


# ----------------------------------------------------------------------------- text


def _pct(share: float) -> str:
    return f"{share * 100:.1f}%"


def render_text(stats: dict[str, Any]) -> str:
    langs = stats.get("languages", list(LANGS))
    lines = [f"{'category':<30}" + "".join(f" {lang:>5} " for lang in langs).rstrip()]
    for name, counts in stats["categories"].items():
        lines.append(f"{name:<30}" + "".join(f" {counts[lang]:>5} " for lang in langs).rstrip())
    lines.append(f"{'total':<30}" + "".join(f" {stats['totals'][lang]:>5} " for lang in langs).rstrip())
    apis = stats["apis"]
    lines += ["", f"APIs: {apis['total']} ({apis['runnable']} runnable, {apis['spec_only']} spec-only) in {len(apis['per_domain'])} domains"]
    lines += [f"  {domain:<20} {count:>4}" for domain, count in apis["per_domain"].items()]
    lines.append(f"sandboxes: {stats['sandboxes']}, agent scenarios: {stats['scenarios']}")
    lines.append("")
    for key in ("calls_per_checkpoint", "arguments_per_call", "turns_per_dialogue", "checkpoints_per_dialogue"):
        d = stats[key]
        lines.append(f"{key.replace('_', ' '):<26} min {d['min']}  mean {d['mean']}  max {d['max']}  (n={d['count']})")
    if "difficulty" in stats:
        lines += ["", *_difficulty_lines(stats["difficulty"])]
    if "targets" in stats:
        lines += ["", *_target_lines(stats["targets"])]
    return "\n".join(lines) + "\n"


def _difficulty_lines(d: dict[str, Any]) -> list[str]:
    candidates, parallel, multi = d["candidates"], d["parallel"], d["multi_turn"]
    rivals = candidates["many_cross_domain_with_rival"]
    calls = parallel["calls_per_checkpoint"]
    deep = multi["with_3_or_more_checkpoints"]
    lines = [
        f"difficulty (per case; {d['cases']} cases)",
        f"  candidates            mean {candidates['mean']}; 8+ across 3+ domains with a same-domain rival: {_pct(rivals['share'])} ({rivals['count']})",
        f"  parallel checkpoints  calls mean {calls['mean']}, max {calls['max']} (n={calls['count']}); repeating an API: {_pct(parallel['repeated_api']['share'])}",
        f"  multi-turn dialogues  3+ checkpoints: {_pct(deep['share'])} ({deep['count']} of {deep['of']}); checkpoints mean {multi['checkpoints']['mean']}",
        "  arguments that need work (declared; found by the DLG040 check, claimed or not)",
    ]
    lines += [_feature_line(name, figure) for name, figure in d["arguments"].items()]
    lines.append("  user messages (tokens: English words; Chinese characters, a number or English word one)")
    for lang, length in d["language"]["message_tokens"].items():
        lines.append(f"    {lang}  mean {length['mean']}  median {length['median']}  p90 {length['p90']}  max {length['max']}  (n={length['messages']})")
    lines += [_feature_line(name, figure) for name, figure in d["language"]["features"].items()]
    near = d["special"]["near_miss_declared"]
    lines.append(f"  special cases declared near_miss: {_pct(near['share'])} ({near['count']} of {near['of']})")
    scenarios = d["scenarios"]
    spread = ", ".join(f"{name} {n}" for name, n in scenarios["per_sandbox"].items())
    lines.append(f"  agent scenarios {scenarios['total']} over {scenarios['sandboxes_used']} sandboxes, {scenarios['spanning_2_or_more']} spanning 2+: {spread}")
    return lines


def _feature_line(name: str, figure: dict[str, Any]) -> str:
    line = f"    {name:<18} declared {_pct(figure['declared']['share']):>6}"
    if "found" in figure:
        line += f"   found {_pct(figure['found']['share']):>6}"
    return line


def _target_lines(found: list[dict[str, Any]]) -> list[str]:
    met = sum(1 for t in found if t["met"])
    lines = [f"targets (issue 13): {met} of {len(found)} met"]
    for t in found:
        value = _pct(t["value"]) if isinstance(t["value"], float) and t["goal"].endswith("%") else t["value"]
        lines.append(f"  {'met    ' if t['met'] else 'NOT MET'}  {t['target']:<64} {value!s:>7}  (goal {t['goal']})")
    return lines
