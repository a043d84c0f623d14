"""`callbank build OUT_DIR`: the validated, reviewed corpus as a Hugging Face dataset folder."""

from __future__ import annotations

from pathlib import Path

import click

from validator.commands.options import repo_option, resolve_root


def run_build(out_dir: str, repo_root: str | None, repo_id: str | None) -> int:
    from validator.corpus.index import Corpus
    from validator.hub.build import BuildError, build, is_build_folder
    from validator.hub.card import DEFAULT_REPO_ID
    from validator.hub.gates import check_gates, describe_refusal
    from validator.hub.publish import REPO_ID

    if repo_id is not None and not REPO_ID.match(repo_id):
        click.echo(f"callbank build: --repo-id must look like ORG/NAME, not {repo_id!r}", err=True)
        return 2
    root = resolve_root(repo_root)
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or not is_build_folder(out)):
        click.echo(f"callbank build: {out_dir} exists and is not a callbank build; choose an empty or new folder", err=True)
        return 1
    corpus = Corpus.load(root)
    blockers = check_gates(root, corpus)
    if blockers:
        click.echo(describe_refusal("build", blockers), err=True)
        return 1
    try:
        files = build(root, out, repo_id or DEFAULT_REPO_ID, corpus=corpus)
    except BuildError as error:
        click.echo(f"callbank build: {error}", err=True)
        return 1
    data = sum(1 for f in files if f.path.endswith(".parquet"))
    click.echo(f"built {out_dir}: {len(files)} files ({data} Parquet), {sum(f.size for f in files):,} bytes")
    return 0


@click.command()
@click.argument("out_dir", type=click.Path(file_okay=False))
@repo_option
@click.option("--repo-id", default=None, metavar="ORG/NAME", help="Hub dataset id shown in the card's examples.")
def build(out_dir: str, repo_root: str | None, repo_id: str | None) -> None:
    """Compile the corpus into a Hugging Face dataset folder (Parquet, dataset card, score.py).

    Refuses while `callbank validate` has findings or a review record is pending, rejected or
    out of date. Items with no review record yet do not stop a build (they stop `publish`); the
    dataset card counts them. OUT_DIR is replaced when it holds an earlier build.
    """
    raise SystemExit(run_build(out_dir, repo_root, repo_id))
