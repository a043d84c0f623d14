"""The human side: two independent reviews, a final decision when they disagree."""

from __future__ import annotations

import pytest

from validator.errors import UserError
from validator.review.resolve import add_review

HASH = "sha256:" + "1" * 64
OTHER = "sha256:" + "2" * 64


def pending() -> dict:
    return {"id": "x-0001", "path": "dialogues/x.yaml", "status": "pending", "content_hash": HASH, "votes": [], "reviews": []}


def review(record: dict, decision: str, reviewer: str) -> dict:
    return add_review(record, HASH, decision, reviewer, f"{reviewer} says {decision}", at="2024-01-01T00:00:00Z")


def test_two_agreeing_reviews_decide() -> None:
    first = review(pending(), "accept", "alice")
    assert first["status"] == "pending" and first["reviews"][0]["role"] == "review"
    second = review(first, "accept", "bob")
    assert (second["status"], second["accepted_hash"], second["decided_by"]) == ("accepted", HASH, "reviewers")
    rejected = review(review(pending(), "reject", "alice"), "reject", "bob")
    assert rejected["status"] == "rejected" and "accepted_hash" not in rejected


def test_disagreeing_reviews_wait_for_a_third_reviewer_whose_decision_is_final() -> None:
    split = review(review(pending(), "accept", "alice"), "reject", "bob")
    assert split["status"] == "pending"
    for reviewer in ("alice", "Bob "):
        with pytest.raises(UserError, match="already reviewed"):
            review(split, "accept", reviewer)
    final = review(split, "reject", "carol")
    assert final["status"] == "rejected" and [r["role"] for r in final["reviews"]] == ["review", "review", "final"]
    assert [r["reviewer"] for r in final["reviews"]] == ["alice", "bob", "carol"]


def test_the_same_reviewer_cannot_review_twice() -> None:
    with pytest.raises(UserError, match="another reviewer"):
        review(review(pending(), "accept", "alice"), "accept", "ALICE")


def test_only_pending_records_for_the_voted_content_are_resolved() -> None:
    done = review(review(pending(), "accept", "alice"), "accept", "bob")
    with pytest.raises(UserError, match="already accepted"):
        review(done, "reject", "carol")
    with pytest.raises(UserError, match="changed since the judges voted"):
        add_review(pending(), OTHER, "accept", "alice", "n")
    with pytest.raises(UserError, match="no longer exists"):
        add_review(pending(), None, "accept", "alice", "n")


def test_a_review_needs_a_reviewer_and_a_note() -> None:
    with pytest.raises(UserError, match="--reviewer"):
        add_review(pending(), HASH, "accept", " ", "n")
    with pytest.raises(UserError, match="--note"):
        add_review(pending(), HASH, "accept", "alice", "")
