"""Writing an import: all or nothing, an earlier import replaced, anything else at --out refused."""

from __future__ import annotations

from pathlib import Path

from tests.importers.support import import_peer, invoke


def test_earlier_import_is_replaced(tmp_path: Path) -> None:
    out = tmp_path / "out"
    import_peer("bfcl", out)
    stale = out / "dialogues" / "stale.yaml"
    stale.write_text("id: stale\n", encoding="utf-8")
    import_peer("bfcl", out)
    assert not stale.exists() and (out / "import-report.json").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.importing")]  # no staging left behind


def test_other_content_at_out_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    result = invoke("import", "bfcl", str(Path(__file__).parents[1] / "fixtures" / "import" / "bfcl"), "--out", str(out))
    assert result.exit_code == 2 and "holds something other than an earlier import" in result.output
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_yaml_is_callbank_strict_dialect(tmp_path: Path) -> None:
    import_peer("apibank", tmp_path / "ab")
    text = (tmp_path / "ab" / "specs" / "apibank" / "set_timer.yaml").read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=../../schemas/api.schema.json\n")
    assert "&" not in text and "*id" not in text  # no anchors or aliases
