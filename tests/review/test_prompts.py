"""The versioned judge prompts and the material they are filled with."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.review.helpers import corpus
from validator.corpus.build import build_spec
from validator.corpus.categories import FAMILIES
from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.loading import Document
from validator.review.items import collect_items
from validator.review.material import material_for, render_dialogue
from validator.review.prompts import PROMPTS_DIR, available, fill, load_prompt, parse_prompt


def test_every_family_has_a_version_in_both_languages() -> None:
    versions = available()
    assert set(versions) == set(FAMILIES)
    names = {p.name for p in PROMPTS_DIR.glob("*.md")}
    assert names == {f"{family}.v{version}.{lang}.md" for family in FAMILIES for version in versions[family] for lang in LANGS}


@pytest.mark.parametrize("family", FAMILIES)
def test_both_languages_use_the_same_placeholders_and_ask_for_the_same_json(family: str) -> None:
    en, zh = load_prompt(family, "en"), load_prompt(family, "zh")
    assert en.name == zh.name == f"{family}.v{available()[family][-1]}"
    assert en.placeholders == zh.placeholders
    for prompt in (en, zh):
        assert all(key in prompt.system for key in ('"verdict"', '"valid"', '"invalid"', '"problems"', '"suggested_fix"'))
    assert any("\u4e00" <= c <= "\u9fff" for c in zh.system) and not any("\u4e00" <= c <= "\u9fff" for c in en.system)


def test_every_item_of_the_fixture_fills_its_prompts(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    repo = Corpus.load(root)
    items, skipped = collect_items(repo)
    assert skipped == [] and {item.family for item in items} == set(FAMILIES)
    for item in items:
        material = material_for(item, repo.specs, root)
        for lang in LANGS:
            messages = load_prompt(item.family, lang).messages(material)
            assert "{{" not in messages[0]["content"] + messages[1]["content"]
            assert item.id in messages[1]["content"]


def test_an_unknown_placeholder_is_an_error() -> None:
    with pytest.raises(KeyError, match="nope"):
        fill("{{ id }} {{nope}}", {"id": "x"})


def test_a_prompt_file_needs_both_markers() -> None:
    assert parse_prompt("comment\n<!-- system -->\nS\n<!-- user -->\nU\n") == ("S", "U")
    with pytest.raises(ValueError):
        parse_prompt("<!-- user -->\nU\n<!-- system -->\nS\n")


def test_specs_are_rendered_per_language() -> None:
    data = {
        "name": "f",
        "domain": "x",
        "sandbox": "x",
        "description": {"en": "Do.", "zh": "做。"},
        "parameters": {"type": "object", "properties": {"a": {"type": "object", "description": {"en": "A.", "zh": "甲。"}, "properties": {"b": {"type": "string", "description": {"en": "B.", "zh": "乙。"}}}}}, "additionalProperties": False},
        "returns": {"type": "object"},
    }
    zh = build_spec(Document("specs/x/f.yaml", "api", data, "")).function_schema("zh")
    assert zh["description"] == "做。" and zh["parameters"]["properties"]["a"]["properties"]["b"]["description"] == "乙。"


def test_the_dialogue_is_shown_side_by_side_and_flags_a_mismatch() -> None:
    case = {"en": {"turns": [{"user": "Hi"}, {"expect": {"special": "irrelevant"}}]}, "zh": {"turns": [{"user": "你好"}]}}
    text = render_dialogue(case)
    assert "[1] user\n    EN: Hi\n    ZH: 你好" in text
    assert "ZH: (no such turn)" in text


def test_a_retrieval_case_shows_the_judges_the_apis_the_model_must_find() -> None:
    repo = Corpus.load(Path(__file__).resolve().parents[1] / "fixtures" / "repos" / "scoring")
    items, _ = collect_items(repo)
    [item] = [i for i in items if i.id == "retrieval-plan-0001"]
    material = material_for(item, repo.specs, repo.root)
    for api in ("search_tools", "convert_currency", "send_message"):
        assert f'"name": "{api}"' in material["apis_en"] and f'"name": "{api}"' in material["apis_zh"]
