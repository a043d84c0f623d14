"""The Inspect task's arguments as `inspect eval -T …` passes them, and its dataset."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.errors import UserError

pytest.importorskip("inspect_ai", reason="the Inspect task needs the inspect extra")

from validator.inspect_task.task import callbank, corpus_root

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "repos" / "scoring"


def test_a_relative_repo_is_read_from_where_inspect_eval_was_started(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PWD", str(ROOT))
    monkeypatch.chdir(ROOT / "validator" / "inspect_task")  # where Inspect imports the task file from
    assert corpus_root("tests/fixtures/repos/scoring") == FIXTURE
    assert corpus_root(".") == ROOT
    assert corpus_root(str(FIXTURE)) == FIXTURE


def test_lists_from_the_command_line_select_the_samples() -> None:
    task = callbank(repo=str(FIXTURE), lang=["zh"], category=["normal/atom", "agent"])
    samples = list(task.dataset)
    assert samples and all(str(sample.id).endswith(":zh") for sample in samples)
    categories = {sample.metadata["category"] for sample in samples if sample.metadata}
    assert categories and all(c.startswith(("normal/atom", "agent")) for c in categories)
    assert {sample.metadata["kind"] for sample in samples if sample.metadata} == {"case", "scenario"}
    assert len(list(callbank(repo=str(FIXTURE), lang="en,zh", category="normal/atom,agent").dataset)) == 2 * len(samples)


def test_bad_arguments_are_refused_with_what_to_change() -> None:
    with pytest.raises(UserError, match="lang must be all or a comma-separated list of en, zh, not fr"):
        callbank(repo=str(FIXTURE), lang="fr")
    with pytest.raises(UserError, match="mode must be fc or prompt"):
        callbank(repo=str(FIXTURE), mode="native")
    with pytest.raises(UserError, match="no case or scenario"):
        callbank(repo=str(FIXTURE), category="normal/nothing")
