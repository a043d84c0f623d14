"""Corpus statistics as plain data: the figures `callbank stats` prints and the dataset card reuses."""

from __future__ import annotations

from collections import Counter
from typing import Any

from validator.repo import Repo

LANGS = ("en", "zh")


def _distribution(values: list[int]) -> dict[str, float | int]:
    if not values:
        return {"count": 0, "min": 0, "mean": 0.0, "max": 0}
    return {"count": len(values), "min": min(values), "mean": round(sum(values) / len(values), 2), "max": max(values)}


def corpus_stats(repo: Repo) -> dict[str, Any]:
    """Counts per category × language, APIs per domain, calls per checkpoint, arguments per call, turns per dialogue."""
    categories: Counter[tuple[str, str]] = Counter()
    calls_per_checkpoint: list[int] = []
    args_per_call: list[int] = []
    turns_per_dialogue: list[int] = []
    checkpoints_per_dialogue: list[int] = []
    for case in repo.cases.values():
        category = str(case.get("category", "?"))
        for lang in LANGS:
            side = case.get(lang)
            if not isinstance(side, dict) or not isinstance(side.get("turns"), list):
                continue
            categories[(category, lang)] += 1
            turns = side["turns"]
            turns_per_dialogue.append(len(turns))
            expects = [t["expect"] for t in turns if isinstance(t, dict) and "expect" in t]
            checkpoints_per_dialogue.append(len(expects))
            for answer in expects:
                calls = answer.get("calls") if isinstance(answer, dict) else None
                if calls is None and isinstance(answer, dict) and isinstance(answer.get("one_of"), list) and answer["one_of"]:
                    calls = answer["one_of"][0].get("calls")
                if isinstance(calls, list):
                    calls_per_checkpoint.append(len(calls))
                    args_per_call.extend(len(c.get("args") or {}) for c in calls if isinstance(c, dict))
    for scenario in repo.scenarios.values():
        category = f"agent/{scenario.get('mode', '?')}"
        for lang in LANGS:
            if isinstance(scenario.get("user"), dict) and lang in scenario["user"]:
                categories[(category, lang)] += 1
    domains: Counter[str] = Counter()
    runnable = spec_only = 0
    for spec in repo.specs.values():
        domains[str(spec.get("domain", "?")).split(".")[0]] += 1
        if spec.get("spec_only"):
            spec_only += 1
        else:
            runnable += 1
    names = sorted({c for c, _ in categories})
    return {
        "categories": {name: {lang: categories[(name, lang)] for lang in LANGS} for name in names},
        "totals": {lang: sum(categories[(n, lang)] for n in names) for lang in LANGS},
        "apis": {"total": runnable + spec_only, "runnable": runnable, "spec_only": spec_only, "per_domain": dict(sorted(domains.items()))},
        "calls_per_checkpoint": _distribution(calls_per_checkpoint),
        "arguments_per_call": _distribution(args_per_call),
        "turns_per_dialogue": _distribution(turns_per_dialogue),
        "checkpoints_per_dialogue": _distribution(checkpoints_per_dialogue),
        "sandboxes": len(repo.sandbox_names()),
        "scenarios": len(repo.scenarios),
    }


def render_text(stats: dict[str, Any]) -> str:
    lines = ["category                          en     zh"]
    for name, counts in stats["categories"].items():
        lines.append(f"{name:<30} {counts['en']:>5}  {counts['zh']:>5}")
    lines.append(f"{'total':<30} {stats['totals']['en']:>5}  {stats['totals']['zh']:>5}")
    apis = stats["apis"]
    lines += ["", f"APIs: {apis['total']} ({apis['runnable']} runnable, {apis['spec_only']} spec-only) in {len(apis['per_domain'])} domains"]
    lines += [f"  {domain:<20} {count:>4}" for domain, count in apis["per_domain"].items()]
    lines.append(f"sandboxes: {stats['sandboxes']}, agent scenarios: {stats['scenarios']}")
    lines.append("")
    for key in ("calls_per_checkpoint", "arguments_per_call", "turns_per_dialogue", "checkpoints_per_dialogue"):
        d = stats[key]
        lines.append(f"{key.replace('_', ' '):<26} min {d['min']}  mean {d['mean']}  max {d['max']}  (n={d['count']})")
    return "\n".join(lines) + "\n"
