"""What the dataset is built from: the corpus's documents as source items, and each sandbox
folder as one more (its initial state, its policy in each language and its code).

Everything here is plain data — the YAML documents as loaded, the policy texts and the sandbox
source code — so building and the round-trip tests compare the very same values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from validator.corpus.index import Corpus


class CorpusError(Exception):
    """The corpus lacks something a build needs (a policy file, a sandbox's code)."""


@dataclass(frozen=True)
class Sources:
    """The corpus and the source item of every sandbox folder."""

    corpus: Corpus
    sandboxes: dict[str, dict[str, Any]]  # sandbox name -> {name, state, policy: {lang: text}, code}

    @classmethod
    def from_corpus(cls, corpus: Corpus) -> Sources:
        sandboxes: dict[str, dict[str, Any]] = {}
        for name, sandbox in corpus.sandboxes.items():
            if sandbox.state is None:
                raise CorpusError(f"sandboxes/{name}/state.yaml is missing or unreadable")
            sandboxes[name] = {
                "name": name,
                "state": sandbox.state.document.data,
                "policy": {lang: _read_text(corpus, sandbox.policy_path(lang)) for lang in corpus.langs},
                "code": _read_text(corpus, sandbox.code_path),
            }
        return cls(corpus, sandboxes)

    def path_of(self, kind: str, key: str) -> str:
        """The repository path of an item: a case, scenario or API file, or a sandbox folder."""
        if kind == "sandbox":
            return f"sandboxes/{key}"
        if kind == "case":
            return self.corpus.cases[key].path
        if kind == "scenario":
            return self.corpus.scenarios[key].path
        return self.corpus.specs[key].path


def _read_text(corpus: Corpus, path: str) -> str:
    text = corpus.read_text(path)
    if text is None:
        exists = (corpus.root / path).exists()
        raise CorpusError(f"cannot read {path}" if exists else f"{path} is missing; every sandbox needs it before the dataset can be built")
    return text
