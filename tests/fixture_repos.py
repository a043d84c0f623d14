"""Materialise rule fixtures: a complete tiny repository, or an overlay on a base one.

`tests/fixtures/rules/<CODE>/` holds `fail/` and `pass/` and `expected.txt`. When the rule's
folder has a file `base` naming a repository under `tests/fixtures/repos/`, each of fail/ and
pass/ is laid over a copy of it (a `.delete` file in the overlay lists paths to remove).

Files too large to commit are generated: a file named `<name>.gen` holding one line
`size: N` becomes `<name>` (the `.gen` suffix removed), exactly N bytes of YAML comment lines
(`# xxx…`), and the `.gen` file itself is not kept. SCH006 (file over 1 MiB) uses this.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
RULE_FIXTURES = FIXTURES / "rules"
REPOS = FIXTURES / "repos"
GENERATED_SUFFIX = ".gen"
_LINE = b"# " + b"x" * 77 + b"\n"  # 80 bytes


def generated_bytes(size: int) -> bytes:
    """Exactly size bytes of YAML comment lines."""
    full, rest = divmod(size, len(_LINE))
    tail = b"" if rest == 0 else b"\n" if rest == 1 else b"#" + b"x" * (rest - 2) + b"\n"
    return _LINE * full + tail


def _expand_generated(target: Path) -> None:
    for spec in sorted(target.rglob("*" + GENERATED_SUFFIX)):
        match = re.fullmatch(r"\s*size:\s*(\d+)\s*", spec.read_text(encoding="utf-8"))
        if match is None:
            raise ValueError(f"{spec}: a .gen file holds one line 'size: N'")
        spec.with_name(spec.name[: -len(GENERATED_SUFFIX)]).write_bytes(generated_bytes(int(match[1])))
        spec.unlink()


def materialise(code: str, variant: str, destination: Path) -> Path:
    folder = RULE_FIXTURES / code
    overlay = folder / variant
    base_file = folder / "base"
    target = destination / f"{code}-{variant}"
    if base_file.is_file():
        shutil.copytree(REPOS / base_file.read_text().strip(), target)
        for item in overlay.rglob("*"):
            if item.is_file() and item.name != ".delete":
                out = target / item.relative_to(overlay)
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(item, out)
        deletions = overlay / ".delete"
        if deletions.is_file():
            for line in deletions.read_text().split("\n"):
                if line.strip():
                    victim = target / line.strip()
                    shutil.rmtree(victim) if victim.is_dir() else victim.unlink()
    else:
        shutil.copytree(overlay, target)
    _expand_generated(target)
    return target


def expected(code: str) -> list[tuple[str, str, int | None]]:
    rows = []
    for line in (RULE_FIXTURES / code / "expected.txt").read_text().split("\n"):
        if line.strip() and not line.startswith("#"):
            found_code, place = line.split()
            path, _, number = place.rpartition(":")
            rows.append((found_code, path, None if number == "-" else int(number)))
    return sorted(rows, key=str)
