"""Issue 12, items 3-8: each numbered answer-key defect, proven fixed on the real corpus.

Where the old key scored a defensible answer wrong, the test writes that answer into a
predictions file and scores it with the real pipeline (``parse_predictions`` → ``score_units``,
searches re-run for retrieval cases). Each test holds at least one answer the pre-issue keys
rejected (scored with the code and corpus of dbb8dcb: every non-canonical name of Work, the
lower-cased medication and scene names, the English queries and titles, find_city_code first,
"Xiaoshan"); the other parameters are answers the old keys accepted too, kept as controls. The year-less cases had no clock at all: the year the model is now shown is the one
the key holds. Where a dialogue or scenario was rewritten, the test checks the property that
makes it unarguable now, which the old one lacked. Items 1 and 2 are proven in
test_corpus_agents.py (paraphrased facts) and test_retrieval.py (the "zzz" query).
"""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import itertools
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.corpus.records import AssistantTurn, Case, UserTurn
from validator.models import create_model
from validator.models.base import ModelContext
from validator.models.episode import environments
from validator.models.prompts import STYLES, clock_text
from validator.models.request import case_requests, first_alternative
from validator.models.retrieval import retrieval_requests
from validator.models.runner import RunContext, ScenarioJob, plan
from validator.rules.aliases import rejected_names
from validator.rules.execution_context import Execution
from validator.rules.hints import identifier_in_request
from validator.rules.history import unsourced_history_fact
from validator.sandbox.names import name_kinds, names_of, rows
from validator.scoring.agent import ReferenceCache, load_replayer, score_scenario
from validator.scoring.predictions import parse_predictions
from validator.scoring.retrieval import load_searcher
from validator.scoring.scorer import UnitResult, score_units
from validator.scoring.special import render_special
from validator.scoring.units import CaseUnit, Units
from validator.toolsearch import SEARCH_API, reference_query

ROOT = Path(__file__).resolve().parents[2]
Calls = list[tuple[str, dict[str, Any]]]


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus.load(ROOT)


@pytest.fixture(scope="module")
def searcher(corpus: Corpus) -> Any:
    return load_searcher(corpus)


# ----------------------------------------------------------------------------- predictions


def as_text(calls: Calls) -> str:
    """Python-call syntax, what a model without native tool calling writes."""
    return "[" + ", ".join(f"{api}({', '.join(f'{k}={v!r}' for k, v in args.items())})" for api, args in calls) + "]"


def case_record(case_id: str, lang: str, step: int, calls: Calls) -> dict[str, Any]:
    return {"id": case_id, "lang": lang, "step": step, "output": as_text(calls)}


def special_record(corpus: Corpus, case_id: str, lang: str, step: int) -> dict[str, Any]:
    checkpoint = corpus.cases[case_id].dialogues[lang].checkpoints[step]
    return {"id": case_id, "lang": lang, "step": step, "output": render_special(dict(checkpoint.answer), lang)}


def retrieval_record(corpus: Corpus, case_id: str, lang: str, calls: Calls) -> dict[str, Any]:
    """An episode: before each call, a search with the API's reference query (what finds it)."""
    episode: list[dict[str, Any]] = []
    for api, args in calls:
        episode.append({"api": SEARCH_API, "args": {"query": reference_query(corpus.specs[api].document.data, lang)}})
        episode.append({"api": api, "args": args})
    return {"id": case_id, "lang": lang, "step": 0, "calls": episode, "output": ""}


def score(corpus: Corpus, searcher: Any, tmp_path: Path, records: Iterable[dict[str, Any]]) -> dict[tuple[str, str], UnitResult]:
    """Score prediction records written to a predictions file: unit (id, lang) -> result."""
    records = list(records)
    path = tmp_path / "predictions.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    keys = sorted({(r["id"], r["lang"]) for r in records})
    units = Units([CaseUnit(corpus.cases[i], lang) for i, lang in keys], [], frozenset(corpus.cases) | frozenset(corpus.scenarios))
    scored = score_units(units, parse_predictions(path.read_bytes()), corpus.specs, None, searcher)
    assert scored.problems == []
    return {(r.id, r.lang): r for r in scored.results}


def oracle(corpus: Corpus, case_id: str, lang: str, step: int = 0) -> Calls:
    checkpoint = corpus.cases[case_id].dialogues[lang].checkpoints[step]
    return [(call["api"], dict(call["args"])) for call in first_alternative(checkpoint, lang)]


