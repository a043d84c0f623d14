"""pass^k and pass@k: the estimators, and `run --repeats` scored against hand-computed values."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from validator.cli import cli
from validator.scoring.repeats import pass_at, pass_hat

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, [*args, "--repo", str(FIXTURE)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def test_estimators_by_hand() -> None:
    assert pass_hat(4, 2, 2) == pytest.approx(1 / 6)  # C(2,2)/C(4,2)
    assert pass_hat(4, 3, 2) == pytest.approx(3 / 6) and pass_hat(5, 5, 5) == 1.0 and pass_hat(5, 4, 5) == 0.0
    assert pass_at(4, 1, 2) == pytest.approx(1 - 3 / 6) and pass_at(4, 0, 4) == 0.0 and pass_at(4, 1, 4) == 1.0
    assert pass_hat(3, 2, 1) == pytest.approx(2 / 3) and pass_at(3, 2, 1) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="1 ≤ k ≤ n"):
        pass_hat(2, 1, 3)


# successes out of 4 trials per scenario run; trial r of a unit succeeds when r < successes
SUCCESSES = {("office-0001", "en"): 4, ("office-0001", "zh"): 3, ("office-0002", "en"): 2, ("office-0002", "zh"): 0, ("office-0003", "en"): 1, ("office-0003", "zh"): 4}


def hand(k: int, estimator: str) -> float:
    """The mean over the six units, computed with exact fractions from the binomial formulas."""
    comb = math.comb  # C(n, r) = 0 when r > n
    values = []
    for c in SUCCESSES.values():
        if estimator == "hat":
            values.append(Fraction(comb(c, k), comb(4, k)))
        else:
            values.append(1 - Fraction(comb(4 - c, k), comb(4, k)))
    return float(sum(values) / len(values))


def test_scripted_repeats_score_the_hand_computed_pass_k(tmp_path: Path) -> None:
    right, wrong = tmp_path / "oracle.jsonl", tmp_path / "null.jsonl"
    for model, out in (("oracle", right), ("null", wrong)):
        result = invoke("run", "--model", model, "--out", str(out), "--category", "agent", "--repeats", "4")
        assert result.exit_code == 0, result.output
    pick: dict[str, list[dict[str, Any]]] = {"oracle": [], "null": []}
    for name, path in (("oracle", right), ("null", wrong)):
        pick[name] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(pick["oracle"]) == 24 and {r.get("repeat", 0) for r in pick["oracle"]} == {0, 1, 2, 3}
    mixed = []
    for record in pick["oracle"]:
        key, repeat = (record["id"], record["lang"]), record.get("repeat", 0)
        if repeat < SUCCESSES[key]:
            mixed.append(record)
        else:
            [failed] = [r for r in pick["null"] if (r["id"], r["lang"], r.get("repeat", 0)) == (*key, repeat)]
            mixed.append(failed)
    scripted = tmp_path / "mixed.jsonl"
    scripted.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in mixed), encoding="utf-8")
    result = invoke("score", str(scripted), "--category", "agent", "--format", "json")
    assert result.exit_code == 0, result.output
    repeats = json.loads(result.stdout)["repeats"]
    assert repeats["trials"] == 4 and repeats["overall"]["units"] == 6
    for k in range(1, 5):
        assert repeats["overall"]["pass_hat"][str(k)] == pytest.approx(hand(k, "hat"), abs=1e-6)
        assert repeats["overall"]["pass_at"][str(k)] == pytest.approx(hand(k, "at"), abs=1e-6)
    assert repeats["overall"]["pass_hat"]["2"] == pytest.approx(8 / 18, abs=1e-6)  # (1 + 1/2 + 1/6 + 0 + 0 + 1) / 6
    by_unit = {(u["id"], u["lang"]): u for u in repeats["units"]}
    assert {key: unit["c"] for key, unit in by_unit.items()} == SUCCESSES
    assert by_unit[("office-0001", "zh")]["outcomes"] == [True, True, True, False]
    # trial 0 is what the ordinary report scores
    report = json.loads(result.stdout)
    assert report["overall"]["n"] == 6 and report["categories"]["agent"]["correct"] == sum(1 for c in SUCCESSES.values() if c > 0)
    text = invoke("score", str(scripted), "--category", "agent").output
    assert "pass^1" in text and "pass@4" in text


def test_repeats_resume_and_refuse_a_fixed_seed(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    assert invoke("run", "--model", "oracle", "--out", str(out), "--category", "agent/multi_turn", "--repeats", "2").exit_code == 0
    assert len(out.read_text().splitlines()) == 4
    result = invoke("run", "--model", "oracle", "--out", str(out), "--category", "agent/multi_turn", "--repeats", "3")
    assert result.exit_code == 0 and "wrote 2 prediction record(s)" in result.output and "(4 already there)" in result.output
    result = invoke("run", "--model", "oracle", "--out", str(out), "--repeats", "2", "--seed", "1", "--base-url", "http://127.0.0.1:9/v1")
    assert result.exit_code == 2 and "drop --seed" in result.output
    result = invoke("run", "--model", "oracle", "--out", str(out), "--repeat-cases")
    assert result.exit_code == 2 and "--repeats 2 or more" in result.output


def test_repeat_cases_repeats_every_checkpoint(tmp_path: Path) -> None:
    out = tmp_path / "cases.jsonl"
    assert invoke("run", "--model", "oracle", "--out", str(out), "--category", "normal/multi_turn", "--repeats", "2", "--repeat-cases").exit_code == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted({(r["id"], r["lang"], r["step"], r.get("repeat", 0)) for r in records}) == sorted(
        (case, lang, step, repeat) for case in ("adjust-0001", "switch-0001") for lang in ("en", "zh") for step in (0, 1) for repeat in (0, 1)
    )
    report = json.loads(invoke("score", str(out), "--category", "normal/multi_turn", "--format", "json").stdout)
    assert report["repeats"]["overall"] == {"units": 4, "pass_hat": {"1": 1.0, "2": 1.0}, "pass_at": {"1": 1.0, "2": 1.0}, "units_with_k": {"1": 4, "2": 4}}
