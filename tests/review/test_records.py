"""Records: how votes fill them, how edits start a new round, how they are written."""

from __future__ import annotations

from pathlib import Path

from tests.review.helpers import corpus
from validator.corpus.index import Corpus
from validator.review.items import Item
from validator.review.records import dump_record, read_record, remove_stale_temporaries, updated_record, write_record
from validator.schemas import SchemaSet

HASH_1, HASH_2 = "sha256:" + "1" * 64, "sha256:" + "2" * 64


def item(content_hash: str = HASH_1) -> Item:
    return Item("single-0001", "dialogues/normal/single_turn/single/single-0001.yaml", "case", "normal", {}, content_hash)


def vote(judge: str, verdict: str | None = "valid") -> dict:
    base = {"judge": judge, "model": "m", "prompt_version": "normal.v1", "lang": "en"}
    if verdict is None:
        return base | {"error": "malformed verdict in 3 replies; last: the reply is empty"}
    return base | {"verdict": verdict, "rationale": "r", "problems": [] if verdict == "valid" else ["p"], "suggested_fix": None}


def schema_errors(record: dict) -> list:
    return SchemaSet(None).errors("review-record", record)


def test_unanimous_valid_is_accepted_for_this_content() -> None:
    record = updated_record(None, item(), [vote("a"), vote("b"), vote("c")])
    assert (record["status"], record["accepted_hash"], record["decided_by"]) == ("accepted", HASH_1, "judges")
    assert list(record) == ["id", "path", "status", "content_hash", "accepted_hash", "decided_by", "votes", "reviews"]
    assert schema_errors(record) == []


def test_a_dissent_or_a_judge_error_is_pending() -> None:
    for votes in ([vote("a"), vote("b", "invalid")], [vote("a"), vote("b", None)]):
        record = updated_record(None, item(), votes)
        assert record["status"] == "pending" and "accepted_hash" not in record
        assert schema_errors(record) == []


def test_new_content_moves_the_old_round_into_history() -> None:
    first = updated_record(None, item(HASH_1), [vote("a", "invalid")])
    first["reviews"] = [{"reviewer": "x", "role": "review", "decision": "reject", "note": "n", "at": "t"}]
    second = updated_record(first, item(HASH_2), [vote("a")])
    assert second["status"] == "accepted" and second["reviews"] == []
    assert second["history"] == [{k: first[k] for k in ("content_hash", "status", "votes", "reviews")}]
    assert schema_errors(second) == []


def test_a_human_decision_on_the_same_content_stands_when_votes_change() -> None:
    record = updated_record(None, item(), [vote("a", "invalid")])
    record |= {"status": "accepted", "accepted_hash": HASH_1, "decided_by": "reviewers", "reviews": [{"reviewer": "x", "role": "review", "decision": "accept", "note": "n"}] * 1}
    again = updated_record(record, item(), [vote("a", "invalid"), vote("new-judge", "invalid")])
    assert again["status"] == "accepted" and again["decided_by"] == "reviewers" and len(again["votes"]) == 2


def test_records_are_written_atomically_and_only_when_changed(tmp_path: Path) -> None:
    record = updated_record(None, item(), [vote("a")])
    assert write_record(tmp_path, record) is True
    path = tmp_path / "review/queue/single-0001.yaml"
    stamp = path.stat().st_mtime_ns
    assert write_record(tmp_path, record) is False and path.stat().st_mtime_ns == stamp
    assert read_record(tmp_path, "single-0001") == record
    (path.parent / ".single-0001.yaml.abc.tmp").write_text("half", encoding="utf-8")
    remove_stale_temporaries(tmp_path)
    assert sorted(p.name for p in path.parent.iterdir()) == ["single-0001.yaml"]


def test_multi_line_and_tricky_strings_survive_the_hardened_loader(tmp_path: Path) -> None:
    tricky = vote("a", "invalid") | {"problems": ["line one\nline two", "yes", "1:30", "010", "- dash", "null", "中文：冒号"], "rationale": "  spaced  "}
    record = updated_record(None, item(), [tricky])
    write_record(tmp_path, record)
    assert read_record(tmp_path, "single-0001") == record
    assert "line one\n    line two" in dump_record(record) or "|" in dump_record(record)


def test_records_written_by_a_run_pass_callbank_check(tmp_path: Path) -> None:
    from validator import engine

    root = corpus(tmp_path)
    data = Corpus.load(root).cases["single-0001"].data
    from validator.corpus.canonical import content_hash as case_content_hash

    write_record(root, updated_record(None, Item("single-0001", "dialogues/normal/single_turn/single/single-0001.yaml", "case", "normal", data, case_content_hash(data)), [vote("a")]))
    assert engine.check(root) == []
