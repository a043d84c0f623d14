"""callbank's own tool search, copied into an imported repository whose cases need it.

API-Bank's levels 2 and 3 find their APIs through a tool search; callbank's retrieval
categories do the same with the ``search_tools`` API of the ``tools`` sandbox (BM25 over every
spec of the repository, no model download). An import with retrieval cases gets that sandbox and
spec: the repository's own files (``sandboxes/tools/``, ``specs/tools/search_tools.yaml``), which
the package carries as data when installed, and only the repository's language of their texts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from validator.errors import UserError
from validator.toolsearch import SEARCH_API

SANDBOX = "tools"
SANDBOX_FILES = ("sandbox.py", "state.yaml")
SPEC = f"specs/{SANDBOX}/{SEARCH_API}.yaml"


def _source(relative: str) -> Path:
    """A file of callbank's repository: the copy installed with the package, else the checkout's."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "builtin" / relative, package.parent / relative):
        if candidate.is_file():
            return candidate
    raise UserError(f"callbank's own {relative} is missing from this installation; reinstall callbank")


def _one_language(value: Any, lang: str) -> Any:
    """Every per-language text ``{en, zh}`` of a document narrowed to ``{lang}``."""
    if isinstance(value, dict):
        if set(value) == {"en", "zh"} and all(isinstance(text, str) for text in value.values()):
            return {lang: value[lang]}
        return {key: _one_language(item, lang) for key, item in value.items()}
    if isinstance(value, list):
        return [_one_language(item, lang) for item in value]
    return value


def tool_search_files(lang: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The ``search_tools`` spec (narrowed to lang) and the tools sandbox's files (path → text)."""
    spec = _one_language(yaml.safe_load(_source(SPEC).read_text(encoding="utf-8")), lang)
    files = {f"sandboxes/{SANDBOX}/{name}": _source(f"sandboxes/{SANDBOX}/{name}").read_text(encoding="utf-8") for name in SANDBOX_FILES}
    policy = f"sandboxes/{SANDBOX}/policy.{lang}.md"
    files[policy] = _source(policy).read_text(encoding="utf-8")
    return spec, files
