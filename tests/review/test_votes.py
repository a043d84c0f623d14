"""The append-only vote cache."""

from __future__ import annotations

from pathlib import Path

from validator.review.votes import VoteKey, VoteStore

KEY = VoteKey("sha256:" + "a" * 64, "judge-a", "model-a", "normal.v1", "en")


def outcome(verdict: str = "valid", key: VoteKey = KEY) -> dict:
    return {"id": "single-0001", **key._asdict(), "verdict": verdict, "rationale": "", "problems": [], "suggested_fix": None, "attempts": 1, "at": "2024-01-01T00:00:00Z"}


def test_append_then_load(tmp_path: Path) -> None:
    store = VoteStore(tmp_path)
    store.append("single-0001", outcome())
    other = KEY._replace(judge="judge-b")
    store.append("single-0001", outcome("invalid", other))
    loaded = store.load("single-0001")
    assert set(loaded) == {KEY, other} and loaded[other]["verdict"] == "invalid"
    assert store.path("single-0001").read_text(encoding="utf-8").count("\n") == 2


def test_a_line_cut_short_by_a_crash_is_skipped_and_the_next_append_starts_a_new_line(tmp_path: Path) -> None:
    store = VoteStore(tmp_path)
    store.append("single-0001", outcome())
    with store.path("single-0001").open("ab") as handle:
        handle.write(b'{"id": "single-0001", "content_hash": "sha')  # the process died here
    assert set(store.load("single-0001")) == {KEY}
    other = KEY._replace(judge="judge-c")
    store.append("single-0001", outcome(key=other))
    assert set(store.load("single-0001")) == {KEY, other}


def test_the_first_line_of_a_key_wins(tmp_path: Path) -> None:
    store = VoteStore(tmp_path)
    store.append("single-0001", outcome("valid"))
    store.append("single-0001", outcome("invalid"))
    assert store.load("single-0001")[KEY]["verdict"] == "valid"


def test_a_missing_file_is_an_empty_store(tmp_path: Path) -> None:
    assert VoteStore(tmp_path).load("nothing") == {}


def test_lines_without_an_outcome_are_ignored(tmp_path: Path) -> None:
    store = VoteStore(tmp_path)
    store.path("x").parent.mkdir(parents=True)
    store.path("x").write_text('{"judge": "a"}\n[1, 2]\n\n', encoding="utf-8")
    assert store.load("x") == {}
