"""The publishable corpus: what the dataset is built from, gathered from a loaded repository.

Everything here is plain data (the YAML documents as loaded, the policy texts and the sandbox
source code), so building and the round-trip tests compare the very same values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validator.repo import Repo

LANGS = ("en", "zh")


class CorpusError(Exception):
    """The corpus lacks something a build needs (a policy file, a sandbox's code)."""


@dataclass(frozen=True)
class Sandbox:
    """One sandbox folder: its initial state, its policy in each language and its code."""

    name: str
    state: dict[str, Any]
    policy: dict[str, str]  # lang → text of policy.<lang>.md
    code: str  # text of sandbox.py

    def as_source(self) -> dict[str, Any]:
        return {"name": self.name, "state": self.state, "policy": dict(self.policy), "code": self.code}


@dataclass(frozen=True)
class Corpus:
    specs: dict[str, dict[str, Any]] = field(default_factory=dict)  # API name → spec
    cases: dict[str, dict[str, Any]] = field(default_factory=dict)  # case id → case
    scenarios: dict[str, dict[str, Any]] = field(default_factory=dict)  # scenario id → scenario
    sandboxes: dict[str, Sandbox] = field(default_factory=dict)  # sandbox name → sandbox
    paths: dict[tuple[str, str], str] = field(default_factory=dict)  # (kind, id or name) → repo-relative path

    def path_of(self, kind: str, key: str) -> str:
        if kind == "sandbox":
            return f"sandboxes/{key}"
        return self.paths[(kind, key)]

    @classmethod
    def from_repo(cls, repo: Repo) -> Corpus:
        states = repo.states
        sandboxes: dict[str, Sandbox] = {}
        for name in repo.sandbox_names():
            if name not in states:
                raise CorpusError(f"sandboxes/{name}/state.yaml is missing or unreadable")
            sandboxes[name] = Sandbox(
                name=name,
                state=states[name],
                policy={lang: _read_text(repo.root, f"sandboxes/{name}/policy.{lang}.md") for lang in LANGS},
                code=_read_text(repo.root, f"sandboxes/{name}/sandbox.py"),
            )
        paths = {("api", name): d.path for name, d in repo.spec_documents.items()}
        for kind in ("case", "scenario"):
            for document in repo.of_kind(kind):
                data = document.data
                if isinstance(data, dict) and isinstance(data.get("id"), str):
                    paths.setdefault((kind, data["id"]), document.path)
        return cls(
            specs=dict(sorted(repo.specs.items())),
            cases=dict(sorted(repo.cases.items())),
            scenarios=dict(sorted(repo.scenarios.items())),
            sandboxes=sandboxes,
            paths=paths,
        )


def _read_text(root: Path, path: str) -> str:
    try:
        return (root / path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CorpusError(f"{path} is missing; every sandbox needs it before the dataset can be built") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CorpusError(f"cannot read {path}: {error}") from None
