"""The report as one self-contained HTML file: nothing is fetched when it is opened.

plotly.js is inlined once, the figures and the case browser's data travel as one JSON document
in a ``<script type="application/json">`` block (read with ``JSON.parse``, so no run's text is
ever parsed as code), and the page's own script and style come from ``assets/``. Tables that need
no script (settings, the overall score and its decomposition, metrics, pass^k, usage, the
leaderboard) are written here, every value escaped.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from importlib import resources
from typing import Any

from plotly.offline import get_plotlyjs

from validator import __version__

LANG_NAMES = {"en": "English", "zh": "Chinese"}


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _num(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _ci(interval: Sequence[float] | None) -> str:
    return "" if not interval else f"[{interval[0]:.3f}, {interval[1]:.3f}]"


def _cell(cell: Any, numeric: bool) -> str:
    if numeric:
        return f'<td class="num">{_e(cell)}</td>'
    if isinstance(cell, str) and cell.startswith("[") and cell.endswith("]"):  # an interval reads as one piece
        return f'<td class="nowrap">{_e(cell)}</td>'
    return f"<td>{_e(cell)}</td>"


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], numeric: Sequence[int] = (), cls: str = "") -> str:
    head = "".join(f'<th class="num">{_e(h)}</th>' if i in numeric else f"<th>{_e(h)}</th>" for i, h in enumerate(header))
    body = "".join("<tr>" + "".join(_cell(cell, i in numeric) for i, cell in enumerate(row)) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _asset(name: str) -> str:
    return resources.files("validator.report").joinpath("assets", name).read_text(encoding="utf-8")


def _settings(run: Mapping[str, Any]) -> str:
    settings = run["settings"]
    user = settings.get("user")
    rows = [
        ("files", ", ".join(run["files"])),
        ("model", settings.get("model")),
        ("endpoint", settings.get("endpoint") or "(built-in)"),
        ("mode / syntax / style", " / ".join(str(settings.get(k) or "—") for k in ("mode", "syntax", "style"))),
        ("prompt version", settings.get("prompt_version")),
        ("corpus version", settings.get("corpus_version")),
        ("temperature / max tokens / seed", " / ".join(str(settings.get(k) if settings.get(k) is not None else "—") for k in ("temperature", "max_tokens", "seed"))),
        ("user side", user.get("model") if isinstance(user, Mapping) else "—"),
        ("created", settings.get("created")),
    ]
    return _table(["setting", "value"], [(k, v if v is not None else "—") for k, v in rows], cls="settings")


def _overall(report: Mapping[str, Any]) -> str:
    overall = report["overall"]
    parts = [f'<p class="headline">{_num(overall["score"])} <small>{_e(_ci(overall["ci"]))} over {overall["n"]} units</small></p>']
    rows = [(name, f["n"], _num(f["accuracy"]), _ci(f["ci"]), _num(f["weight"]), _num((f["weight"] or 0) * (f["accuracy"] or 0))) for name, f in overall["families"].items()]
    for lang, entry in report["languages"].items():
        rows.append((f"overall, {LANG_NAMES.get(lang, lang)}", entry["n"], _num(entry["score"]), _ci(entry["ci"]), "", ""))
    parts.append(_table(["family", "n", "accuracy", "95% CI", "weight √n/Σ√n", "weight × accuracy"], rows, numeric=(1, 2, 4, 5)))
    return "".join(parts)


def _metrics(report: Mapping[str, Any]) -> str:
    rows: list[tuple[str, str, str, str]] = []
    mt = report.get("multi_turn")
    if mt:
        rows.append(("multi-turn, per dialogue", str(mt["dialogues"]["n"]), _num(mt["dialogues"]["accuracy"]), _ci(mt["dialogues"]["ci"])))
        rows.append(("multi-turn, per checkpoint", str(mt["checkpoints"]["n"]), _num(mt["checkpoints"]["accuracy"]), _ci(mt["checkpoints"]["ci"])))
    sp = report.get("special")
    if sp:
        rows.append(("special, detection", str(sp["n"]), _num(sp["detection"]["accuracy"]), _ci(sp["detection"]["ci"])))
        rows.append(("special, correction", str(sp["n"]), _num(sp["correction"]["accuracy"]), _ci(sp["correction"]["ci"])))
    ag = report.get("agent")
    if ag:
        rows.append(("agent, end to end", str(ag["end_to_end"]["n"]), _num(ag["end_to_end"]["accuracy"]), _ci(ag["end_to_end"]["ci"])))
        rows.append(("agent, process (milestones)", str(ag["process"]["n"]), _num(ag["process"]["accuracy"]), _ci(ag["process"]["ci"])))
    for name, label in (("api", "API-F1"), ("parameter", "parameter-F1")):
        entry = report["f1"][name]
        rows.append((label, f"tp {entry['tp']} fp {entry['fp']} fn {entry['fn']}", _num(entry["f1"]), f"P {_num(entry['precision'])} R {_num(entry['recall'])}"))
    return _table(["metric", "n", "value", "95% CI / detail"], rows, numeric=(2,))


def _repeats(report: Mapping[str, Any]) -> str:
    repeats = report.get("repeats")
    if not repeats or not repeats["overall"]["units"]:
        return ""
    most = repeats["trials"]
    header = ["", "units", *(f"pass^{k}" for k in range(1, most + 1)), *(f"pass@{k}" for k in range(2, most + 1))]
    rows = []
    for scope, entry in [("overall", repeats["overall"]), *repeats["categories"].items()]:
        rows.append([scope, entry["units"], *(_num(entry["pass_hat"].get(str(k))) for k in range(1, most + 1)), *(_num(entry["pass_at"].get(str(k))) for k in range(2, most + 1))])
    return f"<h3>Repeated runs ({most} trials)</h3>" + _table(header, rows, numeric=tuple(range(1, len(header))))


def _usage(usage: Mapping[str, Any]) -> str:
    if not usage.get("reported"):
        return '<h3>Cost and latency</h3><p class="meta">This run\'s records carry no usage (a built-in model, or another harness).</p>'
    latency = usage["latency_s"]
    rows = [
        ("records", f"{usage['records']:,}"),
        ("completions / requests / retries", f"{usage['completions']:,} / {usage['requests']:,} / {usage['retries']:,}"),
        ("rejected requests (no answer)", f"{usage['rejected']:,}"),
        ("tokens in / out", f"{usage['prompt_tokens']:,} / {usage['completion_tokens']:,}"),
        ("latency per completion p50 / p95 / mean", f"{_num(latency['p50'], 2)} / {_num(latency['p95'], 2)} / {_num(latency['mean'], 2)} s (n={latency['n']:,})"),
        ("wall time of the sessions", f"{usage.get('wall_time_s', 0):,.1f} s"),
    ]
    user = usage.get("user")
    if user:
        rows.append(("user simulator tokens in / out", f"{user.get('prompt_tokens', 0):,} / {user.get('completion_tokens', 0):,}"))
    cost = usage.get("cost")
    if cost:
        shown = "no price for this model" if cost.get("model") is None else f"{cost['model']:.4f} {cost['currency']}"
        rows.append(("cost (model)", f"{shown} (prices: {cost['source']})"))
        if "user" in cost:
            rows.append(("cost (user simulator)", "no price" if cost["user"] is None else f"{cost['user']:.4f} {cost['currency']}"))
    return "<h3>Cost and latency</h3>" + _table(["", "value"], rows)


def _notes(report: Mapping[str, Any]) -> str:
    items = [*report.get("notes", []), *(f"predictions file: {p}" for p in report.get("problems", [])[:20])]
    if report.get("missing"):
        items.append(f"{len(report['missing'])} checkpoint(s) have no prediction and count as wrong")
    return "" if not items else '<ul class="notes">' + "".join(f"<li>{_e(item)}</li>" for item in items) + "</ul>"


def run_section(index: int, run: Mapping[str, Any]) -> str:
    report = run["report"]
    prefix = f"run-{index}"

    def chart(name: str) -> str:
        return f'<div class="chart" id="{prefix}-{name}" data-figure="{prefix}-{name}"></div>'

    charts = f'<div class="grid">{chart("categories")}{chart("languages")}</div>{chart("errors")}<div class="grid">{chart("f1")}</div>'
    return (
        f'<section id="{prefix}"><h2>{_e(run["label"])}</h2>'
        + _notes(report)
        + '<div class="grid"><div>'
        + "<h3>Overall</h3>"
        + _overall(report)
        + "</div><div><h3>Settings</h3>"
        + _settings(run)
        + "</div></div>"
        + f'<div class="chart" id="{prefix}-overall" data-figure="{prefix}-overall"></div>'
        + charts
        + "<h3>Metrics</h3>"
        + _metrics(report)
        + _repeats(report)
        + _usage(run["usage"])
        + "</section>"
    )


def leaderboard_section(board: Mapping[str, Any]) -> str:
    rows = []
    for row in board["rows"]:
        usage = row["usage"]
        cost = usage.get("cost") or {}
        rows.append([
            row["rank"], row["run"], row["mode"] or "", row["style"] or "",
            _num(row["overall"]["value"] if row["overall"] else None), _ci(row["overall"]["ci"] if row["overall"] else None),
            *(_num(row[name]["value"] if row[name] else None) for name in ("normal", "special", "agent", "retrieval", "en", "zh")),
            "" if row["gap"] is None else f"{row['gap']:+.3f}",
            f"{usage['prompt_tokens']:,} / {usage['completion_tokens']:,}" if usage["reported"] else "",
            "" if cost.get("model") is None else f"{cost['model']:.4f} {cost['currency']}",
        ])  # fmt: skip
    header = ["#", "run", "mode", "style", "overall", "95% CI", "normal", "special", "agent", "retrieval", "en", "zh", "en − zh", "tokens in / out", "cost"]
    return (
        '<section id="leaderboard"><h2>Leaderboard</h2>'
        + _table(header, rows, numeric=(0, 4, 6, 7, 8, 9, 10, 11, 12))
        + '<div class="chart" id="runs-categories" data-figure="runs-categories"></div></section>'
    )


BROWSER = """
<section id="browser"><h2>Cases</h2>
<div class="filters">
  <label>run <select id="filter-run"></select></label>
  <label>category <select id="filter-category"></select></label>
  <span class="chips" id="filter-lang">
    <button class="active" data-value="all">both languages</button><button data-value="en">en</button><button data-value="zh">zh</button>
  </span>
  <span class="chips" id="filter-status">
    <button class="active" data-value="all">any verdict</button><button data-value="right">right</button>
    <button data-value="wrong">wrong</button><button data-value="missing">missing</button>
  </span>
  <label>error <select id="filter-error"></select></label>
  <label>id <input type="search" id="filter-search" placeholder="filter by id"></label>
