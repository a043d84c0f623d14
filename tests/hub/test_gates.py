"""The publishing gates: validation findings and the review queue."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml

from tests.hub.helpers import copy_fixture
from validator.corpus.canonical import content_hash as case_content_hash
from validator.corpus.index import Corpus
from validator.diagnostics import Diagnostic, Location
from validator.hub.gates import check_gates, describe_refusal, review_blockers, validation_blockers

CASE = "dialogues/special/incomplete/sp-incomplete-0001.yaml"
CASE_ID = "sp-incomplete-0001"


def no_findings(root: Path) -> list[Diagnostic]:
    return []


def write_record(root: Path, status: str, *, content_hash: str, accepted_hash: str | None = None, case_id: str = CASE_ID, path: str = CASE) -> None:
    record = {"id": case_id, "path": path, "content_hash": content_hash, "status": status, "votes": [], "reviews": []}
    if accepted_hash is not None:
        record["accepted_hash"] = accepted_hash
    target = root / "review" / "queue" / f"{case_id}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("# yaml-language-server: $schema=../../schemas/review-record.schema.json\n" + yaml.safe_dump(record), encoding="utf-8")


def current_hash(root: Path) -> str:
    return case_content_hash(Corpus.load(root).cases[CASE_ID].data)


# ----------------------------------------------------------------------------- content hash


def test_case_content_hash_is_sha256_of_canonical_json() -> None:
    data = {"zh": "帮我", "id": "x", "n": [1, 2.5, True, None]}
    canonical = '{"id":"x","n":[1,2.5,true,null],"zh":"帮我"}'
    assert case_content_hash(data) == "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert case_content_hash(json.loads(json.dumps(data, sort_keys=False))) == case_content_hash(dict(reversed(data.items())))


def test_case_content_hash_changes_with_any_value() -> None:
    assert case_content_hash({"a": 1}) != case_content_hash({"a": 1.0})
    assert case_content_hash({"a": "x"}) != case_content_hash({"a": "x "})


# ----------------------------------------------------------------------------- review queue


def test_an_empty_or_missing_queue_blocks_nothing(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    assert review_blockers(root, Corpus.load(root)) == []


def test_review_blockers_are_the_review_gates_findings(tmp_path: Path) -> None:
    """The publishing gate delegates to validator.review.gate (tested in tests/review)."""
    from validator.review.gate import blocking

    root = copy_fixture(tmp_path)
    (root / "review" / "queue").mkdir(parents=True, exist_ok=True)
    (root / "review" / "queue" / "broken.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    [blocker] = review_blockers(root, Corpus.load(root))
    [finding] = blocking(root)
    assert blocker.gate == "review" and blocker.path.startswith("review/queue/broken.yaml")
    assert blocker.message.startswith(finding.code) and finding.message in blocker.message


# ----------------------------------------------------------------------------- validation


def test_validation_findings_become_blockers(tmp_path: Path) -> None:
    finding = Diagnostic("REF001", "unknown-api-reference", "no API named send_sms", Location(CASE, 4, 8, "/apis/0"))
    [blocker] = validation_blockers(tmp_path, lambda root: [finding])
    assert blocker.render() == f"{CASE}:4:8: REF001 no API named send_sms"


def test_validation_reuses_a_loaded_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = copy_fixture(tmp_path)
    corpus = Corpus.load(root)
    parsed: list[str] = []
    monkeypatch.setattr("validator.corpus.index.load_file", lambda root, path, kind: parsed.append(path))
    assert validation_blockers(root, corpus=corpus) == [] and parsed == []  # no file parsed a second time


def test_check_gates_joins_both_gates(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    assert check_gates(root, validate=no_findings) == []
    write_record(root, "pending", content_hash=current_hash(root))
    finding = Diagnostic("DLG001", "x", "bad", Location(CASE, 1, 1, ""))
    blockers = check_gates(root, validate=lambda r: [finding])
    assert [b.gate for b in blockers] == ["validate", "review"]
    message = describe_refusal("build", blockers)
    assert message.splitlines()[0] == "callbank build: refused, 1 validation finding(s) and 1 blocking review record(s); nothing was written or sent"


def test_the_fixture_corpus_is_valid() -> None:
    from tests.hub.helpers import FIXTURE
    from validator.engine import validate

    assert [d.as_json() for d in validate(FIXTURE)] == []


def test_a_crashing_engine_closes_the_gate(tmp_path: Path) -> None:
    def crash(root: Path) -> list[Diagnostic]:
        raise NameError("name 'x' is not defined")

    [blocker] = validation_blockers(tmp_path, crash)
    assert blocker.message == "the validation engine failed (NameError: name 'x' is not defined); nothing can be proven valid"


# ----------------------------------------------------------------------------- unreviewed items


def test_unreviewed_items_block_publishing_but_not_building(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)  # no record for any of its 10 cases and scenarios
    corpus = Corpus.load(root)
    assert check_gates(root, corpus, validate=no_findings) == []
    blockers = check_gates(root, corpus, validate=no_findings, publishing=True)
    assert len(blockers) == 10 and {b.gate for b in blockers} == {"unreviewed"}
    assert all(b.message.startswith("REV005 ") for b in blockers)
    assert check_gates(root, corpus, validate=no_findings, publishing=True, allow_unreviewed=True) == []
    message = describe_refusal("publish", blockers, limit=2)
    assert message.splitlines()[0] == (
        "callbank publish: refused, 10 item(s) never reviewed (run `callbank review run`, or publish a preview with "
        "--allow-unreviewed); nothing was written or sent"
    )
    assert message.splitlines()[-1] == "  … and 8 more"


def test_a_reviewed_item_no_longer_blocks_publishing(tmp_path: Path) -> None:
    from tests.hub.helpers import accept_everything

    root = copy_fixture(tmp_path)
    accept_everything(root)
    assert check_gates(root, validate=no_findings, publishing=True) == []
