"""`validator.hub.build`: layout, determinism, card, replacement of an earlier build."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from tests.hub.helpers import FIXTURE, copy_fixture
from validator.hub.build import BuildError, build, list_files
from validator.hub.card import GENERATED_MARKER
from validator.hub.load import read_card_configs


def hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def card_metadata(folder: Path) -> dict:
    text = (folder / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n")[1])


def test_two_builds_are_byte_identical(tmp_path: Path) -> None:
    first, second = build(FIXTURE, tmp_path / "a"), build(FIXTURE, tmp_path / "b")
    assert hashes(tmp_path / "a") == hashes(tmp_path / "b")
    assert first == second == list_files(tmp_path / "a")


def test_a_copy_of_the_corpus_elsewhere_builds_the_same_bytes(tmp_path: Path) -> None:
    build(FIXTURE, tmp_path / "a")
    build(copy_fixture(tmp_path, "elsewhere"), tmp_path / "b")
    assert hashes(tmp_path / "a") == hashes(tmp_path / "b")


def test_any_change_of_content_changes_the_build(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    build(root, tmp_path / "a")
    case = root / "dialogues/special/irrelevant/sp-irrelevant-0001.yaml"
    case.write_text(case.read_text(encoding="utf-8").replace("large pizza", "small pizza"), encoding="utf-8")
    build(root, tmp_path / "b")
    changed = {p for p, h in hashes(tmp_path / "a").items() if hashes(tmp_path / "b")[p] != h}
    assert changed == {"data/special_irrelevant/en.parquet"}


def test_layout_and_card_header(tmp_path: Path) -> None:
    out = tmp_path / "dataset"
    files = {f.path for f in build(FIXTURE, out)}
    configs = read_card_configs(out)
    assert files == {"README.md", "score.py"} | {path for splits in configs.values() for path in splits.values()}
    assert all(set(splits) == {"en", "zh"} for splits in configs.values())
    assert configs["special_incomplete"] == {"en": "data/special_incomplete/en.parquet", "zh": "data/special_incomplete/zh.parquet"}
    meta = card_metadata(out)
    assert meta["language"] == ["en", "zh"]
    assert meta["license"] and meta["pretty_name"] and meta["task_categories"] and meta["size_categories"] == ["n<1K"]
    text = (out / "README.md").read_text(encoding="utf-8")
    for section in ("## Configs and splits", "## Counts per category and language", "## Columns", "## Output format", "## Scoring", "## Citation"):
        assert section in text
    assert "| special/incomplete | 1 | 1 |" in text and "| **total** | **10** | **10** |" in text


def test_parquet_files_use_the_pinned_writer_options(tmp_path: Path) -> None:
    out = tmp_path / "dataset"
    build(FIXTURE, out)
    meta = pq.ParquetFile(out / "data/apis/en.parquet").metadata
    assert meta.num_row_groups == 1 and meta.num_rows == 5
    column = meta.row_group(0).column(0)
    assert column.compression == "ZSTD" and not column.is_stats_set
    assert meta.created_by.startswith("parquet-cpp-arrow version")


def test_rows_are_sorted_and_splits_aligned(tmp_path: Path) -> None:
    out = tmp_path / "dataset"
    build(FIXTURE, out)
    for lang in ("en", "zh"):
        names = pq.read_table(out / f"data/apis/{lang}.parquet").column("name").to_pylist()
        assert names == sorted(names)


def test_a_rebuild_replaces_the_earlier_build_without_stale_files(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    out = tmp_path / "dataset"
    build(root, out)
    (root / "dialogues/special/irrelevant/sp-irrelevant-0001.yaml").unlink()
    build(root, out)
    assert not (out / "data/special_irrelevant").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging folder left


def test_refuses_to_overwrite_a_folder_that_is_not_a_build(tmp_path: Path) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(BuildError, match="not a callbank build"):
        build(FIXTURE, out)
    assert (out / "notes.txt").read_text() == "keep me"


def test_an_empty_folder_is_fine(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    build(FIXTURE, tmp_path / "empty")
    assert GENERATED_MARKER in (tmp_path / "empty/README.md").read_text(encoding="utf-8")


def test_a_missing_policy_is_a_build_error(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    (root / "sandboxes/phone/policy.zh.md").unlink()
    with pytest.raises(BuildError, match=r"policy\.zh\.md is missing"):
        build(root, tmp_path / "dataset")
    assert not (tmp_path / "dataset").exists()


def test_repo_id_appears_in_the_card(tmp_path: Path) -> None:
    build(FIXTURE, tmp_path / "dataset", "acme/callbank")
    assert 'load_dataset("acme/callbank", "normal_single_turn_single", split="en")' in (tmp_path / "dataset/README.md").read_text(encoding="utf-8")


def test_docs_describe_every_column() -> None:
    from tests.hub.helpers import ROOT
    from validator.hub.card import columns_section

    docs = (ROOT / "docs/publishing.md").read_text(encoding="utf-8")
    expected = columns_section().replace("## Columns", "### Columns", 1).replace("\n### ", "\n#### ")
    assert expected in docs, "docs/publishing.md is stale: paste validator.hub.card.columns_section() (headings one level down)"


def test_a_folder_named_like_the_score_entry_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="loading script"):
        build(FIXTURE, tmp_path / "score")
