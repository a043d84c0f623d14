"""Pushing a built dataset folder to the Hub in one atomic commit (the only module that talks to it).

The sequence: create the dataset repo if needed; read the head commit of the target branch and
the files at it; send **one** ``create_commit`` holding an add for every built file and a delete
for every remote file the build no longer has, guarded by ``parent_commit`` (so a branch that
moved in between makes the Hub refuse the commit instead of silently mixing two versions);
then, if asked, tag that commit. The Hub applies a commit entirely or not at all, so a failure
at any step leaves the dataset as it was. Every failure becomes a ``PublishError`` whose message
is one line.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from validator.hub.build import RESERVED_NAME, SCORE_ENTRY, BuiltFile

REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
KEEP_REMOTE = frozenset({".gitattributes"})  # managed by the Hub (LFS patterns), never deleted


class PublishError(Exception):
    """Publishing failed; nothing (or, for a tag, nothing but the commit) reached the Hub."""


class Plan(NamedTuple):
    repo_id: str
    revision: str
    create_pr: bool
    tag: str | None
    files: list[BuiltFile]


class Published(NamedTuple):
    commit: str
    commit_url: str
    pr_url: str | None
    added: int
    deleted: list[str]
    unchanged: bool  # the Hub already held exactly this build; no commit was made


def describe_plan(plan: Plan, endpoint: str | None) -> list[str]:
    """The operations of a publish, one per line, as `--dry-run` prints them."""
    where = endpoint or os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    target = f"a pull request against {plan.revision}" if plan.create_pr else f"branch {plan.revision}"
    lines = [f"dry run: nothing is sent to {where}", f"create dataset repo {plan.repo_id} if it does not exist"]
    lines += [f"add {f.path} ({f.size} bytes, sha256 {f.sha256[:12]})" for f in plan.files]
    lines.append("delete every other file of the remote head (except .gitattributes), listed when publishing")
    lines.append(f"one commit to {target}, guarded by the head commit read just before")
    if plan.tag:
        lines.append(f"tag that commit {plan.tag}")
    return lines


def check_options(repo_id: str, create_pr: bool, tag: str | None) -> None:
    """Option errors, found before any work is done."""
    if not REPO_ID.match(repo_id):
        raise PublishError(f"--repo-id must look like ORG/NAME, not {repo_id!r}")
    if repo_id.split("/")[1] == RESERVED_NAME:
        raise PublishError(f"a dataset named {RESERVED_NAME!r} makes `datasets` take its {SCORE_ENTRY} for a loading script; choose another name")
    if tag is not None and create_pr:
        raise PublishError("--tag cannot be combined with --create-pr; tag the version after the pull request is merged")


def resolve_token() -> str:
    """The token of the standard places (HF_TOKEN, then the login file), or a PublishError."""
    from huggingface_hub import get_token

    token = get_token()
    if not token:
        raise PublishError("no Hugging Face token: set HF_TOKEN or run `hf auth login` (a token with write access)")
    return token


def publish(
    folder: Path,
    plan: Plan,
    *,
    token: str,
    endpoint: str | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> Published:
    """Send the built folder as one commit; see the module docstring for the guarantees."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        raise PublishError("HF_HUB_OFFLINE is set; unset it to publish")
    endpoint = endpoint or os.environ.get("HF_ENDPOINT") or None
    step = "connecting"
    try:
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi

        api = HfApi(endpoint=endpoint, token=token)
        step = "creating the repository"
        api.create_repo(plan.repo_id, repo_type="dataset", exist_ok=True)
        step = f"reading {plan.revision}"
        info = api.repo_info(plan.repo_id, repo_type="dataset", revision=plan.revision)
        parent = info.sha
        remote = api.list_repo_files(plan.repo_id, repo_type="dataset", revision=parent) if parent else []
        if plan.tag:
            step = "reading tags"
            tags = {ref.name for ref in api.list_repo_refs(plan.repo_id, repo_type="dataset").tags}
            if plan.tag in tags:
                raise PublishError(f"tag {plan.tag} already exists in {plan.repo_id}; choose a new version")
        built = {f.path for f in plan.files}
        deleted = sorted(path for path in remote if path not in built and path not in KEEP_REMOTE)
        operations: list[Any] = [CommitOperationAdd(path_in_repo=f.path, path_or_fileobj=str(folder / f.path)) for f in plan.files]
        operations += [CommitOperationDelete(path_in_repo=path) for path in deleted]
        log(f"committing {len(plan.files)} file(s) and {len(deleted)} deletion(s) on top of {(parent or 'an empty repo')[:12]}")
        step = "committing"
        commit = api.create_commit(
            plan.repo_id,
            operations,
            repo_type="dataset",
            revision=plan.revision,
            create_pr=plan.create_pr,
            parent_commit=parent,
            commit_message=f"Publish callbank dataset{f' {plan.tag}' if plan.tag else ''}",
            commit_description=f"{len(plan.files)} file(s) added or updated, {len(deleted)} removed, by `callbank publish`.",
        )
    except PublishError:
        raise
    except Exception as error:  # every failure of the client becomes one line
        raise PublishError(explain(error, step, plan, endpoint)) from None
    if plan.tag:
        try:
            api.create_tag(plan.repo_id, tag=plan.tag, revision=commit.oid, repo_type="dataset")
        except Exception as error:
            detail = explain(error, "tagging", plan, endpoint)
            raise PublishError(f"published commit {commit.oid[:12]}, but tagging it {plan.tag} failed: {detail}") from None
    return Published(commit.oid, commit.commit_url, commit.pr_url, len(plan.files), deleted, commit.oid == parent)


