"""The base class every sandbox in ``sandboxes/<name>/sandbox.py`` derives from.

A sandbox is plain data plus methods: each public method implements exactly one API spec of
the same name, takes the spec's parameters as keyword arguments, and returns JSON data. Time
comes only from the state's fixed clock and new ids only from the state's counters, so the
same calls on the same state always give the same results and the same end state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any, ClassVar

from validator.sandbox import names as _names


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
    # How a name of a kind declared in state.yaml's `names` is compared, when not by
    # `names.fold_name` (spaces trimmed, case folded): a sandbox whose users add titles or
    # suffixes ("Dr. Fang", "北京市") strips them here. Folding is code; the names are data.
    name_folds: ClassVar[Mapping[str, Callable[[str], str]]] = {}

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

    # -- names (validator.sandbox.names: which fields of which table name one entity)

    def _name_kind(self, kind: str) -> _names.NameKind:
        kinds = self.__dict__.get("_declared_names")
        if kinds is None:  # read once per instance: the declaration never changes during a run
            kinds = self.__dict__["_declared_names"] = _names.name_kinds(self.state)
        declared = kinds.get(kind)
        if declared is None:
            raise LookupError(f"state.yaml declares no names of kind {kind!r} (add it under `names`)")
        return declared

    def fold_name(self, kind: str, text: str) -> str:
        return self.name_folds.get(kind, _names.fold_name)(text)

    def names_of(self, kind: str, key: _names.Key, record: Mapping[str, Any]) -> tuple[str, ...]:
        """Every name the state gives one record of a kind."""
        return _names.names_of(self._name_kind(kind), key, record)

    def is_named(self, kind: str, key: _names.Key, record: Mapping[str, Any], label: str) -> bool:
        """Whether label is one of the record's names (compared by the kind's fold)."""
        return self._named_by(kind, key, record, self.fold_name(kind, label))

    def _named_by(self, kind: str, key: _names.Key, record: Mapping[str, Any], wanted: str) -> bool:
        fold = self.name_folds.get(kind, _names.fold_name)
        return bool(wanted) and any(wanted == fold(name) for name in self.names_of(kind, key, record))

    def records_named(self, kind: str, label: str) -> list[tuple[_names.Key, dict[str, Any]]]:
        """Every (key, record) of the kind's table that label names, in table order."""
        declared, wanted = self._name_kind(kind), self.fold_name(kind, label)
        return [(key, record) for key, record in _names.rows(self.data, declared) if self._named_by(kind, key, record, wanted)]

    def find_named(self, kind: str, label: str) -> tuple[_names.Key, dict[str, Any]] | None:
        """The first record of the kind that label names, or None."""
        found = self.records_named(kind, label)
        return found[0] if found else None

    @classmethod
    def api_names(cls) -> list[str]:
        """The public methods: each one implements the spec of the same name."""
        return sorted(
            name
            for name, value in vars(cls).items()
            if not name.startswith("_") and callable(value) and not isinstance(value, (classmethod, staticmethod))
        )
