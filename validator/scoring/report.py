"""Rendering a score report (the dict from ``metrics.build_report``) as text, Markdown or JSON.

Reporters are registered in one dict; the JSON output is the report object itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from validator.scoring.taxonomy import BY_CODE

LIST_LIMIT = 20  # wrong results, missing predictions and problems shown by text/markdown


def render_json(report: dict[str, Any]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2) + "\n"


def _num(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _ci(interval: list[float] | None) -> str:
    return "" if not interval else f"[{interval[0]:.3f}, {interval[1]:.3f}]"


def _rate(entry: dict[str, Any] | None) -> str:
    if not entry or entry.get("accuracy") is None:
        return "—"
    return f"{entry['accuracy']:.3f} {_ci(entry.get('ci'))}".rstrip()


def _about(report: dict[str, Any]) -> list[str]:
    """Which run is scored, and which of its units: from ``callbank score``'s ``run`` and ``selection``."""
    lines: list[str] = []
    run = report.get("run")
    if run:
        said = [run.get("model") or "?"]
        said += [f"{run['mode']} mode"] if run.get("mode") else []
        said += [f"{run['style']} prompts"] if run.get("style") else []
        said += [str(run["date"])[:10]] if run.get("date") else []
        lines.append(f"run      {', '.join(said)} ({run.get('manifest')})")
    selection = report.get("selection")
    if selection and selection.get("source") != "all":
        how = "what the run covered" if selection["source"] == "run" else "as selected"
        hint = "; --all scores every unit" if selection["source"] == "run" else ""
        lines.append(f"scored   {how}: {selection['options']} ({selection['units']:,} units{hint})")
    return lines


def _headline(report: dict[str, Any]) -> list[str]:
    overall = report["overall"]
    lines = [f"overall  {_num(overall['score'])} {_ci(overall['ci'])}  ({overall['n']} units)".rstrip()]
    parts = [f"{name} {_num(f['accuracy'])} ×{f['weight']:.3f} (n={f['n']})" for name, f in overall["families"].items()]
    if parts:
        lines.append("  = " + "  +  ".join(parts))
    for lang, entry in report["languages"].items():
        lines.append(f"  {lang}: {_num(entry['score'])} {_ci(entry['ci'])}".rstrip())
    return lines


