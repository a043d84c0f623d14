"""Writing an import out: the repositories (settings, specs, cases, any sandbox copied in) and the
report, all or nothing.

Everything is written into a staging folder next to ``--out`` and moved into place only when
complete, so a failed import never leaves a half-written repository; an earlier import at
``--out`` (a folder holding ``import-report.json``) is replaced, anything else there is refused.
Files are YAML in callbank's strict dialect (no anchors, strings that could read as another type
quoted) with the schema comment every corpus file starts with, written in a fixed order: the
same source gives byte-identical output.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from validator import __version__
from validator.corpus.config import CONFIG_FILE
from validator.errors import UserError
from validator.importers.common import IGNORED_BECAUSE, Imported, Repository
from validator.importers.report import REPORT_JSON, REPORT_MD, render_json, render_markdown

SCHEMA_COMMENT = "# yaml-language-server: $schema={target}\n"


class _Dumper(yaml.CSafeDumper if hasattr(yaml, "CSafeDumper") else yaml.SafeDumper):  # type: ignore[misc]
    """Safe YAML without anchors and aliases (callbank's loader refuses them)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


# PyYAML writes y and n unquoted, which YAML 1.1 reads as booleans (callbank's loader refuses
# them, SCH005): a resolver for them makes the dumper quote such strings
_Dumper.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))


def dump_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, default_flow_style=False, width=4096)


def yaml_file(path: str, schema: str, data: Any) -> str:
    """The text of a corpus file at path (repo-relative): the schema comment, then the data."""
    target = "../" * path.count("/") + f"schemas/{schema}.schema.json"
    return SCHEMA_COMMENT.format(target=target) + dump_yaml(data)


def repository_files(repository: Repository) -> dict[str, str]:
    """path (relative to the repository) → text of every file of one imported repository."""
    files: dict[str, str] = {CONFIG_FILE: settings(repository)}
    for name in sorted(repository.specs):
        spec = repository.specs[name]
        path = f"specs/{spec['domain'].split('.')[0]}/{name}.yaml"
        files[path] = yaml_file(path, "api", spec)
    for identifier in sorted(repository.cases):
        case = repository.cases[identifier]
        path = f"dialogues/{case['category']}/{identifier}.yaml"
        files[path] = yaml_file(path, "case", case)
    files.update(repository.extra_files)
    return files


def settings(repository: Repository) -> str:
    """The repository's ``callbank.yaml``: its language, the rules it leaves out and why."""
    lines = [
        f"# The settings of this repository (docs/data-model.md), written by `callbank import {repository.peer}`.",
        f"# Its cases are in one language: the source's {repository.lang} set.",
        f"languages: [{repository.lang}]",
        "# Rules left out, and why:",
        *(f"#   {code}: {IGNORED_BECAUSE[code]}" for code in repository.ignore),
        f"ignore: [{', '.join(repository.ignore)}]",
        "# run and score leave out what a file breaking its schema holds; check reports each such file.",
        "broken_files: skip",
        f"source: {{peer: {repository.peer}, callbank: {json.dumps(__version__)}}}",
    ]
    return "\n".join(lines) + "\n"


def is_import_folder(folder: Path) -> bool:
    return not any(folder.iterdir()) or (folder / REPORT_JSON).is_file()


def write_import(imported: Imported, out: Path) -> None:
    """Write the repositories and the report into out, replacing an earlier import there."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or not is_import_folder(out)):
        raise UserError(f"--out {out} exists and holds something other than an earlier import; choose a new or empty folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.importing-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    try:
        for repository in imported.repositories:
            base = staging / repository.folder if repository.folder else staging
            for path, text in repository_files(repository).items():
                target = base / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(text.encode("utf-8"))
        (staging / REPORT_JSON).write_text(json.dumps(render_json(imported), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        (staging / REPORT_MD).write_text(render_markdown(imported), encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    except OSError as error:
        raise UserError(f"cannot write {out}: {error.strerror or error}") from None
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
