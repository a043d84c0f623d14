"""The leaderboard's rows: one per run, best overall score first.

Each row holds what the run's manifest says it was (model, mode, style, prompt version) and
what ``callbank score`` finds: the √n-weighted overall score with its 95% interval, the
Normal / Special / Agent family accuracies (retrieval counts with Normal, as in the score, and
is also shown alone), English and Chinese overall scores and their gap (en − zh), and the
run's usage and cost (``validator.runs.usage``; cost only from a price table the user passes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from validator.runs.load import Run
from validator.runs.prices import PriceTable
from validator.runs.usage import summarise
from validator.scoring.evaluate import Evaluation

LEADERBOARD_VERSION = 1
FAMILY_COLUMNS = ("normal", "special", "agent")


def _score(entry: dict[str, Any] | None, key: str = "accuracy") -> dict[str, Any] | None:
    if not entry or entry.get(key) is None:
        return None
    return {"value": entry[key], "ci": entry.get("ci"), "n": entry.get("n")}


def row(run: Run, evaluation: Evaluation, prices: PriceTable | None) -> dict[str, Any]:
    """One run's row."""
    report = evaluation.report
    manifest = run.manifest or {}
    languages = report["languages"]
    en = languages.get("en", {}).get("score")
    zh = languages.get("zh", {}).get("score")
    families = report["overall"]["families"]
    usage = summarise(list(run.paths), [file.manifest for file in run.files if file.manifest], prices)
    return {
        "run": run.label,
        "model": manifest.get("model"),
        "mode": manifest.get("mode"),
        "style": manifest.get("style"),
        "prompt_version": manifest.get("prompt_version"),
        "files": [str(path) for path in run.paths],
        "units": report["overall"]["n"],
        "missing": report["missing_units"],
        "overall": _score(report["overall"], "score"),
        **{name: _score(families.get(name)) for name in FAMILY_COLUMNS},
        "retrieval": _score(report["categories"].get("retrieval")),
        "en": _score(languages.get("en"), "score"),
        "zh": _score(languages.get("zh"), "score"),
        "gap": None if en is None or zh is None else round(en - zh, 6),
        "usage": usage,
        "notes": report["notes"],
    }


def leaderboard(runs: Sequence[Run], evaluations: Sequence[Evaluation], prices: PriceTable | None = None) -> dict[str, Any]:
    """The leaderboard: rows sorted by overall score (best first), ties by run label."""
    rows = [row(run, evaluation, prices) for run, evaluation in zip(runs, evaluations, strict=True)]
    rows.sort(key=lambda r: (-(r["overall"]["value"] if r["overall"] else -1.0), r["run"]))
    for rank, entry in enumerate(rows, 1):
        entry["rank"] = rank
    return {"version": LEADERBOARD_VERSION, "rows": rows}
