"""The language and category lists, owned once by the corpus layer."""

from __future__ import annotations

import json
from pathlib import Path

from validator.corpus.categories import AGENT_CATEGORIES, CASE_CATEGORIES, family, selected
from validator.corpus.langs import LANGS, other

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def test_the_case_categories_are_the_schemas() -> None:
    schema = json.loads((SCHEMAS / "case.schema.json").read_text(encoding="utf-8"))
    assert list(CASE_CATEGORIES) == schema["properties"]["category"]["enum"]
    modes = json.loads((SCHEMAS / "scenario.schema.json").read_text(encoding="utf-8"))["properties"]["mode"]["enum"]
    assert list(AGENT_CATEGORIES) == [f"agent/{mode}" for mode in modes]


def test_families_and_selection() -> None:
    assert [family(c) for c in ("retrieval/plan", "special/incomplete", "agent/multi_turn", "normal/atom/bool")] == ["normal", "special", "agent", "normal"]
    assert selected("normal/atom/bool", ["normal/atom"]) and selected("normal/atom/bool", []) and not selected("normal/atomic", ["normal/atom"])


def test_the_languages() -> None:
    assert LANGS == ("en", "zh") and other("en") == "zh" and other("zh") == "en"