def replaced(calls: Calls, index: int, **changes: Any) -> Calls:
    out = [(api, dict(args)) for api, args in calls]
    out[index][1].update(changes)
    return out


def assert_right(results: Mapping[tuple[str, str], UnitResult]) -> None:
    wrong = {key: (r.error, r.detail) for key, r in results.items() if not r.correct}
    assert wrong == {}


# ----------------------------------------------------------------------------- item 3: years


YEARLESS = (
    "atom-enum-0018", "atom-bool-0023", "atom-list-0005", "atom-list-0013", "atom-list-0014", "atom-number-0024",
    "atom-object-0012", "atom-object-0013", "atom-object-0029", "mt-adjust-0021", "rt-plan-0016",
)  # fmt: skip
_ISO_DATE = re.compile(r"\b([0-9]{4})-([0-9]{2})-([0-9]{2})")


def test_every_case_has_a_clock(corpus: Corpus) -> None:
    """254 cases had no `time`; now every case carries the clock its dates are read against."""
    assert len(corpus.cases) > 2000
    assert all(dt.datetime.fromisoformat(case.time).tzinfo is not None for case in corpus.cases.values())


def _with_clock_years(value: Any, clock: dt.datetime) -> Any:
    """Every ISO date's year replaced by the one a reader of the clock picks for a month and day
    given without a year: that of the nearest such date to the clock."""

    def year_of(match: re.Match[str]) -> str:
        month, day = int(match[2]), int(match[3])
        year = min((clock.year - 1, clock.year, clock.year + 1), key=lambda y: abs((dt.date(y, month, day) - clock.date()).days))
        return f"{year}-{match[2]}-{match[3]}"

    if isinstance(value, str):
        return _ISO_DATE.sub(year_of, value)
    if isinstance(value, dict):
        return {k: _with_clock_years(v, clock) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_clock_years(v, clock) for v in value]
    return value


@pytest.mark.parametrize("case_id", YEARLESS)
def test_year_less_case_is_answered_with_the_clocks_year(corpus: Corpus, searcher: Any, tmp_path: Path, case_id: str) -> None:
    """The 11 cases whose dialogue never gives the year: the model is shown the clock, year
    included, in every prompt style, and an answer that takes the year from it is right (before,
    the case had no clock, and a model answering its own current year was wrong)."""
    case = corpus.cases[case_id]
    clock = dt.datetime.fromisoformat(case.time)
    requests = retrieval_requests if case.category.startswith("retrieval/") else case_requests
    for lang, style, syntax in itertools.product(LANGS, STYLES, ("python", "tool_calls")):
        for request in requests(case, lang, corpus.specs, syntax, style=style):
            assert clock_text(case.time, lang) in request.messages[0]["content"]
    records = []
    for lang in LANGS:
        for step, checkpoint in enumerate(case.dialogues[lang].checkpoints):
            calls = [(api, _with_clock_years(args, clock)) for api, args in oracle(corpus, case_id, lang, step)]
            assert any(_ISO_DATE.search(json.dumps(args)) for _, args in calls) or checkpoint.special is not None
            if case.category.startswith("retrieval/"):
                records.append(retrieval_record(corpus, case_id, lang, calls))
            else:
                records.append(case_record(case_id, lang, step, calls))
    assert_right(score(corpus, searcher, tmp_path, records))


# ----------------------------------------------------------------------------- item 4: aliases


def _work_names(corpus: Corpus) -> tuple[str, ...]:
    """Every name the maps sandbox declares for the saved place Work (office, 公司, 单位 …)."""
    state = corpus.sandboxes["maps"].state
    assert state is not None
    kind = name_kinds(state.document.data)["saved_place"]
    found = [names_of(kind, key, record) for key, record in rows(state.document.data["data"], kind) if record["label"] == "Work"]
    assert len(found) == 1 and {"office", "公司", "单位"} <= set(found[0])
    return found[0]


def test_aliases_mt_switch_0008_accepts_every_name_of_work(corpus: Corpus, searcher: Any, tmp_path: Path) -> None:
    """The user says "office"; the sandbox resolves office, 公司, 单位 and Work alike."""
    records = []
    for lang in LANGS:
        first, second = oracle(corpus, "mt-switch-0008", lang, 0), oracle(corpus, "mt-switch-0008", lang, 1)
        for name in _work_names(corpus):
            records = [case_record("mt-switch-0008", lang, 0, replaced(first, 0, location=name)), case_record("mt-switch-0008", lang, 1, second)]
            assert_right(score(corpus, searcher, tmp_path, records))


