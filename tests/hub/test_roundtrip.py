"""Round trip: YAML → build → `datasets.load_dataset` offline → decode → the same data as the YAML."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hub.helpers import FIXTURE, LANGS, expected_configs, hub_env
from validator.corpus.canonical import canonical_json
from validator.corpus.index import Corpus
from validator.hub.build import build
from validator.hub.configs import kind_of_config
from validator.hub.load import load, load_source, materialize, read_card_configs
from validator.hub.parquet import decode
from validator.hub.records import COLUMNS, to_source

LOAD_ALL = """
import json, sys
from datasets import load_dataset
folder, configs, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
rows = {c: {s: load_dataset(folder, c, split=s).to_list() for s in ("en", "zh")} for c in configs}
open(out, "w", encoding="utf-8").write(json.dumps(rows, ensure_ascii=False))
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("roundtrip") / "dataset"
    build(FIXTURE, out)
    return out


@pytest.fixture(scope="module")
def datasets_rows(built: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Every split of every config as `datasets` returns it, loaded offline in a fresh interpreter."""
    tmp = tmp_path_factory.mktemp("hf")
    env = hub_env(tmp, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    out = tmp / "rows.json"
    configs = list(read_card_configs(built))
    result = subprocess.run(
        [sys.executable, "-c", LOAD_ALL, str(built), json.dumps(configs), str(out)], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))


def test_configs_are_exactly_the_corpus_configs(built: Path) -> None:
    assert sorted(read_card_configs(built)) == sorted(expected_configs(FIXTURE))


def test_load_dataset_rows_decode_to_the_source_yaml(datasets_rows: dict[str, dict[str, list[dict[str, Any]]]]) -> None:
    expected = expected_configs(FIXTURE)
    assert sorted(datasets_rows) == sorted(expected)
    for config, splits in datasets_rows.items():
        kind = kind_of_config(config)
        en, zh = ([decode(row, COLUMNS[kind]) for row in splits[lang]] for lang in LANGS)
        merged = [to_source(kind, {"en": a, "zh": b}) for a, b in zip(en, zh, strict=True)]
        assert canonical_json(merged) == canonical_json(expected[config]), config


def test_loader_equals_load_dataset(built: Path, datasets_rows: dict[str, dict[str, list[dict[str, Any]]]]) -> None:
    for config, splits in datasets_rows.items():
        columns = COLUMNS[kind_of_config(config)]
        for lang in LANGS:
            decoded = [decode(row, columns) for row in splits[lang]]
            assert canonical_json(load(built, config, lang)) == canonical_json(decoded), (config, lang)


def test_load_source_equals_the_yaml_for_every_config(built: Path) -> None:
    for config, items in expected_configs(FIXTURE).items():
        assert canonical_json(load_source(built, config)) == canonical_json(items), config


def test_records_are_in_the_split_language(built: Path) -> None:
    [case_en] = load(built, "normal_single_turn_single", "en")
    [case_zh] = load(built, "normal_single_turn_single", "zh")
    assert case_en["turns"][0]["user"].startswith("Text Wang Fang")
    assert case_zh["turns"][0]["user"].startswith("给王芳")
    tools = {t["function"]["name"]: t["function"] for t in case_zh["functions"]}
    assert tools["send_message"]["description"] == "以机主的身份给联系人发送一条短信。"
    assert tools["send_message"]["parameters"]["properties"]["receiver"]["description"] == "收信联系人的姓名。"
    [scenario] = load(built, "agent_multi_turn", "zh")
    assert scenario["policies"]["phone"].startswith("# 手机助手规则")
    assert scenario["states"]["phone"]["clock"] == "2024-07-15T09:00:00+08:00"
    assert [f["function"]["name"] for f in scenario["functions"]] == ["add_reminder", "send_message", "set_alarm", "turn_on_wifi"]
    apis = {r["name"]: r for r in load(built, "apis", "en")}
    assert apis["get_weather"]["spec_only"] is True and "sandbox" not in apis["get_weather"]
    assert apis["set_alarm"]["parameters"]["properties"]["repeat"]["properties"]["days"]["items"]["description"] == "A day of the week."


def test_json_columns_are_compact_and_keep_the_sources_key_order(built: Path, datasets_rows: dict[str, dict[str, list[dict[str, Any]]]]) -> None:
    from validator.corpus.canonical import data_json

    for config, splits in datasets_rows.items():
        for column in COLUMNS[kind_of_config(config)]:
            if column.type != "json":
                continue
            for row in splits["zh"]:
                text = row[column.name]
                if text is not None:
                    assert text == data_json(json.loads(text)), (config, column.name)
                    assert "\\u" not in text  # Chinese stays as itself (ensure_ascii=False)
    [phone] = [row for row in datasets_rows["sandboxes"]["en"] if row["name"] == "phone"]
    assert list(json.loads(phone["state"])) == ["sandbox", "clock", "counters", "data"]  # as state.yaml writes them


def test_materialize_writes_the_corpus_back(built: Path, tmp_path: Path) -> None:
    written = materialize(built, tmp_path / "corpus")
    source, copy = Corpus.load(FIXTURE), Corpus.load(tmp_path / "corpus")
    assert copy.broken(kinds=None) == []
    assert {f.path: f.document.data for f in copy.loaded() if f.document} == {f.path: f.document.data for f in source.loaded() if f.document and f.kind != "review-record"}
    for name in ("policy.en.md", "policy.zh.md", "sandbox.py"):
        assert (tmp_path / "corpus/sandboxes/phone" / name).read_bytes() == (FIXTURE / "sandboxes/phone" / name).read_bytes()
    assert "dialogues/normal/single_turn/single/st-single-0001.yaml" in written


def test_materialized_corpus_passes_validate(built: Path, tmp_path: Path) -> None:
    from validator.engine import validate

    materialize(built, tmp_path / "corpus")
    assert [d.as_json() for d in validate(tmp_path / "corpus")] == []  # the rule checks, then every ground truth executed


def test_materialize_keeps_what_the_loader_and_the_sandboxes_read(tmp_path: Path) -> None:
    """Strings a YAML 1.1 reader takes for booleans come back quoted (SCH005: the repository's
    weather data writes wind directions N, S …), and mappings keep their key order."""
    import shutil

    import yaml

    from validator.engine import check

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    state = repo / "sandboxes/phone/state.yaml"
    text = state.read_text(encoding="utf-8").replace("  messages: []", '  messages: []\n  wind: {zephyr: "N", breeze: "off", gale: "Yes", calm: "no"}')
    state.write_text(text, encoding="utf-8")
    assert check(repo) == []
    build(repo, tmp_path / "dataset")
    materialize(tmp_path / "dataset", tmp_path / "corpus")
    written = (tmp_path / "corpus/sandboxes/phone/state.yaml").read_text(encoding="utf-8")
    assert [d.as_json() for d in check(tmp_path / "corpus")] == []
    assert "zephyr: 'N'" in written and "gale: 'Yes'" in written
    wind = yaml.safe_load(written)["data"]["wind"]
    assert list(wind) == ["zephyr", "breeze", "gale", "calm"] and wind["breeze"] == "off"
