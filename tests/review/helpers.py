"""Shared pieces of the review tests: a copy of the fixture corpus, judges files, verdict texts."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.fixture_repos import REPOS
from validator.review.client import RetryPolicy
from validator.review.votes import VoteStore

ITEMS = ("mini-0001", "parallel-0001", "single-0001", "sp-incomplete-0001", "sp-irrelevant-0001")
MODELS = ("model-a", "model-b", "model-c")
FAST = RetryPolicy(attempts=4, base_delay=0.01, max_delay=0.05, verdict_attempts=3)


def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REPOS / "review", root)
    return root


def judges_file(path: Path, base_url: str, models: Sequence[str] = MODELS, **extra: Any) -> Path:
    """One judge per model, named judge-<letter>, all on base_url; the second speaks Chinese."""
    lines = ["judges:"]
    for index, model in enumerate(models):
        options = {"name": f"judge-{model.rsplit('-', 1)[-1]}", "base_url": base_url, "model": model, "lang": "zh" if index == 1 else "en", **extra}
        lines.append("  - " + json.dumps(options))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def verdict(kind: str = "valid", *problems: str, rationale: str = "", fix: str | None = None) -> str:
    return json.dumps({"verdict": kind, "rationale": rationale or f"looks {kind}", "problems": list(problems), "suggested_fix": fix}, ensure_ascii=False)


VALID = verdict("valid")


def item_of(request_text: str) -> str | None:
    """Which fixture item a judge prompt is about (its id appears in the prompt)."""
    return next((item for item in ITEMS if f" {item} " in request_text), None)


def store_lines(root: Path, item_id: str) -> list[dict[str, Any]]:
    path = VoteStore(root).path(item_id)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
