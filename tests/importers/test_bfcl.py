"""`callbank import bfcl`: the fixture (invented records in BFCL's format, tests/fixtures/import/
bfcl) becomes one English repository; check reports exactly the planted defects, the oracle
scores 1.000 wherever the source's answer is valid, and possible-answer lists become matchers."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.importers.support import FIXTURES, findings, import_peer, invoke, oracle_report, report_json, wrong

PLANTED = [
    ("DLG010", "dialogues/normal/single_turn/single/simple-python-2.yaml", "/en/turns/1/expect/calls/0/args/duration"),  # "90 minutes" for an integer
    ("DLG011", "dialogues/normal/single_turn/parallel/parallel-multiple-1.yaml", "/en/turns/1/expect/calls/0/args/unit"),  # a parameter the function lacks
    ("SPC002", "specs/bfcl/cache_store.yaml", "/parameters/properties/value/type"),  # type "any"
    ("SPC004", "specs/bfcl/set_lamp.yaml", "/parameters/required/2"),  # required names an undefined property
]


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_check_reports_exactly_the_planted_defects(tmp_path: Path) -> None:
    import_peer("bfcl", tmp_path / "bfcl")
    assert findings(tmp_path / "bfcl") == sorted(PLANTED)


def test_oracle_right_wherever_the_source_answer_is_valid(tmp_path: Path) -> None:
    import_peer("bfcl", tmp_path / "bfcl")
    report = oracle_report(tmp_path / "bfcl", tmp_path)
    # the one answer the oracle gets wrong is the one that passes a parameter its function lacks
    assert wrong(report) == {"parallel-multiple-1"}
    assert report["overall"]["n"] == 9  # cache_store's spec breaks its schema: it and its case are left out
    assert oracle_report(tmp_path / "bfcl", tmp_path, "null")["overall"]["score"] == 0.0


def test_possible_answers_become_matchers(tmp_path: Path) -> None:
    repo = tmp_path / "bfcl"
    import_peer("bfcl", repo)
    circle = load(repo / "dialogues/normal/single_turn/single/simple-python-0.yaml")
    assert circle["en"]["turns"][-1]["expect"]["calls"] == [{"api": "geometry_circle_area", "args": {"radius": {"$any": [3, 3.0]}, "unit": {"$optional": "cm"}}}]
    paint = load(repo / "dialogues/normal/single_turn/single/simple-python-1.yaml")
    assert paint["en"]["turns"][-1]["expect"]["calls"][0]["args"] == {"wall": {"width": 4.0, "height": 2.5}, "coats": {"$optional": 2}}
    spec = load(repo / "specs/bfcl/paint_estimate.yaml")
    assert spec["parameters"]["properties"]["wall"]["type"] == "object" and spec["parameters"]["properties"]["wall"]["properties"]["width"]["type"] == "number"
    # what a model may answer: the optional unit left out, the parallel calls in the other order
    lines = [
        {"id": "simple-python-0", "lang": "en", "step": 0, "output": "[geometry_circle_area(radius=3.0)]"},
        {"id": "parallel-0", "lang": "en", "step": 0, "output": "[currency_convert(amount=50.0, from_currency='GBP', to_currency='JPY'), currency_convert(amount=100, from_currency='EUR', to_currency='USD')]"},
        {"id": "multiple-0", "lang": "en", "step": 0, "output": "[transit_next_bus(stop='Market Square', count=4)]"},
    ]
    predictions = tmp_path / "model.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = json.loads(invoke("score", "--repo", str(repo), "--format", "json", str(predictions)).output)
    verdicts = {r["id"]: r["correct"] for r in report["results"] if not r["missing"]}
    assert verdicts == {"simple-python-0": True, "parallel-0": True, "multiple-0": False}  # count=4 is neither omitted nor 3


def test_report_lists_what_was_not_converted(tmp_path: Path) -> None:
    import_peer("bfcl", tmp_path / "bfcl")
    (repository,) = report_json(tmp_path / "bfcl")["repositories"]
    assert repository["categories"] == {"normal/single_turn/parallel": 3, "normal/single_turn/single": 6, "special/irrelevant": 1}
    skipped = {s["record"]: s["reason"] for s in repository["not_converted"]}
    assert set(skipped) == {"live_relevance_0-0-0", "live_simple_0-0-0", "multi_turn_base_0", "simple_java_0"}
    assert "system message" in skipped["live_simple_0-0-0"] and skipped["multi_turn_base_0"].startswith("multi-turn")
    assert any("format_sensitivity" in note for note in repository["notes"])
    assert {"name": "geometry_circle_area", "source": "geometry.circle_area"}.items() <= next(r for r in repository["renamed"] if r["source"] == "geometry.circle_area").items()


def test_malformed_source(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "BFCL_v4_simple_python.json").write_text('{"id": "simple_python_0", "question": "Add 2 and 3.", "function": []}\n', encoding="utf-8")
    result = invoke("import", "bfcl", str(src), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "BFCL_v4_simple_python.json:1 (simple_python_0): 'question' is a str, not a list" in result.output
    assert not (tmp_path / "out").exists()
    result = invoke("import", "bfcl", str(FIXTURES / "acebench"), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "is not BFCL's data folder" in result.output


def test_one_language_repository_stats_and_build(tmp_path: Path) -> None:
    repo = tmp_path / "bfcl"
    import_peer("bfcl", repo)
    for path in (
        "dialogues/normal/single_turn/parallel/parallel-multiple-1.yaml", "dialogues/normal/single_turn/single/simple-python-2.yaml",
        "dialogues/normal/single_turn/single/simple-python-3.yaml", "dialogues/normal/single_turn/single/live-simple-1-1-0.yaml",
        "specs/bfcl/cache_store.yaml", "specs/bfcl/set_lamp.yaml",
    ):
        (repo / path).unlink()  # the planted defects gone, the repository is clean and can be built
    assert findings(repo) == []
    stats = invoke("stats", "--repo", str(repo)).output
    assert "category" in stats and " en" in stats and " zh" not in stats
    result = invoke("build", str(tmp_path / "dataset"), "--repo", str(repo))
    assert result.exit_code == 0, result.output
    built = sorted(p.relative_to(tmp_path / "dataset" / "data").as_posix() for p in (tmp_path / "dataset" / "data").rglob("*.parquet"))
    assert built == ["apis/en.parquet", "normal_single_turn_parallel/en.parquet", "normal_single_turn_single/en.parquet", "special_irrelevant/en.parquet"]
