"""Every rule is proven by a fixture that triggers exactly it, and a fixed twin that is clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixture_repos import RULE_FIXTURES, expected, materialise
from validator import engine
from validator.rules import RULES

CODES = sorted(RULES)


def _run(code: str, root: Path) -> list[tuple[str, str, int | None]]:
    if code.startswith("REV"):  # review findings come from the publishing gate, not from check
        from validator.review.gate import blocking

        diagnostics = blocking(root, publishing=RULES[code].stage == "publish")
    else:
        diagnostics = engine.validate(root) if code.startswith("EXE") else engine.check(root)
    return sorted(((d.code, d.location.path, d.location.line) for d in diagnostics), key=str)


@pytest.mark.parametrize("code", CODES)
def test_fail_fixture_triggers_exactly_its_rule(code: str, tmp_path: Path) -> None:
    assert (RULE_FIXTURES / code / "fail").is_dir(), f"{code} has no fail fixture"
    found = _run(code, materialise(code, "fail", tmp_path))
    assert found == expected(code)
    assert {c for c, _, _ in found} == {code}


@pytest.mark.parametrize("code", CODES)
def test_pass_fixture_is_clean(code: str, tmp_path: Path) -> None:
    assert (RULE_FIXTURES / code / "pass").is_dir(), f"{code} has no pass fixture"
    assert _run(code, materialise(code, "pass", tmp_path)) == []


@pytest.mark.parametrize("code", CODES)
def test_rule_is_documented(code: str) -> None:
    rule = RULES[code]
    assert rule.summary.endswith(".")
    assert list(rule.sections) == ["What it does", "Why is this bad?", "Example", "Use instead"], code
    assert all(body.strip() for body in rule.sections.values())


def test_rule_docs_are_current() -> None:
    from validator.commands.rules import render_docs

    assert (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8") == render_docs()
