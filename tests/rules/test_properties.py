"""Properties of the case rules, on cases generated from a small grammar.

Valid cases are generated for the minimal repository's APIs (`get_weather(city, unit?, days?)`,
`send_note(to, text, urgent?)`): random English and Chinese text, dialogues of every shape the
normal and two special categories allow, calls whose arguments are valid literals or matchers
(`$any`, `$text`, and `$optional` on optional parameters). Each is written as YAML into a copy of
the minimal repository and checked with `engine.check` on that one file:

* a valid case has no finding;
* a targeted mutation yields exactly the matching rule: a wrongly typed argument DLG010, an
  unknown argument DLG011, a missing required argument DLG012, a language side removed DLG001,
  a turn in the other language DLG002.
"""

from __future__ import annotations

import datetime as dt
import shutil
import string
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixture_repos import REPOS
from validator import engine
from validator.matchers import normalize_text
from validator.rules.history import Known, unsourced_claims
from validator.text import has_cjk

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CASE_ID = "gen-0001"
CLOCK = "2024-07-15T09:00:00+08:00"

# The minimal repository's APIs: parameter -> (kind, required). Kinds drive value generation.
APIS: dict[str, dict[str, tuple[str, bool]]] = {
    "get_weather": {"city": ("string", True), "unit": ("unit", False), "days": ("days", False)},
    "send_note": {"to": ("string", True), "text": ("string", True), "urgent": ("boolean", False)},
}
UNITS = ["celsius", "fahrenheit"]
CALL_CATEGORIES = ["normal/single_turn/single", "normal/single_turn/parallel", "normal/multi_turn/adjust", "normal/multi_turn/switch"]
CATEGORIES = [*CALL_CATEGORIES, "special/irrelevant", "special/incomplete"]


# ----------------------------------------------------------------------------- text

_EN_WORD = st.text(alphabet=string.ascii_letters + string.digits + "'-", min_size=1, max_size=9).filter(lambda w: any(c.isalpha() for c in w))
_CJK = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FA5)


@cache  # strategies are built once: building them is most of hypothesis's cost here
def en_text() -> st.SearchStrategy[str]:
    return st.tuples(st.lists(_EN_WORD, min_size=1, max_size=7), st.sampled_from(["", ".", "?", "!"])).map(lambda t: " ".join(t[0]) + t[1])


@cache
def zh_text() -> st.SearchStrategy[str]:
    mixed = st.one_of(_CJK, _CJK, _CJK, st.sampled_from(list("，。？！、0123456789 ABCxyz")))
    return st.text(alphabet=mixed, min_size=1, max_size=24).map(str.strip).filter(has_cjk)


def text_for(lang: str) -> st.SearchStrategy[str]:
    return en_text() if lang == "en" else zh_text()


_NO_DIGITS = str.maketrans("", "", string.digits)


@cache
def history_text_for(lang: str) -> st.SearchStrategy[str]:
    """An assistant history turn: text without digits that states no number, time or date the
    case's clock does not give (DLG050's finding; hypothesis finds "friday" and "twelve" itself)."""
    clock = dt.datetime.fromisoformat(CLOCK)
    plain = text_for(lang).map(lambda text: text.translate(_NO_DIGITS).strip()).filter(bool)
    return plain.filter(lambda text: next(unsourced_claims(text, Known(clock)), None) is None)


# ----------------------------------------------------------------------------- values


@cache
def _string_value(lang: str) -> st.SearchStrategy[Any]:
    plain = text_for(lang)
    return st.one_of(
        plain,
        st.lists(st.one_of(plain, en_text()), min_size=2, max_size=3).map(lambda v: {"$any": v}),
        plain.filter(lambda t: normalize_text(t) != "").map(lambda t: {"$text": t}),
    )


@cache
def value_for(kind: str, required: bool, lang: str) -> st.SearchStrategy[Any]:
    if kind == "string":
        base = _string_value(lang)
    elif kind == "unit":
        base = st.one_of(st.sampled_from(UNITS), st.builds(lambda: {"$any": list(UNITS)}))
    elif kind == "days":
        base = st.one_of(st.integers(1, 7), st.lists(st.integers(1, 7), min_size=2, max_size=3).map(lambda v: {"$any": v}))
    else:
        base = st.booleans()
    if required:
        return base
    return st.one_of(base, base.map(lambda v: {"$optional": v}))


# ----------------------------------------------------------------------------- dialogues


@st.composite
def call_skeleton(draw: st.DrawFn) -> tuple[str, list[str]]:
    """An API and the names of the arguments a call gives (every required one, some optional)."""
    api = draw(st.sampled_from(sorted(APIS)))
    names = [n for n, (_, required) in APIS[api].items() if required]
    names += [n for n, (_, required) in APIS[api].items() if not required and draw(st.booleans())]
    return api, names


