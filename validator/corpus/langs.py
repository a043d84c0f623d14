"""The benchmark's languages: every case, scenario and description exists in each of them."""

from __future__ import annotations

from typing import Final

LANGS: Final = ("en", "zh")


def other(lang: str) -> str:
    """The other language of the pair."""
    return LANGS[1] if lang == LANGS[0] else LANGS[0]
