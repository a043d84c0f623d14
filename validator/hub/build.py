"""`callbank build`: the corpus as a Hugging Face dataset folder.

Layout of the folder::

    README.md                       dataset card, its `configs:` header names every data file
    score.py                        scoring entry (runs the package's scorer on this folder)
    data/<config>/en.parquet        one file per config and language (the repository's languages)
    data/<config>/zh.parquet

The folder is written next to its destination and moved into place only when complete, so a
failed build never leaves a half-written dataset behind, and a rebuild leaves no stale file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import NamedTuple

from validator.corpus.index import Corpus
from validator.hub.card import DEFAULT_REPO_ID, GENERATED_MARKER, render_card
from validator.hub.configs import Config, configs_of, data_path
from validator.hub.corpus import CorpusError, Sources
from validator.hub.parquet import write_records
from validator.hub.records import COLUMNS, project
from validator.review.gate import ReviewSummary, review_summary

SCORE_PY = '''"""Score predictions against this dataset folder.

    python score.py PREDICTIONS.jsonl [any option of `callbank score`]

Needs the callbank package (pip install "callbank[hub]"). The YAML corpus is rebuilt from this
folder's Parquet files in a temporary directory and scored there by `callbank score`.
"""

import sys
from pathlib import Path

from validator.hub.score import main

if __name__ == "__main__":
    sys.exit(main(Path(__file__).resolve().parent, sys.argv[1:]))
'''


SCORE_ENTRY = "score.py"
# `datasets` takes <folder>/<folder name>.py for a loading script and refuses it (datasets >= 4)
RESERVED_NAME = SCORE_ENTRY.removesuffix(".py")


class BuildError(Exception):
    """The corpus cannot be compiled (a reference the gates should have caught, a missing file)."""


class BuiltFile(NamedTuple):
    path: str  # relative to the dataset folder, forward slashes
    size: int
    sha256: str


def render_folder(sources: Sources, review: ReviewSummary, repo_id: str = DEFAULT_REPO_ID) -> tuple[list[Config], dict[str, str]]:
    """Configs and the text files of the folder (the Parquet files are written separately)."""
    configs = configs_of(sources)
    return configs, {"README.md": render_card(configs, review, repo_id, sources.corpus.langs), SCORE_ENTRY: SCORE_PY}


def write_folder(sources: Sources, folder: Path, review: ReviewSummary, repo_id: str = DEFAULT_REPO_ID) -> None:
    """Write the dataset folder for a corpus into folder (which must be empty or absent)."""
    configs, texts = render_folder(sources, review, repo_id)
    for config in configs:
        columns = COLUMNS[config.kind]
        for split in sources.corpus.langs:
            try:
                records = [project(config.kind, item, split, sources) for item in config.items]
            except KeyError as error:
                raise BuildError(f"config {config.name}: {error.args[0]}") from None
            write_records(folder / data_path(config.name, split), records, columns)
    for name, text in texts.items():
        (folder / name).write_bytes(text.encode("utf-8"))


def list_files(folder: Path) -> list[BuiltFile]:
    """Every file of a folder, sorted, with its size and SHA-256."""
    files = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        files.append(BuiltFile(path.relative_to(folder).as_posix(), len(data), hashlib.sha256(data).hexdigest()))
    return files


def is_build_folder(folder: Path) -> bool:
    """True when folder is empty, or holds a dataset card written by `callbank build`."""
    if not any(folder.iterdir()):
        return True
    card = folder / "README.md"
    try:
        return GENERATED_MARKER in card.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def build(root: Path, out_dir: Path, repo_id: str = DEFAULT_REPO_ID, corpus: Corpus | None = None) -> list[BuiltFile]:
    """Compile the corpus under root into out_dir, replacing an earlier build there.

    The gates are not checked here (see ``validator.hub.gates``); callers check them first.
    """
    out_dir = Path(out_dir)
    if out_dir.name == RESERVED_NAME:
        raise BuildError(f"a dataset folder named {RESERVED_NAME!r} makes `datasets` take its {SCORE_ENTRY} for a loading script; choose another name")
    if out_dir.exists() and (not out_dir.is_dir() or not is_build_folder(out_dir)):
        raise BuildError(f"{out_dir} exists and is not a callbank build; choose an empty or new folder")
    corpus = corpus if corpus is not None else Corpus.load(root)
    try:
        sources = Sources.from_corpus(corpus)
    except CorpusError as error:
        raise BuildError(str(error)) from None
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = out_dir.parent / f".{out_dir.name}.building-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    try:
        write_folder(sources, staging, review_summary(corpus), repo_id)
        files = list_files(staging)
        if out_dir.exists():
            shutil.rmtree(out_dir)
        staging.rename(out_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return files
