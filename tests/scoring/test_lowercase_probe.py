"""The lower-case probe: letter case never decides a verdict on free text (issue 12, item 5).

Every oracle answer of the real corpus is scored again with one free-text argument (a string
of a parameter without enum, const, format or pattern, at any depth) lower-cased. A careful
grader accepts nearly all of them; the few that stay wrong are values an answer pins with its
own ``$regex`` (a parcel number, a flight code written inside a message). Identifiers and
enumerations stay exact: lower-casing one of those is still wrong.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.matchers import is_free_text
from validator.models.request import first_alternative
from validator.scoring.match import score_checkpoint
from validator.scoring.parse import Call, Parsed

ROOT = Path(__file__).resolve().parents[2]
REPO = Corpus.load(ROOT)
SCHEMAS = REPO.specs
Path_ = tuple[Any, ...]


def string_leaves(value: Any, schema: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """(path, schema) of every string leaf whose lower-case form differs."""
    if isinstance(value, str):
        if value.lower() != value:
            yield path, schema
    elif isinstance(value, dict):
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        for key, item in value.items():
            yield from string_leaves(item, properties.get(key), (*path, key))
    elif isinstance(value, list):
        items = schema.get("items") if isinstance(schema, dict) else None
        for index, item in enumerate(value):
            yield from string_leaves(item, items, (*path, index))


def probe(free: bool) -> tuple[int, int]:
    """(right, total) over oracle answers with one (free-text or exact) string lower-cased."""
    right = total = 0
    for case in REPO.cases.values():
        for lang in LANGS:
            for checkpoint in case.dialogues[lang].checkpoints:
                if checkpoint.special is not None:
                    continue
                calls = first_alternative(checkpoint, lang)
                for index, call in enumerate(calls):
                    spec = SCHEMAS.get(call["api"])
                    properties = spec.properties if spec is not None else {}
                    for name, value in call["args"].items():
                        for path, schema in string_leaves(value, properties.get(name)):
                            if is_free_text(schema) is not free:
                                continue
                            changed = copy.deepcopy(calls)
                            holder = changed[index]["args"]
                            keys = (name, *path)
                            for key in keys[:-1]:
                                holder = holder[key]
                            holder[keys[-1]] = holder[keys[-1]].lower()
                            parsed = Parsed("calls", tuple(Call(c["api"], c["args"]) for c in changed))
                            right += score_checkpoint(checkpoint, parsed, SCHEMAS, lang).correct
                            total += 1
    return right, total


def test_lower_casing_free_text_keeps_oracle_answers_right() -> None:
    right, total = probe(free=True)
    assert total > 1000
    assert right / total >= 0.95, f"{right}/{total}"


def test_lower_casing_identifiers_and_enumerations_is_still_wrong() -> None:
    right, total = probe(free=False)
    assert total > 100
    assert right / total <= 0.2, f"{right}/{total}"
