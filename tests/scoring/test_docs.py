"""The documentation names every error type and every special-answer keyword the code knows."""

from __future__ import annotations

from pathlib import Path

from validator.scoring.special import KEYWORDS
from validator.scoring.taxonomy import CODES

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_error_type_is_documented() -> None:
    text = (DOCS / "scoring.md").read_text(encoding="utf-8")
    assert [code for code in CODES if f"| `{code}` |" not in text] == []


def test_every_marker_keyword_is_documented() -> None:
    text = (DOCS / "predictions.md").read_text(encoding="utf-8").casefold()
    assert [keyword for keyword in KEYWORDS if keyword.casefold() not in text] == []
