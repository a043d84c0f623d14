"""A JSON list of {path, line, column, code, rule, message, pointer}."""

from __future__ import annotations

import json
from collections.abc import Sequence

from validator.diagnostics import Diagnostic


def render(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps([d.as_json() for d in diagnostics], ensure_ascii=False, indent=2) + "\n"
