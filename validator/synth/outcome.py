"""How a candidate leaves the pipeline early: rejected at a stage, for a reason, with the details."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

STAGES = ("plan", "generate", "execute", "consistency", "check", "dedupe", "write")


class Rejected(Exception):
    """A candidate stopped at ``stage`` for ``reason`` (a short stable code counted in the report)."""

    def __init__(self, stage: str, reason: str, detail: str, extra: Mapping[str, Any] | None = None) -> None:
        super().__init__(f"{stage}: {reason}: {detail}")
        self.stage = stage
        self.reason = reason
        self.detail = detail
        self.extra = dict(extra or {})