def explain(error: BaseException, step: str, plan: Plan, endpoint: str | None) -> str:
    """One line saying what went wrong, at which step, and what to do."""
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled, RepositoryNotFoundError, RevisionNotFoundError

    nothing = "nothing was published"
    where = endpoint or os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    if isinstance(error, OfflineModeIsEnabled):
        return "HF_HUB_OFFLINE is set; unset it to publish"
    if isinstance(error, ValueError) and "Invalid metadata in README.md" in str(error):
        reasons = "; ".join(line.lstrip("- ").strip() for line in str(error).splitlines()[1:] if line.strip())
        return f"the Hub rejected the dataset card (README.md): {reasons or 'invalid metadata'}; {nothing}"
    if isinstance(error, RevisionNotFoundError):
        return f"revision {plan.revision} does not exist in {plan.repo_id}; create the branch first; {nothing}"
    if isinstance(error, HfHubHTTPError):
        response = getattr(error, "response", None)
        status = getattr(response, "status_code", None)
        server = _server_message(error)
        if status == 412 or (status == 409 and step == "committing"):
            return (
                f"{plan.revision} of {plan.repo_id} moved while publishing (its head is no longer the parent commit); "
                f"{nothing}; run publish again"
            )
        if status in (401, 403) or isinstance(error, RepositoryNotFoundError):
            return f"the Hub refused access to {plan.repo_id} while {step} (HTTP {status}); check that the token may write to it; {nothing}"
        return f"the Hub answered HTTP {status} while {step}{f': {server}' if server else ''}; {nothing}"
    if _is_connection_error(error):
        if step == "committing":  # the request may have arrived even though its answer did not
            nothing = f"the commit may or may not have been applied: look at {plan.repo_id} before publishing again"
        return f"cannot reach the Hub at {where} while {step} ({type(error).__name__}); check the network or HF_ENDPOINT; {nothing}"
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"publishing failed while {step}: {type(error).__name__}{f': {first}' if first else ''}; {nothing}"


def _server_message(error: Exception) -> str:
    message = getattr(error, "server_message", None) or ""
    return " ".join(str(message).split())[:200]


def _is_connection_error(error: BaseException) -> bool:
    """Transport failures of whichever HTTP library the installed client uses (httpx2, httpx, requests)."""
    if isinstance(error, (ConnectionError, TimeoutError, socket.gaierror)):
        return True
    names = {cls.__name__ for cls in type(error).__mro__}
    return bool(names & {"TransportError", "ConnectError", "ConnectTimeout", "ConnectionError", "Timeout", "TimeoutException"})


def plan_from(files: Sequence[BuiltFile], repo_id: str, revision: str | None, create_pr: bool, tag: str | None) -> Plan:
    check_options(repo_id, create_pr, tag)
    return Plan(repo_id, revision or "main", create_pr, tag, list(files))
