"""`callbank run` with the built-in models, scored by `callbank score`: the whole pipeline offline."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from validator.cli import cli

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"


def invoke(*args: str) -> object:
    result = CliRunner().invoke(cli, [*args, "--repo", str(FIXTURE)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


@pytest.mark.parametrize("syntax", ["python", "json", "tool_calls"])
def test_oracle_run_scores_one(tmp_path: Path, syntax: str) -> None:
    out = tmp_path / "oracle.jsonl"
    result = invoke("run", "--model", "oracle", "--out", str(out), "--syntax", syntax)
    assert result.exit_code == 0 and "wrote 46 prediction record(s)" in result.output  # type: ignore[attr-defined]
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len({(r["id"], r["lang"], r.get("step", 0)) for r in records}) == 46
    assert ("tool_calls" in records[0]) == (syntax == "tool_calls")
    scored = invoke("score", str(out), "--format", "json")
    assert scored.exit_code == 0  # type: ignore[attr-defined]
    report = json.loads(scored.output)  # type: ignore[attr-defined]
    assert report["overall"]["score"] == 1.0 and report["missing"] == [] and report["notes"] == []


def test_null_run_and_filters(tmp_path: Path) -> None:
    out = tmp_path / "null.jsonl"
    result = invoke("run", "--model", "null", "--out", str(out), "--lang", "zh", "--category", "special", "--category", "agent/multi_step")
    assert result.exit_code == 0  # type: ignore[attr-defined]
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["lang"] for r in records} == {"zh"}
    assert {r["id"] for r in records} == {"incomplete-0001", "error-param-0001", "irrelevant-0001", "office-0001", "office-0003"}
    scored = invoke("score", str(out), "--format", "json", "--lang", "zh", "--category", "special", "--category", "agent/multi_step")
    report = json.loads(scored.output)  # type: ignore[attr-defined]
    assert report["categories"]["special"]["accuracy"] == 0.0
    assert report["categories"]["agent/multi_step"]["accuracy"] == 0.0


def test_unknown_model_and_unwritable_out(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["run", "--model", "gpt-9", "--out", str(tmp_path / "x.jsonl"), "--repo", str(FIXTURE)])
    assert result.exit_code == 2 and "unknown model 'gpt-9'" in result.output
    result = CliRunner().invoke(cli, ["run", "--model", "null", "--out", str(tmp_path / "no" / "x.jsonl"), "--repo", str(FIXTURE)])
    assert result.exit_code == 2 and "cannot write" in result.output


SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "predictions.schema.json").read_text(encoding="utf-8"))
KINDS = ("case_record", "retrieval_record", "scenario_record")


def schema_validator(schema: dict[str, object]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


@pytest.mark.parametrize(("model", "syntax"), [("oracle", "python"), ("oracle", "tool_calls"), ("null", "python")])
def test_every_record_a_run_writes_passes_the_predictions_schema(tmp_path: Path, model: str, syntax: str) -> None:
    out = tmp_path / f"{model}.jsonl"
    assert invoke("run", "--model", model, "--out", str(out), "--syntax", syntax).exit_code == 0  # type: ignore[attr-defined]
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    whole = schema_validator(SCHEMA)
    branches = {kind: schema_validator({"$defs": SCHEMA["$defs"], "$ref": f"#/$defs/{kind}"}) for kind in KINDS}
    seen = set()
    for record in records:
        assert list(whole.iter_errors(record)) == [], record
        [kind] = [k for k, v in branches.items() if v.is_valid(record)]
        seen.add(kind)
        assert record["step"] == 0 if kind == "scenario_record" else isinstance(record["step"], int)  # one step convention
    assert seen == set(KINDS)  # every kind of record was written and checked
    assert not whole.is_valid({**records[0], "lang": "fr"})  # the schema can fail
