"""The base class every sandbox in ``sandboxes/<name>/sandbox.py`` derives from.

A sandbox is plain data plus methods: each public method implements exactly one API spec of
the same name, takes the spec's parameters as keyword arguments, and returns JSON data. Time
comes only from the state's fixed clock and new ids only from the state's counters, so the
same calls on the same state always give the same results and the same end state.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, ClassVar


class ApiError(Exception):
    """A business error (insufficient balance, not logged in): an observation, not a crash.

    ``kind`` must be one of the ``errors`` declared in the API's spec; ``details`` are extra
    JSON fields shown to the agent next to the spec's bilingual message.
    """

    def __init__(self, kind: str, **details: Any) -> None:
        super().__init__(kind)
        self.kind = kind
        self.details = details


class Sandbox:
    """State is ``{"clock": iso-8601, "counters": {name: int}, "data": {...}}`` from state.yaml."""

    name: ClassVar[str] = ""
    # A sandbox that searches the API catalog (the retrieval `tools` sandbox) sets this; the
    # runtime then passes every spec (plain data, read-only) as `catalog`.
    needs_catalog: ClassVar[bool] = False

    def __init__(self, state: dict[str, Any], catalog: list[dict[str, Any]] | None = None) -> None:
        self.state = state
        self.catalog: list[dict[str, Any]] = catalog or []

    @property
    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = self.state["data"]
        return data

    def now(self) -> datetime:
        """The sandbox's fixed clock (never the wall clock)."""
        return datetime.fromisoformat(self.state["clock"])

    def advance_clock(self, **delta: float) -> None:
        """Move the fixed clock forward, e.g. ``advance_clock(minutes=5)``."""
        self.state["clock"] = (self.now() + timedelta(**delta)).isoformat()

    def new_id(self, counter: str, prefix: str = "") -> str:
        """The next id from a named counter in the state: ``new_id("order", "O-")`` → ``O-1001``."""
        counters = self.state["counters"]
        counters[counter] = counters.get(counter, 0) + 1
        return f"{prefix}{counters[counter]}"

    @classmethod
    def api_names(cls) -> list[str]:
        """The public methods: each one implements the spec of the same name."""
        return sorted(
            name
            for name, value in vars(cls).items()
            if not name.startswith("_") and callable(value) and not isinstance(value, (classmethod, staticmethod))
        )
