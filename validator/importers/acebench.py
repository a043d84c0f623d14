"""ACEBench → callbank: the normal and special categories, each language a repository of its own.

The source is a copy of the ACEBench repository (or its ``data_all`` folder): ``data_all/
data_<lang>/data_<category>.json`` holds the records (JSON Lines: ``id``, ``question``,
``function``, ``time`` or ``profile``) and ``possible_answer/data_<category>.json`` the answers
(``id``, ``ground_truth``). The English and Chinese sets are not translations of each other, so
they become two one-language repositories, ``OUT/en`` and ``OUT/zh``.

What maps where (docs/importing.md has the table):

- ``question``: ``user:`` lines are user turns; a ``system:`` line is the assistant — a call
  list (``[f(x=1)]``) becomes a ``called`` history turn, any other text an assistant turn; the
  record's answer is the one checkpoint at the end.
- ``function``: one spec per distinct definition (``spec_only``; names made identifiers, a
  second definition under one name numbered); ``parameters`` in callbank's envelope, the
  properties as written — a definition that puts them under ``arguments`` keeps that key.
- ``ground_truth``: ``{api: args}`` → calls (a ``_2`` suffix on a repeated API is ACEBench's way
  of writing a second call to it); a list of such → ``one_of``; ``{api: [names]}`` in
  special/incomplete → ``missing``; ``{param: [value]}`` in special/error_param → ``params``
  with no API (the source names none); special/irrelevant → ``irrelevant``.
- ``time`` ("The current time is November 18, 2024, Monday。", "今天是2024年11月18日，星期一。")
  → the date alone; ``profile`` → the case's profile.

Agent tasks (``agent_multi_turn``, ``agent_multi_step``) are not converted: their end state is
what ACEBench's own Python classes (message, reminder, food platform, travel) compute, and
callbank has no sandbox with their state and behaviour.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from validator.importers.calls import CallSyntaxError, read_calls
from validator.importers.common import (
    Imported,
    Repository,
    SourceError,
    Where,
    api_identifier,
    case_identifier,
    convert_parameters,
    localized,
    read_json_lines,
    record_id,
    require,
)

PEER = "acebench"
LANGS = ("en", "zh")
CATEGORIES: Mapping[str, str] = {
    "normal_single_turn_single_function": "normal/single_turn/single",
    "normal_single_turn_parallel_function": "normal/single_turn/parallel",
    "normal_multi_turn_user_adjust": "normal/multi_turn/adjust",
    "normal_multi_turn_user_switch": "normal/multi_turn/switch",
    "normal_similar_api": "normal/similar_api",
    "normal_preference": "normal/preference",
    "normal_atom_bool": "normal/atom/bool",
    "normal_atom_enum": "normal/atom/enum",
    "normal_atom_number": "normal/atom/number",
    "normal_atom_list": "normal/atom/list",
    "normal_atom_object_deep": "normal/atom/object",
    "normal_atom_object_short": "normal/atom/object",
    "special_incomplete": "special/incomplete",
    "special_error_param": "special/error_param",
    "special_irrelevant": "special/irrelevant",
}
NOT_EXPRESSIBLE: Mapping[str, str] = {
    "agent_multi_turn": "an agent task: its end state is what ACEBench's own sandbox classes compute, and callbank has no sandbox with their state and behaviour",
    "agent_multi_step": "an agent task: its end state is what ACEBench's own sandbox classes compute, and callbank has no sandbox with their state and behaviour",
}
# the rules that hold callbank's own conventions, not ACEBench's (callbank.yaml `ignore`)
IGNORE = ("DLG021", "DLG023", "REF003", "SPC006")

_ROLE = re.compile(r"^(user|system):\s?")
_SUFFIX = re.compile(r"_\d+$")
_MONTHS = {name: i for i, name in enumerate(("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"), 1)}
_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_ZH = ("一", "二", "三", "四", "五", "六", "日")
_DATE_PATTERNS = (
    re.compile(r"(?P<y>\d{4})年(?P<m>\d{1,2})月(?P<d>\d{1,2})日"),
    re.compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"),
    re.compile(r"(?P<month>[A-Za-z]+) (?P<d>\d{1,2}), (?P<y>\d{4})"),
)


def data_folder(src: Path) -> Path:
    """The ``data_all`` folder of an ACEBench copy (the copy itself, or data_all given directly)."""
    for candidate in (src / "data_all", src):
        if any((candidate / f"data_{lang}").is_dir() for lang in LANGS):
            return candidate
    raise SourceError(f"{src} is not a copy of ACEBench: it has no data_all/data_en/ or data_all/data_zh/ (nor data_en/ or data_zh/)")


def import_acebench(src: Path, langs: tuple[str, ...] = LANGS) -> Imported:
    folder = data_folder(src)
    prefix = "" if folder == src else folder.name + "/"
    repositories = []
    for lang in langs:
        if not (folder / f"data_{lang}").is_dir():
            continue
        repository = Repository(PEER, lang, lang, IGNORE)
        _import_language(src, f"{prefix}data_{lang}", lang, repository)
        repositories.append(repository)
    if not repositories:
        raise SourceError(f"{folder} has no data_{'/ or data_'.join(langs)}/ folder")
    return Imported(PEER, repositories)


def _import_language(src: Path, base: str, lang: str, repository: Repository) -> None:
    for path in sorted((src / base).glob("data_*.json")):
        source_category = path.stem.removeprefix("data_")
        relative = f"{base}/{path.name}"
        if source_category in NOT_EXPRESSIBLE:
            for line, record in read_json_lines(src, relative):
                repository.read[relative] += 1
                repository.skip(Where(relative, line, record_id(record, line)), NOT_EXPRESSIBLE[source_category])
            continue
        category = CATEGORIES.get(source_category)
        if category is None:
            repository.notes.append(f"{relative}: not read; {source_category!r} is no ACEBench category this importer knows")
            continue
        answers = _answers(src, f"{base}/possible_answer/{path.name}")
        for line, record in read_json_lines(src, relative):
            repository.read[relative] += 1
            where = Where(relative, line, record_id(record, line))
            require(record, {"id": (str, int), "question": str, "function": list}, src, where)
            answer = answers.get(str(record["id"]))
            if answer is None:
                repository.skip(where, f"possible_answer/{path.name} has no answer with this id")
                continue
            _convert(record, answer, category, source_category, lang, where, repository)


def _answers(src: Path, relative: str) -> dict[str, Any]:
    """id → ground truth of a possible_answer file (an empty mapping when the file is absent)."""
    if not (src / relative).is_file():
        return {}
    answers: dict[str, Any] = {}
    for line, record in read_json_lines(src, relative):
        where = Where(relative, line, record_id(record, line))
        require(record, {"id": (str, int)}, src, where)
        if "ground_truth" not in record:
            raise SourceError(f"{src / relative}:{line} ({where.record}): the record has no 'ground_truth'")
        answers[str(record["id"])] = record["ground_truth"]
    return answers


# ----------------------------------------------------------------------------- one record


def _convert(record: dict[str, Any], truth: Any, category: str, source_category: str, lang: str, where: Where, repository: Repository) -> None:
    names: dict[str, str] = {}
    for index, function in enumerate(record["function"]):
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            repository.skip(where, f"function {index} has no name")
            return
        names.setdefault(function["name"], repository.add_spec(function["name"], _spec(function, lang), where))
    turns = _turns(record["question"], names, where, repository)
    if turns is None:
        return
    expect = _answer(truth, category, names, where, repository)
    if expect is None:
        return
    document: dict[str, Any] = {"apis": list(dict.fromkeys(names.values()))}
    time = _time(record.get("time"), where, repository)
    if time is not None:
        document["time"] = time
    if isinstance(record.get("profile"), str) and record["profile"].strip():
        document["profile"] = {lang: record["profile"]}
    document[lang] = {"turns": [*turns, {"expect": expect}]}
    repository.add_case(case_identifier(str(record["id"])), category, document, where)


def _spec(function: dict[str, Any], lang: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"domain": PEER, "spec_only": True, "description": localized(function.get("description"), lang)}
    if "parameters" in function:
        spec["parameters"] = convert_parameters(function["parameters"], lang, {})
    for key, value in function.items():
        if key not in ("name", "description", "parameters"):
            spec[key] = value  # `arguments`, `results`, `tags`: kept for check to report
    spec["returns"] = {}
    return spec


def _api(name: str, names: Mapping[str, str]) -> str:
    """The callbank name of an API an answer or history names: its record's function, else
    (ACEBench's repeat suffix) the function without ``_N``, else the name made an identifier
    (no spec has it: check reports it)."""
    if name in names:
        return names[name]
    base = _SUFFIX.sub("", name)
    if base in names:
        return names[base]
    return api_identifier(name)


def _turns(question: str, names: Mapping[str, str], where: Where, repository: Repository) -> list[dict[str, Any]] | None:
    turns: list[dict[str, Any]] = []
    roles: list[tuple[str, list[str]]] = []
    for line in question.split("\n"):
        match = _ROLE.match(line)
        if match:
            roles.append((match.group(1), [line[match.end() :]]))
        elif roles:
            roles[-1][1].append(line)
        elif line.strip():
            repository.skip(where, "the question does not start with 'user:' or 'system:'")
            return None
    for role, lines in roles:
        text = "\n".join(lines).strip()
        if not text:
            continue
        if role == "user":
            turns.append({"user": text})
            continue
        if text.startswith("[") and text.endswith("]"):
            try:
                calls = read_calls(text)
            except CallSyntaxError as error:
                repository.caveat(where, f"an assistant line that looks like calls is kept as text: {error}")
            else:
                turns.append({"called": [{"api": _api(api, names), "args": args} for api, args in calls]})
                continue
        turns.append({"assistant": text})
    return turns


def _answer(truth: Any, category: str, names: Mapping[str, str], where: Where, repository: Repository) -> dict[str, Any] | None:
    if category == "special/irrelevant":
        return {"special": "irrelevant"}
    if category == "special/incomplete":
        if not isinstance(truth, dict) or len(truth) != 1:
            repository.skip(where, "the answer of an incomplete case names one API and its missing parameters")
            return None
        ((api, missing),) = truth.items()
        return {"special": "incomplete", "api": _api(api, names), "missing": missing}
    if category == "special/error_param":
        if not isinstance(truth, dict) or not truth:
            repository.skip(where, "the answer of an error_param case maps parameters to the bad values")
            return None
        params = {name: value[0] if isinstance(value, list) and len(value) == 1 else value for name, value in truth.items()}
        return {"special": "error_param", "params": params}
    alternatives = truth if isinstance(truth, list) else [truth]
    options = []
    for alternative in alternatives:
        if not isinstance(alternative, dict):
            repository.skip(where, "an answer is an object of API name → arguments")
            return None
        options.append({"calls": [{"api": _api(api, names), "args": args} for api, args in alternative.items()]})
    return options[0] if len(options) == 1 else {"one_of": options}


def _time(text: Any, where: Where, repository: Repository) -> str | None:
    """The date of ACEBench's time sentence (YYYY-MM-DD); None for an empty one."""
    if not isinstance(text, str) or not text.strip():
        return None
    for pattern in _DATE_PATTERNS:
        match = pattern.search(text)
        if match is None:
            continue
        month = int(match["m"]) if "m" in match.groupdict() and match["m"] else _MONTHS.get(match["month"].lower(), 0)
        try:
            day = dt.date(int(match["y"]), month, int(match["d"]))
        except ValueError:
            break
        said = _weekday(text)
        if said is not None and said != day.weekday():
            repository.caveat(where, f"the time {text.strip()!r} names a weekday that {day.isoformat()} is not; the date is kept")
        return day.isoformat()
    repository.caveat(where, f"the time {text.strip()!r} holds no date callbank reads; the case has no time")
    return None


def _weekday(text: str) -> int | None:
    lowered = text.lower()
    for index, name in enumerate(_WEEKDAYS_EN):
        if name in lowered:
            return index
    match = re.search(r"星期([一二三四五六日天])", text)
    if match:
        return 6 if match.group(1) == "天" else _WEEKDAYS_ZH.index(match.group(1))
    return None
