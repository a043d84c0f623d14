"""Reading a sandbox's code for what no audit event reveals: imports and calls that break
isolation (files, network, processes) or determinism (randomness, the wall clock).

Pure functions over Python source; ``callbank exec`` reports what they find (EXE014, EXE016).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

ISOLATION_MODULES = frozenset(
    {
        "os", "pathlib", "io", "shutil", "tempfile", "glob", "socket", "ssl", "select", "selectors", "asyncio",
        "subprocess", "multiprocessing", "threading", "concurrent", "signal", "ctypes", "urllib", "http",
        "ftplib", "smtplib", "requests", "httpx", "aiohttp", "webbrowser", "sqlite3", "zoneinfo", "importlib",
        "shelve", "dbm", "mmap", "fcntl", "pty",
    }
)  # fmt: skip
NONDETERMINISM_MODULES = frozenset({"random", "secrets", "uuid", "time"})
ISOLATION_BUILTINS = frozenset({"open", "input", "__import__", "breakpoint"})
NONDETERMINISM_BUILTINS = frozenset({"hash", "id"})
CLOCK_METHODS = frozenset({"now", "today", "utcnow", "fromtimestamp", "utcfromtimestamp"})

ISOLATION = "isolation"  # files, network, processes, threads (rule EXE014)
NONDETERMINISM = "nondeterminism"  # randomness, wall clock, per-process values (rule EXE016)


class Breach(NamedTuple):
    kind: str  # ISOLATION | NONDETERMINISM
    line: int
    message: str


def scan_file(path: Path) -> list[Breach]:
    """Every breach in a sandbox.py; none when it cannot be read or parsed (loading it fails
    and says why)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (SyntaxError, UnicodeDecodeError, OSError, ValueError):
        return []
    return list(scan(tree))


def scan(tree: ast.AST) -> Iterator[Breach]:
    clock_classes: set[str] = set()  # local names of datetime.datetime / datetime.date
    clock_modules: set[str] = set()  # local names of the datetime module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _module_breach(alias.name.split(".")[0], node.lineno)
                if alias.name == "datetime":
                    clock_modules.add(alias.asname or "datetime")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield from _module_breach(node.module.split(".")[0], node.lineno)
            if node.module == "datetime":
                clock_classes.update(a.asname or a.name for a in node.names if a.name in ("datetime", "date"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in ISOLATION_BUILTINS:
            yield Breach(ISOLATION, node.lineno, f"sandbox.py calls {func.id}(); a sandbox reads and writes only its state")
        elif isinstance(func, ast.Name) and func.id in NONDETERMINISM_BUILTINS:
            yield Breach(NONDETERMINISM, node.lineno, f"sandbox.py calls {func.id}(), whose value changes from one process to the next")
        elif isinstance(func, ast.Attribute) and func.attr in CLOCK_METHODS and _is_clock(func.value, clock_classes, clock_modules):
            yield Breach(NONDETERMINISM, node.lineno, f"sandbox.py reads the wall clock ({func.attr}()); use self.now() and self.advance_clock()")


def _module_breach(top: str, line: int) -> Iterator[Breach]:
    if top in ISOLATION_MODULES:
        yield Breach(ISOLATION, line, f"sandbox.py imports {top}, a module for files, network, processes or threads; keep everything in the state")
    elif top in NONDETERMINISM_MODULES:
        yield Breach(NONDETERMINISM, line, f"sandbox.py imports {top}; use self.now() for time and self.new_id() for ids, never randomness")


def _is_clock(value: ast.expr, classes: set[str], modules: set[str]) -> bool:
    if isinstance(value, ast.Name):
        return value.id in classes
    return isinstance(value, ast.Attribute) and value.attr in ("datetime", "date") and isinstance(value.value, ast.Name) and value.value.id in modules
