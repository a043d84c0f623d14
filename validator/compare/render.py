"""Rendering a comparison report as text, Markdown or JSON (the JSON is the report itself)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

LIST_LIMIT = 20  # flipped units shown per direction by text and markdown


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _p(entry: dict[str, Any]) -> str:
    p = entry["p"]
    text = "<0.001" if p < 0.001 else f"{p:.3f}"
    return text + (" *" if entry["significant"] else "")


def _ci(entry: dict[str, Any]) -> str:
    ci = entry["ci"]
    return "" if not ci else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def _runs(report: dict[str, Any]) -> list[str]:
    lines = []
    for side in ("a", "b"):
        run = report[side]
        lines.append(f"{side.upper()}: {run['label']}  ({', '.join(run['files'])})")
    unpaired = report["unpaired"]
    lines.append(
        f"{report['paired']} units answered by both are compared"
        + (f"; left out: {unpaired['a']} of A, {unpaired['b']} of B (missing in one run)" if unpaired["a"] or unpaired["b"] else "")
    )
    return lines


def _rows(report: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [("overall (√n-weighted)", report["overall"]), *report["categories"].items()]


def _flips(report: dict[str, Any], bullet: str) -> list[str]:
    lines: list[str] = []
    for direction, title in (("a_right_b_wrong", "right in A, wrong in B"), ("a_wrong_b_right", "wrong in A, right in B")):
        rows = report["flipped"][direction]
        lines += ["", f"{title} ({len(rows)}):"]
        for row in rows[:LIST_LIMIT]:
            lines.append(f"{bullet}{row['id']} ({row['lang']})  {row['category']}  {row['error'] or 'missing'}: {row['detail']}".rstrip(": "))
        if len(rows) > LIST_LIMIT:
            lines.append(f"{bullet}… {len(rows) - LIST_LIMIT} more (all in --format json)")
    return lines


def render_text(report: dict[str, Any]) -> str:
    lines = ["callbank compare", "", *_runs(report), ""]
    width = max(len(name) + 2 * name.count("/") for name, _ in _rows(report)) + 2
    lines.append(f"{'':<{width}} {'n':>6}  {'A':>6}  {'B':>6}  {'B−A':>7}  {'95% CI (paired bootstrap)':<26} {'McNemar p':>10}  {'A✓B✗':>5}  {'A✗B✓':>5}")
    for name, entry in _rows(report):
        label = "  " * name.count("/") + name
        lines.append(
            f"{label:<{width}} {entry['n']:>6}  {_num(entry['a']):>6}  {_num(entry['b']):>6}  {_num(entry['difference'], True):>7}  "
            f"{_ci(entry):<26} {_p(entry):>10}  {entry['a_right_b_wrong']:>5}  {entry['a_wrong_b_right']:>5}"
        )
    lines += ["", f"* p < {report['alpha']} (exact McNemar test on the units that flipped; per row, not corrected for the number of rows)"]
    lines += _flips(report, "  ")
    lines += [f"\nnote: {note}" for note in report.get("notes", [])]
    return "\n".join(lines).rstrip() + "\n"


def render_markdown(report: dict[str, Any]) -> str:
    lines = ["# callbank compare", ""]
    lines += [f"- {line}" for line in _runs(report)]
    lines += ["", "| | n | A | B | B − A | 95% CI | McNemar p | A✓ B✗ | A✗ B✓ |", "|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    for name, entry in _rows(report):
        shown = f"**{name}**" if "/" not in name else name
        lines.append(
            f"| {shown} | {entry['n']} | {_num(entry['a'])} | {_num(entry['b'])} | {_num(entry['difference'], True)} | {_ci(entry)} | "
            f"{_p(entry).replace('*', '**✱**')} | {entry['a_right_b_wrong']} | {entry['a_wrong_b_right']} |"
        )
    lines += ["", f"✱ p < {report['alpha']} (exact McNemar test; per row, not corrected for the number of rows)"]
    lines += _flips(report, "- ")
    lines += [f"\n> note: {note}" for note in report.get("notes", [])]
    return "\n".join(lines).rstrip() + "\n"


def render_json(report: dict[str, Any]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2) + "\n"


REPORTERS: dict[str, Callable[[dict[str, Any]], str]] = {"text": render_text, "markdown": render_markdown, "json": render_json}
