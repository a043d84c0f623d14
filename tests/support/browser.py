"""Headless Chromium for tests that open a page: Debian's ``chromium``, installed when missing.

:func:`chromium` returns the browser's path. When it is not installed and this process may
install packages (root, with apt-get), it runs ``apt-get update && apt-get install -y chromium``
once, as the project's test setup; where that cannot be done the test is skipped with the reason.
The flags keep Chromium off the network (this machine has none) and out of the sandbox it
cannot create as root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync")
NAMES = ("chromium", "chromium-browser")
INSTALL_TIMEOUT = 900


def _found() -> str | None:
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium() -> str:
    """The path of a Chromium to drive, installing Debian's package when missing (or skip)."""
    found = _found()
    if found:
        return found
    if os.name != "posix" or os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("Chromium is not installed and this test process cannot install it (needs root and apt-get): apt-get install chromium")
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, env=environment)
        except subprocess.TimeoutExpired:
            pytest.skip(f"installing Chromium took longer than {INSTALL_TIMEOUT} s ({' '.join(command)})")
        if done.returncode != 0:
            pytest.skip(f"Chromium could not be installed ({' '.join(command)}: {done.stderr.strip()[-300:]})")
    found = _found()
    if not found:
        pytest.skip("apt-get installed chromium but no chromium command is on PATH")
    return found


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) of a PNG file, read from its IHDR chunk."""
    header = Path(path).read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR", f"{path} is not a PNG"
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")
