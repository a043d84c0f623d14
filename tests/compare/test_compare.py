"""`callbank compare`: the exact McNemar test, the paired bootstrap, and two runs whose difference
is known — the oracle against the oracle with 10% of one category corrupted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from validator.cli import cli
from validator.compare.stats import Paired, bootstrap_interval, mcnemar_exact
from validator.models.resume import manifest_path

ROOT = Path(__file__).resolve().parents[2]
SELECTION = ("--lang", "en", "--category", "special/incomplete", "--category", "special/irrelevant", "--category", "normal/atom/bool", "--category", "normal/atom/enum")
CORRUPTED = "special/incomplete"


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, [*args, "--repo", str(ROOT)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def test_mcnemar_exact_by_hand() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 2**6)  # the smallest count of one-way flips below 0.05
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 2**5) and mcnemar_exact(0, 5) > 0.05
    assert mcnemar_exact(1, 5) == pytest.approx(2 * (1 + 6) / 2**6)
    assert mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(5, 1) == mcnemar_exact(1, 5)
    assert mcnemar_exact(0, 1500) < 1e-300 and mcnemar_exact(700, 800) > 0.01  # exact integers: no overflow on large counts


def test_paired_bootstrap_is_deterministic_and_centred() -> None:
    group = Paired(n=200, a_right=180, b_right=160, a_only=30, b_only=10)
    interval = bootstrap_interval([(group, 1.0)])
    assert interval == bootstrap_interval([(group, 1.0)])
    assert interval is not None and interval[0] < group.difference < interval[1] < 0
    assert bootstrap_interval([(Paired(50, 40, 40, 0, 0), 1.0)]) == (0.0, 0.0)
    assert bootstrap_interval([]) is None


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A: the oracle; B: the oracle with 10% of special/incomplete answered wrong, and two units of
    normal/atom/bool wrong in each run (flips both ways that must not count as a difference)."""
    folder = tmp_path_factory.mktemp("compare")
    a, b = folder / "a.jsonl", folder / "b.jsonl"
    assert invoke("run", "--model", "oracle", "--out", str(a), *SELECTION).exit_code == 0
    records = [json.loads(line) for line in a.read_text(encoding="utf-8").splitlines()]
    incomplete = sorted({r["id"] for r in records if r["id"].startswith("sp-incomplete-")})
    bools = sorted({r["id"] for r in records if r["id"].startswith("atom-bool-")})
    corrupted = set(incomplete[::10])
    assert len(incomplete) >= 100 and len(corrupted) == len(incomplete[::10])

    def write(path: Path, wrong: set[str]) -> None:
        path.write_text("".join(json.dumps({**r, "output": "[]"} if r["id"] in wrong else r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")

    write(a, set(bools[:2]))
    write(b, corrupted | set(bools[2:4]))
    shutil.copyfile(manifest_path(a), manifest_path(b))
    return a, b


def compared(a: Path, b: Path, *args: str) -> dict[str, Any]:
    result = invoke("compare", str(a), str(b), "--format", "json", *SELECTION, *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_corrupted_category_is_significant_and_the_others_are_not(runs: tuple[Path, Path]) -> None:
    report = compared(*runs)
    categories = report["categories"]
    assert categories[CORRUPTED]["significant"] and categories[CORRUPTED]["p"] < 1e-4
    assert categories[CORRUPTED]["a_right_b_wrong"] == len(report["flipped"]["a_right_b_wrong"]) - 2 and categories[CORRUPTED]["a_wrong_b_right"] == 0
    ci = categories[CORRUPTED]["ci"]
    assert ci[0] < categories[CORRUPTED]["difference"] < ci[1] < 0
    unrelated = [name for name in categories if not CORRUPTED.startswith(name)]
    assert set(unrelated) == {"normal", "normal/atom", "normal/atom/bool", "normal/atom/enum", "special/irrelevant"}
    assert all(not categories[name]["significant"] for name in unrelated)
    bool_row = categories["normal/atom/bool"]
    assert (bool_row["a_right_b_wrong"], bool_row["a_wrong_b_right"], bool_row["p"], bool_row["difference"]) == (2, 2, 1.0, 0.0)
    assert report["overall"]["significant"] and report["overall"]["difference"] < 0
    assert report["paired"] == report["overall"]["n"] == categories["normal"]["n"] + categories["special"]["n"]
    flipped_back = {row["id"] for row in report["flipped"]["a_wrong_b_right"]}
    assert len(flipped_back) == 2 and all(name.startswith("atom-bool-") for name in flipped_back)


def test_text_and_markdown_name_the_significant_rows(runs: tuple[Path, Path]) -> None:
    text = invoke("compare", *map(str, runs), *SELECTION).output
    row = next(line for line in text.splitlines() if line.strip().startswith(CORRUPTED))
    assert "<0.001 *" in row
    assert "right in A, wrong in B" in text and "wrong in A, right in B (2):" in text
    markdown = invoke("compare", *map(str, runs), *SELECTION, "--format", "markdown").output
    assert markdown.startswith("# callbank compare") and "| special/incomplete |" in markdown and "**✱**" in markdown


def test_compare_needs_two_runs(runs: tuple[Path, Path]) -> None:
    result = invoke("compare", str(runs[0]))
    assert result.exit_code == 2 and "compare needs exactly two runs (A and B); the files make 1" in result.output


def test_units_missing_in_one_run_are_left_out(runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = runs
    lines = b.read_text(encoding="utf-8").splitlines()
    shorter = tmp_path / "b.jsonl"
    shorter.write_text("\n".join(lines[10:]) + "\n", encoding="utf-8")
    report = compared(a, shorter)
    assert report["unpaired"] == {"a": 10, "b": 10} and report["paired"] == compared(a, b)["paired"] - 10


def test_a_run_in_shards_is_compared_as_one_run(tmp_path: Path) -> None:
    fixture = ROOT / "tests" / "fixtures" / "repos" / "scoring"

    def call(*args: str) -> Result:
        result = CliRunner().invoke(cli, [*args, "--repo", str(fixture)], catch_exceptions=False)
        assert "Traceback" not in result.output
        return result

    shards = [tmp_path / f"oracle-{index}.jsonl" for index in (1, 2)]
    for index, shard in enumerate(shards, start=1):
        assert call("run", "--model", "oracle", "--out", str(shard), "--shard", f"{index}/2").exit_code == 0
    null = tmp_path / "null.jsonl"
    assert call("run", "--model", "null", "--out", str(null)).exit_code == 0
    result = call("compare", *map(str, shards), str(null), "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["a"]["files"] == [str(s) for s in shards] and report["paired"] == 42 and report["unpaired"] == {"a": 0, "b": 0}
    assert (report["overall"]["a"], report["overall"]["b"]) == (1.0, 0.0) and report["overall"]["significant"]
    result = call("compare", str(shards[0]), str(null), "--format", "json")
    assert result.exit_code == 0 and json.loads(result.stdout)["unpaired"]["b"] == 42 - json.loads(result.stdout)["paired"] > 0  # half a run: the rest unpaired
    result = call("compare", str(shards[0]), str(null), str(tmp_path / "null.jsonl"))
    assert result.exit_code == 2 and "given twice" in result.output
