"""The scoring entry of a built dataset folder (its `score.py` calls ``main``).

The dataset folder is written back out as a YAML corpus in a temporary directory and
`callbank score --repo <that directory>` runs on it, so a dataset downloaded from the Hub is
scored by exactly the repository's scorer. Scoring agent scenarios runs the sandboxes' code,
which the dataset carries in its `sandboxes` config.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path


def main(folder: Path, argv: Sequence[str]) -> int:
    from validator.cli import COMMANDS, cli
    from validator.hub.load import LoadError, materialize

    if "score" not in COMMANDS:
        print("score.py: this version of callbank has no `score` command; upgrade the package", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="callbank-score-") as tmp:
        try:
            materialize(folder, Path(tmp))
        except LoadError as error:
            print(f"score.py: {error}", file=sys.stderr)
            return 2
        try:
            cli.main(["score", "--repo", tmp, *argv], prog_name="callbank", standalone_mode=True)
        except SystemExit as exit_:
            return exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    return 0
