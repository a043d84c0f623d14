"""Resumable output: records appended as they complete, a manifest saying what run wrote them.

The predictions file is appended to one whole line at a time and flushed after each record, so
a crash, a kill or Ctrl-C loses only the records still in flight. A re-run with the same
``--out`` reads the records already there (a torn last line left by a kill is cut off) and
skips their jobs. Next to the file, ``<out>.manifest.json`` records the run's settings — model,
endpoint, mode and syntax, prompt style, version and hash, corpus version, sampling settings,
user side — and one entry per session (start, end, status, records written, usage). A re-run
whose settings differ from the manifest's is refused: records of two different runs must not
end up in one file.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from validator.corpus.config import CONFIG_FILE
from validator.errors import UserError
from validator.scoring.predictions import Key, record_key, record_validator

MANIFEST_VERSION = 1
CORPUS_FOLDERS = ("specs", "dialogues", "sandboxes")
# settings that must be equal for records to belong to one run
COMPARED = (
    "model", "endpoint", "syntax", "style", "prompt_version", "prompt_hash", "corpus_version",
    "temperature", "max_tokens", "seed", "max_turns", "user", "shard",
)  # fmt: skip
# a shard's slicing depends on its selection, so a shard may not widen it on resume; the shards
# of one run agree on every setting but the shard's index (validator.runs)



def manifest_path(out: Path) -> Path:
    return out.with_name(out.name + ".manifest.json")


def corpus_version(root: Path) -> str:
    """sha256 over every corpus file (specs, dialogues, sandboxes: path and bytes) and the
    repository's settings (``callbank.yaml``, which decides the languages), when it has them."""
    digest = hashlib.sha256()
    root = Path(root)
    settings = root / CONFIG_FILE
    if settings.is_file():
        digest.update(CONFIG_FILE.encode() + b"\0" + settings.read_bytes() + b"\0")
    for folder in CORPUS_FOLDERS:
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            relative = path.relative_to(root)
            if not path.is_file() or any(part.startswith(".") or part == "__pycache__" for part in relative.parts) or path.suffix == ".pyc":
                continue
            digest.update(relative.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


def finished_keys(out: Path) -> set[Key]:
    """Keys of the first-trial records already in out (a torn last line is cut off first)."""
    return {(identifier, lang, step) for identifier, lang, step, repeat in finished_trials(out) if repeat == 0}


def finished_trials(out: Path) -> set[tuple[str, str, int, int]]:
    """(id, lang, step, repeat) of the records already in out; a torn last line (a killed run) is cut off first."""
    if not out.exists():
        return set()
    data = out.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with open(out, "r+b") as handle:
            handle.truncate(cut)
        data = data[:cut]
    keys: set[tuple[str, str, int, int]] = set()
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        key = record_key(record) if isinstance(record, dict) else None
        repeat = record.get("repeat", 0) if isinstance(record, dict) else None
        if key is not None and isinstance(repeat, int) and not isinstance(repeat, bool):
            keys.add((*key, repeat))
    return keys


def read_manifest(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_manifest(path: Path, manifest: Mapping[str, Any]) -> None:
    """Write atomically (a temporary file renamed over the old one)."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def _shown(value: Any) -> str:
    if isinstance(value, str) and value.startswith("sha256:"):
        return value[:19] + "…"  # enough of a hash to tell two apart
    return json.dumps(value, ensure_ascii=False)


def differences(old: Mapping[str, Any], new: Mapping[str, Any], keys: Iterable[str] = COMPARED) -> list[str]:
    """`key: old → new` for every compared setting that changed."""
    return [f"{key}: {_shown(old.get(key))} → {_shown(new.get(key))}" for key in keys if old.get(key) != new.get(key)]


def open_run(out: Path, settings: Mapping[str, Any], *, overwrite: bool = False) -> tuple[set[tuple[str, str, int, int]], dict[str, Any]]:
    """(trial keys already done, the manifest to keep updating) for a run writing to out.

    UserError when out holds records of another run (different settings, or no manifest).
    """
    path = manifest_path(out)
    try:
        if overwrite:
            for stale in (out, path):
                if stale.exists():
                    stale.unlink()
        has_records = out.exists() and out.stat().st_size > 0
    except OSError as error:
        raise UserError(f"cannot use {out}: {error.strerror}") from None
    manifest = read_manifest(path) if has_records else None
    if has_records and manifest is None:
        raise UserError(f"{out} already holds predictions but has no readable {path.name}; pass --overwrite to start over, or choose another --out")
    if manifest is not None:
        changed = differences(manifest, settings)
        if changed:
            raise UserError(f"{out} holds predictions of a different run ({'; '.join(changed[:3])}); pass --overwrite to start over, or choose another --out")
        manifest = {**manifest, **settings, "sessions": list(manifest.get("sessions") or [])}
    else:
        manifest = {"version": MANIFEST_VERSION, **settings, "sessions": []}
    return finished_trials(out), manifest


class RecordWriter:
    """Appends one JSON line per record and flushes it at once."""

    def __init__(self, out: Path) -> None:
        try:
            self.handle: IO[str] = open(out, "a", encoding="utf-8")  # noqa: SIM115  (open for the whole run; close() ends it)
        except OSError as error:
            raise UserError(f"cannot write {out}: {error.strerror}") from None
        self.written = 0

    def write(self, record: Mapping[str, Any]) -> None:
        """Append one record; it must pass schemas/predictions.schema.json (anything else is a bug)."""
        problems = [error.message for error in record_validator().iter_errors(dict(record))]
        if problems:
            raise ValueError(f"refusing to write a prediction record that breaks its schema: {problems[0]} ({json.dumps(record)[:200]})")
        self.handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.handle.flush()
        self.written += 1

    def close(self) -> None:
        self.handle.close()
