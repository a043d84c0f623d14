"""The review gate that build and publish call: validator.review.gate.blocking."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.review.helpers import FAST, corpus, judges_file
from tests.support.openai_server import OpenAIServer
from validator.review.gate import blocking
from validator.review.queue import record_review
from validator.review.runner import run_review

CASE = "dialogues/normal/single_turn/single/single-0001.yaml"


def found(root: Path) -> list[tuple[str, str, int | None]]:
    return [(d.code, d.location.path, d.location.line) for d in blocking(root)]


def run(root: Path, server: OpenAIServer) -> None:
    run_review(root, judges_file=judges_file(root.parent / "judges.yaml", server.base_url), policy=FAST, progress=False)


def dissent_on_single(server: OpenAIServer) -> None:
    from tests.review.helpers import VALID, item_of, verdict

    server.responder = lambda r: verdict("invalid", "ambiguous") if item_of(r.text) == "single-0001" and r.model == "model-a" else VALID


def test_no_queue_and_an_accepted_queue_block_nothing(tmp_path: Path, server: OpenAIServer) -> None:
    root = corpus(tmp_path)
    assert blocking(root) == []
    run(root, server)
    assert blocking(root) == []


def test_a_pending_record_blocks(tmp_path: Path, server: OpenAIServer) -> None:
    dissent_on_single(server)
    root = corpus(tmp_path)
    run(root, server)
    [diagnostic] = blocking(root)
    assert (diagnostic.code, diagnostic.rule) == ("REV001", "review-pending")
    assert diagnostic.location.path == "review/queue/single-0001.yaml" and diagnostic.location.pointer == "/status" and diagnostic.location.line == 4
    assert "callbank review resolve single-0001" in diagnostic.message


def test_resolution_opens_or_keeps_the_gate_closed(tmp_path: Path, server: OpenAIServer) -> None:
    dissent_on_single(server)
    root = corpus(tmp_path)
    run(root, server)
    record_review(root, "single-0001", "reject", "alice", "ambiguous city")
    assert [c for c, _, _ in found(root)] == ["REV001"]
    record_review(root, "single-0001", "reject", "bob", "agree")
    assert [c for c, _, _ in found(root)] == ["REV002"]


def test_an_edit_after_acceptance_blocks_until_reviewed_again(tmp_path: Path, server: OpenAIServer) -> None:
    root = corpus(tmp_path)
    run(root, server)
    case = root / CASE
    case.write_text(case.read_text(encoding="utf-8").replace("days: 3}}", "days: 2}}"), encoding="utf-8")
    assert found(root) == [("REV003", CASE, 1)]
    run(root, server)
    assert found(root) == []


def test_a_record_whose_case_is_gone_blocks_nothing(tmp_path: Path, server: OpenAIServer) -> None:
    dissent_on_single(server)
    root = corpus(tmp_path)
    run(root, server)
    (root / CASE).unlink()
    assert blocking(root) == []


@pytest.mark.parametrize(
    ("text", "line"),
    [("id: [unclosed\n", 2), ("id: single-0001\nstatus: approved\n", None)],
)
def test_an_unreadable_record_blocks(tmp_path: Path, text: str, line: int | None) -> None:
    root = corpus(tmp_path)
    target = root / "review/queue/single-0001.yaml"
    target.parent.mkdir(parents=True)
    target.write_text(text, encoding="utf-8")
    [(code, path, _)] = found(root)
    assert (code, path) == ("REV004", "review/queue/single-0001.yaml")


def test_the_summary_counts_who_accepted_what(tmp_path: Path) -> None:
    import yaml

    from tests.hub.helpers import accept_everything
    from validator.corpus.index import Corpus
    from validator.review.gate import ReviewSummary, review_summary

    root = corpus(tmp_path)
    items = [item.id for item in Corpus.load(root).items()]
    assert review_summary(Corpus.load(root)) == ReviewSummary(len(items), 0, 0, 0, len(items), 0)
    accept_everything(root, by_reviewers=items[:1])
    assert review_summary(Corpus.load(root)) == ReviewSummary(len(items), len(items) - 1, 1, 0, 0, 0)
    # a record accepted for other content, one pending, one without a decider, one missing
    records = root / "review" / "queue"
    changed, pending, unattributed, missing = (records / f"{i}.yaml" for i in items[:4])
    data = yaml.safe_load(changed.read_text(encoding="utf-8"))
    data["accepted_hash"] = "sha256:" + "0" * 64
    changed.write_text(yaml.safe_dump(data), encoding="utf-8")
    data = yaml.safe_load(pending.read_text(encoding="utf-8"))
    data.update(status="pending")
    del data["accepted_hash"], data["decided_by"]
    pending.write_text(yaml.safe_dump(data), encoding="utf-8")
    data = yaml.safe_load(unattributed.read_text(encoding="utf-8"))
    del data["decided_by"]
    unattributed.write_text(yaml.safe_dump(data), encoding="utf-8")
    missing.unlink()
    summary = review_summary(Corpus.load(root))
    assert summary == ReviewSummary(len(items), len(items) - 4, 0, 1, 1, 2)
    assert summary.accepted == len(items) - 3 and not summary.complete
