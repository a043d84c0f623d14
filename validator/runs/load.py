"""Prediction files → runs: one file, or the shards of a run merged, checked before scoring.

``callbank run --shard I/N`` writes one slice of a run per file, its manifest saying which
(``shard: {index, count, selection}``). Files are read as one run when:

- their manifests agree on every setting but the shard index (model, endpoint, mode, style,
  prompt, corpus version, sampling, user side — ``validator.models.resume.COMPARED`` — and the
  shard count and selection);
- no shard is given twice and no record (id, language, step, repeat) is in two files.

Anything else is refused with a message naming the files and what differs, so records of two
different runs are never scored as one. Shards not given are noted; their records count as
missing, as any missing prediction does. Files without a manifest (written by another harness)
may be merged with each other — only the records' overlap can be checked then — but not with
files that have one.

``load_run`` reads its files as one run (``score``); ``load_runs`` groups the files it is given
into runs (``report``, ``compare``, ``leaderboard``): the shards of one run by their manifests,
every other file a run of its own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from validator.errors import UserError
from validator.models.resume import COMPARED, differences, manifest_path, read_manifest
from validator.scoring.predictions import Key, Prediction, Predictions, read_predictions

IDENTITY = tuple(key for key in COMPARED if key != "shard")


class RunFile(NamedTuple):
    path: Path
    manifest: dict[str, Any] | None
    predictions: Predictions

    @property
    def shard(self) -> dict[str, Any] | None:
        shard = self.manifest.get("shard") if self.manifest else None
        return shard if isinstance(shard, dict) and isinstance(shard.get("index"), int) and isinstance(shard.get("count"), int) else None

    @property
    def shard_text(self) -> str:
        return f"shard {self.shard['index']}/{self.shard['count']}" if self.shard else "not a shard"


class Run(NamedTuple):
    label: str  # how reports name the run: the model (with mode and style when needed), else the file
    files: tuple[RunFile, ...]
    predictions: Predictions  # every file's records, merged
    notes: tuple[str, ...]  # shards not given …

    @property
    def manifest(self) -> dict[str, Any] | None:
        """The run's settings (the first file's manifest; the others agree by construction)."""
        return self.files[0].manifest

    @property
    def paths(self) -> tuple[Path, ...]:
        return tuple(file.path for file in self.files)


def read_file(path: Path) -> RunFile:
    """A predictions file and its manifest (None when it has none)."""
    path = Path(path)
    predictions = read_predictions(path)
    manifest = read_manifest(manifest_path(path)) if manifest_path(path).exists() else None
    return RunFile(path, manifest, predictions)


def _identity(file: RunFile) -> str:
    """What must be equal for two files to be parts of one run."""
    assert file.manifest is not None
    shard = file.shard
    slicing = None if shard is None else {"count": shard["count"], "selection": shard.get("selection")}
    return json.dumps({**{key: file.manifest.get(key) for key in IDENTITY}, "slicing": slicing}, sort_keys=True, ensure_ascii=False)


def _why_not_one(first: RunFile, other: RunFile) -> str:
    assert first.manifest is not None and other.manifest is not None
    changed = differences(first.manifest, other.manifest, IDENTITY)
    a, b = first.shard, other.shard
    if (a is None) != (b is None):
        changed.append(f"{first.path.name} is {first.shard_text}, {other.path.name} is {other.shard_text}")
    elif a is not None and b is not None:
        if a["count"] != b["count"]:
            changed.append(f"shard count: {a['count']} → {b['count']}")
        if a.get("selection") != b.get("selection"):
            changed.append(f"selection: {json.dumps(a.get('selection'), ensure_ascii=False)} → {json.dumps(b.get('selection'), ensure_ascii=False)}")
    return "; ".join(changed[:4])


def merge(files: Sequence[RunFile]) -> tuple[Predictions, tuple[str, ...]]:
    """The records of files read as one run (UserError when they overlap), and notes."""
    if len(files) == 1:
        return files[0].predictions, _missing_shards(files)
    seen_index: dict[int, RunFile] = {}
    for file in files:
        if file.shard is not None:
            index = file.shard["index"]
            if index in seen_index:
                raise UserError(f"{seen_index[index].path} and {file.path} are both {file.shard_text} of one run; give each shard once")
            seen_index[index] = file
    trials: dict[Key, dict[int, Prediction]] = {}
    owner: dict[tuple[str, str, int, int], RunFile] = {}
    problems: list[str] = []
    for file in files:
        overlap: list[tuple[str, str, int, int]] = []
        for key, slot in _every_trial(file.predictions).items():
            for repeat, prediction in slot.items():
                trial = (*key, repeat)
                if trial in owner:
                    overlap.append(trial)
                    continue
                owner[trial] = file
                trials.setdefault(key, {})[repeat] = prediction._replace(file=file.path.name)
        if overlap:
            first = min(overlap)
            shown = f"{first[0]} ({first[1]}, step {first[2]}{f', repeat {first[3]}' if first[3] else ''})"
            raise UserError(
                f"{owner[first].path} and {file.path} overlap: both hold {len(overlap)} record(s), the first {shown}; "
                "the files of one run must not share records — was a shard given twice, or run with another --shard or selection?"
            )
        problems.extend(f"{file.path.name} {problem}" if problem.startswith("line ") else problem for problem in file.predictions.problems)
    records = {key: slot[0] for key, slot in trials.items() if 0 in slot}
    repeated = {key: slot for key, slot in trials.items() if len(slot) > 1 or 0 not in slot}
    return Predictions(records, problems, repeated), _missing_shards(files)


def _every_trial(predictions: Predictions) -> dict[Key, dict[int, Prediction]]:
    every: dict[Key, dict[int, Prediction]] = {key: {0: prediction} for key, prediction in predictions.records.items()}
    for key, slot in predictions.trials.items():
        every.setdefault(key, {}).update(slot)
    return every


def _missing_shards(files: Sequence[RunFile]) -> tuple[str, ...]:
    shards = [file.shard for file in files if file.shard is not None]
    if not shards:
        return ()
    count = shards[0]["count"]
    given = {shard["index"] for shard in shards}
    absent = [f"{index}/{count}" for index in range(1, count + 1) if index not in given]
    if not absent:
        return ()
    return (f"shard{'s' if len(absent) > 1 else ''} {', '.join(absent)} of this run {'were' if len(absent) > 1 else 'was'} not given: their records count as missing",)


def _read_files(paths: Sequence[Path]) -> list[RunFile]:
    seen: set[Path] = set()
    for path in paths:
        resolved = Path(path).resolve()
        if resolved in seen:
            raise UserError(f"{path} is given twice")
        seen.add(resolved)
    return [read_file(path) for path in paths]


def load_run(paths: Sequence[Path]) -> Run:
    """The files as one run (the shards of a run, or one file); UserError when they are not one."""
    files = _read_files(paths)
    _check_one_run(files)
    predictions, notes = merge(files)
    return Run(_label(files[0]), tuple(files), predictions, notes)


def _check_one_run(files: Sequence[RunFile]) -> None:
    with_manifest = [file for file in files if file.manifest is not None]
    if with_manifest and len(with_manifest) < len(files):
        bare = next(file for file in files if file.manifest is None)
        raise UserError(
            f"{bare.path} has no manifest ({manifest_path(bare.path).name}) but {with_manifest[0].path} has one: "
            "files without one cannot be checked to be parts of the same run; score them apart"
        )
    if with_manifest:
        first = with_manifest[0]
        for other in with_manifest[1:]:
            if _identity(other) != _identity(first):
                raise UserError(f"{first.path} and {other.path} are not parts of one run: {_why_not_one(first, other)}")


def load_runs(paths: Sequence[Path]) -> list[Run]:
    """The runs the files make: the shards of one run grouped by their manifests, each other file alone."""
    files = _read_files(paths)
    groups: dict[str, list[RunFile]] = {}
    order: list[list[RunFile]] = []
    for file in files:
        if file.shard is None:
            order.append([file])
            continue
        group = groups.get(_identity(file))
        if group is None:
            group = groups[_identity(file)] = []
            order.append(group)
        group.append(file)
    _refuse_split_runs([group for group in order if group[0].shard is not None])
    runs = []
    for group in order:
        predictions, notes = merge(group)
        runs.append(Run(_label(group[0]), tuple(group), predictions, notes))
    return _unique_labels(runs)


def _refuse_split_runs(groups: Sequence[list[RunFile]]) -> None:
    """Two incomplete shard groups that would complete each other are one run whose manifests disagree."""
    for i, group in enumerate(groups):
        count = group[0].shard["count"] if group[0].shard else 0
        indexes = {file.shard["index"] for file in group if file.shard}
        for other in groups[i + 1 :]:
            other_indexes = {file.shard["index"] for file in other if file.shard}
            other_count = other[0].shard["count"] if other[0].shard else 0
            if count == other_count and len(indexes) < count and not indexes & other_indexes:
                raise UserError(
                    f"{group[0].path} ({group[0].shard_text}) and {other[0].path} ({other[0].shard_text}) look like shards of one run, "
                    f"but their manifests differ: {_why_not_one(group[0], other[0])}; the shards of one run share every setting"
                )


def _label(file: RunFile) -> str:
    manifest = file.manifest
    if manifest and isinstance(manifest.get("model"), str):
        return str(manifest["model"])
    return file.path.name.removesuffix(".jsonl")


def _files_label(run: Run) -> str:
    first = run.files[0].path.name.removesuffix(".jsonl")
    return first if len(run.files) == 1 else f"{first} + {len(run.files) - 1} more"


def _unique_labels(runs: list[Run]) -> list[Run]:
    """Labels that tell the runs apart: the model, then mode and style, then the file."""
    labels = [run.label for run in runs]
    if len(set(labels)) == len(labels):
        return runs
    detailed = []
    for run in runs:
        manifest = run.manifest or {}
        parts = [run.label, *(str(manifest[key]) for key in ("mode", "style") if manifest.get(key))]
        detailed.append(" · ".join(parts))
    if len(set(detailed)) != len(detailed):
        detailed = [f"{label} ({_files_label(run)})" for label, run in zip(detailed, runs, strict=True)]
    return [run._replace(label=label) for run, label in zip(runs, detailed, strict=True)]
