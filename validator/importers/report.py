"""The import report: ``import-report.json`` (every item, for machines) and ``import-report.md``.

Per repository written: cases per category, records read and converted per source file, every
item not converted and why, every item converted with a caveat (something the source says that
callbank drops), every API written under another name than the source's and why, and the rules
its ``callbank.yaml`` leaves out. The Markdown groups items by file and reason and lists their
record ids, so nothing is left out of either file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from validator import __version__
from validator.importers.common import IGNORED_BECAUSE, Imported, Repository, Skipped

REPORT_JSON = "import-report.json"
REPORT_MD = "import-report.md"
REPORT_VERSION = 1


def render_json(imported: Imported) -> dict[str, Any]:
    return {
        "version": REPORT_VERSION,
        "peer": imported.peer,
        "callbank": __version__,
        "repositories": [
            {
                "folder": repository.folder or ".",
                "language": repository.lang,
                "cases": len(repository.cases),
                "specs": len(repository.specs),
                "categories": dict(sorted(repository.categories.items())),
                "files": [
                    {"file": file, "records": repository.read[file], "cases": repository.converted[file], "not_converted": _count(repository.skipped, file)}
                    for file in sorted(repository.read)
                ],
                "not_converted": [{"file": s.file, "record": s.record, "reason": s.reason} for s in repository.skipped],
                "caveats": [{"file": s.file, "record": s.record, "note": s.reason} for s in repository.caveats],
                "renamed": [{"name": r.name, "source": r.source, "file": r.file, "record": r.record, "reason": r.reason} for r in repository.renamed],
                "ignored_rules": {code: IGNORED_BECAUSE[code] for code in repository.ignore},
                "notes": list(repository.notes),
            }
            for repository in imported.repositories
        ],
    }


def _count(items: Sequence[Skipped], file: str) -> int:
    return sum(1 for item in items if item.file == file)


def render_markdown(imported: Imported) -> str:
    lines = [f"# Import of {imported.peer}", "", f"Written by `callbank import {imported.peer}` (callbank {__version__})."]
    lines += ["The data is converted as the source has it, never repaired: `callbank check --repo <folder>` reports its defects.", ""]
    lines += ["| repository | language | cases | specs | not converted | caveats | renamed APIs |", "|---|---|---:|---:|---:|---:|---:|"]
    for r in imported.repositories:
        lines.append(f"| `{r.folder or '.'}` | {r.lang} | {len(r.cases)} | {len(r.specs)} | {len(r.skipped)} | {len(r.caveats)} | {len(r.renamed)} |")
    for repository in imported.repositories:
        lines += _repository_section(repository)
    return "\n".join(lines).rstrip() + "\n"


def _repository_section(r: Repository) -> list[str]:
    title = f"`{r.folder}/` ({r.lang})" if r.folder else f"the repository ({r.lang})"
    lines = ["", f"## {title}", "", "### Cases per category", "", "| category | cases |", "|---|---:|"]
    lines += [f"| {category} | {n} |" for category, n in sorted(r.categories.items())]
    lines += [f"| **total** | **{len(r.cases)}** |", "", "### Source files", "", "| file | records read | cases written | not converted |", "|---|---:|---:|---:|"]
    lines += [f"| `{file}` | {r.read[file]} | {r.converted[file]} | {_count(r.skipped, file)} |" for file in sorted(r.read)]
    lines += ["", f"### Not converted ({len(r.skipped)})", ""]
    lines += _grouped(r.skipped) or ["Every record was converted."]
    lines += ["", f"### Converted with a caveat ({len(r.caveats)})", ""]
    lines += _grouped(r.caveats) or ["None."]
    lines += ["", f"### Renamed APIs ({len(r.renamed)})", ""]
    if r.renamed:
        lines += ["| callbank name | source name | first read in | reason |", "|---|---|---|---|"]
        lines += [f"| `{x.name}` | `{x.source}` | `{x.file}` ({x.record}) | {x.reason} |" for x in r.renamed]
    else:
        lines.append("None.")
    lines += ["", "### Rules this repository leaves out (callbank.yaml)", ""]
    lines += [f"- `{code}`: {IGNORED_BECAUSE[code]}" for code in r.ignore] or ["None."]
    if r.notes:
        lines += ["", "### Notes", ""] + [f"- {note}" for note in r.notes]
    return lines


def _grouped(items: Sequence[Skipped]) -> list[str]:
    """One bullet per (file, reason), with the records it applies to."""
    groups: dict[tuple[str, str], list[str]] = {}
    for item in items:
        groups.setdefault((item.file, item.reason), []).append(item.record)
    return [f"- `{file}` — {reason} ({len(records)}): {', '.join(records)}" for (file, reason), records in groups.items()]
