"""Shared helpers of the hub tests: the fixture corpus, its expected items, the CLI in a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

from validator.corpus.canonical import content_hash
from validator.corpus.index import Corpus

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "repos" / "hub"
LANGS = ("en", "zh")


def copy_fixture(tmp_path: Path, name: str = "corpus") -> Path:
    target = tmp_path / name
    shutil.copytree(FIXTURE, target)
    return target


def accept_everything(root: Path, by_reviewers: Collection[str] = ()) -> None:
    """Write an accepted review record for every case and scenario under root, for its current
    content: decided by the judges, or by human reviewers for the ids in by_reviewers."""
    import yaml

    for item in Corpus.load(root).items():
        digest = content_hash(item.data)
        decided = "reviewers" if item.id in by_reviewers else "judges"
        record = {"id": item.id, "path": item.path, "status": "accepted", "content_hash": digest, "accepted_hash": digest, "decided_by": decided, "votes": [], "reviews": []}
        target = root / "review" / "queue" / f"{item.id}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("# yaml-language-server: $schema=../../schemas/review-record.schema.json\n" + yaml.safe_dump(record, allow_unicode=True), encoding="utf-8")


def expected_configs(root: Path) -> dict[str, list[dict[str, Any]]]:
    """config → the source items it must hold, read straight from the files (sorted by id/name)."""
    corpus = Corpus.load(root)
    documents = {kind: [f.document for f in corpus.loaded((kind,)) if f.document is not None] for kind in ("case", "scenario", "api", "state")}
    configs: dict[str, list[dict[str, Any]]] = {}
    for document in sorted(documents["case"], key=lambda d: d.data["id"]):
        configs.setdefault(document.data["category"].replace("/", "_"), []).append(document.data)
    for document in sorted(documents["scenario"], key=lambda d: d.data["id"]):
        configs.setdefault(f"agent_{document.data['mode']}", []).append(document.data)
    configs["apis"] = [d.data for d in sorted(documents["api"], key=lambda d: d.data["name"])]
    sandboxes = []
    for folder in sorted(p for p in (root / "sandboxes").iterdir() if p.is_dir()):
        sandboxes.append(
            {
                "name": folder.name,
                "state": next(d.data for d in documents["state"] if d.path == f"sandboxes/{folder.name}/state.yaml"),
                "policy": {lang: (folder / f"policy.{lang}.md").read_text(encoding="utf-8") for lang in LANGS},
                "code": (folder / "sandbox.py").read_text(encoding="utf-8"),
            }
        )
    configs["sandboxes"] = sandboxes
    return configs


def hub_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A clean environment for a subprocess: its own HF_HOME, no proxies for 127.0.0.1."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING_FACE")) and "proxy" not in k.lower()}
    home = tmp_path / "hf-home"
    home.mkdir(exist_ok=True)
    env.update({"HF_HOME": str(home), "NO_PROXY": "127.0.0.1,localhost", "HF_HUB_DISABLE_TELEMETRY": "1", "PYTHONPATH": str(ROOT)})
    env.update(extra)
    return env


def run_callbank(args: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`callbank ARGS` in a fresh interpreter (huggingface_hub reads its settings at import)."""
    return subprocess.run(
        [sys.executable, "-m", "validator", *args], env=env, cwd=cwd or ROOT, capture_output=True, text=True, timeout=timeout
    )
