"""Runs the rule catalog over a repository and places every finding at file:line:col."""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from validator.diagnostics import Diagnostic, Finding, Location
from validator.errors import UserError
from validator.loading import Document, LoadProblem, discover, load_file
from validator.rules import RULES
from validator.rules.context import Context
from validator.rules.registry import rules_for, select_codes
from validator.schemas import SchemaSet

# A schema finding about a missing en/zh side is replaced by DLG001 / SPC005, which say more.
_MISSING_LANGUAGE = ('"en" is a required property', '"zh" is a required property')


def _target_paths(root: Path, paths: Sequence[str] | None, every: list[tuple[str, str]]) -> set[str] | None:
    """Repo-relative corpus files named by paths (files or folders); None means everything."""
    if not paths:
        return None
    known = {p for p, _ in every}
    targets: set[str] = set()
    for raw in paths:
        full = Path(raw)
        full = (full if full.is_absolute() else Path.cwd() / full).resolve()
        if not full.exists():
            raise UserError(f"{raw}: no such file or folder")
        try:
            rel = full.relative_to(root.resolve()).as_posix()
        except ValueError:
            raise UserError(f"{raw} is outside the repository {root}") from None
        if full.is_dir():
            prefix = "" if rel == "." else rel + "/"
            targets.update(p for p in known if p.startswith(prefix))
        elif rel in known:
            targets.add(rel)
    return targets


def build_context(root: Path, every: list[tuple[str, str]], specs: Iterable[Document], unreadable: frozenset[str] = frozenset()) -> Context:
    spec_paths: dict[str, list[str]] = {}
    spec_data: dict[str, dict] = {}
    for document in specs:
        name = document.data.get("name") if isinstance(document.data, dict) else None
        if isinstance(name, str):
            spec_paths.setdefault(name, []).append(document.path)
            spec_data.setdefault(name, document.data)
    id_paths: dict[str, list[str]] = {}
    for path, kind in every:
        if kind in ("case", "scenario"):
            id_paths.setdefault(path.rsplit("/", 1)[-1].rsplit(".", 1)[0], []).append(path)
    base = root / "sandboxes"
    sandboxes = frozenset(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))) if base.is_dir() else frozenset()
    return Context(root, spec_data, spec_paths, id_paths, sandboxes, SchemaSet(root), unreadable_specs=unreadable)


def _place(document: Document | None, path: str, code: str, finding: Finding) -> Diagnostic:
    rule = RULES[code]
    if finding.path is not None and finding.path != path:
        return Diagnostic(code, rule.name, finding.message, Location(finding.path, None, None, finding.pointer))
    line, column = document.locate(finding.pointer) if document is not None else (None, None)
    return Diagnostic(code, rule.name, finding.message, Location(path, line, column, finding.pointer))


def check_document(document: Document, context: Context) -> list[Diagnostic]:
    specific: list[Diagnostic] = []
    general: list[Diagnostic] = []
    for rule in rules_for(document.kind):
        for finding in rule.check(document, context):  # type: ignore[misc]
            if rule.code == "SCH010" and finding.message.startswith(_MISSING_LANGUAGE):
                continue
            (general if rule.code == "SCH010" else specific).append(_place(document, document.path, rule.code, finding))
    covered = [d.location.pointer for d in specific if d.location.path == document.path]
    kept = [
        d
        for d in general
        if not any(p == d.location.pointer or (d.location.pointer and p.startswith(d.location.pointer + "/")) for p in covered)
    ]
    return specific + kept


def check(root: Path, paths: Sequence[str] | None = None, select: Sequence[str] = (), ignore: Sequence[str] = ()) -> list[Diagnostic]:
    """Every rule finding for the repository (or the named files), sorted by place."""
    # Thousands of live node trees make the cyclic GC rescan the heap over and over (check
    # time grew faster than the corpus); nothing built here is cyclic, so pause it.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _check(Path(root), paths, select, ignore)
    finally:
        if enabled:
            gc.enable()


