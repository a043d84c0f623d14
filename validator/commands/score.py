"""``callbank score``: score a predictions file — or the shards of one run — against the corpus.

Several files are read as one run (``validator.runs.load``): the shards of a run
(``callbank run --shard I/N``) or parts written by another harness. Files whose manifests
disagree, shards given twice and files that share records are refused before anything is scored.

By default the units scored are those the run covered: its manifest (``<predictions>.manifest.json``,
written by ``callbank run``) records each session's ``--lang``, ``--category`` and ``--limit``, so a
partial run is not counted against the units it never asked. ``--lang``/``--category``/``--limit``
given to ``score`` choose the units instead; ``--all`` scores every unit (the ones the run left out
count as missing). The report names the run: model, mode, prompt style and date.

The corpus is the repository (``--repo``, or the one around the current folder) or a dataset
built by ``callbank build`` (``--dataset``: a folder or a Hub dataset id), written back out as a
corpus in a temporary folder — so a dataset consumer needs no clone.

Exit status: 0 when the file is clean, 1 when it has problems (malformed lines, unknown ids or
steps, duplicates — the report is still written), 2 for a usage error (no such file, no corpus).
Missing predictions are counted wrong and listed; they do not change the exit status.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import click

from validator.corpus.langs import LANGS
from validator.errors import UserError

LANG_CHOICES = ("all", *LANGS)
CORPUS_FOLDERS = ("specs", "dialogues", "sandboxes")


def has_corpus(folder: Path) -> bool:
    return any((folder / name).is_dir() for name in CORPUS_FOLDERS)


def default_root() -> Path:
    """The repository around the current folder; UserError outside one."""
    from validator.commands.options import resolve_root

    return resolve_root(None)


def repo_root_of(root: Path | None) -> Path:
    """The repository of --repo (checked: UserError for a folder that is none), else the default."""
    from validator.commands.options import resolve_root

    return resolve_root(root) if root is not None else default_root()


def selected_langs(lang: str) -> tuple[str, ...]:
    return LANGS if lang == "all" else (lang,)


def fail(error: UserError) -> None:
    click.echo(f"error: {error}", err=True)
    sys.exit(2)


def is_dataset(folder: Path) -> bool:
    """A folder `callbank build` wrote (or a download of one): a card and data, no corpus."""
    return not has_corpus(folder) and (folder / "README.md").is_file() and (folder / "data").is_dir()


@contextlib.contextmanager
def corpus_root(repo: Path | None, dataset: str | None) -> Iterator[tuple[Path, str | None]]:
    """(the corpus folder to score against, a note on where it came from)."""
    if repo is not None and dataset is not None:
        raise UserError("--repo and --dataset each name the corpus; give one of them")
    if repo is not None and repo.is_dir() and is_dataset(repo):
        dataset = str(repo)
    if dataset is None:
        from validator.commands.options import resolve_root

        yield resolve_root(repo), None  # a --repo that is neither a repository nor a dataset: its message
        return
    from validator.hub.load import LoadError, materialized

    try:
        with materialized(dataset) as folder:
            yield folder, f"scored against the dataset {dataset}, written out as a corpus"
    except LoadError as error:
        raise UserError(str(error)) from None


@click.command("score")
@click.argument("predictions", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "output_format", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True, help="Report format.")
@click.option("--out", type=click.Path(path_type=Path), help="Write the report to this file instead of standard output.")
@click.option(
    "--repo", "root", type=click.Path(path_type=Path), metavar="DIR", help="Repository root (default: found from the current folder); a built dataset works as --dataset."
)
@click.option("--dataset", metavar="DIR_OR_REPO_ID", help="Score against a dataset built by `callbank build`: its folder, or its Hub id (ORG/NAME); no clone needed.")
@click.option("--lang", type=click.Choice(LANG_CHOICES), default=None, help="Languages to score.  [default: the run's, else all]")
@click.option("--category", "categories", multiple=True, metavar="PREFIX", help="Score only these categories (prefixes such as normal/atom; repeatable).  [default: the run's]")
@click.option("--limit", type=int, help="Score the first N cases (by id) of each category and N scenarios of each agent category, as `run --limit` runs them.  [default: the run's]")
@click.option("--all", "everything", is_flag=True, help="Score every unit of the corpus; those the run did not cover count as missing.")
def score(
    predictions: tuple[Path, ...],
    output_format: str,
    out: Path | None,
    root: Path | None,
    dataset: str | None,
    lang: str | None,
    categories: tuple[str, ...],
    limit: int | None,
    everything: bool,
) -> None:
    """Score PREDICTIONS (JSON Lines, see docs/predictions.md): per case, category, language, overall.

    Several files are the shards of one run, scored together. Scores the units the run covered
    (from PREDICTIONS.manifest.json) unless --lang, --category, --limit or --all say otherwise."""
    from validator.corpus.index import Corpus
    from validator.runs.load import load_run
    from validator.runs.scoring import evaluate_runs
    from validator.scoring.evaluate import write_report
    from validator.scoring.runinfo import choose_units

    try:
        with corpus_root(root, dataset) as (repo, source):  # a --repo that is no repository is the first thing to say
            selections, about, notes = choose_units(predictions[0], lang, categories, limit, everything=everything)
            run = load_run(predictions)
            corpus = Corpus.load_benchmark(repo, "score")
            langs = LANGS if lang in (None, "all") else (str(lang),)
            [evaluation] = evaluate_runs(
                [run], corpus, langs=langs, categories=categories, limit=limit, selections=selections, about=about, notes=[*notes, *([source] if source else [])]
            )
            status = write_report(evaluation.report, output_format, out)
    except UserError as error:
        fail(error)
    sys.exit(status)
