"""The answer cache of a synth run: ``DIR/cache.jsonl``, append-only, one JSON line per model answer.

A line is written (one ``write``, then ``fsync``) as soon as an answer arrives, so killing a run
loses nothing already answered, and the next run over the same ``DIR`` asks no question twice:
an answer is keyed by (role, model, prompt version, recipe, question) — the recipe's hash holds
its seed — so changing the model or releasing a new prompt version asks again, and the old lines
stay as history. A line cut short by a kill is skipped when reading; when a key appears twice
the first line wins (the same rules as the review votes, ``validator.review.votes``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from validator.review.votes import append_line

CACHE_FILE = "cache.jsonl"


class AnswerKey(NamedTuple):
    role: str  # generator | simulator
    model: str
    prompt_version: str
    recipe: str  # the recipe's hash (it includes the seed and the candidate's index)
    question: str  # which question about the recipe: "draft", "en/0", "en/1#2" (step 1, sample 2) …

    def text(self) -> str:
        return "\x1f".join(self)


class AnswerCache:
    """Every answer of earlier runs over this folder, and a durable append for new ones."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / CACHE_FILE
        self._answers: dict[str, dict[str, Any]] = {}
        self._load()

    def _load(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        for line in raw.split(b"\n"):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue  # cut short by a kill
            if isinstance(data, dict) and isinstance(data.get("key"), list) and len(data["key"]) == len(AnswerKey._fields):
                self._answers.setdefault(AnswerKey(*map(str, data["key"])).text(), data)

    def __len__(self) -> int:
        return len(self._answers)

    def get(self, key: AnswerKey) -> dict[str, Any] | None:
        return self._answers.get(key.text())

    def put(self, key: AnswerKey, answer: dict[str, Any]) -> dict[str, Any]:
        """Record an answer durably (write + fsync; the folder too when the file is new)."""
        entry = {"key": list(key), **answer}
        self._answers.setdefault(key.text(), entry)
        self.folder.mkdir(parents=True, exist_ok=True)
        append_line(self.path, json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
        return entry

