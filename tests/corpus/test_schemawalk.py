"""The one schema walker: localised and plain schemas, values left alone."""

from __future__ import annotations

from validator.corpus.schemawalk import iter_property_schemas, localize, map_schemas, plain

SCHEMA = {
    "type": "object",
    "description": {"en": "Outer.", "zh": "外层。"},
    "properties": {
        "description": {"type": "string", "description": {"en": "A field named description.", "zh": "名为 description 的字段。"}},
        "days": {"type": "array", "description": {"en": "Days.", "zh": "日子。"}, "items": {"type": "string", "description": {"en": "Day.", "zh": "某天。"}}},
        "note": {"type": "string", "enum": [{"en": "kept", "zh": "as data"}], "default": {"description": {"en": "x", "zh": "y"}}},
    },
    "anyOf": [{"description": {"en": "a", "zh": "b"}}],
}


def test_localize_translates_every_description_and_no_value() -> None:
    zh = localize(SCHEMA, "zh")
    assert zh["description"] == "外层。" and zh["anyOf"] == [{"description": "b"}]
    assert zh["properties"]["description"]["description"] == "名为 description 的字段。"
    assert zh["properties"]["days"]["items"]["description"] == "某天。"
    assert zh["properties"]["note"]["enum"] == [{"en": "kept", "zh": "as data"}] and zh["properties"]["note"]["default"] == {"description": {"en": "x", "zh": "y"}}
    assert SCHEMA["description"] == {"en": "Outer.", "zh": "外层。"}  # a fresh copy


def test_plain_drops_bilingual_descriptions_at_any_depth() -> None:
    schema = {"type": "object", "description": {"en": "x", "zh": "x"}, "properties": {"description": {"type": "string", "description": "kept"}}, "anyOf": [{"description": {"en": "a", "zh": "b"}}]}
    assert plain(schema) == {"type": "object", "properties": {"description": {"type": "string", "description": "kept"}}, "anyOf": [{}]}


def test_map_schemas_visits_every_subschema_once() -> None:
    seen: list[object] = []
    map_schemas(SCHEMA, lambda node: seen.append(node.get("type")) or node)
    assert seen == ["object", "string", "array", "string", "string", None]


def test_property_schemas_with_their_pointers() -> None:
    found = [(name, pointer) for name, _, pointer in iter_property_schemas(SCHEMA)]
    assert found == [
        ("description", "/parameters/properties/description"),
        ("days", "/parameters/properties/days"),
        ("items", "/parameters/properties/days/items"),
        ("note", "/parameters/properties/note"),
    ]
    assert list(iter_property_schemas(None)) == [] and list(iter_property_schemas({"properties": "x"})) == []
