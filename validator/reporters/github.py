"""GitHub Actions workflow commands, so findings appear inline on a pull request's diff."""

from __future__ import annotations

from collections.abc import Sequence

from validator.diagnostics import Diagnostic


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(diagnostics: Sequence[Diagnostic]) -> str:
    lines = []
    for d in diagnostics:
        loc = d.location
        props = [f"file={_escape_property(loc.path)}"]
        if loc.line is not None:
            props.append(f"line={loc.line}")
        if loc.column is not None:
            props.append(f"col={loc.column}")
        props.append(f"title={_escape_property(d.code + ' ' + d.rule)}")
        lines.append(f"::error {','.join(props)}::{_escape_data(d.message)}")
    return "".join(line + "\n" for line in lines)
