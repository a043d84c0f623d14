"""Resumable output: torn lines, keys of finished records, manifests that must agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from validator.errors import UserError
from validator.models.resume import RecordWriter, corpus_version, finished_keys, manifest_path, open_run, write_manifest
from validator.scoring.predictions import record_key

SETTINGS = {"model": "m", "endpoint": "http://127.0.0.1:1/v1", "syntax": "python", "style": "standard", "corpus_version": "sha256:aa"}


def test_record_keys_are_the_scorers() -> None:
    assert record_key({"id": "a", "lang": "en", "step": 2, "output": ""}) == ("a", "en", 2)
    assert record_key({"id": "a", "lang": "zh", "output": ""}) == ("a", "zh", 0)
    # one step convention: a scenario's record is step 0, as the scorer reads it
    assert record_key({"id": "s", "lang": "en", "calls": [], "messages": []}) == ("s", "en", 0)
    assert record_key({"id": "s", "lang": "en", "step": None, "calls": [], "messages": []}) == ("s", "en", 0)
    assert record_key({"id": "a", "lang": "fr"}) is None and record_key({"id": "a", "lang": "en", "step": True}) is None


def test_a_torn_last_line_is_cut_off(tmp_path: Path) -> None:
    out = tmp_path / "p.jsonl"
    out.write_bytes(b'{"id": "a", "lang": "en", "step": 0, "output": ""}\nnot json\n{"id": "b", "lang": "en", "st')
    assert finished_keys(out) == {("a", "en", 0)}
    assert out.read_bytes().endswith(b"not json\n")
    writer = RecordWriter(out)
    writer.write({"id": "b", "lang": "en", "step": 0, "output": "é"})
    with pytest.raises(ValueError, match="breaks its schema"):
        writer.write({"id": "b", "lang": "en", "step": -1, "output": ""})  # a bug of the writer, never written
    writer.close()
    assert finished_keys(out) == {("a", "en", 0), ("b", "en", 0)}
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[-1])["output"] == "é"


def test_open_run_resumes_refuses_and_overwrites(tmp_path: Path) -> None:
    out = tmp_path / "p.jsonl"
    done, manifest = open_run(out, SETTINGS)
    assert done == set() and manifest["sessions"] == [] and manifest["version"] == 1
    out.write_text('{"id": "a", "lang": "en", "step": 0, "output": ""}\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"has no readable p\.jsonl\.manifest\.json"):
        open_run(out, SETTINGS)
    write_manifest(manifest_path(out), {**manifest, "sessions": [{"status": "complete"}]})
    done, resumed = open_run(out, SETTINGS)
    assert done == {("a", "en", 0, 0)} and resumed["sessions"] == [{"status": "complete"}]
    with pytest.raises(UserError, match=r"different run \(style: \"standard\" → \"minimal\"\)"):
        open_run(out, {**SETTINGS, "style": "minimal"})
    with pytest.raises(UserError, match=r"corpus_version: sha256:aa… → sha256:bb…"):
        open_run(out, {**SETTINGS, "corpus_version": "sha256:bb"})
    done, fresh = open_run(out, {**SETTINGS, "style": "minimal"}, overwrite=True)
    assert done == set() and not out.exists() and fresh["sessions"] == []


def test_corpus_version_follows_the_files(tmp_path: Path) -> None:
    (tmp_path / "specs" / "x").mkdir(parents=True)
    spec = tmp_path / "specs" / "x" / "a.yaml"
    spec.write_text("name: a\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("not corpus", encoding="utf-8")
    first = corpus_version(tmp_path)
    (tmp_path / "README.md").write_text("still not corpus", encoding="utf-8")
    (tmp_path / "specs" / "x" / "__pycache__").mkdir()
    (tmp_path / "specs" / "x" / "__pycache__" / "a.pyc").write_bytes(b"\0")
    assert corpus_version(tmp_path) == first
    spec.write_text("name: b\n", encoding="utf-8")
    assert corpus_version(tmp_path) != first
