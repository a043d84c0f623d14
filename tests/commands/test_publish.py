"""`callbank publish` against a Hub-compatible server on 127.0.0.1, with the real huggingface_hub client.

Each run is a fresh `python -m validator publish` process: huggingface_hub reads HF_ENDPOINT,
HF_HOME and offline mode when it is imported, so only a new process sees the test's settings.
"""

from __future__ import annotations

import base64
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.commands.test_build import add_pending_record, break_a_rule
from tests.hub.fake_hub import GITATTRIBUTES, FakeHub
from tests.hub.helpers import accept_everything, copy_fixture, hub_env, run_callbank
from validator.hub.build import build

REPO_ID = "acme/callbank"


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub() as server:
        yield server


REVIEWED_BY_PEOPLE = ("sp-incomplete-0001",)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The hub fixture with every item accepted in review (one of them by people): publishable."""
    root = copy_fixture(tmp_path)
    accept_everything(root, by_reviewers=REVIEWED_BY_PEOPLE)
    return root


def publish(tmp_path: Path, hub: FakeHub, corpus: Path, *args: str, token: str | None = "default", endpoint: str | None = None):
    env = hub_env(tmp_path, HF_ENDPOINT=endpoint or hub.endpoint)
    if token is not None:
        env["HF_TOKEN"] = hub.token if token == "default" else token
    return run_callbank(["publish", "--repo-id", REPO_ID, "--repo", str(corpus), *args], env)


def built_files(tmp_path: Path, corpus: Path, repo_id: str = REPO_ID) -> dict[str, bytes]:
    out = tmp_path / f"expected-{repo_id.replace('/', '-')}"
    build(corpus, out, repo_id)
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def commit_posts(hub: FakeHub) -> list[str]:
    return [r for r in hub.routes() if r.startswith("POST ") and "/commit/" in r]


def one_line(text: str) -> str:
    assert "Traceback" not in text
    lines = [line for line in text.splitlines() if line.startswith("callbank publish:")]
    assert len(lines) == 1, text
    return lines[0]


def test_one_commit_carries_every_built_file(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    result = publish(tmp_path, hub, corpus, "--tag", "v1.0.0")
    assert result.returncode == 0, result.stderr
    expected = built_files(tmp_path, corpus)
    [commit] = hub.commits_received
    header, *operations = commit
    assert header["key"] == "header" and header["value"]["parentCommit"]
    sent = {op["value"]["path"]: base64.b64decode(op["value"]["content"]) for op in operations if op["key"] == "file"}
    assert sent == expected and len(operations) == len(expected)
    assert hub.files(REPO_ID) == {**expected, ".gitattributes": GITATTRIBUTES}
    assert len(commit_posts(hub)) == 1 and hub.unknown_routes == []
    assert hub.repos[REPO_ID].tags == {"v1.0.0": hub.repos[REPO_ID].branches["main"]}
    assert f"published {len(expected)} file(s) to {REPO_ID} in commit" in result.stdout


def test_stale_remote_files_are_deleted_in_the_same_commit(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    hub.create(REPO_ID)
    hub.push_external(REPO_ID, "data/old_config/en.parquet", b"PAR1 old")
    result = publish(tmp_path, hub, corpus)
    assert result.returncode == 0, result.stderr
    [commit] = hub.commits_received
    assert [op["value"]["path"] for op in commit if op["key"] == "deletedFile"] == ["data/old_config/en.parquet"]
    assert set(hub.files(REPO_ID)) == set(built_files(tmp_path, corpus)) | {".gitattributes"}
    assert "removed 1 stale file(s): data/old_config/en.parquet" in result.stdout


def test_republishing_the_same_build_makes_no_commit(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    assert publish(tmp_path, hub, corpus).returncode == 0
    again = publish(tmp_path, hub, corpus)
    assert again.returncode == 0, again.stderr
    assert len(hub.commits_received) == 1
    assert "already holds this build" in again.stdout


def test_dry_run_sends_nothing(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    result = publish(tmp_path, hub, corpus, "--dry-run", token=None)
    assert result.returncode == 0, result.stderr
    assert hub.requests == []
    lines = result.stdout.splitlines()
    assert lines[0] == f"dry run: nothing is sent to {hub.endpoint}"
    added = [line.split()[1] for line in lines if line.startswith("add ")]
    assert added == sorted(built_files(tmp_path, corpus))


def test_a_server_error_on_commit_publishes_nothing(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    hub.fail_commit_with = 500
    result = publish(tmp_path, hub, corpus)
    assert result.returncode == 1
    message = one_line(result.stderr)
    assert "HTTP 500 while committing" in message and "nothing was published" in message
    assert hub.commits_received == [] and hub.files(REPO_ID) == {".gitattributes": GITATTRIBUTES}


def test_a_branch_that_moved_publishes_nothing(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    hub.create(REPO_ID)
    hub.move_branch_on_preupload = True
    result = publish(tmp_path, hub, corpus)
    assert result.returncode == 1
    assert "main of acme/callbank moved while publishing" in one_line(result.stderr)
    assert hub.commits_received == [] and set(hub.files(REPO_ID)) == {".gitattributes", "CONCURRENT.md"}


def test_a_rejected_card_publishes_nothing(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    hub.reject_card = '"license" must be one of the licenses the Hub knows'
    result = publish(tmp_path, hub, corpus)
    assert result.returncode == 1
    message = one_line(result.stderr)
    assert 'the Hub rejected the dataset card (README.md): "license" must be one of the licenses the Hub knows' in message
    assert commit_posts(hub) == []


def test_no_token_is_a_clear_error(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    result = publish(tmp_path, hub, corpus, token=None)
    assert result.returncode == 1
    assert "no Hugging Face token: set HF_TOKEN or run `hf auth login`" in one_line(result.stderr)
    assert hub.requests == []


def test_a_refused_token_is_a_clear_error(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    result = publish(tmp_path, hub, corpus, token="hf_wrong")
    assert result.returncode == 1
    assert "the Hub refused access to acme/callbank while creating the repository (HTTP 401)" in one_line(result.stderr)


def test_an_unreachable_hub_is_a_clear_error(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = publish(tmp_path, hub, corpus, endpoint=f"http://127.0.0.1:{port}")
    assert result.returncode == 1
    assert f"cannot reach the Hub at http://127.0.0.1:{port} while creating the repository" in one_line(result.stderr)


def test_a_pending_review_refuses_before_any_request(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    add_pending_record(corpus)
    result = publish(tmp_path, hub, corpus)
    assert result.returncode == 1
    assert result.stderr.startswith("callbank publish: refused, 1 blocking review record(s)")
    assert hub.requests == []


def test_a_failing_rule_refuses_before_any_request(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    break_a_rule(corpus)
    result = publish(tmp_path, hub, corpus)
    assert result.returncode == 1
    assert result.stderr.startswith("callbank publish: refused,") and "validation finding" in result.stderr.splitlines()[0]
    assert hub.requests == []


def test_from_a_finished_build(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    out = tmp_path / "dist"
    build(corpus, out, REPO_ID)
    result = publish(tmp_path, hub, corpus, "--from", str(out))
    assert result.returncode == 0, result.stderr
    assert len(hub.commits_received) == 1


def test_from_a_build_that_is_not_the_corpus(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    out = tmp_path / "dist"
    build(corpus, out, REPO_ID)
    (out / "data/apis/en.parquet").write_bytes(b"PAR1 tampered")
    result = publish(tmp_path, hub, corpus, "--from", str(out))
    assert result.returncode == 1
    assert "is not the build of the current corpus for acme/callbank (data/apis/en.parquet differs)" in one_line(result.stderr)
    assert hub.requests == []


def test_create_pr_leaves_the_branch_alone(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    result = publish(tmp_path, hub, corpus, "--create-pr")
    assert result.returncode == 0, result.stderr
    assert hub.files(REPO_ID) == {".gitattributes": GITATTRIBUTES}
    assert set(hub.files(REPO_ID, "refs/pr/1")) == set(built_files(tmp_path, corpus)) | {".gitattributes"}
    assert f"pull request: {hub.endpoint}/datasets/{REPO_ID}/discussions/1" in result.stdout


def test_an_existing_tag_refuses_before_committing(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    repo = hub.create(REPO_ID)
    repo.tags["v1"] = repo.branches["main"]
    result = publish(tmp_path, hub, corpus, "--tag", "v1")
    assert result.returncode == 1
    assert "tag v1 already exists in acme/callbank" in one_line(result.stderr)
    assert hub.commits_received == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tag", "v1", "--create-pr"], "--tag cannot be combined with --create-pr"),
        (["--repo-id", "not a repo"], "--repo-id must look like ORG/NAME"),
        (["--repo-id", "acme/score"], "makes `datasets` take its score.py for a loading script"),
    ],
)
def test_option_errors_exit_2(tmp_path: Path, hub: FakeHub, corpus: Path, args: list[str], message: str) -> None:
    result = publish(tmp_path, hub, corpus, *args)
    assert result.returncode == 2
    assert message in one_line(result.stderr)
    assert hub.requests == []


LOAD_FROM_HUB = """
import json, sys
from validator.hub.load import load, load_source
print(json.dumps({"en": load(sys.argv[1], "apis", "en"), "source": load_source(sys.argv[1], "normal_preference")}))
"""


def test_the_loader_reads_the_published_dataset_from_the_hub(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    import json
    import subprocess
    import sys

    from validator.hub.load import load, load_source

    assert publish(tmp_path, hub, corpus).returncode == 0
    env = hub_env(tmp_path, HF_ENDPOINT=hub.endpoint, HF_TOKEN=hub.token)
    result = subprocess.run([sys.executable, "-c", LOAD_FROM_HUB, REPO_ID], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    local = tmp_path / "local"
    build(corpus, local, REPO_ID)
    assert json.loads(result.stdout) == {"en": load(local, "apis", "en"), "source": load_source(local, "normal_preference")}
    downloaded = {r.split("/resolve/", 1)[1].split("/", 1)[1] for r in hub.routes() if r.startswith("GET /datasets/")}
    assert downloaded == {"README.md", "data/apis/en.parquet", "data/apis/zh.parquet", "data/normal_preference/en.parquet", "data/normal_preference/zh.parquet"}


# ----------------------------------------------------------------------------- review before publishing


def test_a_reviewed_corpus_says_who_accepted_it(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    assert publish(tmp_path, hub, corpus).returncode == 0
    card = hub.files(REPO_ID)["README.md"].decode("utf-8")
    assert "Every one of the 10 cases and agent scenarios was accepted in review:" in card
    assert "| the judge models, unanimously (every judge voted `valid`) | 9 |" in card
    assert "| human reviewers (two agreeing reviews, or a third reviewer's decision) | 1 |" in card
    assert "Preview" not in card and "not accepted" not in card


def test_an_unreviewed_item_refuses_publishing_before_any_request(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    (corpus / "review/queue/phone-0002.yaml").unlink()
    result = publish(tmp_path, hub, corpus)
    assert result.returncode == 1
    first, second = result.stderr.splitlines()
    assert first == (
        "callbank publish: refused, 1 item(s) never reviewed (run `callbank review run`, or publish a preview with "
        "--allow-unreviewed); nothing was written or sent"
    )
    assert second.startswith("  sandboxes/phone/scenarios/phone-0002.yaml:1:1: REV005 phone-0002 has no review record")
    assert hub.requests == []


def test_allow_unreviewed_publishes_a_preview_whose_card_says_so(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    (corpus / "review/queue/phone-0002.yaml").unlink()
    (corpus / "review/queue/st-single-0001.yaml").unlink()
    result = publish(tmp_path, hub, corpus, "--allow-unreviewed")
    assert result.returncode == 0, result.stderr
    assert "callbank publish: a preview: 2 of 10 items have no accepted review; the dataset card says so" in result.stderr
    card = hub.files(REPO_ID)["README.md"].decode("utf-8")
    assert "> **Preview: not fully reviewed.** 2 of the 10 cases and agent scenarios in this dataset have no accepted review." in card
    assert "Of the 10 cases and agent scenarios, 8 were accepted in review:" in card
    assert "| the judge models, unanimously (every judge voted `valid`) | 7 |" in card
    assert "| **not accepted**: no review record yet | 2 |" in card
    assert len(hub.commits_received) == 1


def test_allow_unreviewed_does_not_let_a_pending_review_through(tmp_path: Path, hub: FakeHub, corpus: Path) -> None:
    add_pending_record(corpus)
    result = publish(tmp_path, hub, corpus, "--allow-unreviewed")
    assert result.returncode == 1 and "1 blocking review record(s)" in result.stderr.splitlines()[0]
    assert hub.requests == []