</div>
<p id="browser-count"></p>
<table class="browser"><thead><tr>__RUN_HEADER__<th>id</th><th>lang</th><th>category</th><th>verdict</th><th>error</th><th>detail</th></tr></thead><tbody id="browser-rows"></tbody></table>
<button id="browser-more">show more</button>
<p class="meta">Click a row for both languages' dialogue, the expected answer, the raw output, the parsed calls and the verdict;
agent scenarios show the trajectory, the end-state difference and the milestones reached.</p>
</section>
"""


def _json_block(payload: Mapping[str, Any]) -> str:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # inside <script> only "</" can end the block early; "<!--" could open an HTML comment
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def page(runs: Sequence[Mapping[str, Any]], shared: Mapping[str, Any], figures: Mapping[str, Any], board: Mapping[str, Any] | None, title: str = "callbank report") -> str:
    """The whole HTML document."""
    generated = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    nav = "".join(f'<a href="#run-{i}">{_e(run["label"])}</a>' for i, run in enumerate(runs))
    head_links = ('<a href="#leaderboard">leaderboard</a>' if board else "") + nav + '<a href="#browser">cases</a>'
    sections = (leaderboard_section(board) if board else "") + "".join(run_section(i, run) for i, run in enumerate(runs))
    browser = BROWSER.replace("__RUN_HEADER__", "<th>run</th>" if len(runs) > 1 else "")
    payload = {"runs": runs, "figures": figures, **shared}
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,"><title>{_e(title)}</title><style>{_asset("report.css")}</style></head>\n'
        f"<body><header><h1>{_e(title)}</h1>"
        f"<p>{len(runs)} run{'s' if len(runs) != 1 else ''} · generated {generated} by callbank {_e(__version__)} · 95% intervals are percentile bootstrap intervals (docs/scoring.md)</p>"
        f"<nav>{head_links}</nav></header>\n<main>{sections}{browser}</main>\n"
        f'<script type="application/json" id="callbank-data">{_json_block(payload)}</script>\n'
        f"<script>{get_plotlyjs()}</script>\n"
        f"<script>{_asset('report.js')}</script>\n"
        "</body></html>\n"
    )
