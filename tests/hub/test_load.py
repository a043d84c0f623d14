"""`validator.hub.load`: errors a consumer can act on, and a materialize that stays in its folder."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.hub.helpers import FIXTURE
from validator.hub.build import build
from validator.hub.load import LoadError, list_configs, load, load_source, materialize


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("load") / "dataset"
    build(FIXTURE, out)
    return out


def test_list_configs_follows_the_card(built: Path) -> None:
    assert list_configs(built)[0] == "normal_single_turn_single"
    assert list_configs(built)[-2:] == ["apis", "sandboxes"]


def test_unknown_config_and_split(built: Path) -> None:
    with pytest.raises(LoadError, match="no config 'normal_atom_bool'"):
        load(built, "normal_atom_bool", "en")
    with pytest.raises(LoadError, match="has no split 'fr'"):
        load(built, "apis", "fr")


def test_a_folder_without_card(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match=r"no README\.md"):
        load(tmp_path, "apis", "en")


def test_neither_a_folder_nor_a_repo_id(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="neither a folder nor a Hub dataset id"):
        load(tmp_path / "missing" / "dist" / "x", "apis", "en")


def test_absent_fields_stay_absent(built: Path) -> None:
    [case] = load(built, "special_incomplete", "en")
    assert "profile" not in case and "state" not in case and case["time"] == "2024-07-15T09:00:00+08:00"
    [pref] = load(built, "normal_preference", "en")
    assert pref["profile"].startswith("Liu Yang") and pref["state"] == {"phone": {"device": {"wifi": True}}}


def test_misaligned_splits_are_refused(built: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(built, copy)
    path = copy / "data/apis/zh.parquet"
    table = pq.read_table(path)
    pq.write_table(table.take(pa.array(list(reversed(range(table.num_rows))))), path)
    with pytest.raises(LoadError, match="same items in the same order"):
        load_source(copy, "apis")


def test_materialize_refuses_paths_outside_the_corpus(built: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(built, copy)
    for lang in ("en", "zh"):
        path = copy / f"data/special_irrelevant/{lang}.parquet"
        table = pq.read_table(path)
        index = table.schema.get_field_index("source")
        table = table.set_column(index, table.schema.field(index), pa.array(["dialogues/../../evil.yaml"]))
        pq.write_table(table, path)
    with pytest.raises(LoadError, match="refusing to write"):
        materialize(copy, tmp_path / "out")
    assert not (tmp_path / "evil.yaml").exists()