PARALLEL_THRESHOLD = 400  # below this many files, starting workers costs more than it saves


def _load_problems(path: str, problems: list[LoadProblem]) -> list[Diagnostic]:
    return [Diagnostic(p.code, RULES[p.code].name, p.message, Location(path, p.line, p.column, "")) for p in problems]


def _check_files(root: Path, files: Sequence[tuple[str, str]], context: Context, specs: dict[str, Document]) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for path, kind in files:
        document = specs.get(path)
        if document is None and kind == "api":
            continue  # a spec that failed to load was reported by the first pass
        if document is None:
            document, problems = load_file(root, path, kind)
            diagnostics.extend(_load_problems(path, problems))
        if document is not None:
            diagnostics.extend(check_document(document, context))
    return diagnostics


# Set in forked worker processes only: the context they inherit from the parent (never pickled).
_WORKER_STATE: tuple[Path, Context, dict[str, Document]] | None = None


def _init_worker(root: Path, context: Context, specs: dict[str, Document]) -> None:
    global _WORKER_STATE
    gc.disable()
    _WORKER_STATE = (root, context, specs)


def _work(files: list[tuple[str, str]]) -> list[Diagnostic]:
    assert _WORKER_STATE is not None
    return _check_files(_WORKER_STATE[0], files, _WORKER_STATE[1], _WORKER_STATE[2])


def _check_parallel(root: Path, files: list[tuple[str, str]], context: Context, specs: dict[str, Document]) -> list[Diagnostic]:
    workers = min(os.cpu_count() or 1, 8)
    if workers < 2 or len(files) < PARALLEL_THRESHOLD or "fork" not in multiprocessing.get_all_start_methods():
        return _check_files(root, files, context, specs)
    chunks = [files[i::workers] for i in range(workers)]
    with multiprocessing.get_context("fork").Pool(workers, initializer=_init_worker, initargs=(root, context, specs)) as pool:
        return [d for part in pool.map(_work, chunks) for d in part]


def _check(root: Path, paths: Sequence[str] | None, select: Sequence[str], ignore: Sequence[str]) -> list[Diagnostic]:
    every = discover(root)
    targets = _target_paths(root, paths, every)
    diagnostics: list[Diagnostic] = []
    specs: dict[str, Document] = {}
    for path, kind in every:
        if kind == "api":
            document, problems = load_file(root, path, kind)
            if targets is None or path in targets:
                diagnostics.extend(_load_problems(path, problems))
            if document is not None:
                specs[path] = document
    unreadable = frozenset(p.rsplit("/", 1)[-1].rsplit(".", 1)[0] for p, k in every if k == "api" and p not in specs)
    context = build_context(root, every, specs.values(), unreadable)
    files = [(p, k) for p, k in every if targets is None or p in targets]
    diagnostics.extend(_check_parallel(root, files, context, specs))
    touched = {p.split("/")[1] for p in (targets if targets is not None else {f"sandboxes/{n}/" for n in context.sandboxes}) if p.startswith("sandboxes/")}
    for name in sorted(touched & context.sandboxes):
        for rule in rules_for("sandbox"):
            for finding in rule.check(name, context):  # type: ignore[misc]
                diagnostics.append(_place(None, f"sandboxes/{name}", rule.code, finding))
    wanted = select_codes(tuple(select), tuple(ignore))
    return sorted((d for d in diagnostics if wanted(d.code)), key=lambda d: d.sort_key)


def validate(root: Path, select: Sequence[str] = (), ignore: Sequence[str] = ()) -> list[Diagnostic]:
    """`check` then, when the rule checks are clean, `exec` (execution needs well-formed files)."""
    diagnostics = check(root, None, select, ignore)
    if diagnostics:
        return diagnostics
    from validator import execution  # imported here: `check` alone never loads the sandbox runtime

    wanted = select_codes(tuple(select), tuple(ignore))
    return sorted((d for d in execution.run(Path(root)) if wanted(d.code)), key=lambda d: d.sort_key)