@pytest.mark.parametrize(("case_id", "index", "param"), [("rt-plan-0003", 0, "location"), ("rt-plan-0003", 1, "origin"), ("rt-plan-0014", 0, "location")])
def test_aliases_rt_plan_accepts_every_name_of_work(corpus: Corpus, searcher: Any, tmp_path: Path, case_id: str, index: int, param: str) -> None:
    for lang in LANGS:
        calls = oracle(corpus, case_id, lang)
        records = [retrieval_record(corpus, case_id, lang, replaced(calls, index, **{param: name})) for name in _work_names(corpus)]
        for record in records:
            assert_right(score(corpus, searcher, tmp_path, [record]))


def test_aliases_no_answer_rejects_a_name_its_sandbox_treats_alike(corpus: Corpus) -> None:
    """EXE021 over the whole corpus: 669 answer values rejected such a name before."""
    execution = Execution(corpus)
    found = [(case.id, call.api, rejected.value, rejected.names) for case in corpus.cases.values() for call, rejected in rejected_names(case, execution)]
    assert found == []


# ----------------------------------------------------------------------------- item 5: exact literals


@pytest.mark.parametrize(
    ("case_id", "param", "values"),
    [
        ("atom-object-0014", "medication", ["amoxicillin", "AMOXICILLIN", "Amoxicillin"]),
        ("atom-object-0027", "medication", ["insulin", "INSULIN"]),
        ("atom-list-0004", "name", ["Leaving Home", "leaving home", "Leaving home"]),
    ],
)
def test_case_sensitive_literals_are_free_text_now(corpus: Corpus, searcher: Any, tmp_path: Path, case_id: str, param: str, values: list[str]) -> None:
    """ "Amoxicillin" vs the user's "amoxicillin": letter case no longer decides the verdict."""
    calls = oracle(corpus, case_id, "en")
    records = [case_record(case_id, "en", 0, replaced(calls, 0, **{param: value})) for value in values]
    for record in records:
        assert_right(score(corpus, searcher, tmp_path, [record]))


@pytest.mark.parametrize(("lang", "query"), [("en", "chengdu offsite agenda"), ("en", "Chengdu"), ("en", "OFFSITE AGENDA"), ("zh", "成都团建"), ("zh", "团建议程")])
def test_case_sensitive_literals_sp_incomplete_0035_search_accepts_faithful_queries(corpus: Corpus, searcher: Any, tmp_path: Path, lang: str, query: str) -> None:
    """Step 0 accepted four exact strings; any search for the document's words is right now."""
    calls = replaced(oracle(corpus, "sp-incomplete-0035", lang, 0), 0, query=query)
    records = [case_record("sp-incomplete-0035", lang, 0, calls), special_record(corpus, "sp-incomplete-0035", lang, 1)]
    assert_right(score(corpus, searcher, tmp_path, records))


@pytest.mark.parametrize(
    ("lang", "title"),
    [("en", "Parcel at the front desk"), ("en", "SO-5002 arrives — pick it up"), ("en", "front desk: earbuds"), ("zh", "前台取快递"), ("zh", "SO-5002到了")],
)
def test_case_sensitive_literals_rt_plan_0002_accepts_faithful_titles(corpus: Corpus, searcher: Any, tmp_path: Path, lang: str, title: str) -> None:
    """The old title regex wanted a verb before a noun ("collect … parcel") and rejected these."""
    calls = replaced(oracle(corpus, "rt-plan-0002", lang), 1, title=title)
    assert_right(score(corpus, searcher, tmp_path, [retrieval_record(corpus, "rt-plan-0002", lang, calls)]))


# ----------------------------------------------------------------------------- item 6: defensible answers


