"""Reporters turn diagnostics into text; one dict names them all."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from validator.diagnostics import Diagnostic
from validator.reporters import github, json_, text

Reporter = Callable[[Sequence[Diagnostic]], str]

REPORTERS: dict[str, Reporter] = {"text": text.render, "json": json_.render, "github": github.render}
