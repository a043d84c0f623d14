"""The corpus index: every file loaded once, records only for schema-valid documents, lookups."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fixture_repos import REPOS
from validator.corpus import index as index_module
from validator.corpus.index import Corpus
from validator.corpus.records import AssistantTurn, Case, Checkpoint, SandboxState, Spec, ToolTurn, UserTurn
from validator.errors import UserError

SCORING = REPOS / "scoring"


def copy(tmp_path: Path, name: str = "minimal") -> Path:
    target = tmp_path / name
    shutil.copytree(REPOS / name, target)
    return target


def test_each_file_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = copy(tmp_path)
    parsed: list[str] = []
    real = index_module.load_file
    monkeypatch.setattr(index_module, "load_file", lambda root, path, kind: parsed.append(path) or real(root, path, kind))
    corpus = Corpus.load(root)
    assert sorted(parsed) == sorted(path for path, _ in corpus.discovered) and len(set(parsed)) == len(parsed)
    first = corpus.load_file("specs/mini/get_weather.yaml")
    assert corpus.load_file("specs/mini/get_weather.yaml") is first and len(parsed) == len(corpus.discovered)


def test_records_keep_their_document_and_pointers() -> None:
    corpus = Corpus.load(SCORING)
    case = corpus.cases["adjust-0001"]
    assert isinstance(case, Case) and case.path == "dialogues/normal/multi_turn/adjust/adjust-0001.yaml"
    dialogue = case.dialogues["zh"]
    assert [type(t) for t in dialogue.turns][:4] == [UserTurn, Checkpoint, ToolTurn, AssistantTurn]
    assert [c.step for c in dialogue.checkpoints] == [0, 1] and dialogue.pointer == "/zh/turns"
    first = dialogue.checkpoints[0]
    assert first.expect_pointer == "/zh/turns/1/expect" and first.first[0].pointer == "/zh/turns/1/expect/calls/0"
    assert case.document.locate(first.first[0].arg_pointer("city"))[0] is not None
    assert dialogue.user_text(first.index) == dialogue.turns[0].text  # type: ignore[union-attr]
    spec = corpus.specs["get_weather"]
    assert isinstance(spec, Spec) and spec.sandbox is not None and "city" in spec.properties and spec.required
    assert spec.function_schema("zh")["description"] == spec.description["zh"]
    assert isinstance(next(iter(corpus.states.values())), SandboxState)


def test_a_document_that_breaks_its_schema_has_no_record_and_is_refused(tmp_path: Path) -> None:
    root = copy(tmp_path)
    path = root / "dialogues/normal/single_turn/single/single-0001.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("category: normal/single_turn/single", "category: normal/single"), encoding="utf-8")
    corpus = Corpus.load(root)
    loaded = corpus.files["dialogues/normal/single_turn/single/single-0001.yaml"]
    assert loaded.record is None and loaded.schema_errors and loaded.broken
    assert "single-0001" not in corpus.cases and corpus.broken() == [loaded]
    with pytest.raises(UserError, match=r"1 corpus file\(s\) cannot be read or break their schema \(dialogues/normal/single_turn/single/single-0001\.yaml\); `callbank score`"):
        corpus.require_intact("score")


def test_lookups_by_id_name_category_sandbox_and_language() -> None:
    corpus = Corpus.load(SCORING)
    assert [c.id for c in corpus.cases_in(["normal/atom"])] == sorted(c.id for c in corpus.cases.values() if c.category.startswith("normal/atom/"))
    assert {s.category for s in corpus.scenarios_in(["agent/multi_step"])} <= {"agent/multi_step"}
    office = corpus.specs_of_sandbox("office")
    assert office and all(spec.sandbox == "office" and not spec.spec_only for spec in office)
    assert set(corpus.sandboxes) == set(corpus.sandbox_names) and all(info.has_code for info in corpus.sandboxes.values())
    assert isinstance(corpus.item("adjust-0001"), Case) and corpus.item("nothing") is None
    assert all(set(case.dialogues) == {"en", "zh"} for case in corpus.cases.values())


def test_the_first_file_in_path_order_keeps_a_duplicated_id(tmp_path: Path) -> None:
    root = copy(tmp_path)
    source = root / "dialogues/normal/single_turn/single/single-0001.yaml"
    twin = root / "dialogues/normal/single_turn/parallel/single-0001.yaml"
    twin.parent.mkdir(parents=True)
    twin.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    corpus = Corpus(root)
    corpus.load_file("dialogues/normal/single_turn/single/single-0001.yaml")
    corpus.load_file("dialogues/normal/single_turn/parallel/single-0001.yaml")  # loaded second, sorts first
    assert corpus.cases["single-0001"].path == "dialogues/normal/single_turn/parallel/single-0001.yaml"
    assert corpus.id_paths["single-0001"] == ["dialogues/normal/single_turn/parallel/single-0001.yaml", "dialogues/normal/single_turn/single/single-0001.yaml"]


def test_a_missing_or_empty_corpus_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="is not a directory"):
        Corpus.load(tmp_path / "nowhere")
    with pytest.raises(UserError, match="no callbank corpus"):
        Corpus.load_benchmark(tmp_path, "run")


# ----------------------------------------------------------------------------- with_file: one more file, not on disk

MINIMAL_CASE = (REPOS / "minimal" / "dialogues/normal/single_turn/single/single-0001.yaml").read_text(encoding="utf-8")


def test_the_view_holds_the_new_file_and_the_corpus_does_not() -> None:
    corpus = Corpus.load(REPOS / "minimal")
    path = "dialogues/normal/single_turn/single/single-0002.yaml"
    view, loaded = corpus.with_file(path, "case", MINIMAL_CASE.replace("single-0001", "single-0002"))
    assert loaded.record is not None and view.cases["single-0002"].path == path
    assert "single-0002" not in corpus.cases and path not in corpus.files and path not in corpus.kinds
    assert view.id_paths["single-0002"] == [path] and "single-0002" not in corpus.id_paths
    assert view.specs.keys() == corpus.specs.keys()


def test_a_new_file_reusing_an_id_is_seen_as_a_second_file_with_it() -> None:
    corpus = Corpus.load(REPOS / "minimal")
    path = "dialogues/normal/single_turn/single/single-0001-copy.yaml"
    view, loaded = corpus.with_file(path, "case", MINIMAL_CASE)
    assert loaded.record is not None
    assert view.id_paths["single-0001-copy"] == [path]
    assert corpus.id_paths["single-0001"] == ["dialogues/normal/single_turn/single/single-0001.yaml"]


def test_broken_text_gives_a_file_with_its_load_problem_and_no_record() -> None:
    corpus = Corpus.load(REPOS / "minimal")
    _, loaded = corpus.with_file("dialogues/normal/single_turn/single/x-1.yaml", "case", "id: [unclosed\n")
    assert loaded.record is None and loaded.problems


def test_reload_replaces_a_rewritten_files_record(tmp_path: Path) -> None:
    root = copy(tmp_path)
    corpus = Corpus.load(root)
    path = "dialogues/normal/single_turn/single/single-0001.yaml"
    before = corpus.cases["single-0001"]
    (root / path).write_text((root / path).read_text(encoding="utf-8").replace("days: 3", "days: 2"), encoding="utf-8")
    corpus.reload([path])
    after = corpus.cases["single-0001"]
    assert after is not before and after.dialogues["en"].checkpoints[0].first[0].args["days"] == 2
    assert corpus.files[path].record is after
