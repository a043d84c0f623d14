"""``callbank compare A B``: which differences between two runs are significant.

A and B are prediction files; a run split into shards is given as all its files (they are
grouped by their manifests, ``validator.runs.load``), so ``compare a-*.jsonl b.jsonl`` works.
Exit status: 0 when the comparison was written, 2 for a usage error (not exactly two runs,
files that cannot be read or merged, no corpus).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from validator.commands.score import LANG_CHOICES, fail, repo_root_of, selected_langs
from validator.errors import UserError


@click.command("compare")
@click.argument("predictions", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "output_format", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True, help="Output format.")
@click.option("--out", type=click.Path(path_type=Path), help="Write the comparison to this file instead of standard output.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True, help="Significance level of the McNemar test.")
@click.option("--repo", "root", type=click.Path(path_type=Path), metavar="DIR", help="Repository root (default: found from the current folder).")
@click.option("--lang", type=click.Choice(LANG_CHOICES), default="all", show_default=True, help="Languages to compare.")
@click.option("--category", "categories", multiple=True, metavar="PREFIX", help="Compare only these categories (prefixes; repeatable).")
def compare(predictions: tuple[Path, ...], output_format: str, out: Path | None, alpha: float, root: Path | None, lang: str, categories: tuple[str, ...]) -> None:
    """Compare run B with run A on the units both answered: per category and overall, B − A with a
    paired bootstrap 95% interval, an exact McNemar p-value, and the units that flipped."""
    from validator.compare.pairs import compare_results
    from validator.compare.render import REPORTERS
    from validator.corpus.index import Corpus
    from validator.runs.load import load_runs
    from validator.runs.scoring import evaluate_runs

    try:
        repo = repo_root_of(root)  # a --repo that is no repository is the first thing to say
        runs = load_runs(predictions)
        if len(runs) != 2:
            shown = "; ".join(f"{run.label} ({', '.join(p.name for p in run.paths)})" for run in runs)
            raise UserError(f"compare needs exactly two runs (A and B); the files make {len(runs)}: {shown}")
        corpus = Corpus.load_benchmark(repo, "compare")
        first, second = evaluate_runs(runs, corpus, langs=selected_langs(lang), categories=categories)
        labels = tuple({"label": run.label, "files": [str(p) for p in run.paths]} for run in runs)
        notes = [f"{'AB'[i]}: {note}" for i, evaluation in enumerate((first, second)) for note in evaluation.report["notes"]]
        report = compare_results(first.scored.results, second.scored.results, labels=(labels[0], labels[1]), alpha=alpha, notes=notes)
        text = REPORTERS[output_format](report)
        if out is None:
            sys.stdout.write(text)
        else:
            try:
                out.write_text(text, encoding="utf-8")
            except OSError as error:
                raise UserError(f"cannot write {out}: {error.strerror}") from None
    except UserError as error:
        fail(error)