@pytest.mark.parametrize(
    ("case_id", "cities"), [("rt-call-0021", {"en": ["Shenzhen", "Chengdu"], "zh": ["深圳", "成都"]}), ("rt-plan-0012", {"en": ["Hangzhou", "Guangzhou"], "zh": ["杭州", "广州"]})]
)
def test_defensible_answers_find_city_code_first(corpus: Corpus, searcher: Any, tmp_path: Path, case_id: str, cities: dict[str, list[str]]) -> None:
    """The travel policy says to look a city code up when unsure: a plan that does so is right."""
    policy = (ROOT / "sandboxes" / "travel" / "policy.en.md").read_text(encoding="utf-8")
    assert "find_city_code" in policy
    for lang in LANGS:
        plan = [call for call in oracle(corpus, case_id, lang) if call[0] != "find_city_code"]
        lookups = [("find_city_code", {"name": city}) for city in cities[lang]]
        for calls in ([lookups[0], *plan], [lookups[1], *plan], [*lookups, *plan]):
            assert_right(score(corpus, searcher, tmp_path, [retrieval_record(corpus, case_id, lang, calls)]))


@pytest.mark.parametrize(("lang", "airport"), [("en", "Xiaoshan"), ("en", "Xiaoshan Airport"), ("zh", "萧山机场")])
def test_defensible_answers_rt_call_0004_airport_is_the_users_own(corpus: Corpus, searcher: Any, tmp_path: Path, lang: str, airport: str) -> None:
    """The Hangzhou airport was required though nothing said where the user flies from: the
    request names it now, and the user's own word for it is right."""
    case = corpus.cases["rt-call-0004"]
    request = next(t.text for t in case.dialogues[lang].turns if isinstance(t, UserTurn))
    assert ("Xiaoshan" if lang == "en" else "萧山") in request
    calls = replaced(oracle(corpus, "rt-call-0004", lang), 0, destination=airport)
    assert_right(score(corpus, searcher, tmp_path, [retrieval_record(corpus, "rt-call-0004", lang, calls)]))


def _spec_schema(corpus: Corpus, api: str, param: str) -> Mapping[str, Any]:
    return corpus.specs[api].properties[param]


def _bad(case: Case, lang: str = "en") -> tuple[str, dict[str, Any]]:
    special = case.dialogues[lang].checkpoints[-1].special
    assert special is not None and special.api is not None
    return special.api, dict(special.params)


def test_defensible_answers_sp_error_0001_has_no_clock_reading(corpus: Corpus) -> None:
    """ "24:30 tonight" had one reading (00:30); the new time's minutes are past 59, so no
    wrap of the day makes it a clock time and no single correction is obviously meant."""
    api, params = _bad(corpus.cases["sp-error-0001"])
    hours, minutes = (int(part) for part in str(params["time"]).split(":"))
    assert api == "set_alarm" and hours < 24 and minutes > 59


def test_defensible_answers_sp_error_0005_asks_for_less_not_more(corpus: Corpus) -> None:
    """ "120%, as much light as possible" made 100% obviously right; now the same 120% comes with
    "just a sliver", so neither the maximum nor any other value is what the user means."""
    case = corpus.cases["sp-error-0005"]
    api, params = _bad(case)
    assert params == {"position_percent": 120} and _spec_schema(corpus, api, "position_percent")["maximum"] == 100
    en, zh = (next(t.text for t in case.dialogues[lang].turns if isinstance(t, UserTurn)) for lang in LANGS)
    assert "sliver" in en and "小缝" in zh and "as much light" not in en and "越亮越好" not in zh


def test_defensible_answers_sp_error_0022_no_valid_hours_reach_the_evening_asked_about(corpus: Corpus) -> None:
    """ "the next 72 hours" could be served by the maximum 48; now the user needs Wednesday
    evening, which lies beyond the maximum from the case's clock, and no daily forecast is offered."""
    case = corpus.cases["sp-error-0022"]
    api, params = _bad(case)
    clock = dt.datetime.fromisoformat(case.time)
    wednesday_evening = (clock + dt.timedelta(days=(2 - clock.weekday()) % 7)).replace(hour=18, minute=0)
    hours_needed = (wednesday_evening - clock).total_seconds() / 3600
    assert params == {"hours": 72} and hours_needed > _spec_schema(corpus, api, "hours")["maximum"]
    assert "get_weather_forecast" not in case.apis


