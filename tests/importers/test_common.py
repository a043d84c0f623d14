"""What the importers share: API names made identifiers and unique in reading order, and the
peers' call text read as literals, never evaluated."""

from __future__ import annotations

import pytest

from validator.importers.calls import CallSyntaxError, read_calls
from validator.importers.common import ApiNames, Where, api_identifier

HERE = Where("data.json", 1, "r1")


@pytest.mark.parametrize(
    ("source", "name"),
    [("getWeather", "get_weather"), ("HTTPRequest", "http_request"), ("math.factorial", "math_factorial"), ("3d_print", "api_3d_print"), ("ok_name", "ok_name")],
)
def test_api_identifier(source: str, name: str) -> None:
    assert api_identifier(source) == name


def test_names_unique_in_reading_order() -> None:
    names = ApiNames()
    assert names.name("getWeather", {"p": 1}, HERE) == ("get_weather", True)
    assert names.name("getWeather", {"p": 1}, HERE) == ("get_weather", False)  # the same definition shares one spec
    assert names.name("getWeather", {"p": 2}, HERE) == ("get_weather_2", True)
    assert names.name("get_weather", {"p": 3}, HERE) == ("get_weather_3", True)  # its identifier is taken
    assert names.name("查询天气", {"p": 4}, HERE) == ("api_1", True)
    assert names.name("预订酒店", {"p": 5}, HERE) == ("api_2", True)
    assert names.name("search_tools", {}, HERE, reserved=frozenset({"search_tools"})) == ("search_tools_2", True)
    assert [(r.source, r.name) for r in names.renamed] == [
        ("getWeather", "get_weather"), ("getWeather", "get_weather_2"), ("get_weather", "get_weather_3"),
        ("查询天气", "api_1"), ("预订酒店", "api_2"), ("search_tools", "search_tools_2"),
    ]
    assert "Latin" in names.renamed[3].reason and "already names" in names.renamed[1].reason


def test_read_calls_literals_and_json_names() -> None:
    assert read_calls('[a.b(x=1, y="t"), c(flag=true, none=null, n=-2.5, l=[1, {"k": False}])]') == [
        ("a.b", {"x": 1, "y": "t"}),
        ("c", {"flag": True, "none": None, "n": -2.5, "l": [1, {"k": False}]}),
    ]
    assert read_calls("single(q='x')") == [("single", {"q": "x"})]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[f(1)]", "positional arguments"),
        ("[f(x=y)]", "the bare name 'y'"),
        ("[f(x=1+2)]", "not a literal"),
        ("[f(x=1, x=2)]", "given twice"),
        ("[f(x=1e999)]", "not finite"),
        ("[]", "no call"),
        ("[f(x=1)", "not call syntax"),
        ("[__import__('os').system(x='ls')]", "not a plain name"),
    ],
)
def test_read_calls_refuses(text: str, message: str) -> None:
    with pytest.raises(CallSyntaxError, match=message):
        read_calls(text)
