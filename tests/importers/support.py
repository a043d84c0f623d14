"""Running an import the way a user does: `callbank import`, then `check`, `run --model oracle`
and `score` on the repository it wrote, all through the command line (click's runner)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from validator.cli import cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "import"


def invoke(*arguments: str) -> Result:
    result = CliRunner().invoke(cli, list(arguments), catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def import_peer(peer: str, out: Path, src: Path | None = None) -> Result:
    result = invoke("import", peer, str(src or FIXTURES / peer), "--out", str(out))
    assert result.exit_code == 0, result.output
    return result


def findings(repo: Path) -> list[tuple[str, str, str]]:
    """(code, path, pointer) of every `callbank check --repo` finding, sorted."""
    result = invoke("check", "--repo", str(repo), "--format", "json")
    return sorted((d["code"], d["path"], d["pointer"]) for d in json.loads(result.output))


def oracle_report(repo: Path, tmp_path: Path, model: str = "oracle") -> dict[str, Any]:
    """The JSON score report of `model` run over the repository."""
    predictions = tmp_path / f"{repo.name}-{model}.jsonl"
    result = invoke("run", "--model", model, "--repo", str(repo), "--out", str(predictions))
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(invoke("score", "--repo", str(repo), "--format", "json", str(predictions)).output)
    return report


def wrong(report: dict[str, Any]) -> set[str]:
    return {result["id"] for result in report["results"] if not result["correct"]}


def report_json(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "import-report.json").read_text(encoding="utf-8"))
    return data
