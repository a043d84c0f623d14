"""The scoring entry of a built dataset folder (its `score.py` calls ``main``).

The dataset folder is written back out as a YAML corpus in a temporary directory and scored
there by the package's scorer (``validator.scoring.evaluate``), so a dataset downloaded from
the Hub is scored by exactly the repository's scorer. Scoring agent scenarios runs the
sandboxes' code, which the dataset carries in its `sandboxes` config. The options are those of
`callbank score` (a test keeps the two lists equal).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from validator.corpus.langs import LANGS
from validator.errors import UserError
from validator.hub.load import LoadError, materialize
from validator.scoring.evaluate import score_predictions
from validator.scoring.report import REPORTERS
from validator.scoring.runinfo import choose_units


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="score.py", description="Score PREDICTIONS (JSON Lines, docs/predictions.md) against this dataset.")
    parser.add_argument("predictions", type=Path, help="the predictions file")
    parser.add_argument("--format", dest="output_format", choices=sorted(REPORTERS), default="text", help="report format")
    parser.add_argument("--out", type=Path, default=None, help="write the report to this file instead of standard output")
    parser.add_argument("--lang", choices=("all", *LANGS), default=None, help="languages to score (default: the run's, else all)")
    parser.add_argument("--category", dest="categories", action="append", default=[], metavar="PREFIX", help="score only these categories (repeatable; default: the run's)")
    parser.add_argument("--limit", type=int, default=None, help="the first N cases of each category and N scenarios of each agent category (default: the run's)")
    parser.add_argument("--all", dest="everything", action="store_true", help="score every unit; those the run did not cover count as missing")
    return parser


def main(folder: Path, argv: Sequence[str]) -> int:
    args = parser().parse_args(list(argv))  # a usage error exits with status 2
    with tempfile.TemporaryDirectory(prefix="callbank-score-") as tmp:
        try:
            selections, about, notes = choose_units(args.predictions, args.lang, args.categories, args.limit, everything=args.everything)
            materialize(folder, Path(tmp))
            return score_predictions(args.predictions, root=Path(tmp), output_format=args.output_format, out=args.out, selections=selections, about=about, notes=notes)
        except (LoadError, UserError) as error:
            print(f"score.py: {error}", file=sys.stderr)
            return 2
