"""The corpus as plain data: every document of the repository, indexed by kind and name."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validator.loading import Document, LoadProblem, discover, load_file


@dataclass
class Repo:
    root: Path
    documents: list[Document] = field(default_factory=list)
    load_problems: dict[str, list[LoadProblem]] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path, paths: Iterable[str] | None = None) -> Repo:
        """Load the corpus under root (every file, or only the given repo-relative paths)."""
        root = Path(root)
        wanted = None if paths is None else set(paths)
        repo = cls(root)
        for path, kind in discover(root):
            if wanted is not None and path not in wanted:
                continue
            document, problems = load_file(root, path, kind)
            if problems:
                repo.load_problems[path] = problems
            if document is not None:
                repo.documents.append(document)
        return repo

    def of_kind(self, kind: str) -> list[Document]:
        return [d for d in self.documents if d.kind == kind]

    def _index(self, kind: str, key: str) -> dict[str, Document]:
        index: dict[str, Document] = {}
        for document in self.of_kind(kind):
            data = document.data
            if isinstance(data, dict) and isinstance(data.get(key), str):
                index.setdefault(data[key], document)
        return index

    @property
    def spec_documents(self) -> dict[str, Document]:
        return self._index("api", "name")

    @property
    def specs(self) -> dict[str, dict[str, Any]]:
        """API name → spec data (the first file wins when a name repeats; a rule reports it)."""
        return {name: d.data for name, d in self.spec_documents.items()}

    @property
    def cases(self) -> dict[str, dict[str, Any]]:
        return {case_id: d.data for case_id, d in self._index("case", "id").items()}

    @property
    def scenarios(self) -> dict[str, dict[str, Any]]:
        return {scenario_id: d.data for scenario_id, d in self._index("scenario", "id").items()}

    @property
    def states(self) -> dict[str, dict[str, Any]]:
        """Sandbox name (its folder) → initial state data."""
        return {d.path.split("/")[1]: d.data for d in self.of_kind("state") if isinstance(d.data, dict)}

    def sandbox_names(self) -> list[str]:
        base = self.root / "sandboxes"
        if not base.is_dir():
            return []
        return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
