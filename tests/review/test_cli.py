"""The `callbank review` commands end to end through click."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.review.helpers import VALID, corpus, item_of, judges_file, verdict
from tests.support.openai_server import OpenAIServer
from validator.cli import cli


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def queued_corpus(tmp_path: Path, server: OpenAIServer) -> Path:
    server.responder = lambda r: verdict("invalid", "EN asks for three days, ZH for 三天 — fine, but the city is ambiguous", fix="say Hangzhou, Zhejiang") if item_of(r.text) == "single-0001" and r.model == "model-b" else VALID
    root = corpus(tmp_path)
    judges = judges_file(tmp_path / "judges.yaml", server.base_url)
    code, out, _ = invoke("review", "run", "--repo", str(root), "--judges", str(judges), "--no-progress")
    assert code == 0 and "4 accepted, 1 queued for humans" in out
    return root


def test_run_list_show_resolve(tmp_path: Path, server: OpenAIServer) -> None:
    root = queued_corpus(tmp_path, server)
    code, out, _ = invoke("review", "list", "--repo", str(root))
    assert code == 0 and out.splitlines()[1].split()[:4] == ["single-0001", "pending", "2/1/0", "0"]
    assert len(out.splitlines()) == 2
    code, out, _ = invoke("review", "list", "--repo", str(root), "--all", "--format", "json")
    rows = json.loads(out)["records"]
    assert json.loads(out)["version"] == 1 and len(rows) == 5

    code, out, _ = invoke("review", "show", "single-0001", "--repo", str(root))
    assert code == 0
    assert "EN: What will the weather be like in Hangzhou" in out and "ZH: 杭州接下来三天天气怎么样？" in out
    assert "judge-b: INVALID" in out and "the city is ambiguous" in out and "fix: say Hangzhou" in out
    header = next(line for line in out.splitlines() if line.startswith("judge-a: VALID"))
    assert "judge-b: INVALID" in header and "judge-c: VALID" in header  # side by side

    code, out, _ = invoke("review", "resolve", "single-0001", "--accept", "--reviewer", "alice", "--note", "Hangzhou is unambiguous", "--repo", str(root))
    assert code == 0 and "stays pending" in out
    code, out, _ = invoke("review", "show", "single-0001", "--repo", str(root))
    assert "decision hidden" in out and "Hangzhou is unambiguous" not in out
    code, out, _ = invoke("review", "show", "single-0001", "--repo", str(root), "--reveal")
    assert "Hangzhou is unambiguous" in out
    code, _, err = invoke("review", "resolve", "single-0001", "--reject", "--reviewer", "alice", "--note", "x", "--repo", str(root))
    assert code == 2 and "alice has already reviewed" in err
    code, out, _ = invoke("review", "resolve", "single-0001", "--accept", "--reviewer", "bob", "--note", "agree", "--repo", str(root))
    assert code == 0 and "is now accepted" in out
    code, out, _ = invoke("review", "list", "--repo", str(root))
    assert out == "nothing to review\n"


def test_usage_errors(tmp_path: Path, server: OpenAIServer) -> None:
    root = queued_corpus(tmp_path, server)
    code, _, err = invoke("review", "resolve", "single-0001", "--reviewer", "a", "--note", "n", "--repo", str(root))
    assert code == 2 and "--accept or --reject" in err
    code, _, err = invoke("review", "show", "nope-0001", "--repo", str(root))
    assert code == 2 and "no review record" in err
    code, _, err = invoke("review", "run", "--repo", str(root), "--judges", str(tmp_path / "missing.yaml"))
    assert code == 2 and "cannot read the judges file" in err


def test_an_unreachable_judge_exits_2_with_one_line(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    judges = judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:9/v1")
    code, out, err = invoke("review", "run", "--repo", str(root), "--judges", str(judges))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "unreachable" in err
    assert not (root / "review/queue").exists() or not list((root / "review/queue").glob("*.yaml"))
