"""The generator's versioned prompt files: ``prompts/<family>.v<N>.<lang>.md`` (``generate`` for
cases, ``scenario`` for agent scenarios).

Sections are introduced by ``<!-- name -->`` lines (``system``, ``user``, ``task.<kind>``), as in
the model prompts of ``validator.models.prompts``; ``{{name}}`` placeholders are filled in. The
version in use is the highest present in both languages; a released file is never edited, and
since answers are cached per prompt version, a new version asks the generator again.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import NamedTuple

from validator.corpus.langs import LANGS
from validator.models.prompts import parse_sections

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
FILE_NAME = re.compile(r"(?P<family>[a-z]+)\.v(?P<version>[1-9][0-9]*)\.(?P<lang>en|zh)\.md")
PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
REQUIRED = ("system", "user")


class GeneratorPrompt(NamedTuple):
    version: int
    lang: str
    sections: dict[str, str]
    family: str = "generate"

    @property
    def name(self) -> str:
        """What the cache and the provenance record, e.g. ``generate.v1``."""
        return f"{self.family}.v{self.version}"


def fill(template: str, values: dict[str, str]) -> str:
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def latest_version(directory: Path = PROMPTS_DIR, family: str = "generate") -> int:
    found: dict[int, set[str]] = {}
    for path in directory.glob(f"{family}.v*.md"):
        match = FILE_NAME.fullmatch(path.name)
        if match and match["family"] == family:
            found.setdefault(int(match["version"]), set()).add(match["lang"])
    complete = [version for version, langs in found.items() if langs >= set(LANGS)]
    if not complete:
        raise RuntimeError(f"no {family} prompt in both languages under {directory}")
    return max(complete)


@cache
def load_generator_prompt(lang: str, version: int | None = None, directory: Path = PROMPTS_DIR, family: str = "generate") -> GeneratorPrompt:
    version = latest_version(directory, family) if version is None else version
    sections = parse_sections((directory / f"{family}.v{version}.{lang}.md").read_text(encoding="utf-8"))
    missing = [name for name in REQUIRED if name not in sections]
    if missing:
        raise RuntimeError(f"{family}.v{version}.{lang}.md lacks the section(s) {', '.join(missing)}")
    return GeneratorPrompt(version, lang, sections, family)
