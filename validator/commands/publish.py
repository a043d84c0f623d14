"""`callbank publish --repo-id ORG/NAME`: build (or take a finished build) and push it in one commit."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from validator.commands.options import repo_option, resolve_root

if TYPE_CHECKING:
    from validator.hub.build import BuiltFile
    from validator.hub.publish import Published


def _differences(expected: list[BuiltFile], actual: list[BuiltFile]) -> list[str]:
    want = {f.path: f.sha256 for f in expected}
    have = {f.path: f.sha256 for f in actual}
    missing = [f"{p} is missing" for p in sorted(set(want) - set(have))]
    extra = [f"{p} is not part of the build" for p in sorted(set(have) - set(want))]
    changed = [f"{p} differs" for p in sorted(set(want) & set(have)) if want[p] != have[p]]
    return missing + extra + changed


def run_publish(
    repo_id: str,
    from_dir: str | None,
    revision: str | None,
    create_pr: bool,
    dry_run: bool,
    tag: str | None,
    repo_root: str | None,
    allow_unreviewed: bool = False,
) -> int:
    from validator.corpus.index import Corpus
    from validator.hub.build import BuildError, build, list_files
    from validator.hub.gates import check_gates, describe_refusal
    from validator.hub.publish import PublishError, check_options, describe_plan, plan_from, publish, resolve_token
    from validator.review.gate import review_summary

    root = resolve_root(repo_root)
    try:
        check_options(repo_id, create_pr, tag)
    except PublishError as error:
        click.echo(f"callbank publish: {error}", err=True)
        return 2
    if from_dir is not None and not Path(from_dir).is_dir():
        click.echo(f"callbank publish: --from {from_dir} is not a folder", err=True)
        return 2
    corpus = Corpus.load(root)
    blockers = check_gates(root, corpus, publishing=True, allow_unreviewed=allow_unreviewed)
    if blockers:
        click.echo(describe_refusal("publish", blockers), err=True)
        return 1
    review = review_summary(corpus)
    if not review.complete:
        # only reachable with --allow-unreviewed: the card built below carries the preview notice
        click.echo(f"callbank publish: a preview: {review.items - review.accepted} of {review.items} items have no accepted review; the dataset card says so", err=True)
    with tempfile.TemporaryDirectory(prefix="callbank-publish-") as tmp:
        try:
            built = build(root, Path(tmp) / "dataset", repo_id, corpus=corpus)
        except BuildError as error:
            click.echo(f"callbank publish: {error}", err=True)
            return 1
        folder = Path(tmp) / "dataset"
        if from_dir is not None:
            folder = Path(from_dir)
            differences = _differences(built, list_files(folder))
            if differences:
                click.echo(
                    f"callbank publish: {from_dir} is not the build of the current corpus for {repo_id} "
                    f"({differences[0]}{f' and {len(differences) - 1} more' if len(differences) > 1 else ''}); "
                    f"rebuild it with `callbank build {from_dir} --repo-id {repo_id}`",
                    err=True,
                )
                return 1
        plan = plan_from(built, repo_id, revision, create_pr, tag)
        if dry_run:
            click.echo("\n".join(describe_plan(plan, None)))
            return 0
        try:
            token = resolve_token()
            result = publish(folder, plan, token=token, log=lambda line: click.echo(line, err=True))
        except PublishError as error:
            click.echo(f"callbank publish: {error}", err=True)
            return 1
    _report(result, repo_id, tag)
    return 0


def _report(result: Published, repo_id: str, tag: str | None) -> None:
    if result.unchanged:
        click.echo(f"{repo_id} already holds this build at commit {result.commit[:12]}; no commit was made")
    else:
        click.echo(f"published {result.added} file(s) to {repo_id} in commit {result.commit[:12]}: {result.commit_url}")
    if result.deleted:
        click.echo(f"removed {len(result.deleted)} stale file(s): {', '.join(result.deleted)}")
    if result.pr_url:
        click.echo(f"pull request: {result.pr_url}")
    if tag:
        click.echo(f"tagged {tag}")


@click.command()
@click.option("--repo-id", required=True, metavar="ORG/NAME", help="Hub dataset to publish to (created if missing).")
@click.option("--from", "from_dir", type=click.Path(file_okay=False), default=None, help="Publish this finished build (it must equal a fresh build of the corpus).")
@click.option("--revision", default=None, help="Branch to commit to (default: main).")
@click.option("--create-pr", is_flag=True, help="Open a pull request instead of committing to the branch.")
@click.option("--dry-run", is_flag=True, help="Print the operations; send nothing.")
@click.option("--tag", default=None, metavar="VERSION", help="Tag the published commit with this version.")
@click.option(
    "--allow-unreviewed",
    is_flag=True,
    help="Publish a preview although some cases or scenarios have no review record; the dataset card says it is a preview and how many.",
)
@repo_option
def publish(
    repo_id: str, from_dir: str | None, revision: str | None, create_pr: bool, dry_run: bool, tag: str | None, allow_unreviewed: bool, repo_root: str | None
) -> None:
    """Publish the dataset to the Hugging Face Hub in exactly one commit.

    The same gates as `callbank build` apply, and every case and scenario needs an accepted
    review (`--allow-unreviewed` publishes a preview, which the dataset card then says). The
    token comes from HF_TOKEN or `hf auth login`, the Hub address from HF_ENDPOINT. Stale remote
    files are deleted in the same commit, which is guarded by the branch head read just before:
    if the branch moves, nothing is published.
    """
    raise SystemExit(run_publish(repo_id, from_dir, revision, create_pr, dry_run, tag, repo_root, allow_unreviewed))
