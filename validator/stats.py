"""Corpus statistics as plain data: the figures `callbank stats` prints and the dataset card reuses."""

from __future__ import annotations

from collections import Counter
from typing import Any

from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS


def _distribution(values: list[int]) -> dict[str, float | int]:
    if not values:
        return {"count": 0, "min": 0, "mean": 0.0, "max": 0}
    return {"count": len(values), "min": min(values), "mean": round(sum(values) / len(values), 2), "max": max(values)}


def corpus_stats(corpus: Corpus) -> dict[str, Any]:
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
    return "\n".join(lines) + "\n"