def _details(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    mt = report.get("multi_turn")
    if mt:
        lines.append(f"multi-turn   dialogues {_rate(mt['dialogues'])} (n={mt['dialogues']['n']})   checkpoints {_rate(mt['checkpoints'])} (n={mt['checkpoints']['n']})")
    sp = report.get("special")
    if sp:
        lines.append(f"special      detection {_rate(sp['detection'])}   correction {_rate(sp['correction'])}   (n={sp['n']})")
    ag = report.get("agent")
    if ag:
        lines.append(f"agent        end-to-end {_rate(ag['end_to_end'])}   process {_rate(ag['process'])}   (n={ag['end_to_end']['n']})")
    f1 = report["f1"]
    for name, label in (("api", "API-F1      "), ("parameter", "param-F1    ")):
        e = f1[name]
        lines.append(f"{label} {_num(e['f1'])}   precision {_num(e['precision'])}   recall {_num(e['recall'])}")
    return lines


def _repeats(report: dict[str, Any]) -> list[list[str]]:
    """Rows (scope, units, pass^1 … pass^K, pass@K) of the repeats section, header first."""
    repeats = report.get("repeats")
    if not repeats or not repeats["overall"]["units"]:
        return []
    most = max(len(entry["pass_hat"]) for entry in [repeats["overall"], *repeats["categories"].values()])
    header = ["repeated", "units", *(f"pass^{k}" for k in range(1, most + 1)), f"pass@{most}"]
    rows = [header]
    for scope, entry in [("overall", repeats["overall"]), *repeats["categories"].items()]:
        hat = [_num(entry["pass_hat"].get(str(k))) for k in range(1, most + 1)]
        rows.append([scope, str(entry["units"]), *hat, _num(entry["pass_at"].get(str(most)))])
    return rows


def _wrong(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in report["results"] if not r["correct"] and not (r["missing"] and r["error"] is None)]


def _unit(r: dict[str, Any]) -> str:
    step = f", step {r['step']}" if r.get("step") is not None else ""
    return f"{r['id']} ({r['lang']}{step})"


def _langs(report: dict[str, Any]) -> list[str]:
    """The language columns: the languages scored (en and zh when nothing was)."""
    return list(report["languages"]) or ["en", "zh"]


def render_text(report: dict[str, Any]) -> str:
    lines = ["callbank score", ""]
    about = _about(report)
    lines += [*about, ""] if about else []
    lines += _headline(report)
    lines.append("")
    categories = report["categories"]
    width = max([len(c) + 2 * c.count("/") for c in categories] + [8]) + 2
    langs = _langs(report)
    lines.append(f"{'category':<{width}} {'n':>6}  {'accuracy':>8}  {'95% CI':<16}" + "".join(f"  {lang:>6}" for lang in langs))
    for category, entry in categories.items():
        label = "  " * category.count("/") + category
        columns = "".join(f"  {_num(entry[lang]['accuracy'] if entry.get(lang) else None):>6}" for lang in langs)
        lines.append(f"{label:<{width}} {entry['n']:>6}  {_num(entry['accuracy']):>8}  {_ci(entry['ci']):<16}" + columns)
    lines.append("")
    lines += _details(report)
    rows = _repeats(report)
    if rows:
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        lines.append("")
        lines += ["  ".join(cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]
    lines.append("")
    counted = [(code, n) for code, n in report["errors"].items() if n]
    lines.append("errors       " + (", ".join(f"{code} {n}" for code, n in counted) if counted else "none"))
    lines += _lists(report, bullet="  ")
    return "\n".join(lines).rstrip() + "\n"


def _lists(report: dict[str, Any], bullet: str) -> list[str]:
    lines: list[str] = []
    wrong = _wrong(report)
    if wrong:
        lines += ["", f"wrong ({len(wrong)}; all in --format json):"]
        lines += [f"{bullet}{_unit(r)}  {r['error']}: {r['detail']}" for r in wrong[:LIST_LIMIT]]
        if len(wrong) > LIST_LIMIT:
            lines.append(f"{bullet}… {len(wrong) - LIST_LIMIT} more")
    missing = report["missing"]
    if missing:
        lines += ["", f"missing predictions ({len(missing)}, counted wrong):"]
        lines += [f"{bullet}{m['id']} ({m['lang']}, step {m['step']})" for m in missing[:LIST_LIMIT]]
        if len(missing) > LIST_LIMIT:
            lines.append(f"{bullet}… {len(missing) - LIST_LIMIT} more")
    problems = report["problems"]
    if problems:
        lines += ["", f"problems in the predictions file ({len(problems)}):"]
        lines += [f"{bullet}{p}" for p in problems[:LIST_LIMIT]]
        if len(problems) > LIST_LIMIT:
            lines.append(f"{bullet}… {len(problems) - LIST_LIMIT} more")
    if report.get("ignored"):
        lines += ["", f"{report['ignored']} record(s) outside the selected languages or categories were ignored"]
    for note in report.get("notes", []):
        lines += ["", f"note: {note}"]
    return lines


def render_markdown(report: dict[str, Any]) -> str:
    overall = report["overall"]
    lines = ["# callbank score", ""]
    about = _about(report)
    lines += [*(f"{line.split(maxsplit=1)[0]}: {line.split(maxsplit=1)[1]}  " for line in about), ""] if about else []
    lines.append(f"**Overall {_num(overall['score'])}** {_ci(overall['ci'])} over {overall['n']} units".rstrip())
    lines.append("")
    lines.append("| family | n | accuracy | 95% CI | weight |")
    lines.append("|---|---:|---:|---|---:|")
    for name, f in overall["families"].items():
        lines.append(f"| {name} | {f['n']} | {_num(f['accuracy'])} | {_ci(f['ci'])} | {f['weight']:.3f} |")
    for lang, entry in report["languages"].items():
        lines.append(f"| **overall {lang}** | {entry['n']} | {_num(entry['score'])} | {_ci(entry['ci'])} | |")
    langs = _langs(report)
    lines += ["", "| category | n | accuracy | 95% CI |" + "".join(f" {lang} |" for lang in langs), "|---|---:|---:|---|" + "---:|" * len(langs)]
    for category, entry in report["categories"].items():
        name = f"**{category}**" if "/" not in category else category
        columns = "".join(f" {_num(entry[lang]['accuracy'] if entry.get(lang) else None)} |" for lang in langs)
        lines.append(f"| {name} | {entry['n']} | {_num(entry['accuracy'])} | {_ci(entry['ci'])} |" + columns)
    lines += ["", "| metric | value |", "|---|---|"]
    for line in _details(report):
        label, _, value = line.partition(" ")
        lines.append(f"| {label} | {' '.join(value.split())} |")
    rows = _repeats(report)
    if rows:
        lines += ["", "| " + " | ".join(rows[0]) + " |", "|---|" + "---:|" * (len(rows[0]) - 1)]
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    lines += ["", "| error type | count |", "|---|---:|"]
    for code, n in report["errors"].items():
        lines.append(f"| {BY_CODE[code].title} (`{code}`) | {n} |")
    lines += _lists(report, bullet="- ")
    return "\n".join(lines).rstrip() + "\n"


REPORTERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
}
