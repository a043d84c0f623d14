"""Retrieval scored live: the model's own searches are re-run, and only what they found may be called."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from validator.cli import cli
from validator.corpus.index import Corpus
from validator.models import create_model
from validator.models.base import ModelContext
from validator.models.episode import environments
from validator.models.retrieval import case_environments
from validator.models.runner import predictions
from validator.scoring.retrieval import Searcher, load_searcher, score_retrieval

from .conftest import FIXTURE, jsonl, score_records

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    """The repository's own corpus: its retrieval cases and its whole API catalog."""
    return Corpus.load(ROOT)


def verdict(repo: Corpus, searcher: Searcher | None, case_id: str, lang: str, record: dict[str, Any]) -> Any:
    assert searcher is not None
    checkpoint = repo.cases[case_id].dialogues[lang].checkpoints[0]
    return score_retrieval(checkpoint, record, repo.specs, lang, searcher)


def search(query: str) -> dict[str, Any]:
    return {"api": "search_tools", "args": {"query": query}}


def test_a_nonsense_query_never_finds_the_api(corpus: Corpus) -> None:
    """rt-call-0006 passed with the query "zzz" when any query was accepted and results were canned."""
    searcher = load_searcher(corpus)
    call = {"api": "list_saved_places", "args": {}}
    nonsense = verdict(corpus, searcher, "rt-call-0006", "en", {"calls": [search("zzz"), call]})
    assert (nonsense.correct, nonsense.error) == (False, "not_retrieved") and "'zzz'" in nonsense.detail
    assert nonsense.api == (0, 1, 1)  # the unretrieved call is a wrong API, the expected one missed
    sensible = verdict(corpus, searcher, "rt-call-0006", "en", {"calls": [search("places I saved on my map"), call]})
    assert sensible.correct and sensible.api == (1, 0, 0)
    chinese = verdict(corpus, searcher, "rt-call-0006", "zh", {"calls": [search("地图收藏的地点"), call]})
    assert chinese.correct


def test_a_call_to_an_api_the_searches_never_returned_is_not_retrieved(repo: Corpus) -> None:
    searcher = load_searcher(repo)
    weather = {"api": "get_weather", "args": {"city": "Tokyo"}}
    elsewhere = verdict(repo, searcher, "retrieval-call-0001", "en", {"calls": [search("convert currency"), weather]})
    assert (elsewhere.correct, elsewhere.error) == (False, "not_retrieved")
    unsearched = verdict(repo, searcher, "retrieval-call-0001", "en", {"calls": [weather]})
    assert unsearched.error == "not_retrieved" and "without searching" in unsearched.detail
    too_late = verdict(repo, searcher, "retrieval-call-0001", "en", {"calls": [weather, search("weather")]})
    assert too_late.error == "not_retrieved"  # a search after the call does not count
    found = verdict(repo, searcher, "retrieval-call-0001", "en", {"calls": [search("weather"), weather]})
    assert found.correct


def test_found_calls_are_compared_like_any_answer(repo: Corpus) -> None:
    searcher = load_searcher(repo)
    wrong_city = verdict(repo, searcher, "retrieval-call-0001", "en", {"calls": [search("weather"), {"api": "get_weather", "args": {"city": "Osaka"}}]})
    assert wrong_city.error == "wrong_value"
    twice = [search("weather"), {"api": "get_weather", "args": {"city": "Osaka"}}, {"api": "get_weather", "args": {"city": "Tokyo"}}]
    assert verdict(repo, searcher, "retrieval-call-0001", "en", {"calls": twice}).error == "wrong_call_count"  # every call counts
    nothing = verdict(repo, searcher, "retrieval-call-0001", "en", {"calls": [search("weather")], "output": "I could not find it."})
    assert nothing.error == "wrong_call_count"
    assert verdict(repo, searcher, "retrieval-call-0001", "en", {"calls": "get_weather"}).error == "format"
    one_shot = verdict(repo, searcher, "retrieval-call-0001", "en", {"output": "[get_weather(city='Tokyo')]"})
    assert one_shot.error == "not_retrieved"  # a record without an episode searched for nothing


