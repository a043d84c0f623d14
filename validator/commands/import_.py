"""`callbank import PEER SRC --out DIR`: a peer benchmark's local copy as a callbank repository."""

from __future__ import annotations

from pathlib import Path

import click

from validator.errors import UserError

PEERS = ("acebench", "bfcl", "apibank")


def run_import(peer: str, src: str, out: str, langs: tuple[str, ...]) -> int:
    from validator.importers.run import import_peer
    from validator.importers.write import write_import

    source = Path(src)
    if not source.is_dir():
        click.echo(f"callbank import: {src} is not a folder; pass the folder of your copy of {peer}", err=True)
        return 2
    try:
        imported = import_peer(peer, source, langs)
        write_import(imported, Path(out))
    except UserError as error:
        click.echo(f"callbank import: {error}", err=True)
        return 2
    for repository in imported.repositories:
        where = Path(out) / repository.folder if repository.folder else Path(out)
        categories = ", ".join(f"{category} {n}" for category, n in sorted(repository.categories.items()))
        click.echo(f"{where}: {len(repository.cases)} cases ({categories}), {len(repository.specs)} specs; "
                   f"{len(repository.skipped)} items not converted, {len(repository.renamed)} APIs renamed")
        click.echo(f"  next: callbank check --repo {where}")
    click.echo(f"report: {Path(out) / 'import-report.md'}")
    return 0


@click.command("import")
@click.argument("peer", type=click.Choice(PEERS))
@click.argument("src", type=click.Path())
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder to write the repository (or, for acebench, one per language) and the report into.")
@click.option("--lang", "langs", multiple=True, type=click.Choice(("en", "zh")), help="acebench: import only this language set (repeatable; default both).")
def import_(peer: str, src: str, out: str, langs: tuple[str, ...]) -> None:
    """Convert a local copy of PEER (acebench, bfcl, apibank) at SRC into a callbank repository.

    The data is converted as it is, never repaired: `callbank check --repo DIR` then reports its
    defects. DIR/import-report.md (and .json) lists the cases per category, every item that could
    not be converted and why, and every API written under another name.
    """
    raise SystemExit(run_import(peer, src, out, langs))
