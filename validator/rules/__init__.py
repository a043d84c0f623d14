"""The rule catalog: importing this package registers every rule."""

from __future__ import annotations

from validator.rules import aliases, cases, clockdates, duplicates, execution, features, hints, history, load, refs, review, scenarios, schema, specs  # noqa: F401  (registration)
from validator.rules.registry import RULES, Rule

__all__ = ["RULES", "Rule"]
