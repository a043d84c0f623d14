"""`path:line:col: CODE [rule] message`, one per line, then a count."""

from __future__ import annotations

from collections.abc import Sequence

from validator.diagnostics import Diagnostic


def render(diagnostics: Sequence[Diagnostic]) -> str:
    lines = []
    for d in diagnostics:
        loc = d.location
        place = loc.path + "".join(f":{n}" for n in (loc.line, loc.column) if n is not None)
        lines.append(f"{place}: {d.code} [{d.rule}] {d.message}")
    count = len(diagnostics)
    lines.append("no findings" if count == 0 else f"{count} finding{'s' if count != 1 else ''}")
    return "\n".join(lines) + "\n"
