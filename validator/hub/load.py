"""Reading a built dataset back: decoded records, source items, or the whole YAML corpus.

``load(path_or_repo, config, lang)`` returns one split of one config as decoded records: JSON
columns parsed, null cells (fields the source does not have) left out. ``load_source`` merges
the languages back into the source items, exactly the data of the YAML files they came from;
``materialize`` writes those items out as a corpus (specs, dialogues, sandboxes, and a
``callbank.yaml`` naming the language of a one-language dataset), so the repository's own tools
— the scorer first — run on a downloaded dataset.

A local folder is read directly; anything else is taken as a Hub dataset id and downloaded
(only the card and the files of the config asked for).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from validator.corpus.config import CONFIG_FILE
from validator.hub.configs import SPLITS, kind_of_config
from validator.hub.parquet import read_records
from validator.hub.records import COLUMNS, KEY_COLUMN, to_source
from validator.loading import CorpusDumper


class LoadError(Exception):
    """The folder or repository is not a callbank dataset, or lacks the config asked for."""


def read_card_configs(folder: Path) -> dict[str, dict[str, str]]:
    """config name → {split: data file} from the `configs:` header of the folder's README.md."""
    try:
        text = (folder / "README.md").read_text(encoding="utf-8")
    except OSError:
        raise LoadError(f"{folder} has no README.md; is it a dataset built by `callbank build`?") from None
    if not text.startswith("---\n") or "\n---\n" not in text[4:]:
        raise LoadError(f"{folder}/README.md has no YAML metadata header")
    header = yaml.safe_load(text[4 : text.index("\n---\n", 4)]) or {}
    configs: dict[str, dict[str, str]] = {}
    for entry in header.get("configs", []):
        files = entry.get("data_files", [])
        configs[entry["config_name"]] = {f["split"]: f["path"] for f in files}
    return configs


def _folder(path_or_repo: str | Path, config: str | None, revision: str | None) -> Path:
    path = Path(path_or_repo)
    if path.is_dir():
        return path
    from validator.hub.publish import REPO_ID

    if not REPO_ID.match(str(path_or_repo)):
        raise LoadError(f"{path_or_repo} is neither a folder nor a Hub dataset id (ORG/NAME)")
    from huggingface_hub import snapshot_download

    patterns = ["README.md"] + ([f"data/{config}/*"] if config else ["data/**", "score.py"])
    return Path(snapshot_download(str(path_or_repo), repo_type="dataset", revision=revision, allow_patterns=patterns))


def list_configs(path_or_repo: str | Path, revision: str | None = None) -> list[str]:
    return list(read_card_configs(_folder(path_or_repo, None, revision)))


def _read(folder: Path, config: str, lang: str) -> list[dict[str, Any]]:
    configs = read_card_configs(folder)
    if config not in configs:
        raise LoadError(f"no config {config!r}; the dataset has {', '.join(configs) or 'none'}")
    if lang not in configs[config]:
        raise LoadError(f"config {config!r} has no split {lang!r}; it has {', '.join(configs[config])}")
    return read_records(folder / configs[config][lang], COLUMNS[kind_of_config(config)])


def load(path_or_repo: str | Path, config: str, lang: str, revision: str | None = None) -> list[dict[str, Any]]:
    """The decoded records of one config in one language (a local folder or a Hub dataset id)."""
    return _read(_folder(path_or_repo, config, revision), config, lang)


def _splits(folder: Path, config: str) -> list[str]:
    """The languages of a config's splits, in callbank's order (en before zh)."""
    configs = read_card_configs(folder)
    if config not in configs:
        raise LoadError(f"no config {config!r}; the dataset has {', '.join(configs) or 'none'}")
    found = [lang for lang in SPLITS if lang in configs[config]]
    if not found:
        raise LoadError(f"config {config!r} has no language split ({', '.join(SPLITS)}); it has {', '.join(configs[config]) or 'none'}")
    return found


def load_source(path_or_repo: str | Path, config: str, revision: str | None = None) -> list[dict[str, Any]]:
    """The source items of one config: its languages merged back into the YAML files' data."""
    folder = _folder(path_or_repo, config, revision)
    kind = kind_of_config(config)
    splits = {lang: _read(folder, config, lang) for lang in _splits(folder, config)}
    key = KEY_COLUMN[kind]
    keys = {lang: [r[key] for r in records] for lang, records in splits.items()}
    if len({tuple(k) for k in keys.values()}) > 1:
        raise LoadError(f"config {config!r}: the {' and '.join(splits)} splits do not hold the same items in the same order")
    langs = list(splits)
    return [to_source(kind, {lang: splits[lang][i] for lang in langs}) for i in range(len(splits[langs[0]]))]


def materialize(path_or_repo: str | Path, dest: Path, revision: str | None = None) -> list[str]:
    """Write the dataset back out as a callbank corpus under dest; returns the files written."""
    folder = _folder(path_or_repo, None, revision)
    dest = Path(dest)
    written: list[str] = []
    langs: set[str] = set()
    for config in read_card_configs(folder):
        kind = kind_of_config(config)
        splits = _splits(folder, config)
        langs.update(splits)
        first = _read(folder, config, splits[0])
        for record, item in zip(first, load_source(folder, config), strict=True):
            written += _write_item(dest, kind, record["source"], item)
    if langs and langs != set(SPLITS):
        written.append(_write_text(dest, CONFIG_FILE, f"languages: [{', '.join(lang for lang in SPLITS if lang in langs)}]\n"))
    return sorted(written)


@contextmanager
def materialized(path_or_repo: str | Path, revision: str | None = None) -> Iterator[Path]:
    """The dataset written out as a corpus in a temporary folder, removed when the block ends."""
    with tempfile.TemporaryDirectory(prefix="callbank-dataset-") as folder:
        materialize(path_or_repo, Path(folder), revision)
        yield Path(folder)


_SCHEMAS = {"case": "case", "api": "api", "scenario": "scenario", "state": "state"}


def _write_yaml(dest: Path, path: str, schema: str, data: Any) -> str:
    depth = path.count("/")
    comment = f"# yaml-language-server: $schema={'../' * depth}schemas/{schema}.schema.json\n"
    body = yaml.dump(data, Dumper=CorpusDumper, allow_unicode=True, sort_keys=False, default_flow_style=False, width=1000)
    _write_text(dest, path, comment + body)
    return path


def _write_text(dest: Path, path: str, text: str) -> str:
    target = dest / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(text.encode("utf-8"))
    return path


_TOP_FOLDER = {"case": "dialogues", "api": "specs", "scenario": "sandboxes", "sandbox": "sandboxes"}


def _safe_source(kind: str, source: object) -> str:
    """The item's repo-relative path, refused when it would leave its corpus folder."""
    parts = str(source).split("/")
    if not isinstance(source, str) or parts[0] != _TOP_FOLDER[kind] or any(p in ("", ".", "..") or "\\" in p for p in parts):
        raise LoadError(f"refusing to write a {kind} to {source!r}: not a path inside {_TOP_FOLDER[kind]}/")
    return source


def _write_item(dest: Path, kind: str, source: str, item: dict[str, Any]) -> list[str]:
    source = _safe_source(kind, source)
    if kind != "sandbox":
        return [_write_yaml(dest, source, _SCHEMAS[kind], item)]
    return [
        _write_yaml(dest, f"{source}/state.yaml", "state", item["state"]),
        *(_write_text(dest, f"{source}/policy.{lang}.md", text) for lang, text in item["policy"].items()),
        _write_text(dest, f"{source}/sandbox.py", item["code"]),
    ]
