"""The report's charts, made with plotly from score reports (``validator.scoring.metrics``).

Each function takes report data and returns a ``plotly.graph_objects.Figure``; the HTML page
embeds them (plotly.js inlined once) and ``--format png`` writes them as images through kaleido.
Accuracies carry their 95% bootstrap interval as error bars.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from validator.scoring.taxonomy import BY_CODE

FONT = "system-ui, -apple-system, 'Segoe UI', 'Noto Sans', 'Noto Sans CJK SC', 'PingFang SC', sans-serif"
BLUE, ORANGE, GREEN, GREY = "#3366cc", "#e8833a", "#2ca02c", "#9aa0a6"
LANG_COLOURS = {"en": BLUE, "zh": "#d62728"}
FAMILY_COLOURS = {"normal": BLUE, "special": ORANGE, "agent": GREEN}
ERROR_COLOURS = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac", "#1f77b4", "#8c564b", "#17becf", "#bcbd22", "#7f7f7f",
)  # fmt: skip
RUN_COLOURS = ("#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6", "#dd4477", "#66aa00", "#b82e2e", "#316395")


def _layout(figure: go.Figure, title: str, height: int) -> go.Figure:
    figure.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left"},
        height=height,
        margin={"l": 10, "r": 20, "t": 60, "b": 40},
        font={"family": FONT, "size": 13},
        template="plotly_white",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
    )
    return figure


def _errors(entry: Mapping[str, Any] | None) -> tuple[float, float]:
    """(below, above) the accuracy for an error bar from its interval."""
    if not entry or entry.get("accuracy") is None or not entry.get("ci"):
        return (0.0, 0.0)
    accuracy, (low, high) = entry["accuracy"], entry["ci"]
    return (max(0.0, accuracy - low), max(0.0, high - accuracy))


def _label(category: str) -> str:
    """The full name: the same last segment appears under several families (agent/multi_turn, normal/multi_turn)."""
    return category


def overall_figure(report: Mapping[str, Any]) -> go.Figure:
    """Family accuracies with their intervals, and how the √n weights add them up to the overall score."""
    overall = report["overall"]
    families = overall["families"]
    names = list(families)
    figure = make_subplots(rows=1, cols=2, column_widths=[0.55, 0.45], subplot_titles=("accuracy per family (95% CI)", "overall = Σ weight × accuracy"))
    below = [_errors(families[name])[0] for name in names]
    above = [_errors(families[name])[1] for name in names]
    figure.add_trace(
        go.Bar(
            x=names,
            y=[families[name]["accuracy"] for name in names],
            marker_color=[FAMILY_COLOURS.get(name, GREY) for name in names],
            error_y={"type": "data", "symmetric": False, "array": above, "arrayminus": below},
            text=[f"{families[name]['accuracy']:.3f}<br>n={families[name]['n']}, w={families[name]['weight']:.3f}" for name in names],
            textposition="inside",
            insidetextanchor="middle",  # clear of the error bar at the top of the bar
            showlegend=False,
            hovertemplate="%{x}: %{y:.3f}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    for name in names:
        contribution = families[name]["weight"] * families[name]["accuracy"]
        figure.add_trace(
            go.Bar(
                x=["overall"],
                y=[contribution],
                name=f"{name} {families[name]['weight']:.3f} × {families[name]['accuracy']:.3f}",
                marker_color=FAMILY_COLOURS.get(name, GREY),
                hovertemplate=f"{name}: {contribution:.3f}<extra></extra>",
            ),
            row=1,
            col=2,
        )
    score, ci = overall.get("score"), overall.get("ci")
    if score is not None:
        text = f"{score:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
        figure.add_annotation(x="overall", y=score, text=text, showarrow=False, yshift=12, row=1, col=2)
    figure.update_layout(barmode="stack")
    figure.update_yaxes(range=[0, 1.08])
    _layout(figure, f"Overall {score:.3f}" if score is not None else "Overall", 400)
    # the contributions' legend under the plots: above them it covers the subplot titles
    return figure.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.08, "xanchor": "right", "x": 1.0}, margin={"b": 60})


def categories_figure(report: Mapping[str, Any]) -> go.Figure:
    """Accuracy of every category and subcategory, with its 95% interval."""
    categories = report["categories"]
    names = list(categories)[::-1]  # plotly draws the first bar at the bottom
    figure = go.Figure(
        go.Bar(
            y=[_label(name) for name in names],
            x=[categories[name]["accuracy"] for name in names],
            orientation="h",
            marker_color=[FAMILY_COLOURS.get(name.split("/")[0], BLUE if name.startswith("retrieval") else GREY) for name in names],
            error_x={"type": "data", "symmetric": False, "array": [_errors(categories[n])[1] for n in names], "arrayminus": [_errors(categories[n])[0] for n in names]},
            customdata=[[name, categories[name]["n"]] for name in names],
            hovertemplate="%{customdata[0]}: %{x:.3f} (n=%{customdata[1]})<extra></extra>",
        )
    )
    figure.update_xaxes(range=[0, 1.02], title="accuracy (95% CI)")
    return _layout(figure, "Accuracy per category", 120 + 22 * len(names))


def languages_figure(report: Mapping[str, Any]) -> go.Figure:
    """English and Chinese accuracy side by side for every category."""
    categories = report["categories"]
    names = list(categories)[::-1]
    figure = go.Figure()
    for lang in ("zh", "en"):  # en drawn above zh in each pair
        entries = [categories[name].get(lang) for name in names]
        figure.add_trace(
            go.Bar(
                y=[_label(name) for name in names],
                x=[entry["accuracy"] if entry else None for entry in entries],
                name=lang,
                orientation="h",
                marker_color=LANG_COLOURS[lang],
                error_x={"type": "data", "symmetric": False, "array": [_errors(e)[1] for e in entries], "arrayminus": [_errors(e)[0] for e in entries]},
                hovertemplate=f"{lang} %{{y}}: %{{x:.3f}}<extra></extra>",
            )
        )
    figure.update_layout(barmode="group", legend={"traceorder": "reversed"})
    figure.update_xaxes(range=[0, 1.02], title="accuracy (95% CI)")
    return _layout(figure, "English vs Chinese", 120 + 34 * len(names))


def errors_figure(rows: Sequence[Sequence[Any]]) -> go.Figure:
    """Wrong units per category, stacked by error type (rows: id, lang, category, status, error, detail)."""
    counts: dict[str, dict[str, int]] = {}
    for _, _, category, status, error, _ in rows:
        if status == "wrong" and error:
            slot = counts.setdefault(category, {})
            slot[error] = slot.get(error, 0) + 1
    categories = sorted({row[2] for row in rows})[::-1]
    codes = [code for code in BY_CODE if any(code in slot for slot in counts.values())]
    figure = go.Figure()
    for index, code in enumerate(codes):
        figure.add_trace(
            go.Bar(
                y=categories,
                x=[counts.get(category, {}).get(code, 0) for category in categories],
                name=BY_CODE[code].title,
                orientation="h",
                marker_color=ERROR_COLOURS[index % len(ERROR_COLOURS)],
                hovertemplate=f"%{{y}}: %{{x}} × {BY_CODE[code].title}<extra></extra>",
            )
        )
    figure.update_layout(barmode="stack", legend={"orientation": "v", "y": 1.0, "x": 1.02, "xanchor": "left", "yanchor": "top"})
    figure.update_xaxes(title="wrong units")
    if not codes:
        figure.add_annotation(text="no wrong unit", showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5)
    figure = _layout(figure, "Error types per category", 140 + 24 * len(categories))
    figure.update_layout(legend={"orientation": "v", "y": 1.0, "x": 1.02, "xanchor": "left", "yanchor": "top"}, margin={"r": 200})
    return figure


def f1_figure(report: Mapping[str, Any]) -> go.Figure:
    """Precision, recall and F1 of API names and of parameters (partial credit)."""
    f1 = report["f1"]
    kinds = [("api", "API"), ("parameter", "parameter")]
    figure = go.Figure()
    for measure, colour in (("precision", GREY), ("recall", ORANGE), ("f1", BLUE)):
        values = [f1[kind][measure] for kind, _ in kinds]
        figure.add_trace(
            go.Bar(
                x=[label for _, label in kinds],
                y=values,
                name=measure if measure != "f1" else "F1",
                marker_color=colour,
                text=[f"{v:.3f}" if v is not None else "—" for v in values],
                textposition="outside",
            )
        )
    figure.update_layout(barmode="group")
    figure.update_yaxes(range=[0, 1.12])
    return _layout(figure, "API-F1 and parameter-F1", 340)


def runs_figure(labels: Sequence[str], reports: Sequence[Mapping[str, Any]], depth: int = 2) -> go.Figure:
    """Accuracy per category (down to ``depth`` levels) of several runs together, with intervals."""
    names = sorted({name for report in reports for name in report["categories"] if name.count("/") < depth})[::-1]
    figure = go.Figure()
    for index, (label, report) in enumerate(zip(labels, reports, strict=True)):
        entries = [report["categories"].get(name) for name in names]
        figure.add_trace(
            go.Bar(
                y=[_label(name) for name in names],
                x=[entry["accuracy"] if entry else None for entry in entries],
                name=label,
                orientation="h",
                marker_color=RUN_COLOURS[index % len(RUN_COLOURS)],
                error_x={"type": "data", "symmetric": False, "array": [_errors(e)[1] for e in entries], "arrayminus": [_errors(e)[0] for e in entries]},
                hovertemplate=f"{label} · %{{y}}: %{{x:.3f}}<extra></extra>",
            )
        )
    figure.update_layout(barmode="group", legend={"traceorder": "normal"})
    figure.update_xaxes(range=[0, 1.02], title="accuracy (95% CI)")
    return _layout(figure, "Accuracy per category, all runs", 140 + len(names) * (14 + 12 * len(reports)))


def run_figures(report: Mapping[str, Any], rows: Sequence[Sequence[Any]]) -> dict[str, go.Figure]:
    """The charts of one run, by name (also the PNG file names)."""
    return {
        "overall": overall_figure(report),
        "categories": categories_figure(report),
        "languages": languages_figure(report),
        "errors": errors_figure(rows),
        "f1": f1_figure(report),
    }