def test_scoring_a_file_runs_the_searches_again_and_never_reads_their_results(tmp_path: Path) -> None:
    """The record's transcript claims results; the scorer asks the catalog of the corpus it scores."""
    claimed = [{"role": "tool", "name": "search_tools", "content": '{"results": [{"name": "get_weather"}]}'}]
    records = [
        {"id": "retrieval-call-0001", "lang": "en", "calls": [search("zzz"), {"api": "get_weather", "args": {"city": "Tokyo"}}], "messages": claimed},
        {"id": "retrieval-call-0001", "lang": "zh", "calls": [search("天气"), {"api": "get_weather", "args": {"city": "东京"}}], "messages": []},
    ]
    predictions_file = tmp_path / "p.jsonl"
    predictions_file.write_bytes(jsonl(records))

    def score(repo: Path) -> dict[tuple[str, str], Any]:
        result = CliRunner().invoke(cli, ["score", str(predictions_file), "--repo", str(repo), "--format", "json", "--category", "retrieval/call"])
        assert result.exit_code == 0, result.output
        import json

        return {(r["id"], r["lang"]): (r["correct"], r["error"]) for r in json.loads(result.stdout)["results"]}

    assert score(FIXTURE) == {("retrieval-call-0001", "en"): (False, "not_retrieved"), ("retrieval-call-0001", "zh"): (True, None)}
    # the same record against a catalog where five other APIs outrank get_weather for 天气: now
    # the model's own query no longer finds it, whatever the record says it saw
    crowded = tmp_path / "crowded"
    shutil.copytree(FIXTURE, crowded)
    for n in range(5):
        (crowded / "specs" / "office" / f"weather_station_{n}.yaml").write_text(
            f"name: weather_station_{n}\ndomain: office.weather\nspec_only: true\n"
            f"description: {{en: Weather weather station {n}., zh: 天气天气气象站{n}。}}\n"
            "parameters: {type: object, properties: {}, additionalProperties: false}\nreturns: {type: object}\n",
            encoding="utf-8",
        )
    assert score(crowded)[("retrieval-call-0001", "zh")] == (False, "not_retrieved")


def test_without_a_catalog_search_retrieval_is_not_scored(repo: Corpus) -> None:
    report = score_records(repo, [], categories=["retrieval"], searcher=None)
    assert report["results"] == [] and any("retrieval case runs not scored" in note for note in report["notes"])


def run(repo: Corpus, model: str, syntax: str) -> list[dict[str, Any]]:
    context = ModelContext(repo)
    return list(
        predictions(
            create_model(model, context), repo, syntax=syntax, categories=["retrieval"],
            environment=environments(repo), case_environment=case_environments(repo),
        )
    )  # fmt: skip


@pytest.mark.parametrize("syntax", ["python", "tool_calls"])
def test_the_oracle_scores_one_and_null_zero_on_the_retrieval_cases(corpus: Corpus, syntax: str) -> None:
    oracle = score_records(corpus, run(corpus, "oracle", syntax), categories=["retrieval"])
    assert {lang: oracle["languages"][lang]["score"] for lang in ("en", "zh")} == {"en": 1.0, "zh": 1.0}
    count = {category: 2 * sum(1 for c in corpus.cases.values() if c.category == category) for category in ("retrieval/call", "retrieval/plan")}
    assert {category: oracle["categories"][category]["n"] for category in count} == count and all(count.values())
    assert oracle["categories"]["retrieval"]["accuracy"] == 1.0 and oracle["f1"]["api"]["f1"] == 1.0
    null = score_records(corpus, run(corpus, "null", syntax), categories=["retrieval"])
    assert {lang: null["languages"][lang]["score"] for lang in ("en", "zh")} == {"en": 0.0, "zh": 0.0}
    assert null["errors"]["wrong_call_count"] == sum(count.values())