@st.composite
def case_skeleton(draw: st.DrawFn, categories: list[str]) -> dict[str, Any]:
    """What both languages share: category, candidate APIs, turn kinds, APIs and argument names."""
    category = draw(st.sampled_from(categories))
    if category.startswith("special/"):
        checkpoints: list[Any] = [None] * (draw(st.integers(1, 2)) if category == "special/irrelevant" else 1)
    else:
        if category == "normal/single_turn/single":
            counts = [1]
        elif category == "normal/single_turn/parallel":
            counts = [draw(st.integers(2, 3))]
        else:
            counts = draw(st.lists(st.integers(1, 2), min_size=2, max_size=3))
        checkpoints = []
        for count in counts:
            alternatives = draw(st.integers(1, 2))
            checkpoints.append([[draw(call_skeleton()) for _ in range(count)] for _ in range(alternatives)])
    called = {api for point in checkpoints if point for alternative in point for api, _ in alternative}
    extra = draw(st.sets(st.sampled_from(sorted(APIS)), max_size=2))
    apis = sorted(called | extra) or sorted(APIS)
    incomplete = None
    if category == "special/incomplete":
        api = draw(st.sampled_from(apis))
        required = [n for n, (_, r) in APIS[api].items() if r]
        incomplete = (api, draw(st.lists(st.sampled_from(required), min_size=1, unique=True)))
    turns: list[tuple[str, Any]] = []
    for i, point in enumerate(checkpoints):
        if i > 0 and draw(st.booleans()):
            turns.append(("assistant", None))
        turns.append(("user", None))
        turns.append(("expect", point))
        last = i == len(checkpoints) - 1
        if point is not None and not last and draw(st.booleans()):
            turns.append(("tool", [api for api, _ in point[0]]))
    return {"category": category, "apis": apis, "turns": turns, "incomplete": incomplete}


@st.composite
def side(draw: st.DrawFn, skeleton: dict[str, Any], lang: str) -> dict[str, Any]:
    turns: list[dict[str, Any]] = []
    for kind, shape in skeleton["turns"]:
        if kind in ("user", "assistant"):
            turns.append({kind: draw(text_for(lang) if kind == "user" else history_text_for(lang))})
        elif kind == "tool":
            turns.append({"tool": [{"api": api, "result": {"ok": True}} for api in shape]})
        elif shape is None:
            if skeleton["category"] == "special/incomplete":
                api, missing = skeleton["incomplete"]
                turns.append({"expect": {"special": "incomplete", "api": api, "missing": list(missing)}})
            else:
                turns.append({"expect": {"special": "irrelevant"}})
        else:
            alternatives = [
                {"calls": [{"api": api, "args": {n: draw(value_for(*APIS[api][n], lang)) for n in names}} for api, names in calls]}
                for calls in shape
            ]
            turns.append({"expect": alternatives[0] if len(alternatives) == 1 else {"one_of": alternatives}})
    return {"turns": turns}


@st.composite
def cases(draw: st.DrawFn, categories: list[str] = CATEGORIES) -> dict[str, Any]:
    skeleton = draw(case_skeleton(categories))
    return {
        "id": CASE_ID,
        "category": skeleton["category"],
        "apis": skeleton["apis"],
        "time": CLOCK,
        "en": draw(side(skeleton, "en")),
        "zh": draw(side(skeleton, "zh")),
    }


# ----------------------------------------------------------------------------- checking


class _QuotedDumper(yaml.SafeDumper):
    """Every string double-quoted: YAML 1.1 words such as `y` or `no` stay strings."""


