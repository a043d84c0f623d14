"""One review writer per repository at a time: an flock on review/votes/, freed on exit or death."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from validator.errors import UserError
from validator.review import VOTES_DIR


@contextlib.contextmanager
def run_lock(root: Path) -> Iterator[None]:
    """One review writer per repository at a time (an flock on review/votes/, freed on exit or death)."""
    directory = Path(root) / VOTES_DIR
    directory.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # no flock on this platform: run unlocked
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError("another `callbank review` command is writing to this repository's review/ folder; wait for it to finish") from None
        yield
    finally:
        os.close(fd)
