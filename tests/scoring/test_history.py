"""History calls (`called` turns) are shown to the model but never scored: a case with one
earlier call and one checkpoint is one unit, and repeating the earlier call is wrong."""

from __future__ import annotations

import json
from pathlib import Path

from tests.importers.support import import_peer, invoke

CASE = "normal-multi-turn-user-adjust-0-1"  # history: courts_book_court; checkpoint: courts_change_booking


def score(repo: Path, tmp_path: Path, outputs: dict[int, str]) -> list[dict]:
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps({"id": CASE, "lang": "en", "step": step, "output": out}) + "\n" for step, out in outputs.items()), encoding="utf-8")
    report = json.loads(invoke("score", "--repo", str(repo), "--format", "json", "--category", "normal/multi_turn", str(predictions)).output)
    return [r for r in report["results"] if r["id"] == CASE]


def test_history_call_is_no_unit(tmp_path: Path) -> None:
    import_peer("acebench", tmp_path / "ace")
    repo = tmp_path / "ace" / "en"
    (result,) = score(repo, tmp_path, {0: "[courts_change_booking(bookingId='RC-88', startTime='10:30')]"})
    assert result["correct"] and result["step"] in (None, 0)


def test_repeating_the_history_call_is_wrong(tmp_path: Path) -> None:
    import_peer("acebench", tmp_path / "ace")
    repo = tmp_path / "ace" / "en"
    (result,) = score(repo, tmp_path, {0: "[courts_book_court(club='Riverside Club', date='2024-05-18', startTime='09:00')]"})
    assert not result["correct"]
