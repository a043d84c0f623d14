"""Versioned judge prompts: ``prompts/<family>.v<N>.<lang>.md``, one per family and language.

A prompt file holds a system message and a user-message template, introduced by the lines
``<!-- system -->`` and ``<!-- user -->`` (anything before the first is a comment for
maintainers). ``{{name}}`` placeholders are filled from the case's material (see material.py).

The version in use for a family is the highest one present in both languages. A released file
is never edited: a change is a new version, and since votes are cached per prompt version, a new
version re-asks every judge about every case of that family.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import NamedTuple

from validator.corpus.langs import LANGS

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
FILE_NAME = re.compile(r"(?P<family>[a-z]+)\.v(?P<version>[1-9][0-9]*)\.(?P<lang>en|zh)\.md")
PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
SYSTEM_MARK = "<!-- system -->"
USER_MARK = "<!-- user -->"


class Prompt(NamedTuple):
    family: str
    version: int
    lang: str
    system: str
    user: str

    @property
    def name(self) -> str:
        """The prompt version recorded with every vote, e.g. ``normal.v1``."""
        return f"{self.family}.v{self.version}"

    @property
    def placeholders(self) -> set[str]:
        return set(PLACEHOLDER.findall(self.system)) | set(PLACEHOLDER.findall(self.user))

    def messages(self, material: dict[str, str]) -> list[dict[str, str]]:
        return [{"role": "system", "content": fill(self.system, material)}, {"role": "user", "content": fill(self.user, material)}]


def fill(template: str, material: dict[str, str]) -> str:
    missing = sorted(set(PLACEHOLDER.findall(template)) - set(material))
    if missing:
        raise KeyError(f"the prompt uses placeholders the material does not provide: {', '.join(missing)}")
    return PLACEHOLDER.sub(lambda m: material[m.group(1)], template)


def parse_prompt(text: str) -> tuple[str, str]:
    """(system, user) of a prompt file."""
    if text.count(SYSTEM_MARK) != 1 or text.count(USER_MARK) != 1 or text.index(SYSTEM_MARK) > text.index(USER_MARK):
        raise ValueError(f"a prompt file holds one {SYSTEM_MARK} line followed by one {USER_MARK} line")
    after_system = text.split(SYSTEM_MARK, 1)[1]
    system, user = after_system.split(USER_MARK, 1)
    return system.strip(), user.strip()


def available(directory: Path = PROMPTS_DIR) -> dict[str, list[int]]:
    """Family → versions present in every language, ascending."""
    found: dict[tuple[str, int], set[str]] = {}
    for path in directory.glob("*.md"):
        match = FILE_NAME.fullmatch(path.name)
        if match:
            found.setdefault((match["family"], int(match["version"])), set()).add(match["lang"])
    versions: dict[str, list[int]] = {}
    for (family, version), langs in sorted(found.items()):
        if langs >= set(LANGS):
            versions.setdefault(family, []).append(version)
    return versions


@cache
def load_prompt(family: str, lang: str, version: int | None = None, directory: Path = PROMPTS_DIR) -> Prompt:
    if version is None:
        versions = available(directory).get(family)
        if not versions:
            raise RuntimeError(f"no judge prompt for the {family!r} family in both languages under {directory}")
        version = versions[-1]
    path = directory / f"{family}.v{version}.{lang}.md"
    system, user = parse_prompt(path.read_text(encoding="utf-8"))
    return Prompt(family, version, lang, system, user)
