"""Versioned prompt files: complete in every style and language, assembled per mode and kind."""

from __future__ import annotations

import re

import pytest

from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.models import prompts
from validator.models.prompts import MODEL_SECTIONS, STOP_MARKER, STYLES, load_sections, prompt_hash, system_prompt, user_prompt
from validator.models.request import case_requests

STYLE_LANGS = [(style, lang) for style in STYLES for lang in LANGS]


@pytest.mark.parametrize(("style", "lang"), STYLE_LANGS)
def test_every_style_has_every_section_in_both_languages(style: str, lang: str) -> None:
    sections = load_sections(style, lang)
    assert set(sections) == set(MODEL_SECTIONS)
    assert "{{results}}" in sections["results"] and "{{apis}}" in sections["apis"] and "{{policy}}" in sections["policy"]
    assert "search_books" in sections["example.python"] and "search_books" in sections["example.json"]
    markers = ("[MISSING]", "[INVALID]", "[IRRELEVANT]") if lang == "en" else ("【缺少参数】", "【参数错误】", "【无关】")
    assert all(marker in sections["special"] for marker in markers)


@pytest.mark.parametrize(("style", "lang"), STYLE_LANGS)
def test_case_prompts_by_mode(repo: Corpus, style: str, lang: str) -> None:
    tools = [repo.specs["get_weather"].tool(lang)]
    text = system_prompt(lang, "python", tools=tools, time="2024-06-11T09:00:00+08:00", profile="P-R-O-F", style=style)
    assert "2024-06-11T09:00:00+08:00" in text and "P-R-O-F" in text
    assert ("2024-06-11T09:00:00+08:00 (Tuesday)" if lang == "en" else "2024-06-11T09:00:00+08:00（星期二）") in text
    assert "星期二" in system_prompt(lang, "tool_calls", time="2024-06-11T09:00:00+08:00", style=style) or lang == "en"
    assert '"get_weather"' in text and "search_books(author=" in text  # the APIs and the one-shot example
    native = system_prompt(lang, "tool_calls", tools=tools, style=style)
    assert '"get_weather"' not in native and "search_books" not in native  # tools travel as `tools`
    assert ("[MISSING]" if lang == "en" else "【缺少参数】") in native
    as_json = system_prompt(lang, "json", tools=tools, style=style)
    assert '"api": "search_books"' in as_json
    for prompt in (text, native, as_json):
        assert "{{" not in prompt and "<!--" not in prompt


@pytest.mark.parametrize(("style", "lang"), STYLE_LANGS)
def test_agent_prompts_have_the_policy_and_no_markers(style: str, lang: str) -> None:
    text = system_prompt(lang, "python", tools=[], policy="POLICY-TEXT", style=style)
    assert "POLICY-TEXT" in text and "[MISSING]" not in text and "【缺少参数】" not in text
    assert "POLICY-TEXT" not in system_prompt(lang, "python", tools=[], policy="", style=style)


def test_api_layout_per_style(repo: Corpus) -> None:
    tools = [repo.specs[name].tool("en") for name in ("get_weather", "send_message")]
    standard = system_prompt("en", "python", tools=tools, style="standard")
    minimal = system_prompt("en", "python", tools=tools, style="minimal")
    assert '\n  {\n    "name": "get_weather"' in standard
    assert re.search(r'^\{"name": "get_weather", .*\}$', minimal, re.MULTILINE) and re.search(r'^\{"name": "send_message"', minimal, re.MULTILINE)
    assert len(minimal) < len(standard)


def test_requests_carry_the_style(repo: Corpus) -> None:
    [standard] = case_requests(repo.cases["single-0001"], "zh", repo.specs, "python")
    [minimal] = case_requests(repo.cases["single-0001"], "zh", repo.specs, "python", style="minimal")
    assert standard.messages[0]["content"] != minimal.messages[0]["content"]
    assert standard.messages[1:] == minimal.messages[1:]


@pytest.mark.parametrize("lang", LANGS)
def test_user_simulator_prompt(lang: str) -> None:
    system, opening = user_prompt({"goal": "GOAL-X", "known": ["K-1", "K-2"], "unknown": []}, lang)
    assert "GOAL-X" in system and "- K-1\n- K-2" in system and STOP_MARKER in system
    assert load_sections("user", lang)["none"] in system  # nothing unknown
    assert opening and "{{" not in system + opening


def test_prompt_hash_covers_the_files(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    assert prompt_hash() == prompt_hash() and prompt_hash().startswith("sha256:")
    copy = tmp_path / "v1"
    copy.mkdir()
    for path in prompts.prompt_files():
        (copy / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(prompts, "PROMPTS_DIR", tmp_path)
    same = prompt_hash()
    (copy / "minimal.en.md").write_text((copy / "minimal.en.md").read_text() + " ", encoding="utf-8")
    assert prompt_hash() != same


def test_missing_section_is_reported(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "v9").mkdir()
    (tmp_path / "v9" / "standard.en.md").write_text("<!-- intro -->\nhello\n", encoding="utf-8")
    monkeypatch.setattr(prompts, "PROMPTS_DIR", tmp_path)
    with pytest.raises(prompts.PromptError, match="lacks the section"):
        load_sections("standard", "en", "v9")
    with pytest.raises(prompts.PromptError, match="no prompt file"):
        load_sections("standard", "zh", "v9")


def test_the_clock_is_shown_with_its_weekday() -> None:
    from validator.models.prompts import clock_text

    assert clock_text("2025-05-09T07:45:00+01:00", "en") == "2025-05-09T07:45:00+01:00 (Friday)"
    assert clock_text("2025-05-09T07:45:00+01:00", "zh") == "2025-05-09T07:45:00+01:00（星期五）"
    assert clock_text("tomorrow-ish", "en") == "tomorrow-ish"  # not a timestamp: shown as it is
