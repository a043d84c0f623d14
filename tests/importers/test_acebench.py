"""`callbank import acebench`: the fixture (invented records in ACEBench's format, tests/fixtures/
import/acebench) becomes two one-language repositories whose check reports exactly the planted
defects and whose ground truth the oracle scores 1.000."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.importers.support import FIXTURES, findings, import_peer, invoke, oracle_report, report_json

PLANTED_EN = [
    ("DLG010", "dialogues/normal/single_turn/single/normal-single-turn-single-function-1.yaml", "/en/turns/1/expect/calls/0/args/tone"),  # "soft warm" outside its enum
    ("DLG030", "dialogues/special/incomplete/special-incomplete-1.yaml", "/en/turns/1/expect/missing/0"),  # "missing" names an optional parameter
    ("DLG041", "dialogues/normal/multi_turn/adjust/normal-multi-turn-user-adjust-0-1.yaml", "/en/turns/0/user"),  # 0-0's request again: one dialogue, a case per turn
    # ACEBench's multi-turn records give the assistant's summary of an earlier call, not its result:
    # the booking number the next answer needs comes from no turn the model sees
    ("DLG050", "dialogues/normal/multi_turn/adjust/normal-multi-turn-user-adjust-0-1.yaml", "/en/turns/2/assistant"),
    ("SCH010", "specs/acebench/kitchen_set_timer.yaml", ""),  # parameters declared under `arguments`: no parameters …
    ("SCH010", "specs/acebench/kitchen_set_timer.yaml", ""),  # … and an unknown key
]
PLANTED_ZH = [
    ("DLG015", "dialogues/normal/multi_turn/switch/normal-multi-turn-user-switch-0-1.yaml", "/zh/turns/1/called/0/args/time"),  # history call breaks its pattern
]


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_check_reports_exactly_the_planted_defects(tmp_path: Path) -> None:
    out = tmp_path / "ace"
    import_peer("acebench", out)
    assert findings(out / "en") == sorted(PLANTED_EN)
    assert findings(out / "zh") == sorted(PLANTED_ZH)


def test_oracle_scores_one_and_null_zero_in_each_language(tmp_path: Path) -> None:
    out = tmp_path / "ace"
    import_peer("acebench", out)
    for lang, units in (("en", 9), ("zh", 3)):
        report = oracle_report(out / lang, tmp_path)
        assert report["overall"]["score"] == 1.0 and report["overall"]["n"] == units
        assert list(report["languages"]) == [lang]  # a one-language repository scores one language
        assert oracle_report(out / lang, tmp_path, "null")["overall"]["score"] == 0.0


def test_mapping_of_records(tmp_path: Path) -> None:
    out = tmp_path / "ace"
    import_peer("acebench", out)
    en, zh = out / "en", out / "zh"
    assert "languages: [en]" in (en / "callbank.yaml").read_text(encoding="utf-8")
    adjust = load(en / "dialogues/normal/multi_turn/adjust/normal-multi-turn-user-adjust-0-1.yaml")
    assert adjust["time"] == "2024-05-15"
    turns = adjust["en"]["turns"]
    assert turns[1] == {"called": [{"api": "courts_book_court", "args": {"club": "Riverside Club", "date": "2024-05-18", "startTime": "09:00"}}]}
    assert turns[2] == {"assistant": "Your court is booked; the booking number is RC-88."}
    assert turns[-1] == {"expect": {"calls": [{"api": "courts_change_booking", "args": {"bookingId": "RC-88", "startTime": "10:30"}}]}}
    error = load(en / "dialogues/special/error_param/special-error-param-0.yaml")
    assert error["en"]["turns"][-1] == {"expect": {"special": "error_param", "params": {"date": "3rd of June 24"}}}  # no API: the source names none
    parallel = load(zh / "dialogues/normal/single_turn/parallel/normal-single-turn-parallel-function-0.yaml")
    assert [call["api"] for call in parallel["zh"]["turns"][-1]["expect"]["calls"]] == ["weather_query", "weather_query"]  # _2: a second call
    preference = load(zh / "dialogues/normal/preference/normal-preference-0.yaml")
    assert preference["profile"] == {"zh": "用户乳糖不耐受，喝咖啡只加燕麦奶；公司地址是西湖区文三路100号。"}


def test_report_lists_skipped_renamed_and_caveats(tmp_path: Path) -> None:
    out = tmp_path / "ace"
    import_peer("acebench", out)
    report = report_json(out)
    en, zh = report["repositories"]
    assert en["categories"] == {
        "normal/atom/number": 1, "normal/multi_turn/adjust": 2, "normal/similar_api": 1, "normal/single_turn/single": 2,
        "special/error_param": 1, "special/incomplete": 2, "special/irrelevant": 1,
    }
    assert [(s["record"], s["reason"][:13]) for s in en["not_converted"]] == [("agent_multi_step_0", "an agent task")]
    renamed = {(r["source"], r["name"]) for r in en["renamed"]}
    assert ("weather_getForecast", "weather_get_forecast") in renamed and ("weather_getForecast", "weather_get_forecast_2") in renamed
    assert [c["record"] for c in zh["caveats"]] == ["normal_preference_0"]  # 2024-05-22 is no Friday
    markdown = (out / "import-report.md").read_text(encoding="utf-8")
    assert "agent_multi_step_0" in markdown and "weather_get_forecast_2" in markdown


def test_same_source_gives_identical_files(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    import_peer("acebench", first)
    import_peer("acebench", second)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)


def test_lang_option_imports_one_set(tmp_path: Path) -> None:
    result = invoke("import", "acebench", str(FIXTURES / "acebench"), "--out", str(tmp_path / "z"), "--lang", "zh")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "z" / "zh").is_dir() and not (tmp_path / "z" / "en").exists()


def test_malformed_record_names_file_and_line(tmp_path: Path) -> None:
    src = tmp_path / "src" / "data_all" / "data_en"
    src.mkdir(parents=True)
    (src / "data_special_irrelevant.json").write_text('{"id": "special_irrelevant_0", "question": "user: hi", "function": []}\n{"id": "special_irrelevant_1", "question": 5, "function": []}\n', encoding="utf-8")
    result = invoke("import", "acebench", str(tmp_path / "src"), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "data_special_irrelevant.json:2 (special_irrelevant_1): 'question' is a int, not a str" in result.output
    assert not (tmp_path / "out").exists()  # nothing half-written
    (src / "data_special_irrelevant.json").write_text('{"id": "special_irrelevant_0", "question": "user: hi",\n', encoding="utf-8")
    result = invoke("import", "acebench", str(tmp_path / "src"), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "data_special_irrelevant.json:1: not a JSON record" in result.output


def test_not_acebench(tmp_path: Path) -> None:
    result = invoke("import", "acebench", str(tmp_path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "is not a copy of ACEBench" in result.output