_QuotedDumper.add_representer(str, lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"'))
_QuotedDumper.ignore_aliases = lambda self, data: True  # type: ignore[method-assign]  # no &anchors (SCH003)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("properties") / "repo"
    shutil.copytree(REPOS / "minimal", root)
    return root


def check_case(root: Path, case: dict[str, Any]) -> list[tuple[str, str]]:
    """(code, message) of every finding for the case, written where its category belongs."""
    category = case.get("category", CALL_CATEGORIES[0])
    path = root / "dialogues" / category / f"{CASE_ID}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    depth = len(path.relative_to(root).parts) - 1
    header = f"# yaml-language-server: $schema={'../' * depth}schemas/case.schema.json\n"
    path.write_text(header + yaml.dump(case, Dumper=_QuotedDumper, allow_unicode=True, sort_keys=False), encoding="utf-8")
    try:
        return [(d.code, d.message) for d in engine.check(root, [str(path)])]
    finally:
        path.unlink()


def call_places(case: dict[str, Any]) -> list[tuple[int, int, int]]:
    """(turn, alternative, call) of every call; the same in both languages by construction."""
    places = []
    for t, turn in enumerate(case["en"]["turns"]):
        answer = turn.get("expect")
        if isinstance(answer, dict):
            alternatives = [answer] if "calls" in answer else answer.get("one_of", [])
            for a, alternative in enumerate(alternatives):
                places.extend((t, a, c) for c in range(len(alternative["calls"])))
    return places


def call_at(case: dict[str, Any], lang: str, place: tuple[int, int, int]) -> dict[str, Any]:
    t, a, c = place
    answer = case[lang]["turns"][t]["expect"]
    alternative = answer if "calls" in answer else answer["one_of"][a]
    return alternative["calls"][c]


# ----------------------------------------------------------------------------- properties


@SETTINGS
@given(case=cases())
def test_generated_valid_cases_have_no_finding(repo: Path, case: dict[str, Any]) -> None:
    assert check_case(repo, case) == []


WRONG_TYPE = {
    "string": st.one_of(st.integers(), st.booleans(), st.none(), st.lists(en_text(), max_size=2), st.floats(allow_nan=False, allow_infinity=False)),
    "unit": st.one_of(st.integers(), st.booleans(), st.none(), st.just(["celsius"]), en_text().filter(lambda t: t not in UNITS)),
    "days": st.one_of(en_text(), st.booleans(), st.none(), st.floats(0.1, 6.9).filter(lambda f: not f.is_integer()), st.just({"n": 3})),
    "boolean": st.one_of(st.integers(0, 1), st.sampled_from(["true", "yes", "no"]), st.none(), st.just([True])),
}


@SETTINGS
@given(case=cases(CALL_CATEGORIES), data=st.data())
def test_wrong_argument_type_is_dlg010(repo: Path, case: dict[str, Any], data: st.DataObject) -> None:
    place = data.draw(st.sampled_from(call_places(case)))
    langs = data.draw(st.sampled_from([("en",), ("zh",), ("en", "zh")]))
    name = data.draw(st.sampled_from(sorted(call_at(case, "en", place)["args"])))
    for lang in langs:
        call = call_at(case, lang, place)
        call["args"][name] = data.draw(WRONG_TYPE[APIS[call["api"]][name][0]])
    found = check_case(repo, case)
    assert {code for code, _ in found} == {"DLG010"}, found
    assert len(found) == len(langs)


@SETTINGS
@given(case=cases(CALL_CATEGORIES), data=st.data())
def test_unknown_argument_is_dlg011(repo: Path, case: dict[str, Any], data: st.DataObject) -> None:
    place = data.draw(st.sampled_from(call_places(case)))
    api = call_at(case, "en", place)["api"]
    name = data.draw(st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True).filter(lambda n: n not in APIS[api]))
    for lang in ("en", "zh"):  # in both, so that the two languages still agree (DLG004)
        call_at(case, lang, place)["args"][name] = data.draw(value_for("string", True, lang))
    found = check_case(repo, case)
    assert [code for code, _ in found] == ["DLG011", "DLG011"], found
    assert all(repr(name) in message for _, message in found)


@SETTINGS
@given(case=cases(CALL_CATEGORIES), data=st.data())
def test_missing_required_argument_is_dlg012(repo: Path, case: dict[str, Any], data: st.DataObject) -> None:
    place = data.draw(st.sampled_from(call_places(case)))
    api = call_at(case, "en", place)["api"]
    name = data.draw(st.sampled_from([n for n, (_, required) in APIS[api].items() if required]))
    for lang in ("en", "zh"):
        del call_at(case, lang, place)["args"][name]
    found = check_case(repo, case)
    assert [code for code, _ in found] == ["DLG012", "DLG012"], found
    assert all(repr(name) in message for _, message in found)


@SETTINGS
@given(case=cases(), lang=st.sampled_from(["en", "zh"]))
def test_language_side_removed_is_dlg001(repo: Path, case: dict[str, Any], lang: str) -> None:
    del case[lang]
    found = check_case(repo, case)
    assert [code for code, _ in found] == ["DLG001"], found
    assert repr(lang) in found[0][1]


@SETTINGS
@given(case=cases(), data=st.data())
def test_turn_in_the_other_language_is_dlg002(repo: Path, case: dict[str, Any], data: st.DataObject) -> None:
    lang = data.draw(st.sampled_from(["en", "zh"]))
    spoken = [i for i, turn in enumerate(case[lang]["turns"]) if "user" in turn or "assistant" in turn]
    index = data.draw(st.sampled_from(spoken))
    kind = next(iter(case[lang]["turns"][index]))
    other = "zh" if lang == "en" else "en"
    case[lang]["turns"][index] = {kind: data.draw(text_for(other) if kind == "user" else history_text_for(other))}
    found = check_case(repo, case)
    assert [code for code, _ in found] == ["DLG002"], found

