"""`callbank check` and `callbank rules` as contributors and CI use them.

Most tests drive the click command in-process (fast); a few run the real console entry point in
a subprocess to prove the process exit codes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.fixture_repos import REPOS
from validator.cli import cli
from validator.rules import RULES

ROOT = Path(__file__).resolve().parents[1]
CASE = "dialogues/normal/single_turn/single/single-0001.yaml"
SPEC = "specs/mini/get_weather.yaml"


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    root = tmp_path / "clean"
    shutil.copytree(REPOS / "minimal", root)
    return root


@pytest.fixture
def dirty(tmp_path: Path) -> Path:
    """The minimal repo with one DLG002 (case, line 14) and one SPC005 (spec, line 14)."""
    root = tmp_path / "dirty"
    shutil.copytree(REPOS / "minimal", root)
    case = root / CASE
    case.write_text(case.read_text(encoding="utf-8").replace("杭州接下来三天天气怎么样？", "Weather in Hangzhou?"), encoding="utf-8")
    spec = root / SPEC
    spec.write_text(spec.read_text(encoding="utf-8").replace("zh: 城市名称。", "zh: City name."), encoding="utf-8")
    return root


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def check_json(root: Path, *args: str) -> tuple[int, list[dict]]:
    status, out, _ = run("check", "--repo", str(root), "--format", "json", *args)
    return status, json.loads(out)


def codes(findings: list[dict]) -> list[str]:
    return [f["code"] for f in findings]


# ----------------------------------------------------------------------------- exit codes


def test_clean_repository_exits_0(clean: Path) -> None:
    status, out, err = run("check", "--repo", str(clean))
    assert (status, out, err) == (0, "no findings\n", "")


def test_findings_exit_1(dirty: Path) -> None:
    status, out, _ = run("check", "--repo", str(dirty))
    assert status == 1
    assert out.splitlines()[-1] == "2 findings"


@pytest.mark.parametrize(
    "args",
    [
        ("--select", "XYZ"),
        ("--ignore", "XYZ"),
        ("--select", "DLG,NOPE"),
        ("--format", "xml"),
        ("--no-such-option",),
    ],
)
def test_usage_errors_exit_2(clean: Path, args: tuple[str, ...]) -> None:
    status, out, err = run("check", "--repo", str(clean), *args)
    assert status == 2
    assert out == ""
    assert "Traceback" not in err and err.strip()


def test_unknown_code_is_named_in_the_error(clean: Path) -> None:
    _, _, err = run("check", "--repo", str(clean), "--select", "XYZ")
    assert "'XYZ' matches no rule code" in err


def test_missing_path_exits_2(clean: Path) -> None:
    status, out, err = run("check", "--repo", str(clean), str(clean / "dialogues" / "nope.yaml"))
    assert status == 2
    assert "no such file or folder" in err
    assert out == ""


def test_path_outside_the_repository_exits_2(clean: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("id: x\n", encoding="utf-8")
    status, _, err = run("check", "--repo", str(clean), str(outside))
    assert status == 2
    assert "outside the repository" in err


def test_missing_repo_exits_2(tmp_path: Path) -> None:
    status, _, err = run("check", "--repo", str(tmp_path / "nope"))
    assert status == 2
    assert "no such folder" in err


@pytest.mark.parametrize(("fixture", "args", "expected"), [("clean", (), 0), ("dirty", (), 1), ("clean", ("--select", "XYZ"), 2)])
def test_process_exit_codes(request: pytest.FixtureRequest, fixture: str, args: tuple[str, ...], expected: int) -> None:
    root = request.getfixturevalue(fixture)
    done = subprocess.run([sys.executable, "-m", "validator", "check", "--repo", str(root), *args], cwd=ROOT, capture_output=True, timeout=120)
    assert done.returncode == expected
    assert b"Traceback" not in done.stderr


# ----------------------------------------------------------------------------- formats


def test_text_format(dirty: Path) -> None:
    _, out, _ = run("check", "--repo", str(dirty))
    lines = out.splitlines()
    assert re.fullmatch(re.escape(CASE) + r":14:7: DLG002 \[wrong-language\] .+", lines[0])
    assert re.fullmatch(re.escape(SPEC) + r":14:7: SPC005 \[missing-bilingual-description\] .+", lines[1])


def test_json_format(dirty: Path) -> None:
    status, findings = check_json(dirty)
    assert status == 1
    assert isinstance(findings, list)
    assert [(f["path"], f["line"], f["code"]) for f in findings] == [(CASE, 14, "DLG002"), (SPEC, 14, "SPC005")]
    for finding in findings:
        assert {"path", "line", "column", "code", "message"} <= set(finding)
        assert isinstance(finding["line"], int) and isinstance(finding["column"], int)
        assert finding["rule"] == RULES[finding["code"]].name
        assert finding["message"]
    assert findings[0]["pointer"] == "/zh/turns/0/user"


def test_json_format_clean_is_an_empty_list(clean: Path) -> None:
    assert check_json(clean) == (0, [])


def test_json_keeps_chinese_readable(dirty: Path) -> None:
    case = dirty / CASE
    case.write_text(case.read_text(encoding="utf-8").replace("days: 3}}\nzh", "days: 3, 城市: 杭州}}\nzh"), encoding="utf-8")
    _, out, _ = run("check", "--repo", str(dirty), "--format", "json", "--select", "DLG011")
    assert "城市" in out and "\\u" not in out


GITHUB = re.compile(r"::error file=(?P<file>[^,]+),line=(?P<line>\d+),col=(?P<col>\d+),title=(?P<title>[^:]+)::(?P<message>.+)")


def test_github_format(dirty: Path) -> None:
    status, out, _ = run("check", "--repo", str(dirty), "--format", "github")
    assert status == 1
    matches = [GITHUB.fullmatch(line) for line in out.splitlines()]
    assert all(matches), out
    assert [(m["file"], m["line"], m["title"]) for m in matches] == [  # type: ignore[index]
        (CASE, "14", "DLG002 wrong-language"),
        (SPEC, "14", "SPC005 missing-bilingual-description"),
    ]


def test_github_format_without_a_line(clean: Path) -> None:
    (clean / "sandboxes" / "mini" / "policy.zh.md").unlink()
    _, out, _ = run("check", "--repo", str(clean), "--format", "github")
    assert out.startswith("::error file=sandboxes/mini/policy.zh.md,title=SBX005 incomplete-sandbox::")


def test_github_format_escapes_its_special_characters() -> None:
    from validator.diagnostics import Diagnostic, Location
    from validator.reporters import github

    out = github.render([Diagnostic("DLG002", "wrong-language", "50% done\nnext: line", Location("a,b:c.yaml", 3, 4, ""))])
    assert out == "::error file=a%2Cb%3Ac.yaml,line=3,col=4,title=DLG002 wrong-language::50%25 done%0Anext: line\n"


def test_github_format_clean_prints_nothing(clean: Path) -> None:
    assert run("check", "--repo", str(clean), "--format", "github") == (0, "", "")


# ----------------------------------------------------------------------------- select / ignore


@pytest.mark.parametrize(
    ("args", "expected", "status"),
    [
        (("--select", "DLG"), ["DLG002"], 1),
        (("--select", "SPC"), ["SPC005"], 1),
        (("--select", "dlg"), ["DLG002"], 1),  # case-insensitive
        (("--select", "DLG00"), ["DLG002"], 1),  # any prefix
        (("--select", "DLG002"), ["DLG002"], 1),
        (("--select", "DLG,SPC"), ["DLG002", "SPC005"], 1),  # comma-separated
        (("--select", "DLG", "--select", "SPC"), ["DLG002", "SPC005"], 1),  # repeatable
        (("--ignore", "DLG"), ["SPC005"], 1),
        (("--ignore", "DLG002,SPC"), [], 0),
        (("--select", "DLG", "--ignore", "DLG002"), [], 0),  # ignore wins
        (("--select", "SCH"), [], 0),
    ],
)
def test_select_and_ignore_by_prefix(dirty: Path, args: tuple[str, ...], expected: list[str], status: int) -> None:
    found_status, findings = check_json(dirty, *args)
    assert (found_status, codes(findings)) == (status, expected)


# ----------------------------------------------------------------------------- paths


def test_single_file_path(dirty: Path) -> None:
    status, findings = check_json(dirty, str(dirty / SPEC))
    assert (status, codes(findings)) == (1, ["SPC005"])
    status, findings = check_json(dirty, str(dirty / CASE))
    assert (status, codes(findings)) == (1, ["DLG002"])  # specs are read for context, not reported


def test_single_clean_file_path(dirty: Path) -> None:
    assert check_json(dirty, str(dirty / "specs" / "mini" / "send_note.yaml")) == (0, [])


def test_folder_path(dirty: Path) -> None:
    assert codes(check_json(dirty, str(dirty / "dialogues"))[1]) == ["DLG002"]
    assert codes(check_json(dirty, str(dirty / "specs"))[1]) == ["SPC005"]
    assert codes(check_json(dirty, str(dirty))[1]) == ["DLG002", "SPC005"]


def test_several_paths(dirty: Path) -> None:
    assert codes(check_json(dirty, str(dirty / CASE), str(dirty / SPEC))[1]) == ["DLG002", "SPC005"]


def test_relative_path_and_repo_found_from_the_current_folder(dirty: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(dirty / "dialogues")
    status, out, _ = run("check", "--format", "json", "normal/single_turn/single/single-0001.yaml")
    assert (status, codes(json.loads(out))) == (1, ["DLG002"])
    status, out, _ = run("check", "--format", "json")
    assert (status, codes(json.loads(out))) == (1, ["DLG002", "SPC005"])


def test_a_file_that_is_not_a_corpus_file_is_not_checked(dirty: Path) -> None:
    assert check_json(dirty, str(dirty / "sandboxes" / "mini" / "sandbox.py")) == (0, [])


def test_sandbox_folder_rules_follow_the_paths(clean: Path) -> None:
    (clean / "sandboxes" / "mini" / "policy.zh.md").unlink()
    assert codes(check_json(clean, str(clean / "sandboxes" / "mini"))[1]) == ["SBX005"]
    assert codes(check_json(clean, str(clean / "sandboxes" / "mini" / "state.yaml"))[1]) == ["SBX005"]
    assert check_json(clean, str(clean / "dialogues")) == (0, [])


# ----------------------------------------------------------------------------- rules


def test_rules_lists_every_code() -> None:
    status, out, _ = run("rules")
    assert status == 0
    listed = [line.split()[0] for line in out.splitlines()]
    assert listed == sorted(RULES)
    for line in out.splitlines():
        code, name = line.split()[:2]
        assert name == RULES[code].name
        assert line.endswith(RULES[code].summary)


def test_rules_docs_check_passes_on_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    status, out, err = run("rules", "--docs", "docs/rules.md", "--check")
    assert (status, out, err) == (0, "", "")


def test_rules_docs_write_then_check(tmp_path: Path) -> None:
    docs = tmp_path / "rules.md"
    assert run("rules", "--docs", str(docs))[0] == 0
    text = docs.read_text(encoding="utf-8")
    assert all(f"## {code}" in text for code in RULES)
    assert run("rules", "--docs", str(docs), "--check")[0] == 0
    docs.write_text(text.replace("## DLG001", "## DLG001 (edited)"), encoding="utf-8")
    status, _, err = run("rules", "--docs", str(docs), "--check")
    assert status == 1
    assert "out of date" in err
    assert run("rules", "--docs", str(tmp_path / "missing.md"), "--check")[0] == 1


def test_rules_check_needs_docs() -> None:
    status, _, err = run("rules", "--check")
    assert status == 2
    assert "--docs" in err


# ----------------------------------------------------------------------------- messages a contributor reads


def test_a_tab_in_the_indentation_is_called_a_tab(clean: Path) -> None:
    case = clean / CASE
    case.write_text(case.read_text(encoding="utf-8").replace("\n    - user:", "\n\t- user:", 1), encoding="utf-8")
    status, findings = check_json(clean)
    assert status == 1 and codes(findings) == ["SCH001"]
    assert "a tab in the indentation" in findings[0]["message"] and "spaces" in findings[0]["message"]


def test_an_unknown_category_lists_the_categories_instead_of_a_folder_to_move_to(clean: Path) -> None:
    from validator.corpus.categories import CASE_CATEGORIES

    case = clean / CASE
    case.write_text(case.read_text(encoding="utf-8").replace("category: normal/single_turn/single", "category: normal/single"), encoding="utf-8")
    status, findings = check_json(clean)
    assert status == 1 and codes(findings) == ["SCH010"]  # not SCH014 "move it to dialogues/normal/single/"
    [finding] = findings
    assert finding["pointer"] == "/category" and '"normal/single" is not a category' in finding["message"]
    assert finding["allowed"] == list(CASE_CATEGORIES) and "other candidates" not in finding["message"]
    _, text, _ = run("check", "--repo", str(clean))
    assert all(category in text for category in CASE_CATEGORIES)


def test_allowed_values_are_complete_in_json_and_in_argument_problems() -> None:
    from validator.corpus.params import CompileError, compile_schema

    schema = {"type": "string", "enum": ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"]}
    compiled = compile_schema(schema)
    assert not isinstance(compiled, CompileError)
    [problem] = compiled.problems("up")
    assert "other candidates" not in problem.message and all(value in problem.message for value in schema["enum"])


@pytest.mark.parametrize("command", ["validate", "stats", "check"])
def test_outside_a_repository_commands_fail_clearly(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, err = run(command)
    assert status == 2 and out == "" and f"no callbank repository at or above {tmp_path}" in err and "--repo" in err
    status, _, err = run(command, "--repo", str(tmp_path))
    assert status == 2 and f"--repo {tmp_path} is not a callbank repository" in err


def test_argument_findings_carry_the_complete_allowed_list_in_json(clean: Path) -> None:
    case = clean / CASE
    text = case.read_text(encoding="utf-8")
    text = text.replace("{api: get_weather, args: {city: Hangzhou, days: 3}}", "{api: get_weather, args: {city: Hangzhou, days: 3, unit: kelvin, region: Zhejiang}}", 1)
    text = text.replace("{city: {$any: [杭州, Hangzhou]}, days: 3}", "{city: {$any: [杭州, Hangzhou]}, days: 3, unit: kelvin, region: 浙江}", 1)
    case.write_text(text, encoding="utf-8")
    status, findings = check_json(clean)
    assert status == 1
    by_code = {f["code"]: f for f in findings}
    assert set(by_code) == {"DLG010", "DLG011"}
    assert by_code["DLG010"]["allowed"] == ["celsius", "fahrenheit"] and by_code["DLG010"]["pointer"].endswith("/args/unit")
    assert by_code["DLG011"]["allowed"] == ["city", "days", "unit"]
