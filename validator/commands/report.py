"""``callbank report RUN… --out report.html``: one self-contained HTML report of one or several runs.

Each argument is a predictions file; the shards of one run are grouped by their manifests.
``--format png`` writes the main charts as PNG files into the ``--out`` folder instead.
Exit status: 0 when the report was written, 2 for a usage error (missing extra, unreadable or
inconsistent files, no corpus, nothing selected).
"""

from __future__ import annotations

from pathlib import Path

import click

from validator.commands.score import LANG_CHOICES, fail, repo_root_of, selected_langs
from validator.errors import UserError


@click.command("report")
@click.argument("predictions", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="The HTML file to write (a folder for --format png).")
@click.option("--format", "output_format", type=click.Choice(["html", "png"]), default="html", show_default=True, help="html: the whole report in one file; png: the main charts as images.")
@click.option("--title", default="callbank report", show_default=True, help="The page's title.")
@click.option("--prices", type=click.Path(path_type=Path), help="Price table (YAML or JSON, docs/evaluating.md) to show each run's cost.")
@click.option("--repo", "root", type=click.Path(path_type=Path), metavar="DIR", help="Repository root (default: found from the current folder).")
@click.option("--lang", type=click.Choice(LANG_CHOICES), default="all", show_default=True, help="Languages to report.")
@click.option("--category", "categories", multiple=True, metavar="PREFIX", help="Report only these categories (prefixes; repeatable).")
def report(predictions: tuple[Path, ...], out: Path, output_format: str, title: str, prices: Path | None, root: Path | None, lang: str, categories: tuple[str, ...]) -> None:
    """Write an HTML report: per run the overall score with its √n decomposition, categories with
    intervals, en vs zh, error types, F1, cost and latency, and a case browser; with several runs
    a leaderboard and all runs in one chart."""
    try:
        try:
            from validator.report.build import build, write_html
        except ImportError as error:
            raise UserError(f"the report needs the `report` extra ({error.name} is not installed): pip install 'callbank[report]'") from None
        from validator.corpus.index import Corpus
        from validator.runs.load import load_runs
        from validator.runs.prices import read_prices
        from validator.runs.scoring import evaluate_runs

        table = read_prices(prices) if prices is not None else None
        repo = repo_root_of(root)  # a --repo that is no repository is the first thing to say
        runs = load_runs(predictions)
        corpus = Corpus.load_benchmark(repo, "report")
        evaluations = evaluate_runs(runs, corpus, langs=selected_langs(lang), categories=categories)
        built = build(runs, evaluations, corpus, table)
        if output_format == "png":
            from validator.report.png import write_png

            written = write_png([run.label for run in runs], built.figures, out)
            click.echo(f"wrote {len(written)} chart(s) to {out}: {', '.join(path.name for path in written)}", err=True)
        else:
            write_html(built, out, title)
            click.echo(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB, {sum(len(r['rows']) for r in built.runs):,} units)", err=True)
    except UserError as error:
        fail(error)
