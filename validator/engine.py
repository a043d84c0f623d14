"""Runs the rule catalog over a corpus and places every finding at file:line:col.

Three stages share it (``validator.rules.registry``): ``check`` — every file, in worker
processes above ``PARALLEL_THRESHOLD`` files, then, when the whole corpus is checked, the rules
that compare items with one another (``"corpus"`` rules: near-duplicate cases); ``exec`` — the execution rules over a loaded
corpus, in this process (the sandbox guard and time limit need the main thread); ``review`` —
the publishing gate's rules (and ``publish``, the ones only `callbank publish` applies). ``--select``/``--ignore`` choose the rules first; then, per file, a
specific finding replaces the generic schema violation (SCH010) at its place or above it.
"""

from __future__ import annotations

import functools
import gc
import multiprocessing
import os
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from validator.corpus.config import CONFIG_FILE
from validator.corpus.index import Corpus, LoadedFile
from validator.corpus.records import SandboxInfo
from validator.diagnostics import Diagnostic, Finding, Location, escape_pointer_token
from validator.errors import UserError
from validator.loading import Document
from validator.rules import RULES
from validator.rules.registry import CORPUS, Rule, Target, known_prefix, select_codes, stage_rules

GENERIC = "SCH010"
PARALLEL_THRESHOLD = 400  # below this many files, starting workers costs more than it saves
EXEC_CHUNK = 40  # files per exec work unit: small enough that the two workers finish together
# loaded in the parent before the workers start: every rule may consult specs and states
SHARED_KINDS = ("api", "state")
_REQUIRED = re.compile(r'^"(?P<name>(?:[^"\\]|\\.)*)" is a required property')


# ----------------------------------------------------------------------------- placing findings


def place(path: str, document: Document | None, code: str, finding: Finding) -> Diagnostic:
    """A finding of rule code about the file at path, as a diagnostic at file:line:col.

    A finding about another file names its line itself (or none): positions are only looked up
    in the document the rule was given."""
    target = finding.path or path
    if target != path or finding.line is not None or finding.column is not None:
        line, column = finding.line, finding.column  # another file, or a place no pointer names
    else:
        line, column = document.locate(finding.pointer) if document is not None else (None, None)
    return Diagnostic(code, RULES[code].name, finding.message, Location(target, line, column, finding.pointer), finding.allowed)


