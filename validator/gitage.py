"""Which of several files came first, by git history: so a duplicate id or API name is blamed on
the file that brought the collision, whichever sorts first by name.

Asked only when files collide (rare), one ``git log`` per file. A file git does not know yet
(untracked, or only staged — what a pre-commit hook sees) is newer than every committed one;
committed files are ordered by the time of the commit that added them. Outside a git work tree,
or when git is missing, the order is by path, as before.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

GIT_TIMEOUT = 5.0


def _added_at(root: Path, path: str) -> int | None:
    """Unix time of the commit that added path (following no renames), None when git has no commit of it."""
    try:
        result = subprocess.run(
            ["git", "log", "--diff-filter=A", "--format=%ct", "--", path], cwd=root, capture_output=True, text=True, timeout=GIT_TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    stamps = [int(line) for line in result.stdout.split() if line.isdigit()] if result.returncode == 0 else []
    return min(stamps) if stamps else None


def _in_git(root: Path) -> bool:
    if shutil.which("git") is None:
        return False
    try:
        result = subprocess.run(["git", "rev-parse", "--is-inside-work-tree"], cwd=root, capture_output=True, text=True, timeout=GIT_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0 and result.stdout.strip() == "true"


def oldest_first(root: Path, paths: Sequence[str]) -> list[str]:
    """paths (repo-relative), the one git has known longest first; by path when git cannot tell."""
    ordered = sorted(paths)
    if len(ordered) < 2 or not _in_git(root):
        return ordered
    added = {path: _added_at(root, path) for path in ordered}
    never = float("inf")  # not committed yet: the newest
    return sorted(ordered, key=lambda path: (added[path] if added[path] is not None else never, path))
