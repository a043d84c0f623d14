"""Which importer reads which peer."""

from __future__ import annotations

from pathlib import Path

from validator.errors import UserError
from validator.importers.common import Imported


def import_peer(peer: str, src: Path, langs: tuple[str, ...] = ()) -> Imported:
    """The repositories converted from the copy of peer at src."""
    if peer == "acebench":
        from validator.importers.acebench import LANGS, import_acebench

        return import_acebench(src, langs or LANGS)
    if langs and peer != "acebench":
        raise UserError(f"--lang chooses a language set of acebench; {peer} has one language")
    if peer == "bfcl":
        from validator.importers.bfcl import import_bfcl

        return import_bfcl(src)
    if peer == "apibank":
        from validator.importers.apibank import import_apibank

        return import_apibank(src)
    raise UserError(f"unknown peer {peer!r}; callbank imports acebench, bfcl and apibank")