def mask(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Drop the generic schema findings a specific finding explains.

    A schema finding at pointer q is replaced by a specific finding of the same file at q or
    below it (at the root only by one at the root); a missing required property ``k`` of q also
    by a specific finding at ``q/k`` or below, so a missing language side is DLG001's.
    """
    if not any(d.code == GENERIC for d in diagnostics):
        return diagnostics
    specific: dict[str, list[str]] = {}
    for d in diagnostics:
        if d.code != GENERIC:
            specific.setdefault(d.location.path, []).append(d.location.pointer)

    def covered(d: Diagnostic) -> bool:
        pointers = specific.get(d.location.path, [])
        q = d.location.pointer
        if any(p == q or (q and p.startswith(q + "/")) for p in pointers):
            return True
        missing = _REQUIRED.match(d.message)
        if missing is None:
            return False
        subject = f"{q}/{escape_pointer_token(missing['name'])}"
        return any(p == subject or p.startswith(subject + "/") for p in pointers)

    return [d for d in diagnostics if d.code != GENERIC or not covered(d)]


# ----------------------------------------------------------------------------- rules by target


class RuleSet:
    """The selected rules of a stage, by what they receive."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = list(rules)
        self.codes = frozenset(r.code for r in rules)

    def subjects(self, loaded: LoadedFile) -> Iterator[tuple[Rule, Any]]:
        """(rule, what it receives) for every rule that applies to a loaded file."""
        for rule in self.rules:
            for target in rule.on:
                if target == "file" and loaded.kind in rule.kinds:
                    yield rule, loaded
                elif target == "document" and loaded.kind in rule.kinds and loaded.document is not None:
                    yield rule, loaded.document
                elif isinstance(target, type) and isinstance(loaded.record, target):
                    yield rule, loaded.record

    def of(self, target: Target) -> list[Rule]:
        return [r for r in self.rules if target in r.on]


def run_rules(rules: Sequence[Rule], subject: Any, context: Any, path: str, document: Document | None) -> list[Diagnostic]:
    return [place(path, document, rule.code, finding) for rule in rules for finding in rule.check(subject, context)]


def check_file(corpus: Corpus, loaded: LoadedFile, rules: RuleSet) -> list[Diagnostic]:
    found = [place(loaded.path, loaded.document, rule.code, finding) for rule, subject in rules.subjects(loaded) for finding in rule.check(subject, corpus)]
    return mask(found)


# ----------------------------------------------------------------------------- check


def _target_paths(root: Path, paths: Sequence[str] | None, corpus: Corpus) -> set[str] | None:
    """Repo-relative corpus files named by paths (files or folders); None means everything."""
    if not paths:
        return None
    known = set(corpus.kinds)
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


# what a worker sends back of a file it loaded, for `validate` to adopt: no second parse
Transfer = tuple[str, str, Any, "str | None", tuple[Any, ...], tuple[tuple[str, str], ...]]


def _transfer(loaded: LoadedFile) -> Transfer:
    document = loaded.document
    return (loaded.path, loaded.kind, document.data if document else None, document.text if document else None, loaded.problems, loaded.schema_errors)


def _check_files(corpus: Corpus, paths: Sequence[str], rules: RuleSet, keep: bool) -> tuple[list[Diagnostic], list[Transfer]]:
    diagnostics: list[Diagnostic] = []
    kept: list[Transfer] = []
    for path in paths:
        shared = path in corpus.files
        loaded = corpus.load_file(path)
        diagnostics.extend(check_file(corpus, loaded, rules))
        if keep and not shared:
            kept.append(_transfer(loaded))
    return diagnostics, kept


# Set in forked worker processes only: what they inherit from the parent (never pickled).
_WORKER_STATE: Any = None


def _init_worker(state: Any) -> None:
    global _WORKER_STATE  # noqa: PLW0603  (each forked worker receives its state once, from the pool)
    gc.disable()
    _WORKER_STATE = state


def _call_in_worker(work: Callable[[Any, list[str]], Any], paths: list[str]) -> Any:
    return work(_WORKER_STATE, paths)


def _workers(count: int) -> int:
    """How many forked workers a run over count files gets (0: run in this process)."""
    workers = min(os.cpu_count() or 1, 8)
    if workers < 2 or count < PARALLEL_THRESHOLD or "fork" not in multiprocessing.get_all_start_methods():
        return 0
    return workers


def _in_workers(work: Callable[[Any, list[str]], Any], state: Any, chunks: list[list[str]], workers: int) -> Iterator[Any]:
    """work(state, chunk) for every chunk, in forked workers that inherit state; results as they
    come (chunks are handed out as workers free up)."""
    with multiprocessing.get_context("fork").Pool(workers, initializer=_init_worker, initargs=(state,)) as pool:
        yield from pool.imap_unordered(functools.partial(_call_in_worker, work), chunks)


def _check_chunk(state: tuple[Corpus, RuleSet, bool], paths: list[str]) -> tuple[list[Diagnostic], list[Transfer]]:
    corpus, rules, keep = state
    return _check_files(corpus, paths, rules, keep)


def _check_parallel(corpus: Corpus, paths: list[str], rules: RuleSet, keep: bool) -> list[Diagnostic]:
    workers = _workers(len(paths))
    if not workers:
        return _check_files(corpus, paths, rules, keep)[0]
    for kind in corpus.schemas.kinds():
        corpus.schemas.validator(kind)  # compiled once, inherited by every worker
    chunks = [paths[i::workers] for i in range(workers)]
    diagnostics: list[Diagnostic] = []
    for found, kept in _in_workers(_check_chunk, (corpus, rules, keep), chunks, workers):
        diagnostics.extend(found)
        for transfer in kept:
            corpus.adopt(*transfer)
    return diagnostics


def check_corpus(corpus: Corpus, rules: Sequence[Rule]) -> list[Diagnostic]:
    """The findings of the rules that read the whole corpus at once (each names its file)."""
    found = []
    for rule in rules:
        for finding in rule.check(corpus, corpus):
            path = finding.path or "."
            loaded = corpus.files.get(path)
            found.append(place(path, loaded.document if loaded is not None else None, rule.code, finding))
    return found


def _check(corpus: Corpus, paths: Sequence[str] | None, rules: RuleSet, keep: bool) -> list[Diagnostic]:
    for path, kind in corpus.discovered:
        if kind in SHARED_KINDS:
            corpus.load_file(path)
    targets = _target_paths(corpus.root, paths, corpus)
    files = [p for p, _ in corpus.discovered if targets is None or p in targets]
    # rules comparing items with one another need every file, so they run on whole-corpus checks,
    # with the workers handing their documents back to this process
    whole = rules.of(CORPUS) if targets is None else []
    diagnostics = _check_parallel(corpus, files, rules, keep or bool(whole))
    diagnostics.extend(check_corpus(corpus, whole))
    touched = corpus.sandbox_names if targets is None else {p.split("/")[1] for p in targets if p.startswith("sandboxes/")}
    sandbox_rules = rules.of(SandboxInfo)
    for name, sandbox in corpus.sandboxes.items():
        if name in touched:
            diagnostics.extend(run_rules(sandbox_rules, sandbox, corpus, sandbox.folder, None))
    return diagnostics


def _paused_gc(function: Any, *args: Any) -> Any:
    # Thousands of live documents make the cyclic GC rescan the heap over and over (check time
    # grew faster than the corpus); nothing built here is cyclic, so pause it.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return function(*args)
    finally:
        if enabled:
            gc.enable()


def wanted_codes(corpus: Corpus, select: Sequence[str] = (), ignore: Sequence[str] = ()) -> Any:
    """The rule selection: --select / --ignore, plus the codes the repository's ``callbank.yaml``
    ignores (a code there that names no rule is a UserError, as on the command line)."""
    for code in corpus.config.ignore:
        if not known_prefix(code):
            raise UserError(f"{corpus.root / CONFIG_FILE}: ignore names {code!r}, which matches no rule code (see `callbank rules`)")
    return select_codes(tuple(select), (*ignore, *corpus.config.ignore))


def check(root: Path, paths: Sequence[str] | None = None, select: Sequence[str] = (), ignore: Sequence[str] = ()) -> list[Diagnostic]:
    """Every rule finding for the repository (or the named files), sorted by place."""
    corpus = Corpus(Path(root))
    rules = RuleSet(stage_rules("check", wanted_codes(corpus, select, ignore)))
    found: list[Diagnostic] = _paused_gc(_check, corpus, paths, rules, False)
    return sorted(found, key=lambda d: d.sort_key)


def validate(root: Path, select: Sequence[str] = (), ignore: Sequence[str] = (), corpus: Corpus | None = None) -> list[Diagnostic]:
    """`check` then, when the rule checks are clean, `exec` on the same loaded corpus (every file
    is parsed once; a corpus already loaded by the caller is not parsed again)."""
    corpus = corpus if corpus is not None else Corpus(Path(root))
    wanted = wanted_codes(corpus, select, ignore)
    found: list[Diagnostic] = _paused_gc(_check, corpus, None, RuleSet(stage_rules("check", wanted)), True)
    if found:
        return sorted(found, key=lambda d: d.sort_key)
    return execute(corpus, select, ignore)


# ----------------------------------------------------------------------------- exec and review


def execute(
    corpus: Corpus,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    time_limit: float | None = None,
    *,
    paths: Collection[str] | None = None,
    sandboxes: Collection[str] | None = None,
) -> list[Diagnostic]:
    """Every execution finding for a loaded corpus (or for the files in ``paths`` and the
    sandboxes named in ``sandboxes``), sorted by place."""
    from validator.rules.execution_context import DEFAULT_TIME_LIMIT, Execution

    rules = RuleSet(stage_rules("exec", wanted_codes(corpus, select, ignore)))
    execution = Execution(corpus, DEFAULT_TIME_LIMIT if time_limit is None else time_limit)
    found: list[Diagnostic] = []
    for sandbox in corpus.sandboxes.values():
        if sandboxes is None or sandbox.name in sandboxes:
            found.extend(run_rules(rules.of(type(sandbox)), sandbox, execution, sandbox.folder, None))
    files = [loaded.path for loaded in corpus.loaded() if paths is None or loaded.path in paths]
    found.extend(_paused_gc(_execute_parallel, execution, files, rules))
    return sorted(set(found), key=lambda d: d.sort_key)


def _execute_files(execution: Any, paths: Sequence[str], rules: RuleSet) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for path in paths:
        loaded = execution.corpus.files[path]
        found.extend(place(loaded.path, loaded.document, rule.code, finding) for rule, subject in rules.subjects(loaded) for finding in rule.check(subject, execution))
    return found


def _execute_chunk(state: tuple[Any, RuleSet], paths: list[str]) -> list[Diagnostic]:
    execution, rules = state
    return _execute_files(execution, paths, rules)


def _execute_parallel(execution: Any, paths: list[str], rules: RuleSet) -> list[Diagnostic]:
    """Every file's execution findings, in forked workers when there are enough files: items are
    independent (each runs on its own copy of its sandboxes' state). Chunks are small, since a
    scenario costs many times a case."""
    workers = _workers(len(paths))
    if not workers:
        return _execute_files(execution, paths, rules)
    chunks = [paths[i : i + EXEC_CHUNK] for i in range(0, len(paths), EXEC_CHUNK)]
    return [d for found in _in_workers(_execute_chunk, (execution, rules), chunks, workers) for d in found]


def check_changed(root: Path, paths: Sequence[str], select: Sequence[str] = (), ignore: Sequence[str] = ()) -> list[Diagnostic]:
    """What CI's `validate` would find because of the changed paths (the pre-commit hook): the
    rule checks of the changed corpus files, then — when they are clean — the execution checks
    of the cases, scenarios and sandboxes they touch (``validator.corpus.touched``: a changed
    ``sandbox.py`` selects its sandbox's cases and scenarios)."""
    from validator.corpus.touched import touched

    wanted = select_codes(tuple(select), tuple(ignore))
    corpus = Corpus(Path(root))
    found: list[Diagnostic] = _paused_gc(_check, corpus, paths, RuleSet(stage_rules("check", wanted)), True)
    if found:
        return sorted(found, key=lambda d: d.sort_key)
    changed = _changed_paths(corpus.root, paths)
    if any(corpus.kinds.get(p) == "api" or (p.startswith("sandboxes/") and "/scenarios/" not in p) for p in changed):
        for path, kind in corpus.discovered:  # which items use a changed API or sandbox: all of them are read
            if kind in ("case", "scenario"):
                corpus.load_file(path)
    selection = touched(corpus, changed)
    for path in selection.items:
        corpus.load_file(path)
    run = selection.items | {p for p in selection.files if corpus.kinds.get(p) in SHARED_KINDS}
    return execute(corpus, select, ignore, paths=run, sandboxes=selection.sandboxes)


def _changed_paths(root: Path, paths: Sequence[str]) -> list[str]:
    """Repo-relative forms of the paths given (corpus files or not, e.g. a sandbox.py)."""
    base = root.resolve()
    changed = []
    for raw in paths:
        full = Path(raw)
        full = (full if full.is_absolute() else Path.cwd() / full).resolve()
        try:
            changed.append(full.relative_to(base).as_posix())
        except ValueError:
            raise UserError(f"{raw} is outside the repository {root}") from None
    return changed


def review(corpus: Corpus, select: Sequence[str] = (), ignore: Sequence[str] = (), stages: Sequence[str] = ("review",)) -> list[Diagnostic]:
    """Every finding of the review gate's rules (REV) of the given stages — ``review`` (what
    blocks `build` and `publish`), ``publish`` (what blocks only `publish`) — sorted by place."""
    wanted = wanted_codes(corpus, select, ignore)
    rules = RuleSet([rule for stage in stages for rule in stage_rules(stage, wanted)])
    found = [d for loaded in corpus.loaded() for d in check_file(corpus, loaded, rules)]
    return sorted(found, key=lambda d: d.sort_key)
