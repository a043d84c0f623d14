"""Every call checkpoint of the fixture corpus with its oracle answer, for property tests."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from validator.models.render import json_calls, python_calls, tool_calls
from validator.models.request import first_alternative
from validator.repo import Repo
from validator.scoring.match import ApiSchemas, Verdict, score_checkpoint
from validator.scoring.parse import parse_prediction
from validator.scoring.units import checkpoint_answers


class Checkpoint(NamedTuple):
    id: str
    lang: str
    step: int
    answer: dict[str, Any]
    calls: list[dict[str, Any]]  # the first alternative, rendered


def call_checkpoints(repo: Repo) -> list[Checkpoint]:
    found = []
    for case_id, case in sorted(repo.cases.items()):
        for lang in ("en", "zh"):
            for step, answer in enumerate(checkpoint_answers(case[lang])):
                if "special" not in answer:
                    found.append(Checkpoint(case_id, lang, step, answer, first_alternative(answer, lang)))
    return found


def as_record(calls: list[dict[str, Any]], syntax: str) -> dict[str, Any]:
    if syntax == "tool_calls":
        return {"output": "", "tool_calls": tool_calls(calls)}
    return {"output": json_calls(calls) if syntax == "json" else python_calls(calls)}


def judge(checkpoint: Checkpoint, record: dict[str, Any], schemas: ApiSchemas) -> Verdict:
    return score_checkpoint(checkpoint.answer, parse_prediction(json.loads(json.dumps(record))), schemas, checkpoint.lang)
