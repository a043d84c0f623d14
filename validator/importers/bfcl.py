"""BFCL → callbank: the AST categories, live ones included, as one English repository.

The source is BFCL's data folder (``bfcl_eval/data`` of the ``bfcl-eval`` package, or the
``data`` folder of the gorilla repository): ``BFCL_v<N>_<category>.json`` holds the records (JSON
Lines: ``id``, ``question`` — a list of turns, each a list of ``{role, content}`` messages —,
``function``) and ``possible_answer/BFCL_v<N>_<category>.json`` the answers (``id``,
``ground_truth``: a list of ``{function: {parameter: [acceptable values]}}``).

What maps where (docs/importing.md has the table):

- categories: ``simple``/``simple_python``, ``multiple``, ``live_simple``, ``live_multiple`` →
  ``normal/single_turn/single``; ``parallel``, ``parallel_multiple``, ``live_parallel``,
  ``live_parallel_multiple`` → ``normal/single_turn/parallel``; ``irrelevance``,
  ``live_irrelevance`` → ``special/irrelevant``. BFCL's own category stays in the case id.
- ``question``: its one turn's user and assistant messages become the dialogue; the answer is
  the one checkpoint at the end.
- ``function``: one spec per distinct definition (``spec_only``; ``math.factorial`` →
  ``math_factorial``). BFCL's type names are its documented Python vocabulary: ``dict`` →
  ``object``, ``float`` → ``number``, ``tuple`` → ``array``; ``any`` and everything else stay.
- acceptable values: one value → that value; several → ``$any``; ``""`` among them (BFCL's
  "may be omitted") → ``$optional``; an object value's keys the same way inside it, an omittable
  key as the object with and without it (``$any``).

Not converted: Java and JavaScript (their values are source-code strings for types JSON does
not have), ``live_relevance`` (any call is right: callbank's answers name the calls),
multi-turn (each turn's calls run in BFCL's own Python classes, whose results later turns
need), memory, web search and format sensitivity (agentic, not AST-checked); a record whose
question has a system message (a callbank dialogue has no system turn), or more than one turn.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from validator.corpus.canonical import canonical_json
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

PEER = "bfcl"
LANG = "en"
TYPES: Mapping[str, str] = {"dict": "object", "float": "number", "tuple": "array"}
CATEGORIES: Mapping[str, str] = {
    "simple": "normal/single_turn/single",
    "simple_python": "normal/single_turn/single",
    "multiple": "normal/single_turn/single",
    "live_simple": "normal/single_turn/single",
    "live_multiple": "normal/single_turn/single",
    "parallel": "normal/single_turn/parallel",
    "parallel_multiple": "normal/single_turn/parallel",
    "live_parallel": "normal/single_turn/parallel",
    "live_parallel_multiple": "normal/single_turn/parallel",
    "irrelevance": "special/irrelevant",
    "live_irrelevance": "special/irrelevant",
}
_AGENTIC = "an agentic category (memory, web search): BFCL runs it in its own backends and checks answers, not calls"
NOT_EXPRESSIBLE: Mapping[str, str] = {
    "java": "Java: its values are source-code strings for types JSON does not have (String, HashMap, any)",
    "simple_java": "Java: its values are source-code strings for types JSON does not have (String, HashMap, any)",
    "javascript": "JavaScript: its values are source-code strings for types JSON does not have (String, Array, any)",
    "simple_javascript": "JavaScript: its values are source-code strings for types JSON does not have (String, Array, any)",
    "live_relevance": "any call is right (BFCL checks only that one is made); a callbank answer names the calls",
    "memory": _AGENTIC,
    "web_search": _AGENTIC,
}
_MULTI_TURN = "multi-turn: each turn's calls run in BFCL's own Python classes (file system, trading, travel …), whose results the later calls need"
MAX_ALTERNATIVES = 64  # objects with omittable keys, written out with and without each
IGNORE = ("DLG021", "REF003", "SPC006")
_FILE = re.compile(r"^BFCL_v\d+_(?P<category>.+)\.json$")


def data_folder(src: Path) -> Path:
    """The folder holding ``BFCL_v*_*.json``: src itself, ``data/`` or ``bfcl_eval/data/``."""
    for candidate in (src, src / "data", src / "bfcl_eval" / "data"):
        if any(_FILE.match(path.name) for path in candidate.glob("BFCL_v*_*.json")):
            return candidate
    raise SourceError(f"{src} is not BFCL's data folder: it holds no BFCL_v<N>_<category>.json (nor data/ or bfcl_eval/data/ with them)")


def import_bfcl(src: Path) -> Imported:
    folder = data_folder(src)
    prefix = "" if folder == src else folder.relative_to(src).as_posix() + "/"
    repository = Repository(PEER, LANG, "", IGNORE)
    for path in sorted(folder.glob("BFCL_v*_*.json"), key=lambda p: p.name):
        match = _FILE.match(path.name)
        if match is None:
            continue
        category = match["category"]
        relative = prefix + path.name
        reason = NOT_EXPRESSIBLE.get(category) or (_MULTI_TURN if category.startswith("multi_turn") else None)
        if category == "format_sensitivity":
            repository.notes.append(f"{relative}: not read; it lists ids of other categories to re-run with other prompt formats (no records of its own)")
            continue
        if reason is not None:
            for line, record in read_json_lines(src, relative):
                repository.read[relative] += 1
                repository.skip(Where(relative, line, record_id(record, line)), reason)
            continue
        target = CATEGORIES.get(category)
        if target is None:
            repository.notes.append(f"{relative}: not read; {category!r} is no BFCL category this importer knows")
            continue
        answers = _answers(src, f"{prefix}possible_answer/{path.name}") if target != "special/irrelevant" else {}
        for line, record in read_json_lines(src, relative):
            repository.read[relative] += 1
            where = Where(relative, line, record_id(record, line))
            require(record, {"id": str, "question": list, "function": list}, src, where)
            if target != "special/irrelevant" and record["id"] not in answers:
                repository.skip(where, f"possible_answer/{path.name} has no answer with this id")
                continue
            _convert(record, answers.get(record["id"]), target, where, repository)
    return Imported(PEER, [repository])


def _answers(src: Path, relative: str) -> dict[str, Any]:
    if not (src / relative).is_file():
        return {}
    answers: dict[str, Any] = {}
    for line, record in read_json_lines(src, relative):
        where = Where(relative, line, record_id(record, line))
        require(record, {"id": str, "ground_truth": list}, src, where)
        answers[record["id"]] = record["ground_truth"]
    return answers


# ----------------------------------------------------------------------------- one record


def _convert(record: dict[str, Any], truth: Any, category: str, where: Where, repository: Repository) -> None:
    turns = _turns(record["question"], where, repository)
    if turns is None:
        return
    names: dict[str, str] = {}
    for index, function in enumerate(record["function"]):
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            repository.skip(where, f"function {index} has no name")
            return
        names.setdefault(function["name"], repository.add_spec(function["name"], _spec(function), where))
    if category == "special/irrelevant":
        expect: dict[str, Any] = {"special": "irrelevant"}
    else:
        calls = _calls(truth, names, where, repository)
        if calls is None:
            return
        expect = {"calls": calls}
    document = {"apis": list(dict.fromkeys(names.values())), LANG: {"turns": [*turns, {"expect": expect}]}}
    repository.add_case(case_identifier(record["id"]), category, document, where)


def _spec(function: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {"domain": PEER, "spec_only": True, "description": localized(function.get("description"), LANG)}
    if "parameters" in function:
        spec["parameters"] = convert_parameters(function["parameters"], LANG, TYPES)
    for key, value in function.items():
        if key not in ("name", "description", "parameters"):
            spec[key] = value
    spec["returns"] = {}
    return spec


def _turns(question: list[Any], where: Where, repository: Repository) -> list[dict[str, Any]] | None:
    if len(question) != 1 or not isinstance(question[0], list):
        repository.skip(where, f"the question has {len(question)} turns; an AST record has one")
        return None
    turns: list[dict[str, Any]] = []
    for message in question[0]:
        role = message.get("role") if isinstance(message, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if role == "system":
            repository.skip(where, "the question has a system message; a callbank dialogue has user and assistant turns only")
            return None
        if role not in ("user", "assistant") or not isinstance(content, str):
            repository.skip(where, f"a message is not {{role: user|assistant, content: text}} ({str(message)[:60]})")
            return None
        turns.append({role: content})
    if not turns or "user" not in turns[0]:
        repository.skip(where, "the question does not start with the user")
        return None
    return turns


def _calls(truth: Any, names: Mapping[str, str], where: Where, repository: Repository) -> list[dict[str, Any]] | None:
    calls = []
    for entry in truth:
        if not isinstance(entry, dict) or len(entry) != 1:
            repository.skip(where, "an answer entry is not {function: {parameter: [values]}}")
            return None
        ((name, params),) = entry.items()
        if not isinstance(params, dict):
            repository.skip(where, f"the answer for {name} is not {{parameter: [values]}}")
            return None
        args: dict[str, Any] = {}
        for param, values in params.items():
            try:
                value = _parameter(values)
            except _TooMany:
                repository.skip(where, f"{name}.{param}: more than {MAX_ALTERNATIVES} objects with and without their omittable keys")
                return None
            if value is not _OMITTED:
                args[param] = value
        calls.append({"api": names.get(name, api_identifier(name)), "args": args})
    return calls


class _TooMany(Exception):
    pass


_OMITTED = object()  # [""]: the parameter may only be left out


def _parameter(values: Any) -> Any:
    """A top-level parameter's acceptable values as a callbank value or matcher."""
    if not isinstance(values, list):
        return _value(values)  # not BFCL's shape: kept as the one value
    omittable = "" in values
    options = _distinct([_value(v) for v in values if v != ""])
    if not options:
        return _OMITTED
    value = options[0] if len(options) == 1 else {"$any": options}
    return {"$optional": value} if omittable else value


