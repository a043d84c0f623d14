"""`callbank build OUT_DIR`: builds a clean corpus, refuses while a gate is closed."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from tests.hub.helpers import copy_fixture
from validator.cli import cli
from validator.corpus.canonical import content_hash as case_content_hash
from validator.corpus.index import Corpus

CASE = "dialogues/special/incomplete/sp-incomplete-0001.yaml"


def invoke(*args: str):
    return CliRunner().invoke(cli, ["build", *args])


def add_pending_record(root: Path) -> None:
    data = Corpus.load(root).cases["sp-incomplete-0001"].data
    record = {"id": "sp-incomplete-0001", "path": CASE, "content_hash": case_content_hash(data), "status": "pending", "votes": [], "reviews": []}
    target = root / "review/queue/sp-incomplete-0001.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("# yaml-language-server: $schema=../../schemas/review-record.schema.json\n" + yaml.safe_dump(record), encoding="utf-8")


def break_a_rule(root: Path) -> None:
    case = root / CASE
    case.write_text(case.read_text(encoding="utf-8").replace("apis: [send_message, add_reminder]", "apis: [send_message, add_reminder, send_fax]"), encoding="utf-8")


def test_build_writes_the_dataset(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    result = invoke(str(tmp_path / "dist"), "--repo", str(root))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"built {tmp_path / 'dist'}: 26 files (24 Parquet)")
    assert (tmp_path / "dist/data/apis/en.parquet").is_file()


def test_build_does_not_need_reviews_but_its_card_says_none_were_given(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)  # no review/queue at all
    result = invoke(str(tmp_path / "dist"), "--repo", str(root))
    assert result.exit_code == 0, result.output
    card = (tmp_path / "dist" / "README.md").read_text(encoding="utf-8")
    assert "> **Preview: not fully reviewed.** 10 of the 10 cases and agent scenarios in this dataset have no accepted review." in card
    assert "Of the 10 cases and agent scenarios, 0 were accepted in review:" in card
    assert "its review before this dataset was built" not in card.replace("\n", " ")  # the claim the card used to make


def test_build_refuses_a_failing_rule(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    break_a_rule(root)
    result = invoke(str(tmp_path / "dist"), "--repo", str(root))
    assert result.exit_code == 1
    first, *details = result.stderr.splitlines()
    assert first.startswith("callbank build: refused,") and "validation finding" in first
    assert any(line.strip().startswith(CASE) for line in details)
    assert not (tmp_path / "dist").exists()


def test_build_refuses_a_pending_review(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    add_pending_record(root)
    result = invoke(str(tmp_path / "dist"), "--repo", str(root))
    assert result.exit_code == 1
    first, second = result.stderr.splitlines()
    assert first == "callbank build: refused, 1 blocking review record(s); nothing was written or sent"
    assert second.startswith("  review/queue/sp-incomplete-0001.yaml:")
    assert "REV001 sp-incomplete-0001 is pending review; decide it with `callbank review resolve sp-incomplete-0001" in second
    assert not (tmp_path / "dist").exists()


def test_build_refuses_to_overwrite_a_foreign_folder(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist/thesis.tex").write_text("…")
    result = invoke(str(tmp_path / "dist"), "--repo", str(root))
    assert result.exit_code == 1
    assert "is not a callbank build" in result.stderr
    assert (tmp_path / "dist/thesis.tex").exists()
