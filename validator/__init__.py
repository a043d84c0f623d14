"""callbank: a bilingual benchmark of tool use, and the validator that proves it right."""

from __future__ import annotations

__version__ = "0.1.0"
