"""`validator.hub.publish`: the plan a dry run prints and the one-line explanations of failures."""

from __future__ import annotations

import httpx2
import pytest

from validator.hub.build import BuiltFile
from validator.hub.publish import Plan, PublishError, check_options, describe_plan, explain

PLAN = Plan("acme/callbank", "main", False, "v1", [BuiltFile("README.md", 10, "ab" * 32)])


def test_describe_plan_lists_every_operation() -> None:
    lines = describe_plan(PLAN, "http://127.0.0.1:9")
    assert lines[0] == "dry run: nothing is sent to http://127.0.0.1:9"
    assert f"add README.md (10 bytes, sha256 {'ab' * 6})" in lines
    assert lines[-2:] == ["one commit to branch main, guarded by the head commit read just before", "tag that commit v1"]


@pytest.mark.parametrize(
    ("repo_id", "create_pr", "tag", "message"),
    [
        ("callbank", False, None, "must look like ORG/NAME"),
        ("acme/score", False, None, "loading script"),
        ("acme/callbank", True, "v1", "cannot be combined"),
    ],
)
def test_option_errors(repo_id: str, create_pr: bool, tag: str | None, message: str) -> None:
    with pytest.raises(PublishError, match=message):
        check_options(repo_id, create_pr, tag)


def test_a_lost_answer_to_the_commit_is_not_called_unpublished() -> None:
    message = explain(httpx2.ConnectError("reset"), "committing", PLAN, "http://hub")
    assert "may or may not have been applied" in message and "nothing was published" not in message
    assert explain(httpx2.ConnectError("refused"), "creating the repository", PLAN, "http://hub").endswith("nothing was published")


def test_a_rejected_card_names_the_hub_reasons() -> None:
    error = ValueError("Invalid metadata in README.md.\n- \"license\" is not valid\n- \"language[1]\" is not valid")
    assert explain(error, "committing", PLAN, None) == (
        'the Hub rejected the dataset card (README.md): "license" is not valid; "language[1]" is not valid; nothing was published'
    )


def test_anything_else_is_one_line() -> None:
    message = explain(RuntimeError("boom\nsecond line"), "reading main", PLAN, None)
    assert message == "publishing failed while reading main: RuntimeError: boom; nothing was published"
