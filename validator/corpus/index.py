"""The corpus index: every file of a repository, loaded once, and its records by key.

``Corpus.load(root)`` discovers and loads everything (what ``exec``, ``run``, ``score``,
``stats``, ``review``, ``build`` and ``publish`` need). ``callbank check`` loads in parts: the
parent process loads the specs and sandbox states every rule may consult, and each worker
loads the files it checks (``Corpus.load_file``); every file is parsed once per process, and
``Corpus.adopt`` takes documents a worker parsed so ``validate`` never parses twice.

A file's :class:`LoadedFile` holds its load problems (SCH001–SCH009), its schema violations
(SCH010) and, when it has neither, its record. Lookups by name keep the first file in path
order when two files claim one name (rules SPC001 and REF005 report the others).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from validator.corpus.build import build
from validator.corpus.categories import selected
from validator.corpus.config import RepoConfig, read_config
from validator.corpus.params import Validators
from validator.corpus.records import Case, Record, ReviewRecord, SandboxInfo, SandboxState, Scenario, Spec
from validator.errors import UserError
from validator.loading import Document, LoadProblem, discover, load_file, load_text
from validator.schemas import SCHEMA_FILES, SchemaSet

# the kinds every command that runs or scores the benchmark needs intact
BENCHMARK_KINDS = ("api", "case", "scenario", "state")


@dataclass(frozen=True, slots=True)
class LoadedFile:
    """One discovered file as loaded: its document (None when unreadable), problems and record."""

    path: str
    kind: str
    document: Document | None
    problems: tuple[LoadProblem, ...]  # SCH001–SCH009 from the loader
    schema_errors: tuple[tuple[str, str], ...]  # (message, JSON pointer) of every schema violation
    record: Record | None  # only when the document loaded and breaks no schema

    @property
    def stem(self) -> str:
        return self.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]

    @property
    def broken(self) -> bool:
        return self.document is None or bool(self.problems) or bool(self.schema_errors)


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]


class Corpus:
    """A callbank repository: its files, their records, and the indexes every command reads."""

    def __init__(self, root: Path, discovered: Sequence[tuple[str, str]] | None = None, config: RepoConfig | None = None) -> None:
        self.root = Path(root)
        self.config = read_config(self.root) if config is None else config
        self.discovered: tuple[tuple[str, str], ...] = tuple(discover(self.root) if discovered is None else discovered)
        self.kinds: dict[str, str] = dict(self.discovered)
        self.schemas = SchemaSet(self.root, self.config.languages)
        self.files: dict[str, LoadedFile] = {}
        self.specs: dict[str, Spec] = {}
        self.cases: dict[str, Case] = {}
        self.scenarios: dict[str, Scenario] = {}
        self.states: dict[str, SandboxState] = {}  # sandbox folder name -> its state
        self.review_records: dict[str, ReviewRecord] = {}
        self.validators = Validators(self.specs)
        self._spec_paths: dict[str, list[str]] = {}
        self._id_paths: dict[str, list[str]] | None = None
        self._sandbox_names: tuple[str, ...] | None = None
        self.skipped: dict[str, str] = {}  # path -> why `run` and `score` leave the item out (broken_files: skip)

    @property
    def langs(self) -> tuple[str, ...]:
        """The languages every case and scenario of this repository has (``callbank.yaml``)."""
        return self.config.languages

    # -- loading

    @classmethod
    def load(cls, root: Path, kinds: Iterable[str] | None = None) -> Corpus:
        """Discover the repository under root and load every file (or every file of kinds)."""
        root = Path(root)
        if not root.is_dir():
            raise UserError(f"{root} is not a directory")
        corpus = cls(root)
        wanted = None if kinds is None else set(kinds)
        for path, kind in corpus.discovered:
            if wanted is None or kind in wanted:
                corpus.load_file(path)
        return corpus

    @classmethod
    def load_benchmark(cls, root: Path, command: str) -> Corpus:
        """The benchmark under root (specs, cases, scenarios, states), for `run` and `score`:
        refused (UserError) when there is no corpus or one of its files is broken."""
        root = Path(root)
        if not root.is_dir():
            raise UserError(f"{root} is not a directory")
        if not any((root / name).is_dir() for name in ("specs", "dialogues", "sandboxes")):
            raise UserError(f"no callbank corpus under {root} (no specs/, dialogues/ or sandboxes/); pass --repo")
        corpus = cls.load(root, BENCHMARK_KINDS)
        if corpus.config.broken_files == "skip":
            corpus.skip_broken()
        else:
            corpus.require_intact(command)
        return corpus

    def load_file(self, path: str) -> LoadedFile:
        """Load (once) and index one discovered file."""
        loaded = self.files.get(path)
        if loaded is None:
            kind = self.kinds[path]
            document, problems = load_file(self.root, path, kind)
            loaded = self._admit(path, kind, document, tuple(problems), None)
        return loaded

    def reload(self, paths: Iterable[str]) -> None:
        """Read these files again from disk (a fixer rewrote them): their new records replace the
        old ones in every index."""
        for path in paths:
            old = self.files.pop(path, None)
            record = old.record if old is not None else None
            indexes: tuple[tuple[dict[str, Any], str], ...] = ()
            if isinstance(record, Spec):
                indexes = ((self.specs, record.name),)
            elif isinstance(record, Case | Scenario | ReviewRecord):
                indexes = ((self.cases, record.id), (self.scenarios, record.id), (self.review_records, record.id))
            for index, key in indexes:
                if index.get(key) is record:
                    del index[key]
            self.load_file(path)

    def adopt(self, path: str, kind: str, data: Any, text: str | None, problems: Sequence[LoadProblem], schema_errors: Sequence[tuple[str, str]]) -> LoadedFile:
        """Index a file another process loaded and validated (its parsed data travels instead of
        being parsed again)."""
        loaded = self.files.get(path)
        if loaded is None:
            document = Document(path, kind, data, text) if text is not None else None
            loaded = self._admit(path, kind, document, tuple(problems), tuple(schema_errors))
        return loaded

    def with_file(self, path: str, kind: str, text: str) -> tuple[Corpus, LoadedFile]:
        """This corpus plus one more file, not on disk (a synthesised case being checked): a new
        index sharing every record already loaded, so checking a candidate costs one file. The
        view is a shallow copy (settings, schemas, states and caches shared) whose indexes are
        copied before the file joins them, so the corpus itself never changes."""
        view = copy.copy(self)
        view.discovered = (*self.discovered, (path, kind))
        view.kinds = {**self.kinds, path: kind}
        view.files = dict(self.files)
        view.files.pop(path, None)
        view.specs = dict(self.specs)
        view.cases = dict(self.cases)
        view.scenarios = dict(self.scenarios)
        view.review_records = dict(self.review_records)
        view.skipped = dict(self.skipped)
        # only a spec file adds to the spec paths (in _admit): copy them only then
        view._spec_paths = {name: list(paths) for name, paths in self._spec_paths.items()} if kind == "api" else self._spec_paths
        view._id_paths = dict(self.id_paths)  # the lists are shared, the new file's list is new
        if kind in ("case", "scenario"):
            view._id_paths[_stem(path)] = [*self.id_paths.get(_stem(path), ()), path]
        document, problems = load_text(text, path, kind)
        return view, view._admit(path, kind, document, tuple(problems), None)

    def _admit(
        self, path: str, kind: str, document: Document | None, problems: tuple[LoadProblem, ...], schema_errors: tuple[tuple[str, str], ...] | None
    ) -> LoadedFile:
        if schema_errors is None:
            schema_errors = tuple(self.schemas.errors(kind, document.data)) if document is not None and kind in SCHEMA_FILES else ()
        record = build(document, self.langs) if document is not None and not problems and not schema_errors else None
        loaded = LoadedFile(path, kind, document, problems, schema_errors, record)
        self.files[path] = loaded
        if document is not None and kind == "api" and isinstance(document.data, dict) and isinstance(document.data.get("name"), str):
            paths = self._spec_paths.setdefault(document.data["name"], [])
            paths.append(path)
            paths.sort()
        if record is not None:
            self._index(record)
        return loaded

    def _index(self, record: Record) -> None:
        if isinstance(record, Spec):
            _keep_first(self.specs, record.name, record)
        elif isinstance(record, Case):
            _keep_first(self.cases, record.id, record)
        elif isinstance(record, Scenario):
            _keep_first(self.scenarios, record.id, record)
        elif isinstance(record, SandboxState):
            self.states[record.path.split("/")[1]] = record
        else:
            _keep_first(self.review_records, record.id, record)

    # -- what was found

    def loaded(self, kinds: Iterable[str] | None = None) -> list[LoadedFile]:
        """The loaded files (of kinds), in path order."""
        wanted = None if kinds is None else set(kinds)
        return [self.files[p] for p, k in self.discovered if p in self.files and (wanted is None or k in wanted)]

    def broken(self, kinds: Iterable[str] | None = BENCHMARK_KINDS) -> list[LoadedFile]:
        """Loaded files of kinds that cannot be read or break their schema (they have no record)."""
        return [f for f in self.loaded(kinds) if f.broken]

    def require_intact(self, command: str) -> None:
        """Refuse (UserError) to run or score a benchmark whose files have load or schema findings."""
        broken = self.broken()
        if broken:
            shown = ", ".join(f.path for f in broken[:3]) + (f" and {len(broken) - 3} more" if len(broken) > 3 else "")
            raise UserError(
                f"{len(broken)} corpus file(s) cannot be read or break their schema ({shown}); "
                f"`callbank {command}` needs an intact corpus: run `callbank check` and fix what it reports"
            )

    def skip_broken(self) -> None:
        """Leave out what a broken file holds, and every case or scenario that needs a broken
        spec (a spec file with no record): what ``broken_files: skip`` asks of run and score.
        ``skipped`` says why, by path."""
        for loaded in self.broken():
            self.skipped[loaded.path] = "cannot be read or breaks its schema"
        broken_names = {name for name, paths in self._spec_paths.items() if name not in self.specs}
        broken_names |= {f.stem for f in self.broken(("api",)) if f.document is None}
        if not broken_names:
            return
        for key, case in list(self.cases.items()):
            named = set(case.apis) | {call.api for _, _, _, call in case.calls()} | {call.api for _, call in case.history_calls()}
            if named & broken_names:
                self.skipped[case.path] = f"names a spec that breaks its schema ({', '.join(sorted(named & broken_names)[:3])})"
                del self.cases[key]
        for key, scenario in list(self.scenarios.items()):
            named = set(scenario.apis or ()) | {call.api for call in scenario.reference_calls}
            if named & broken_names:
                self.skipped[scenario.path] = f"names a spec that breaks its schema ({', '.join(sorted(named & broken_names)[:3])})"
                del self.scenarios[key]

    def skipped_note(self) -> str | None:
        """One line saying how many files run and score left out, or None."""
        if not self.skipped:
            return None
        return (
            f"{len(self.skipped)} file(s) left out (broken_files: skip in callbank.yaml): they break their schema "
            "or need a spec that does; `callbank check` says what to fix"
        )

    # -- indexes

    @property
    def spec_paths(self) -> dict[str, list[str]]:
        """API name -> every spec file declaring it (sorted), over the specs loaded."""
        return self._spec_paths

    @property
    def unreadable_specs(self) -> frozenset[str]:
        """File stems of spec files that could not be read (references to them are not unknown)."""
        return frozenset(f.stem for f in self.loaded(("api",)) if f.document is None)

    @property
    def id_paths(self) -> dict[str, list[str]]:
        """Case or scenario id (file stem) -> every file with it, from discovery alone."""
        if self._id_paths is None:
            paths: dict[str, list[str]] = {}
            for path, kind in self.discovered:
                if kind in ("case", "scenario"):
                    paths.setdefault(_stem(path), []).append(path)
            self._id_paths = paths
        return self._id_paths

    @property
    def sandbox_names(self) -> tuple[str, ...]:
        """Folders under sandboxes/ (hidden and ``_``-prefixed ones excluded), sorted."""
        if self._sandbox_names is None:
            base = self.root / "sandboxes"
            found = sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))) if base.is_dir() else []
            self._sandbox_names = tuple(found)
        return self._sandbox_names

    @property
    def sandboxes(self) -> dict[str, SandboxInfo]:
        """Every sandbox folder, with its state when ``state.yaml`` is valid."""
        return {
            name: SandboxInfo(name, f"sandboxes/{name}", self.states.get(name), (self.root / "sandboxes" / name / "sandbox.py").is_file())
            for name in self.sandbox_names
        }

    def specs_of_sandbox(self, name: str) -> list[Spec]:
        """The runnable specs a sandbox implements, by name."""
        return [spec for _, spec in sorted(self.specs.items()) if spec.sandbox == name and not spec.spec_only]

    def cases_in(self, categories: Sequence[str] = ()) -> list[Case]:
        """Cases of the categories (or prefixes; all when none), by id."""
        return [case for _, case in sorted(self.cases.items()) if selected(case.category, categories)]

    def scenarios_in(self, categories: Sequence[str] = ()) -> list[Scenario]:
        """Scenarios of the agent categories (or prefixes; all when none), by id."""
        return [scenario for _, scenario in sorted(self.scenarios.items()) if selected(scenario.category, categories)]

    def items(self) -> Iterator[Case | Scenario]:
        """Every case, then every scenario, by id."""
        yield from (case for _, case in sorted(self.cases.items()))
        yield from (scenario for _, scenario in sorted(self.scenarios.items()))

    def item(self, identifier: str) -> Case | Scenario | None:
        return self.cases.get(identifier) or self.scenarios.get(identifier)

    def read_text(self, path: str) -> str | None:
        """A repository file's text (a policy, a sandbox's code), or None when it cannot be read."""
        try:
            return (self.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None


def _keep_first(index: dict[str, Any], key: str, record: Any) -> None:
    current = index.get(key)
    if current is None or record.path < current.path:
        index[key] = record
