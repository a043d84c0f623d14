"""The oracle and null models answer through the same Model protocol as any endpoint."""

from __future__ import annotations

import json

import pytest

from validator.corpus.index import Corpus
from validator.models import MODELS, create_model
from validator.models.base import ModelContext, Reply
from validator.models.request import case_requests


def context(repo: Corpus) -> ModelContext:
    return ModelContext(repo)


def test_registry(repo: Corpus) -> None:
    assert set(MODELS) >= {"oracle", "null"}
    with pytest.raises(KeyError):
        create_model("gpt-none", context(repo))


def test_oracle_answers_in_each_syntax(repo: Corpus) -> None:
    oracle = create_model("oracle", context(repo))
    case = repo.cases["parallel-0001"]
    [python] = case_requests(case, "zh", repo.specs, "python")
    assert oracle.complete(python) == Reply(
        "[get_weather(city='北京'), get_weather(city='上海'), convert_currency(amount=100, from_currency='USD', to_currency='CNY')]"
    )
    [as_json] = case_requests(case, "en", repo.specs, "json")
    assert json.loads(oracle.complete(as_json).content)[0] == {"api": "get_weather", "args": {"city": "Beijing"}}
    [native] = case_requests(case, "en", repo.specs, "tool_calls")
    reply = oracle.complete(native)
    assert reply.content is None and [c["function"]["name"] for c in reply.tool_calls] == ["get_weather", "get_weather", "convert_currency"]
    [special] = case_requests(repo.cases["error-param-0001"], "en", repo.specs, "tool_calls")
    assert oracle.complete(special) == Reply("[INVALID] book_flight: seats=12", [])


def test_null_answers_nothing(repo: Corpus) -> None:
    null = create_model("null", context(repo))
    for syntax in ("python", "json", "tool_calls"):
        for request in case_requests(repo.cases["adjust-0001"], "en", repo.specs, syntax):
            reply = null.complete(request)
            assert reply.content == "" and not reply.tool_calls
