"""`callbank export`: SFT or DPO training data from a synth run or scored predictions (docs/synth.md).

Exit status: 0 when the file is written, 1 when the contamination guard refused (nothing is
written; each offending item is named), 2 for a usage error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from validator.errors import UserError


@click.command("export")
@click.option("--format", "kind", type=click.Choice(["sft", "dpo"]), required=True, help="sft: chat fine-tuning lines; dpo: prompt / chosen / rejected pairs.")
@click.option("--synth", "synth", type=click.Path(path_type=Path, file_okay=False), default=None, help="The --out folder of a `callbank synth cases` or `synth scenarios` run.")
@click.option("--predictions", type=click.Path(path_type=Path, dir_okay=False), default=None, help="A predictions file of `callbank run` (scored here).")
@click.option("--cases", "cases_root", type=click.Path(path_type=Path, file_okay=False), default=None, help="The repository the predictions were made on (default: the benchmark).")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), required=True, help="The JSON Lines file to write (its manifest goes next to it).")
@click.option("--repo", "root", type=click.Path(path_type=Path, file_okay=False), default=None, help="The benchmark the guard protects (default: found from the current folder).")
@click.option("--allow-overlap", "allow_overlap", metavar="REASON", default=None, help="Export items that overlap the benchmark anyway; the reason goes into the manifest.")
@click.option("--threshold", type=click.FloatRange(0.05, 1.0), default=0.5, show_default=True, help="Jaccard similarity of character n-grams at which an item overlaps.")
def export(kind: str, synth: Path | None, predictions: Path | None, cases_root: Path | None, out: Path, root: Path | None, allow_overlap: str | None, threshold: float) -> None:
    """Write training data, refusing anything that overlaps the benchmark's own cases."""
    from validator.corpus.index import Corpus
    from validator.loading import find_repo_root
    from validator.synth.export import manifest_path, run_export

    try:
        benchmark = Corpus.load_benchmark(root or find_repo_root(Path.cwd()), "export")
        cases = Corpus.load_benchmark(cases_root, "export") if cases_root is not None else None
        result = run_export(kind=kind, out=out, benchmark=benchmark, synth=synth, predictions=predictions, cases=cases, allow_overlap=allow_overlap, threshold=threshold)
    except UserError as error:
        click.echo(f"callbank export: {error}", err=True)
        sys.exit(2)
    if result.written == 0 and result.refused:
        click.echo(f"callbank export: refused: {len(result.refused)} item(s) overlap the benchmark's own cases (nothing was written):", err=True)
        for origin, overlaps in result.refused:
            click.echo(f"  {origin}: " + "; ".join(o.describe() for o in overlaps[:3]), err=True)
        click.echo("Rewrite or drop them, or pass --allow-overlap REASON to export them anyway (the reason goes into the manifest).", err=True)
        sys.exit(1)
    skipped = sum(result.manifest["skipped"].values())
    click.echo(f"wrote {result.written} {kind} line(s) to {out} (manifest: {manifest_path(out)}); skipped {skipped}")
    if result.refused:
        click.echo(f"{len(result.refused)} overlapping item(s) exported with --allow-overlap: {allow_overlap}", err=True)
