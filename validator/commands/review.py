"""`callbank review run|list|show|resolve`: judge votes, the human queue, and its decisions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click

from validator.commands.options import repo_option, resolve_root
from validator.errors import UserError


def _root(repo_root: str | None) -> Path:
    return resolve_root(repo_root)


def _fail(command: str, error: UserError) -> int:
    click.echo(f"callbank review {command}: {error}", err=True)
    return 2


def run_review_command(paths: tuple[str, ...], judges_file: str | None, concurrency: int, repo_root: str | None, retry_errors: bool, progress: bool) -> int:
    try:
        from validator.review.runner import run_review
    except ImportError as error:
        return _fail("run", UserError(f"{error.name} is not installed; install the `run` extra: pip install 'callbank[run]'"))
    try:
        summary = run_review(_root(repo_root), paths, Path(judges_file) if judges_file else None, concurrency, progress=progress, retry_errors=retry_errors)
    except UserError as error:
        return _fail("run", error)
    click.echo(summary.render())
    return 0 if summary.complete else 1


def list_command(repo_root: str | None, show_all: bool, output_format: str) -> int:
    from validator.review.display import list_rows, render_list
    from validator.review.queue import all_records, current_items, load_review_corpus, needs_attention

    corpus = load_review_corpus(_root(repo_root))
    items = current_items(corpus)
    chosen = []
    for record in all_records(corpus):
        item = items.get(str(record.get("id")))
        if show_all or record.get("status") == "unreadable" or needs_attention(record, item):
            chosen.append((record, item.content_hash if item else None))
    rows = list_rows(chosen)
    if output_format == "json":
        click.echo(json.dumps({"version": 1, "records": rows}, ensure_ascii=False, indent=2))
    else:
        click.echo(render_list(rows), nl=False)
    return 0


def show_command(item_id: str, repo_root: str | None, reveal: bool) -> int:
    from validator.review.display import render_show
    from validator.review.queue import current_items, get_record, load_review_corpus

    root = _root(repo_root)
    try:
        record = get_record(root, item_id)
    except UserError as error:
        return _fail("show", error)
    width = min(160, max(60, shutil.get_terminal_size((120, 40)).columns))
    click.echo(render_show(record, current_items(load_review_corpus(root)).get(item_id), reveal=reveal, total=width), nl=False)
    return 0


def resolve_command(item_id: str, decision: str, reviewer: str, note: str, repo_root: str | None) -> int:
    from validator.review.queue import record_review

    try:
        record = record_review(_root(repo_root), item_id, decision, reviewer, note)
    except UserError as error:
        return _fail("resolve", error)
    reviews = record.get("reviews") or []
    last = reviews[-1]
    outcome = f"{item_id} is now {record['status']}" if record["status"] != "pending" else f"{item_id} stays pending ({len(reviews)} review(s) recorded)"
    click.echo(f"recorded {last['role']} by {last['reviewer']}: {decision}; {outcome}")
    return 0


_repo_option = repo_option


@click.group()
def review() -> None:
    """Multi-LLM voting on every case, and the human review queue (review/queue/)."""


@review.command("run")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--judges", "judges_file", type=click.Path(dir_okay=False), default=None, help="Judges file (default: review/judges.yaml).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True, help="Questions in flight at once.")
@click.option("--retry-errors", is_flag=True, help="Ask again where a judge's last outcome was a judge error.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar (only on a terminal).")
@_repo_option
def run_cmd(paths: tuple[str, ...], judges_file: str | None, concurrency: int, retry_errors: bool, progress: bool, repo_root: str | None) -> None:
    """Ask every judge about every case and scenario (or those under PATHS) not answered yet.

    Unanimous `valid` accepts the item; anything else queues it for humans in review/queue/.
    Exit status: 0 done, 1 some questions could not be asked (run again), 2 usage or setup error.
    """
    raise SystemExit(run_review_command(paths, judges_file, concurrency, repo_root, retry_errors, progress))


@review.command("list")
@click.option("--all", "show_all", is_flag=True, help="Also list records that need nothing (accepted, current).")
@click.option("--format", "output_format", type=click.Choice(("text", "json")), default="text", show_default=True)
@_repo_option
def list_cmd(show_all: bool, output_format: str, repo_root: str | None) -> None:
    """List the records that need a human (pending, rejected, changed since acceptance)."""
    raise SystemExit(list_command(repo_root, show_all, output_format))


@review.command("show")
@click.argument("item_id", metavar="ID")
@click.option("--reveal", is_flag=True, help="Show a first review's decision before the second review is in.")
@_repo_option
def show_cmd(item_id: str, reveal: bool, repo_root: str | None) -> None:
    """Show a case, every judge's vote side by side, and the human reviews."""
    raise SystemExit(show_command(item_id, repo_root, reveal))


@review.command("resolve")
@click.argument("item_id", metavar="ID")
@click.option("--accept", "decision", flag_value="accept", help="The case is right as written.")
@click.option("--reject", "decision", flag_value="reject", help="The case is wrong.")
@click.option("--reviewer", required=True, help="Who reviews (two different reviewers, a third to break a tie).")
@click.option("--note", required=True, help="Why: what you checked, what is wrong.")
@_repo_option
def resolve_cmd(item_id: str, decision: str | None, reviewer: str, note: str, repo_root: str | None) -> None:
    """Record a human review of a pending record (see docs/review.md for the process)."""
    if decision is None:
        raise click.UsageError("give --accept or --reject")
    raise SystemExit(resolve_command(item_id, decision, reviewer, note, repo_root))
