"""`callbank.yaml`: the defaults are callbank's own corpus; every bad setting is refused with the
file, line and what to write instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.corpus.config import DEFAULT, read_config
from validator.errors import UserError


def settings(tmp_path: Path, text: str) -> Path:
    (tmp_path / "callbank.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def test_no_file_is_callbank_own_defaults(tmp_path: Path) -> None:
    config = read_config(tmp_path)
    assert config == DEFAULT and config.languages == ("en", "zh") and config.parallel and config.broken_files == "refuse"


def test_one_language_repository(tmp_path: Path) -> None:
    config = read_config(settings(tmp_path, "languages: [zh]\nignore: [REF003, SPC]\nbroken_files: skip\nsource: {peer: acebench}\n"))
    assert config.languages == ("zh",) and not config.parallel
    assert config.ignore == ("REF003", "SPC") and config.broken_files == "skip" and config.source == {"peer": "acebench"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("languages: [en]\nlanguage: [zh]\n", ":2: unknown setting 'language'"),
        ("languages: [en, fr]\n", ":1: unknown language 'fr'"),
        ("languages: []\n", ":1: languages is a non-empty list"),
        ("languages: [en, en]\n", "names a language twice"),
        ("ignore: [ref003]\n", "'ref003' is not a rule code or prefix"),
        ("broken_files: ignore\n", "broken_files is one of refuse, skip, not 'ignore'"),
        ("- en\n", "the settings are a mapping"),
    ],
)
def test_bad_settings_name_the_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(UserError) as error:
        read_config(settings(tmp_path, text))
    assert "callbank.yaml" in str(error.value) and message in str(error.value)
