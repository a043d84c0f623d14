"""The judges file: which models vote on each case, at which endpoint, with which settings."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from validator.errors import UserError
from validator.loading import load_text
from validator.schemas import SchemaSet

NO_KEY = "no-key"  # the OpenAI client wants a key even for local servers that ignore it


class Judge(NamedTuple):
    name: str
    base_url: str
    model: str
    api_key_env: str | None = None
    temperature: float = 0.0
    seed: int | None = None
    lang: str = "en"  # language of the instructions; the case itself is always shown in both
    max_tokens: int | None = None
    json_mode: bool = False  # send response_format={"type": "json_object"}
    timeout: float = 120.0  # seconds per request

    def api_key(self) -> str:
        """The key from the environment; a UserError when the variable it names is unset."""
        if not self.api_key_env:
            return NO_KEY
        value = os.environ.get(self.api_key_env, "")
        if not value:
            raise UserError(f"judge {self.name!r}: environment variable {self.api_key_env} is not set (it holds the API key for {self.base_url})")
        return value


def _judge(entry: dict[str, Any]) -> Judge:
    fields = {key: entry[key] for key in Judge._fields if key in entry}
    if "temperature" in fields:
        fields["temperature"] = float(fields["temperature"])
    if "timeout" in fields:
        fields["timeout"] = float(fields["timeout"])
    return Judge(**fields)


def load_judges(path: Path, root: Path | None = None) -> list[Judge]:
    """Read and validate the judges file; every problem is a UserError naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UserError(f"{path}: cannot read the judges file ({error.strerror})") from None
    document, problems = load_text(text.removeprefix("\ufeff"), str(path), "judges")
    if problems or document is None:
        first = problems[0] if problems else None
        where = f":{first.line}" if first and first.line else ""
        raise UserError(f"{path}{where}: {first.message if first else 'the file is empty'}")
    errors = SchemaSet(root).errors("judges", document.data)
    if errors:
        message, pointer = errors[0]
        raise UserError(f"{path}: {message} (at {pointer or '/'}; schema: schemas/judges.schema.json)")
    judges = [_judge(entry) for entry in document.data["judges"]]
    seen: set[str] = set()
    for judge in judges:
        if judge.name in seen:
            raise UserError(f"{path}: two judges are named {judge.name!r}; judge names must be unique")
        seen.add(judge.name)
    return judges
