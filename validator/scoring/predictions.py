"""Reading a predictions file (JSON Lines) into records keyed by (id, lang, step).

A record's key is read by ``schemas/predictions.schema.json`` (``$defs/key``): an id, a
language, and a step — the checkpoint's index among a case's expect turns, 0 for a scenario's
run, 0 when absent. ``callbank run`` writes records by the same schema and the same key.
A record may also say which ``repeat`` it is (``callbank run --repeats K``: trials 0 … K−1,
absent = 0): trial 0 is the run's answer, scored as usual; every trial feeds pass^k
(``validator.scoring.repeats``).

The file's own problems — a line that is not JSON, a record without an id, a duplicate — are
collected as messages with their line number; they never stop the reading. What a model
answered (``output``, ``tool_calls``, ``calls``) is not judged here: a malformed answer is the
model's format error, scored later.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

import jsonschema_rs

from validator.errors import UserError
from validator.schemas import load_predictions_schema

Key = tuple[str, str, int]  # (id, lang, step)
SCENARIO_STEP = 0  # a scenario's one record per language


class Prediction(NamedTuple):
    line: int  # 1-based line in the file
    record: dict[str, Any]
    file: str = ""  # the file's name when predictions of several files were merged

    @property
    def where(self) -> str:
        """``line 3``, or ``shard-2.jsonl line 3`` when several files were read."""
        return f"{self.file} line {self.line}" if self.file else f"line {self.line}"


class Predictions(NamedTuple):
    records: dict[Key, Prediction]  # trial 0 of every key: what is scored
    problems: list[str]  # "line 3: …" messages about the file itself
    trials: Mapping[Key, Mapping[int, Prediction]] = MappingProxyType({})  # every trial of the keys run more than once (``repeat``)


@cache
def _key_validator() -> Any:
    return jsonschema_rs.validator_for(load_predictions_schema()["$defs"]["key"])


@cache
def record_validator() -> Any:
    """The validator of a whole record, as ``callbank run`` writes them."""
    return jsonschema_rs.validator_for(load_predictions_schema())


def record_key(record: Mapping[str, Any]) -> Key | None:
    """The key of a record, or None when the record has no valid key."""
    step = record.get("step")
    if step is None:  # absent; null, as early versions wrote for scenarios, reads as 0 too
        record = {**record, "step": 0}
    if not _key_validator().is_valid(dict(record)):
        return None
    return (record["id"], record["lang"], record["step"])


def read_predictions(path: Path, name: str = "") -> Predictions:
    """The predictions in path (UserError when it cannot be read); ``name`` labels its lines."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise UserError(f"{path}: no such predictions file") from None
    except IsADirectoryError:
        raise UserError(f"{path} is a directory; give the predictions file (JSON Lines)") from None
    except OSError as error:
        raise UserError(f"cannot read {path}: {error.strerror}") from None
    return parse_predictions(raw, name)


def parse_predictions(raw: bytes, file: str = "") -> Predictions:
    """Records by key (trial 0) and every trial of repeated keys; ``file`` names the file in
    messages (when several files are read as one run)."""
    records: dict[Key, Prediction] = {}
    trials: dict[Key, dict[int, Prediction]] = {}
    problems: list[str] = []
    where = f"{file} line" if file else "line"
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    for number, line in enumerate(raw.split(b"\n"), 1):
        # invalid UTF-8 survives as lone surrogates: the answer holding it is a format error
        text = line.decode("utf-8", "surrogateescape").strip()
        if not text:
            continue
        record, problem = _record(text)
        if problem:
            problems.append(f"{where} {number}: {problem}")
            continue
        assert record is not None
        key = (record["id"], record["lang"], record["step"])
        repeat = record.get("repeat", 0)
        slot = trials.setdefault(key, {})
        if repeat in slot:
            first = slot[repeat].line
            shown = f"{key[0]} ({key[1]}, step {key[2]}{f', repeat {repeat}' if repeat else ''})"
            problems.append(f"{where} {number}: duplicate record for {shown}, first on line {first}; the first one is scored")
            continue
        slot[repeat] = Prediction(number, record, file)
        if repeat == 0:
            records[key] = slot[0]
    repeated = {key: slot for key, slot in trials.items() if len(slot) > 1 or 0 not in slot}
    return Predictions(records, problems, repeated)


def _record(text: str) -> tuple[dict[str, Any] | None, str | None]:
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as error:
        return None, f"not valid JSON ({_reason(error)})"
    if not isinstance(record, dict):
        return None, "a record is a JSON object with at least \"id\" and \"lang\""
    identifier: Any = record.get("id")
    if isinstance(identifier, str) and _surrogates(identifier):
        return None, "the record's \"id\" is not valid UTF-8"
    if record.get("step") is None:
        record["step"] = 0
    fields = {_field(error) for error in _key_validator().iter_errors(record)}
    if "id" in fields:
        return None, "the record has no \"id\" string"
    if "lang" in fields:
        return None, f"record {identifier[:60]!r}: \"lang\" must be \"en\" or \"zh\", not {str(record.get('lang'))[:20]!r}"
    if "repeat" in fields:
        return None, f"record {identifier[:60]!r}: \"repeat\" must be a non-negative integer"
    if fields:
        return None, f"record {identifier[:60]!r}: \"step\" must be a non-negative integer"
    return record, None


def _field(error: Any) -> str:
    """The key field a schema error is about: where it is, or the property it misses."""
    path = list(error.instance_path)
    if path:
        return str(path[0])
    message = str(error.message)
    return message.split('"')[1] if message.startswith('"') else message


def _reason(error: Exception) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at column {error.colno}"
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return str(error)[:80]


def _surrogates(text: str) -> bool:
    return not text.isascii() and any("\ud800" <= c <= "\udfff" for c in text)
