"""`callbank import apibank`: the fixture (invented APIs and dialogues in API-Bank's format,
tests/fixtures/import/apibank) becomes one English repository: each API call a case, earlier
calls history with their results, level 2 and 3 as retrieval cases over callbank's own tool
search, copied in; check reports exactly the planted defects and the oracle scores 1.000."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.importers.support import findings, import_peer, invoke, oracle_report, report_json

PLANTED = [
    ("DLG010", "dialogues/normal/single_turn/single/settimer-level-1-2-1.yaml", "/en/turns/1/expect/calls/0/args/minutes"),  # "15" for an int
    ("DLG015", "dialogues/normal/single_turn/single/settimer-level-1-2-2.yaml", "/en/turns/1/called/0/args/minutes"),  # the same call, now history
    ("DLG041", "dialogues/retrieval/call/addshoppingitem-level-3-1-2.yaml", "/en/turns/0/user"),  # the same request as 3-1-1: one dialogue, a case per call
]


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_check_reports_exactly_the_planted_defects(tmp_path: Path) -> None:
    import_peer("apibank", tmp_path / "ab")
    assert findings(tmp_path / "ab") == sorted(PLANTED)


def test_oracle_scores_one_with_live_tool_search(tmp_path: Path) -> None:
    import_peer("apibank", tmp_path / "ab")
    report = oracle_report(tmp_path / "ab", tmp_path)
    assert report["overall"]["score"] == 1.0 and report["overall"]["n"] == 6
    assert report["categories"]["retrieval/call"]["n"] == 2 and report["categories"]["retrieval/plan"]["n"] == 1
    assert oracle_report(tmp_path / "ab", tmp_path, "null")["overall"]["score"] == 0.0


def test_mapping(tmp_path: Path) -> None:
    repo = tmp_path / "ab"
    import_peer("apibank", repo)
    spec = load(repo / "specs/apibank/set_timer.yaml")
    assert spec["parameters"]["required"] == ["minutes"]  # label has a default in call()
    assert spec["parameters"]["properties"]["minutes"]["type"] == "integer"
    assert load(repo / "specs/apibank/add_shopping_item.yaml")["parameters"]["properties"]["items"] == {"type": "array", "items": {"type": "string"}, "description": {"en": "Names of the items."}}
    assert not (repo / "specs/apibank/tool_searcher.yaml").exists() and (repo / "specs/tools/search_tools.yaml").is_file()
    assert (repo / "sandboxes/tools/sandbox.py").is_file()
    second = load(repo / "dialogues/normal/single_turn/single/settimer-level-1-2-2.yaml")
    turns = second["en"]["turns"]
    assert turns[1] == {"called": [{"api": "set_timer", "args": {"minutes": "15"}}]}
    assert turns[2] == {"tool": [{"api": "set_timer", "result": {"timer_id": "t8"}}]}
    assert second["apis"] == ["set_timer"]
    found = load(repo / "dialogues/retrieval/call/addshoppingitem-level-3-1-2.yaml")
    assert found["apis"] == ["search_tools"]
    assert all("ToolSearcher" not in str(turn) for turn in found["en"]["turns"])  # the search is the model's own
    plan = load(repo / "dialogues/retrieval/plan/level-3-kitchen.yaml")
    assert [call["api"] for call in plan["en"]["turns"][-1]["expect"]["calls"]] == ["get_user_token", "add_shopping_item"]
    assert "plum42" in plan["profile"]["en"]


def test_report(tmp_path: Path) -> None:
    import_peer("apibank", tmp_path / "ab")
    (repository,) = report_json(tmp_path / "ab")["repositories"]
    skipped = {s["record"]: s["reason"] for s in repository["not_converted"]}
    assert set(skipped) == {"Chat-level-1-1", "Pantry"}
    assert "bare name 'a1b2c3'" in skipped["Pantry"]


def test_malformed_dialogue(tmp_path: Path) -> None:
    src = tmp_path / "api-bank"
    (src / "apis").mkdir(parents=True)
    level = src / "lv1-lv2-samples" / "level-1-given-desc"
    level.mkdir(parents=True)
    (level / "Ping-level-1-1.jsonl").write_text('{"role": "User", "text": "Ping the server."}\n{"role": "API", "api_name": "Ping"}\n', encoding="utf-8")
    result = invoke("import", "apibank", str(src), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "Ping-level-1-1.jsonl:2: an API turn has api_name and param_dict" in result.output
    (src / "apis" / "ping.py").write_text("class Ping(API:\n", encoding="utf-8")
    result = invoke("import", "apibank", str(src), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "ping.py: not Python API-Bank can load" in result.output
    assert not (tmp_path / "out").exists()
