"""`validator.hub.records`: language views of items and their exact inverse."""

from __future__ import annotations

from tests.hub.helpers import FIXTURE
from validator.corpus.canonical import canonical_json
from validator.corpus.index import Corpus
from validator.corpus.schemawalk import localize as render_property
from validator.hub.configs import config_name, configs_of, kind_of_config
from validator.hub.corpus import Sources
from validator.hub.records import COLUMNS, merge_property, project, to_source

NESTED = {
    "type": "object",
    "description": {"en": "Outer.", "zh": "外层。"},
    "properties": {
        "days": {"type": "array", "description": {"en": "Days.", "zh": "日子。"}, "items": {"type": "string", "description": {"en": "Day.", "zh": "某天。"}}},
        "note": {"type": "string", "description": {"en": "Note.", "zh": "备注。"}, "enum": [{"en": "kept", "zh": "as data"}]},
    },
}


def test_render_property_translates_descriptions_at_every_depth() -> None:
    zh = render_property(NESTED, "zh")
    assert zh["description"] == "外层。"
    assert zh["properties"]["days"]["items"]["description"] == "某天。"
    assert zh["properties"]["note"]["enum"] == [{"en": "kept", "zh": "as data"}]  # values are data, not text


def test_merge_property_inverts_render_property() -> None:
    assert merge_property({"en": render_property(NESTED, "en"), "zh": render_property(NESTED, "zh")}) == NESTED


def test_render_function_is_an_openai_tool() -> None:
    spec = Corpus.load(FIXTURE).specs["send_message"]
    tool = spec.tool("en")
    assert tool["type"] == "function" and tool["function"]["name"] == "send_message"
    assert tool["function"]["parameters"]["required"] == ["receiver", "content"]


def test_project_then_to_source_is_the_identity_for_every_item() -> None:
    sources = Sources.from_corpus(Corpus.load(FIXTURE))
    for config in configs_of(sources):
        assert kind_of_config(config.name) == config.kind
        for item in config.items:
            en, zh = (project(config.kind, item, lang, sources) for lang in ("en", "zh"))
            assert set(en) <= {c.name for c in COLUMNS[config.kind]}
            assert canonical_json(to_source(config.kind, {"en": en, "zh": zh})) == canonical_json(item)


def test_config_names() -> None:
    assert config_name("normal/single_turn/single") == "normal_single_turn_single"
    assert config_name("special/error_param") == "special_error_param"
    assert [kind_of_config(n) for n in ("apis", "sandboxes", "agent_multi_step", "retrieval_call")] == ["api", "sandbox", "scenario", "case"]
