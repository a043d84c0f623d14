"""The hook manifest is valid, and pre-commit really runs the hook on a changed file."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from pre_commit.clientlib import load_config, load_manifest

ROOT = Path(__file__).parents[1]
MINIMAL = Path(__file__).parent / "fixtures" / "repos" / "minimal"


def test_manifest_and_config_are_valid() -> None:
    hooks = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    assert [h["id"] for h in hooks] == ["callbank-check"]
    assert hooks[0]["language"] == "python"
    config = load_config(str(ROOT / ".pre-commit-config.yaml"))
    assert [h["id"] for r in config["repos"] for h in r["hooks"]] == ["callbank-check", "ruff", "mypy"]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_hook_runs_on_a_changed_file(tmp_path: Path) -> None:
    """`pre-commit try-repo` installs this repository's hook in its own environment and runs it."""
    work = tmp_path / "corpus"
    shutil.copytree(MINIMAL, work)
    _git(work, "init", "-q")
    _git(work, "-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    case = work / "dialogues" / "normal" / "single_turn" / "single" / "single-0001.yaml"
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "SKIP": ""}

    def hook(*files: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "callbank-check", "--files", *map(str, files)],
            cwd=work, env=env, capture_output=True, text=True, timeout=600,
        )

    clean = hook(case)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    case.write_text(case.read_text(encoding="utf-8").replace("days: 3}", "days: 30}", 1), encoding="utf-8")
    broken = hook(case)
    assert broken.returncode == 1
    assert "DLG010" in broken.stdout and "single-0001.yaml:11" in broken.stdout


# ----------------------------------------------------------------------------- what CI would find, at commit time

HUB = Path(__file__).parent / "fixtures" / "repos" / "hub"
CASE = "dialogues/normal/single_turn/single/st-single-0001.yaml"
SCENARIO = "sandboxes/phone/scenarios/phone-0001.yaml"
SANDBOX = "sandboxes/phone/sandbox.py"


def _hub(tmp_path: Path) -> Path:
    root = tmp_path / "hub"
    shutil.copytree(HUB, root)
    return root


def _edit(root: Path, path: str, old: str, new: str) -> None:
    file = root / path
    text = file.read_text(encoding="utf-8")
    assert old in text, (path, old)
    file.write_text(text.replace(old, new, 1), encoding="utf-8")


def _check(root: Path, *args: str) -> tuple[int, list[dict[str, object]]]:
    import json

    from click.testing import CliRunner

    from validator.cli import cli

    result = CliRunner().invoke(cli, ["check", "--repo", str(root), "--format", "json", *args], catch_exceptions=False)
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else []


def test_the_hooks_entry_executes_what_it_checks() -> None:
    [hook] = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    assert hook["entry"] == "callbank check --exec"
    assert re.match(hook["files"], SANDBOX) and re.match(hook["files"], CASE) and not re.match(hook["files"], "validator/engine.py")


def test_a_well_formed_call_the_sandbox_rejects_fails_the_hook(tmp_path: Path) -> None:
    root = _hub(tmp_path)
    assert _check(root, "--exec", str(root / CASE)) == (0, [])
    _edit(root, CASE, 'time: "2024-07-15', 'state: {phone: {device: {wifi: false}}}\ntime: "2024-07-15')  # send_message: no_network
    assert _check(root, str(root / CASE)) == (0, [])  # the rule checks alone (the old hook) pass it
    status, findings = _check(root, "--exec", str(root / CASE))
    assert status == 1 and {f["path"] for f in findings} == {CASE} and all(str(f["code"]).startswith("EXE") for f in findings)
    assert any("no_network" in str(f["message"]) for f in findings)


def test_a_scenario_whose_reference_call_fails_fails_the_hook(tmp_path: Path) -> None:
    root = _hub(tmp_path)
    _edit(root, SCENARIO, "  - {api: turn_on_wifi, args: {}}\n", "")  # Wi-Fi stays off: send_message fails
    _edit(root, SCENARIO, "  - {id: m1, api: turn_on_wifi}\n  - {id: m2, api: send_message, args: {receiver: {$lang: {en: Zhang Wei, zh: 张伟}}}, after: [m1]}", "  - {id: m2, api: send_message, args: {receiver: {$lang: {en: Zhang Wei, zh: 张伟}}}}")
    assert _check(root, str(root / SCENARIO)) == (0, [])
    status, findings = _check(root, "--exec", str(root / SCENARIO))
    assert status == 1 and SCENARIO in {f["path"] for f in findings} and any("no_network" in str(f["message"]) for f in findings)


def test_a_changed_sandbox_py_executes_the_cases_and_scenarios_that_use_it(tmp_path: Path) -> None:
    root = _hub(tmp_path)
    _edit(root, SANDBOX, 'if not self.data["device"]["wifi"]:', "if True:")  # every message now fails
    assert _check(root, str(root / SANDBOX)) == (0, [])  # not a corpus file: the rule checks see nothing
    status, findings = _check(root, "--exec", str(root / SANDBOX))
    assert status == 1
    blamed = {str(f["path"]) for f in findings}
    assert CASE in blamed and SCENARIO in blamed  # unchanged files that call send_message


def test_touched_selects_by_file_spec_and_sandbox() -> None:
    from validator.corpus.index import Corpus
    from validator.corpus.touched import touched

    corpus = Corpus.load(HUB)
    only_case = touched(corpus, [CASE])
    assert only_case.items == {CASE} and only_case.sandboxes == frozenset() and only_case.files == {CASE}
    spec = touched(corpus, ["specs/phone/set_alarm.yaml"])
    assert spec.sandboxes == {"phone"} and "specs/phone/set_alarm.yaml" in spec.files
    assert all(path.startswith(("dialogues/", "sandboxes/phone/scenarios/")) for path in spec.items) and spec.items
    sandbox = touched(corpus, [SANDBOX])
    assert sandbox.files == frozenset() and sandbox.sandboxes == {"phone"}
    assert {SCENARIO, "sandboxes/phone/scenarios/phone-0002.yaml", CASE} <= sandbox.items