def _value(value: Any) -> Any:
    """One acceptable value: an object's values are lists of acceptable values themselves."""
    if isinstance(value, dict):
        return _object(value)
    if isinstance(value, list):
        return [_value(item) for item in value]
    return value


def _object(value: dict[str, Any]) -> Any:
    fixed: dict[str, Any] = {}
    omittable: list[str] = []
    for key, values in value.items():
        if not isinstance(values, list):
            fixed[key] = _value(values)
            continue
        options = _distinct([_value(v) for v in values if v != ""])
        if "" in values:
            omittable.append(key)
        if options:
            fixed[key] = options[0] if len(options) == 1 else {"$any": options}
    omittable = [key for key in omittable if key in fixed]
    if not omittable:
        return fixed
    if 2 ** len(omittable) > MAX_ALTERNATIVES:
        raise _TooMany
    variants = []
    for kept in itertools.product((True, False), repeat=len(omittable)):
        dropped = {key for key, keep in zip(omittable, kept, strict=True) if not keep}
        variants.append({key: item for key, item in fixed.items() if key not in dropped})
    return {"$any": variants}


def _distinct(options: list[Any]) -> list[Any]:
    """The options without repeats (BFCL lists ``5`` and ``5.0`` alike; a matcher needs each once)."""
    seen: set[str] = set()
    out = []
    for option in options:
        key = canonical_json(option)
        if key not in seen:
            seen.add(key)
            out.append(option)
    return out
