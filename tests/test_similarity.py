"""The near-duplicate index: shingles, exact confirmation, skeletons, and queries for new candidates."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.fixture_repos import materialise
from validator import similarity
from validator.corpus.index import Corpus
from validator.similarity import CorpusSimilarity, ShingleIndex, jaccard, shingles


def test_shingles_are_normalised_characters_per_language() -> None:
    assert shingles("Hi, BOB!", "en") == shingles("hi bob", "en") == frozenset({"hi bo", "i bob"})
    assert shingles("帮我 订票。", "zh") == frozenset({"帮我订", "我订票"})  # spaces and punctuation go
    assert shingles("ok", "en") == frozenset({"ok"})  # shorter than one shingle: one shingle
    assert shingles("!!", "en") == frozenset()


def test_index_confirms_candidates_by_exact_jaccard() -> None:
    index = ShingleIndex(0.5)
    texts = {
        "a": "What will the weather be in Hangzhou over the next three days?",
        "b": "What will the weather be like in Hangzhou over the next three days?",
        "c": "Order two boxes of green tea and have them sent to the office.",
    }
    index.add_many((key, shingles(text, "en")) for key, text in texts.items())
    query = shingles(texts["a"], "en")
    found = index.query(query)
    assert [m.key for m in found] == ["a", "b"]
    assert found[1].similarity == pytest.approx(jaccard(query, shingles(texts["b"], "en")))
    assert [m.key for m in index.query_key("a")] == ["b"]  # an indexed item is never its own neighbour
    assert index.query(frozenset()) == [] and len(index) == 3
    with pytest.raises(ValueError, match="indexed already"):
        index.add("a", query)


def test_signatures_do_not_depend_on_the_process() -> None:
    # the same text always gets the same signature (CRC-32 of each shingle, fixed seed)
    items = shingles("Put the dentist in my calendar for the day after tomorrow.", "en")
    first, second = similarity.signatures([items, frozenset(sorted(items, reverse=True))])
    assert (first.hashvalues == second.hashvalues).all()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return Corpus.load(materialise("DLG041", "fail", tmp_path_factory.mktemp("repo")))


def test_skeleton_masks_the_answer_values(corpus: Corpus) -> None:
    first, second = corpus.cases["note-0001"], corpus.cases["note-0002"]
    assert similarity.skeleton(first.dialogues["en"]) == similarity.skeleton(second.dialogues["en"]) == "leave § a note §"
    assert similarity.api_sequence(first) == (("send_note",),)


def test_neighbours_of_indexed_cases_and_of_a_new_candidate(corpus: Corpus) -> None:
    index = CorpusSimilarity(corpus.cases_in())
    request = {(n.case_id, n.kind) for n in index.neighbours(corpus.cases["weather-0002"])}
    assert ("weather-0001", "request") in request
    frame = {(n.case_id, n.lang, n.kind) for n in index.neighbours(corpus.cases["note-0002"])}
    assert frame == {("note-0001", "en", "skeleton"), ("note-0001", "zh", "skeleton")}
    # a candidate the index has never seen (the synth pipeline's question) is compared all the same
    fresh = CorpusSimilarity([corpus.cases["weather-0001"], corpus.cases["note-0001"]])
    assert {n.case_id for n in fresh.neighbours(corpus.cases["note-0002"])} == {"note-0001"}
    assert [m.key for m in fresh.close_texts("zh", "这周末去杭州附近徒步，接下来三天天气怎么样啊？")] == ["weather-0001"]
    assert fresh.close_texts("en", "Book a table for two at Lakeside Kitchen tonight.") == []


def test_a_query_against_the_repository_takes_well_under_a_millisecond() -> None:
    repository = Corpus.load(Path(__file__).resolve().parents[1], ("api", "case"))
    index = CorpusSimilarity(repository.cases_in())
    probes = [case.dialogues["en"] for case in repository.cases_in()[:200]]
    started = time.perf_counter()
    for dialogue in probes:
        index.close_texts("en", similarity.request_text(dialogue) + " Thanks!")
    per_query = (time.perf_counter() - started) / len(probes)
    assert per_query < 0.001, f"{per_query * 1000:.2f} ms per query"