@pytest.mark.parametrize(
    ("case_id", "param", "values"),
    [
        ("sp-error-0023", "sort_by", {"en": "price", "zh": "价格"}),
        ("sp-error-0031", "payment_method", {"en": "JD Pay", "zh": "京东支付"}),
        ("sp-error-0033", "channel", {"en": "WeChat", "zh": "微信"}),
    ],
)
def test_defensible_answers_sp_error_asks_for_what_the_api_cannot_do(corpus: Corpus, case_id: str, param: str, values: dict[str, str]) -> None:
    """A limit over its maximum (30 cafes, 100 transactions, 10 days) had an obvious correction:
    the maximum. Now the user asks for a choice the enumeration does not have at all, and says
    why it matters, so no listed value is a faithful correction."""
    case = corpus.cases[case_id]
    for lang in LANGS:
        api, params = _bad(case, lang)
        enum = [str(v).casefold() for v in _spec_schema(corpus, api, param)["enum"]]
        assert params == {param: values[lang]}
        assert not any(values["en"].casefold().replace(" ", "") in option.replace("_", "") for option in enum)


def test_defensible_answers_sp_error_0028_is_not_a_swapped_pair(corpus: Corpus) -> None:
    """Latitude 120.1551 with longitude 30.2741 was obviously a swap; swapping the new pair still
    leaves a latitude outside ±90, so no correction is obvious."""
    case = corpus.cases["sp-error-0028"]
    api, params = _bad(case)
    assert api == "reverse_geocode" and _spec_schema(corpus, api, "latitude")["maximum"] == 90
    request = next(t.text for t in case.dialogues["en"].turns if isinstance(t, UserTurn))
    latitude = float(params["latitude"])
    longitude = float(re.search(r"longitude ([0-9.]+)", request)[1])  # type: ignore[index]
    assert abs(latitude) > 90 and abs(longitude) > 90  # swapped, the latitude is still out of range


def test_defensible_answers_sp_incomplete_0010_has_nothing_to_choose_from(corpus: Corpus) -> None:
    """ "cotton, 40 degrees" left only the spin speed, which an assistant may choose; now the user
    wants yesterday's settings, which no candidate API reports, so program, temperature and spin
    are all missing and none has a default."""
    case = corpus.cases["sp-incomplete-0010"]
    special = case.dialogues["en"].checkpoints[-1].special
    assert special is not None and special.api is not None
    assert set(special.missing) == {"program", "temperature_c", "spin_rpm"}
    assert all("default" not in _spec_schema(corpus, special.api, name) for name in special.missing)
    assert not any(name.startswith(("get_", "list_")) for name in case.apis if corpus.specs[name].sandbox == "smart_home")


def test_defensible_answers_sp_incomplete_0015_date_is_nowhere(corpus: Corpus) -> None:
    """The meeting length was missing (an assistant may pick an hour); now the length is given
    and the date is "the day she gets back from Singapore", which nothing in the calendar holds
    and no candidate API could look up (none lists or searches events), so asking is the only move."""
    case = corpus.cases["sp-incomplete-0015"]
    special = case.dialogues["en"].checkpoints[-1].special
    assert special is not None and special.missing == ("date",)
    request = next(t.text for t in case.dialogues["en"].turns if isinstance(t, UserTurn))
    assert "an hour" in request and "Singapore" in request
    state = corpus.sandboxes["calendar"].state
    assert state is not None and "singapore" not in json.dumps(state.document.data, ensure_ascii=False).casefold()
    assert case.state is None
    calendar_readers = [api for api in case.apis if corpus.specs[api].sandbox == "calendar" and api.startswith(("list_", "search_", "get_"))]
    assert calendar_readers == []


# ----------------------------------------------------------------------------- item 7: hints


OLD_HINTS = {
    "similar-0016": ["don't book", "先别订"],
    "similar-0025": ["don't submit", "just list", "别提交"],
    "similar-0027": ['search for "product sync"', "search for", "搜“产品例会”"],
    "similar-0028": ["keep it in the list"],
    "similar-0029": ["only asking", "don't cancel", "只是问问", "先别退"],
    "similar-0030": ["just checking", "not buying extra", "只是查一下", "不加购"],
}


@pytest.mark.parametrize("case_id", sorted(OLD_HINTS))
def test_hints_removed(corpus: Corpus, case_id: str) -> None:
    """similar_api requests that named the choice ("Don't book", "I'm only asking", "Search for
    'product sync'") carry none of those phrases, nor an API or parameter name (DLG051)."""
    case = corpus.cases[case_id]
    said = " ".join(t.text for d in case.dialogues.values() for t in d.turns if isinstance(t, UserTurn)).casefold()
    assert [hint for hint in OLD_HINTS[case_id] if hint.casefold() in said] == []
    assert list(identifier_in_request(case, corpus)) == []


