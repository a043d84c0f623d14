"""The funnel of a synth run: ``DIR/report.json``, ``DIR/report.md`` and ``DIR/candidates.jsonl``.

Per stage: how many candidates entered it, passed it, were rejected (with the reasons and their
counts); per model: answers asked and read from the cache, tokens, latency; the acceptance rate;
the mean time per candidate of every stage. ``candidates.jsonl`` is the per-candidate log: one
line per candidate with its recipe and its path through the stages.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from validator.synth.outcome import STAGES

REPORT_VERSION = 1


@dataclass
class CandidateLog:
    index: int
    recipe: Mapping[str, Any]
    case_id: str | None = None
    stages: list[dict[str, Any]] = field(default_factory=list)
    outcome: str = "in progress"  # accepted | disputed | rejected
    path: str | None = None
    started: float = 0.0  # when the current stage began (perf_counter), for a rejection's time

    def passed(self, stage: str, seconds: float, **extra: Any) -> None:
        self.stages.append({"stage": stage, "status": "passed", "ms": round(seconds * 1000, 3), **extra})

    def rejected(self, stage: str, reason: str, detail: str, seconds: float, **extra: Any) -> None:
        self.stages.append({"stage": stage, "status": "rejected", "reason": reason, "detail": detail, "ms": round(seconds * 1000, 3), **extra})
        self.outcome = "rejected"

    @property
    def rejection(self) -> dict[str, Any] | None:
        last = self.stages[-1] if self.stages else None
        return last if last is not None and last["status"] == "rejected" else None

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "case_id": self.case_id, "outcome": self.outcome, "path": self.path, "recipe": dict(self.recipe), "stages": self.stages}


def build_report(header: Mapping[str, Any], logs: Sequence[CandidateLog], models: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    funnel = []
    rejections: dict[str, dict[str, int]] = {}
    timings: dict[str, list[float]] = {}
    for stage in STAGES:
        entries = [entry for log in logs for entry in log.stages if entry["stage"] == stage]
        passed = sum(1 for e in entries if e["status"] == "passed")
        reasons = Counter(e["reason"] for e in entries if e["status"] == "rejected")
        funnel.append({"stage": stage, "entered": len(entries), "passed": passed, "rejected": sum(reasons.values())})
        if reasons:
            rejections[stage] = dict(sorted(reasons.items()))
        if entries:
            timings[stage] = [e["ms"] for e in entries]
    accepted = sum(1 for log in logs if log.outcome == "accepted")
    disputed = sum(1 for log in logs if log.outcome == "disputed")
    return {
        "version": REPORT_VERSION,
        **header,
        "candidates": len(logs),
        "accepted": accepted,
        "disputed": disputed,
        "rejected": sum(1 for log in logs if log.outcome == "rejected"),
        "acceptance_rate": round(accepted / len(logs), 4) if logs else 0.0,
        "funnel": funnel,
        "rejections": rejections,
        "models": {role: dict(totals) for role, totals in models.items()},
        "stage_ms": {stage: round(sum(values) / len(values), 3) for stage, values in timings.items()},
        "written": [log.path for log in logs if log.path],
    }


def render_summary(report: Mapping[str, Any]) -> str:
    """The report as a few readable lines (also written to ``DIR/report.md``)."""
    lines = [
        f"# synth {report.get('category')}: {report['accepted']} of {report['candidates']} candidate(s) accepted"
        + (f", {report['disputed']} disputed (kept for review)" if report.get("disputed") else "")
        + f" ({report['acceptance_rate']:.0%})",
        "",
        "| stage | entered | passed | rejected | mean ms | reasons |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for row in report["funnel"]:
        reasons = ", ".join(f"{reason} ×{count}" for reason, count in report["rejections"].get(row["stage"], {}).items())
        mean = report["stage_ms"].get(row["stage"])
        lines.append(f"| {row['stage']} | {row['entered']} | {row['passed']} | {row['rejected']} | {'' if mean is None else f'{mean:.1f}'} | {reasons} |")
    lines += ["", "| model | role | asked | from cache | prompt tokens | completion tokens | mean latency s |", "|---|---|---:|---:|---:|---:|---:|"]
    for role, totals in report["models"].items():
        lines.append(f"| {totals['model']} | {role} | {totals['asked']} | {totals['cached']} | {totals['prompt_tokens']} | {totals['completion_tokens']} | {totals['mean_latency_s']:.2f} |")
    if report["written"]:
        lines += ["", "Written (pending review):", *(f"- {path}" for path in report["written"])]
    return "\n".join(lines) + "\n"


def dump_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"
