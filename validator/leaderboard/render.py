"""The leaderboard as Markdown, CSV or JSON (the JSON is the leaderboard object itself)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

from validator.leaderboard.table import FAMILY_COLUMNS

SCORE_COLUMNS = ("overall", *FAMILY_COLUMNS, "retrieval", "en", "zh")


def _value(score: dict[str, Any] | None) -> str:
    return "" if score is None else f"{score['value']:.3f}"


def _ci(score: dict[str, Any] | None) -> str:
    return "" if score is None or not score.get("ci") else f"[{score['ci'][0]:.3f}, {score['ci'][1]:.3f}]"


def _cost(row: dict[str, Any]) -> str:
    cost = row["usage"].get("cost")
    if not cost or cost.get("model") is None:
        return ""
    total = cost["model"] + (cost.get("user") or 0.0)
    return f"{total:.4f} {cost['currency']}"


def _latency(row: dict[str, Any]) -> str:
    latency = row["usage"]["latency_s"]
    return "" if latency["p50"] is None else f"{latency['p50']:.2f} / {latency['p95']:.2f}"


def _tokens(row: dict[str, Any]) -> str:
    usage = row["usage"]
    return "" if not usage["reported"] else f"{usage['prompt_tokens']:,} / {usage['completion_tokens']:,}"


def render_markdown(board: dict[str, Any]) -> str:
    lines = [
        "| # | run | mode | style | overall | 95% CI | normal | special | agent | retrieval | en | zh | en − zh | tokens in / out | latency p50 / p95 (s) | cost |",
        "|---:|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in board["rows"]:
        gap = "" if row["gap"] is None else f"{row['gap']:+.3f}"
        cells = [
            str(row["rank"]), row["run"], row["mode"] or "", row["style"] or "", f"**{_value(row['overall'])}**", _ci(row["overall"]),
            *(_value(row[name]) for name in (*FAMILY_COLUMNS, "retrieval", "en", "zh")), gap, _tokens(row), _latency(row), _cost(row),
        ]  # fmt: skip
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    notes = [f"- {row['run']}: {note}" for row in board["rows"] for note in row["notes"]]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines) + "\n"


def render_csv(board: dict[str, Any]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["rank", "run", "model", "mode", "style", "prompt_version", "units", "missing"]
    for name in SCORE_COLUMNS:
        header += [name, f"{name}_ci_low", f"{name}_ci_high"]
    header += ["gap_en_zh", "prompt_tokens", "completion_tokens", "requests", "retries", "latency_p50_s", "latency_p95_s", "cost", "currency", "files"]
    writer.writerow(header)
    for row in board["rows"]:
        cells: list[Any] = [row["rank"], row["run"], row["model"], row["mode"], row["style"], row["prompt_version"], row["units"], row["missing"]]
        for name in SCORE_COLUMNS:
            score = row[name]
            ci = score["ci"] if score and score.get("ci") else [None, None]
            cells += [None if score is None else score["value"], ci[0], ci[1]]
        usage = row["usage"]
        cost = usage.get("cost") or {}
        total = None if cost.get("model") is None else cost["model"] + (cost.get("user") or 0.0)
        cells += [row["gap"], usage["prompt_tokens"], usage["completion_tokens"], usage["requests"], usage["retries"]]
        cells += [usage["latency_s"]["p50"], usage["latency_s"]["p95"], total, cost.get("currency"), " ".join(row["files"])]
        writer.writerow(["" if cell is None else cell for cell in cells])
    return buffer.getvalue()


def render_json(board: dict[str, Any]) -> str:
    return json.dumps(board, ensure_ascii=False, indent=2) + "\n"


REPORTERS: dict[str, Callable[[dict[str, Any]], str]] = {"markdown": render_markdown, "csv": render_csv, "json": render_json}