def test_history_turns_state_only_what_the_dialogue_gave(corpus: Corpus) -> None:
    """ "21 of 93 assistant history turns state facts no tool produced": DLG050 over every case
    (on 9beb541's corpus, clocks added and no history fixed, it reports 46 of 186 turns in 24 cases)."""
    assistant_turns = sum(1 for case in corpus.cases.values() for d in case.dialogues.values() for t in d.turns if isinstance(t, AssistantTurn))
    assert assistant_turns > 186
    found = [(case.id, finding.message) for case in corpus.cases.values() for finding in unsourced_history_fact(case, corpus)]
    assert found == []


# ----------------------------------------------------------------------------- item 8: scenario checks


DICTATED = {"phone-0003": ("add_reminder", "title"), "phone-0008": ("set_alarm", "label"), "phone-0011": ("add_reminder", "title"), "phone-0013": ("add_reminder", "title")}


@pytest.fixture(scope="module")
def dictated_runs(corpus: Corpus) -> list[dict[str, Any]]:
    """The oracle agent's runs of the four scenarios whose compare.ignore dropped what the user dictated."""
    context = RunContext(create_model("oracle", ModelContext(corpus)), corpus.specs, environments(corpus))
    jobs = [job for job in plan(corpus, categories=("agent",)) if isinstance(job, ScenarioJob) and job.scenario.id in DICTATED]
    return [asyncio.run(job.run(context)) for job in jobs]


def test_scenario_checks_compare_what_the_user_dictated(corpus: Corpus, dictated_runs: list[dict[str, Any]]) -> None:
    """phone-0003, 0008, 0011, 0013 ignored the reminder title or alarm label the user dictated:
    an agent that saved "Buy milk" passed. Now that run fails on the end state, the dictated words
    in another letter case still pass, and the old compare (the same path ignored) lets it through."""
    replayer = load_replayer(corpus)
    assert replayer is not None and len(dictated_runs) == 2 * len(DICTATED)
    for record in dictated_runs:
        scenario = corpus.scenarios[record["id"]].data
        api, param = DICTATED[record["id"]]
        text_paths = list(scenario["compare"]["text"])
        assert not [path for path in scenario["compare"].get("ignore", []) if path.endswith("." + param)]

        (dictated,) = [call["args"][param] for call in record["calls"] if call["api"] == api]
        wrong = _saved_as(record, api, param, "Buy milk" if record["lang"] == "en" else "买牛奶")
        verdict = score_scenario(scenario, wrong, record["lang"], replayer, ReferenceCache(replayer))
        assert (verdict.correct, verdict.error) == (False, "agent_end_state")
        shouted = _saved_as(record, api, param, dictated.upper() + " ")
        assert score_scenario(scenario, shouted, record["lang"], replayer, ReferenceCache(replayer)).correct
        before = {key: value for key, value in scenario["compare"].items() if key != "text"}  # the paths ignored, as they were
        old = {**copy.deepcopy(dict(scenario)), "compare": {**before, "ignore": [*before.get("ignore", []), *text_paths]}}
        assert score_scenario(old, wrong, record["lang"], replayer, ReferenceCache(replayer)).correct


def _saved_as(record: dict[str, Any], api: str, param: str, value: str) -> dict[str, Any]:
    """The run with the one call of api passing value as param."""
    changed = copy.deepcopy(record)
    for call in changed["calls"]:
        if call["api"] == api:
            call["args"][param] = value
    return changed


PRESUPPOSING = {
    "bank-0005": ["Great", "it was stolen", "太好了", "被偷"],  # the agent had not yet said the card could not be unfrozen
    "phone-0011": ["My password is", "密码是 Lotus"],  # a password volunteered as if the agent had asked for it
}


@pytest.mark.parametrize("scenario_id", sorted(PRESUPPOSING))
def test_scenario_checks_scripted_lines_do_not_presuppose_the_agent(corpus: Corpus, scenario_id: str) -> None:
    """Scripted user lines that assumed what the agent had done are conditional now ("If that one
    can't be unfrozen …", "If you need my password …")."""
    user = corpus.scenarios[scenario_id].data["user"]
    lines = [line for lang in LANGS for line in user[lang]["script"][1:]]
    assert [phrase for phrase in PRESUPPOSING[scenario_id] if any(phrase in line for line in lines)] == []
    assert any(line.startswith("If") for line in user["en"]["script"][1:]) and any(line.startswith("要是") for line in user["zh"]["script"][1:])
