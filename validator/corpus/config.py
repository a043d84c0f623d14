"""The repository's settings: ``callbank.yaml`` at its root.

```yaml
languages: [en, zh]      # the languages every case and scenario has (default: both)
ignore: [REF003]         # rule codes (or code prefixes) check, exec and validate leave out here
broken_files: refuse     # refuse | skip: what run and score do with files that break their schema
source: {peer: bfcl, …}  # free-form: where an imported repository came from
```

Every key is optional and a repository without the file has the defaults: callbank's own corpus
keeps both languages, every rule and a refusal to run or score a broken corpus. An imported
repository (``callbank import``) is English-only or Chinese-only, ignores the rules that only
callbank's own conventions impose, and skips the items its broken files hold so the rest can be
run and scored. A malformed file is a :class:`~validator.errors.UserError` naming its line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from validator.corpus.langs import LANGS
from validator.errors import UserError
from validator.loading import Document, load_text

CONFIG_FILE: Final = "callbank.yaml"
BROKEN_FILES: Final = ("refuse", "skip")
_CODE = re.compile(r"[A-Z]{3}(\d{1,3})?")
_KEYS: Final = ("languages", "ignore", "broken_files", "source")


@dataclass(frozen=True, slots=True)
class RepoConfig:
    """A repository's settings (the defaults are callbank's own corpus)."""

    languages: tuple[str, ...] = LANGS
    ignore: tuple[str, ...] = ()
    broken_files: str = "refuse"
    source: Mapping[str, Any] = field(default_factory=dict)

    @property
    def parallel(self) -> bool:
        """Whether every item holds several languages, parallel to one another."""
        return len(self.languages) > 1


DEFAULT: Final = RepoConfig()


def config_path(root: Path) -> Path:
    return Path(root) / CONFIG_FILE


def read_config(root: Path) -> RepoConfig:
    """The settings of the repository at root (the defaults when it has no ``callbank.yaml``)."""
    path = config_path(root)
    if not path.is_file():
        return DEFAULT
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: cannot be read ({error}); it must be UTF-8 YAML") from None
    document, problems = load_text(text, CONFIG_FILE, "config")
    if problems or document is None:
        line = f":{problems[0].line}" if problems and problems[0].line else ""
        raise UserError(f"{path}{line}: {problems[0].message if problems else 'not readable YAML'}")
    return parse_config(document, path)


def parse_config(document: Document, path: Path) -> RepoConfig:
    data = document.data if document.data is not None else {}

    def fail(pointer: str, message: str) -> UserError:
        line, _ = document.locate(pointer)
        return UserError(f"{path}:{line}: {message}")

    if not isinstance(data, dict):
        raise fail("", "the settings are a mapping (languages, ignore, broken_files, source)")
    for key in data:
        if key not in _KEYS:
            raise fail(f"/{key}", f"unknown setting {key!r}; the settings are {', '.join(_KEYS)}")
    languages = data.get("languages", list(LANGS))
    if not isinstance(languages, list) or not languages or not all(isinstance(lang, str) for lang in languages):
        raise fail("/languages", f"languages is a non-empty list of language codes out of {', '.join(LANGS)}")
    for i, lang in enumerate(languages):
        if lang not in LANGS:
            raise fail(f"/languages/{i}", f"unknown language {lang!r}; callbank knows {', '.join(LANGS)}")
    if len(set(languages)) != len(languages):
        raise fail("/languages", "languages names a language twice")
    ignore = data.get("ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(code, str) for code in ignore):
        raise fail("/ignore", "ignore is a list of rule codes or code prefixes, such as [REF003, SPC006]")
    for i, code in enumerate(ignore):
        if not _CODE.fullmatch(code):
            raise fail(f"/ignore/{i}", f"{code!r} is not a rule code or prefix (three capital letters, then up to three digits: DLG, SPC006)")
    broken = data.get("broken_files", "refuse")
    if broken not in BROKEN_FILES:
        raise fail("/broken_files", f"broken_files is one of {', '.join(BROKEN_FILES)}, not {broken!r}")
    source = data.get("source", {})
    if not isinstance(source, dict):
        raise fail("/source", "source is a mapping (where the repository's data came from)")
    return RepoConfig(
        languages=tuple(lang for lang in LANGS if lang in languages),
        ignore=tuple(ignore),
        broken_files=broken,
        source=source,
    )
