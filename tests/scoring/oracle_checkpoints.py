"""Every call checkpoint of the fixture corpus with its oracle answer, for property tests."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from validator.corpus import records
from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.models.render import json_calls, python_calls, tool_calls
from validator.models.request import first_alternative
from validator.scoring.match import Specs, Verdict, score_checkpoint
from validator.scoring.parse import parse_prediction


class Checkpoint(NamedTuple):
    id: str
    lang: str
    step: int
    checkpoint: records.Checkpoint
    calls: list[dict[str, Any]]  # the first alternative, rendered


def call_checkpoints(repo: Corpus) -> list[Checkpoint]:
    found = []
    for case_id, case in sorted(repo.cases.items()):
        for lang in LANGS:
            for checkpoint in case.dialogues[lang].checkpoints:
                if checkpoint.special is None:
                    found.append(Checkpoint(case_id, lang, checkpoint.step, checkpoint, first_alternative(checkpoint, lang)))
    return found


def as_record(calls: list[dict[str, Any]], syntax: str) -> dict[str, Any]:
    if syntax == "tool_calls":
        return {"output": "", "tool_calls": tool_calls(calls)}
    return {"output": json_calls(calls) if syntax == "json" else python_calls(calls)}


def judge(checkpoint: Checkpoint, record: dict[str, Any], specs: Specs) -> Verdict:
    return score_checkpoint(checkpoint.checkpoint, parse_prediction(json.loads(json.dumps(record))), specs, checkpoint.lang)
