"""Categories and the families of the overall score.

A case's category is the folder under ``dialogues/`` (``schemas/case.schema.json`` lists the
same values; a test keeps the two equal). An agent scenario's category is ``agent/<mode>``.
Categories group into three families: ``normal`` (with ``retrieval/*``), ``special``, ``agent``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

CASE_CATEGORIES: Final = (
    "normal/single_turn/single",
    "normal/single_turn/parallel",
    "normal/multi_turn/adjust",
    "normal/multi_turn/switch",
    "normal/similar_api",
    "normal/preference",
    "normal/atom/bool",
    "normal/atom/enum",
    "normal/atom/number",
    "normal/atom/list",
    "normal/atom/object",
    "special/incomplete",
    "special/error_param",
    "special/irrelevant",
    "retrieval/call",
    "retrieval/plan",
)
SCENARIO_MODES: Final = ("multi_turn", "multi_step")
AGENT_CATEGORIES: Final = tuple(f"agent/{mode}" for mode in SCENARIO_MODES)
FAMILIES: Final = ("normal", "special", "agent")


def scenario_category(mode: str) -> str:
    return f"agent/{mode}"


def family(category: str) -> str:
    """The overall-score family of a category: retrieval counts with normal."""
    top = category.split("/", 1)[0]
    return "normal" if top == "retrieval" else top


def selected(category: str, prefixes: Sequence[str]) -> bool:
    """Whether category is one of, or under one of, the given category prefixes (all when none)."""
    if not prefixes:
        return True
    return any(category == p or category.startswith(p.rstrip("/") + "/") for p in prefixes)
