"""``callbank report --format png``: the main charts as PNG files, for papers and READMEs.

The images are the same plotly figures as the HTML page, rendered by kaleido (the ``report-png``
extra), which drives a Chrome or Chromium installed on the machine — nothing is downloaded.
Without one, the command says how to get it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from validator.errors import UserError

# the charts worth an image: the overall decomposition, categories, languages, error types
# (and, with several runs, all runs per category); F1 stays in the page
MAIN = ("overall", "categories", "languages", "errors")
WIDTH = 1100
SCALE = 2  # crisp in print


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "run"


def png_names(labels: list[str], figures: dict[str, Any]) -> dict[str, str]:
    """figure name -> file name: ``categories.png`` for one run, ``<run>-categories.png`` for several."""
    names: dict[str, str] = {}
    for index, label in enumerate(labels):
        for chart in MAIN:
            key = f"run-{index}-{chart}"
            if key in figures:
                names[key] = f"{chart}.png" if len(labels) == 1 else f"{_slug(label)}-{chart}.png"
    if "runs-categories" in figures:
        names["runs-categories"] = "runs-categories.png"
    return names


def write_png(labels: list[str], figures: dict[str, Any], folder: Path) -> list[Path]:
    """Write the main charts into folder; the files written."""
    try:
        import kaleido  # noqa: F401  (plotly finds it; imported here for a clear message when absent)
        import plotly.io as pio
    except ImportError:
        raise UserError("--format png needs kaleido: pip install 'callbank[report-png]' (it drives a Chrome or Chromium on this machine)") from None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot create {folder}: {error.strerror}") from None
    written = []
    for key, name in png_names(labels, figures).items():
        figure = figures[key]
        height = int(figure.layout.height or 500)
        path = folder / name
        try:
            pio.write_image(figure, path, format="png", width=WIDTH, height=height, scale=SCALE)
        except Exception as error:  # kaleido reports a missing browser in its own exception types
            raise UserError(
                f"cannot render {name}: {type(error).__name__}: {str(error)[:200]}; kaleido needs a Chrome or Chromium: install one (apt-get install chromium, or run plotly_get_chrome) and try again"
            ) from None
        written.append(path)
    return written
