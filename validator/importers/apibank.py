"""API-Bank → callbank: the level-1, 2 and 3 evaluation dialogues as one English repository.

The source is the ``api-bank`` folder of the DAMO-ConvAI repository:

- ``apis/*.py``: one class per API, with literal class attributes ``description``,
  ``input_parameters`` and ``output_parameters`` (``{name: {type, description}}``) and a
  ``call`` method whose parameters without a default are the required ones. The files are
  read with ``ast``, never imported or run.
- ``lv1-lv2-samples/level-1-given-desc/*.jsonl``: one dialogue per file, one JSON line per turn —
  ``{role: User|AI, text}`` or ``{role: API, api_name, param_dict, result: {output, exception}}``.
  API-Bank asks for each API call given the dialogue before it, so each call becomes a case
  (``normal/single_turn/single``): the turns before it, earlier calls as ``called`` history
  with their results, and the call as the checkpoint. The candidates are the dialogue's APIs.
- ``lv1-lv2-samples/level-2-toolsearcher/*.jsonl``: the same, but the model must find the API
  with a tool search: each call becomes a ``retrieval/call`` case offering only callbank's
  ``search_tools`` (copied into the repository with its ``tools`` sandbox), which the model
  runs live. API-Bank's ``ToolSearcher`` turns, with their stored results, are left out: the
  search is the model's own.
- ``lv3-samples/*.txt``: a scene per file (``First Utterance``, ``Key Info``, the calls to make)
  becomes a ``retrieval/plan`` case: the utterance is the user's turn, the key information the
  user profile, the calls the checkpoint.

The AI's replies after a call (scored by API-Bank with ROUGE) are history turns here: callbank
scores calls, not prose.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from validator.importers.builtin import SANDBOX, tool_search_files
from validator.importers.calls import CallSyntaxError, read_calls
from validator.importers.common import (
    Imported,
    Repository,
    SourceError,
    Where,
    api_identifier,
    case_identifier,
    localized,
    read_json_lines,
)
from validator.toolsearch import SEARCH_API

PEER = "apibank"
LANG = "en"
SEARCHER = "ToolSearcher"  # API-Bank's tool search: callbank's search_tools takes its place
TYPES: Mapping[str, str] = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "list": "array", "dict": "object"}
_LIST_OF = re.compile(r"^list\((?P<item>\w+)\)$")
LEVELS = (("lv1-lv2-samples/level-1-given-desc", "normal/single_turn/single"), ("lv1-lv2-samples/level-2-toolsearcher", "retrieval/call"))
LEVEL3 = "lv3-samples"
IGNORE = ("DLG021", "REF003")
_CALLS_HEADER = re.compile(r"^\W*(GT\s+)?API\s+Calls?\s*:", re.IGNORECASE)
_UTTERANCE = re.compile(r"^First\s+Utter[ae]nce\s*:\s*(?P<text>.*)$", re.IGNORECASE)
_KEY_INFO = re.compile(r"^Key\s+Info\s*:\s*(?P<text>.*)$", re.IGNORECASE)


def check_layout(src: Path) -> None:
    if not (src / "apis").is_dir() or not any((src / folder).is_dir() for folder, _ in LEVELS):
        raise SourceError(f"{src} is not API-Bank's folder: it needs apis/ and lv1-lv2-samples/ (the api-bank folder of DAMO-ConvAI)")


def import_apibank(src: Path) -> Imported:
    check_layout(src)
    repository = Repository(PEER, LANG, "", IGNORE)
    apis = _read_apis(src, repository)
    for folder, category in LEVELS:
        for path in sorted((src / folder).glob("*.jsonl")):
            _dialogue(src, f"{folder}/{path.name}", category, apis, repository)
    if (src / LEVEL3).is_dir():
        for path in sorted((src / LEVEL3).glob("*.txt")):
            _scene(src, f"{LEVEL3}/{path.name}", apis, repository)
    if any(case["category"].startswith("retrieval/") for case in repository.cases.values()):
        spec, files = tool_search_files(LANG)
        repository.specs[SEARCH_API] = spec
        repository.extra_files.update(files)
        repository.notes.append(f"{SEARCH_API} and the `{SANDBOX}` sandbox are callbank's own tool search, copied in for the retrieval cases; API-Bank's {SEARCHER} is not a spec here")
    repository.notes.append(f"{SEARCHER} calls are no cases of their own: a retrieval case runs the model's searches live and judges the call it makes after them")
    repository.notes.append("the AI's replies after a call (scored by API-Bank with ROUGE-L) are history turns: callbank scores calls, not prose")
    return Imported(PEER, [repository])


# ----------------------------------------------------------------------------- the APIs


def _read_apis(src: Path, repository: Repository) -> dict[str, str]:
    """API-Bank class name → callbank name, for every API class of apis/*.py."""
    names: dict[str, str] = {}
    reserved = frozenset({SEARCH_API})
    for path in sorted((src / "apis").glob("*.py")):
        relative = f"apis/{path.name}"
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), relative)
        except (SyntaxError, UnicodeDecodeError, ValueError) as error:
            raise SourceError(f"{path}: not Python API-Bank can load ({error})") from None
        for node in tree.body:
            if not isinstance(node, ast.ClassDef) or node.name in ("API", SEARCHER):
                continue
            where = Where(relative, node.lineno, node.name)
            attributes = _attributes(node)
            if "description" not in attributes and "input_parameters" not in attributes:
                continue  # a helper class, not an API
            problem = next((f"{key} is not a literal" for key in ("description", "input_parameters", "output_parameters") if attributes.get(key) is _NOT_LITERAL), None)
            if problem is not None:
                repository.skip(where, f"the API {node.name}: {problem}")
                continue
            names[node.name] = repository.add_spec(node.name, _spec(attributes, _required(node)), where, reserved)
    return names


_NOT_LITERAL = object()


def _attributes(node: ast.ClassDef) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    for statement in node.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            try:
                attributes[statement.targets[0].id] = ast.literal_eval(statement.value)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                attributes[statement.targets[0].id] = _NOT_LITERAL
    return attributes


def _required(node: ast.ClassDef) -> list[str] | None:
    """The parameters of ``call`` without a default (None when the class has no ``call``)."""
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == "call":
            args = [arg.arg for arg in statement.args.args if arg.arg != "self"]
            return args[: len(args) - len(statement.args.defaults)]
    return None


def _type(name: Any) -> dict[str, Any]:
    """An API-Bank type name (Python's: str, int, list(str) …) as a JSON Schema type."""
    if isinstance(name, str):
        match = _LIST_OF.match(name)
        if match is not None:
            return {"type": "array", "items": {"type": TYPES.get(match["item"], match["item"])}}
        return {"type": TYPES.get(name, name)}
    return {"type": name}


def _spec(attributes: Mapping[str, Any], required: list[str] | None) -> dict[str, Any]:
    inputs = attributes.get("input_parameters") or {}
    properties: dict[str, Any] = {}
    for name, declared in (inputs.items() if isinstance(inputs, dict) else ()):
        entry = dict(declared) if isinstance(declared, dict) else {"type": declared}
        schema = {**_type(entry.pop("type", None)), **({"description": localized(entry.pop("description"), LANG)} if "description" in entry else {}), **entry}
        properties[name] = schema
    outputs = attributes.get("output_parameters") or {}
    returns_properties: dict[str, Any] = {}
    for name, declared in (outputs.items() if isinstance(outputs, dict) else ()):
        entry = dict(declared) if isinstance(declared, dict) else {"type": declared}
        returns_properties[name] = {**_type(entry.pop("type", None)), **entry}
    return {
        "domain": PEER,
        "spec_only": True,
        "description": localized(attributes.get("description"), LANG),
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": list(properties) if required is None else required,
            "additionalProperties": False,
        },
        "returns": {"type": "object", "properties": returns_properties},
    }


# ----------------------------------------------------------------------------- levels 1 and 2


def _dialogue(src: Path, relative: str, category: str, apis: Mapping[str, str], repository: Repository) -> None:
    events = []
    for line, record in read_json_lines(src, relative):
        where = Where(relative, line, f"line {line}")
        if not isinstance(record, dict) or record.get("role") not in ("User", "AI", "API"):
            raise SourceError(f"{src / relative}:{line}: a turn is {{role: User|AI|API, …}}")
        if record["role"] == "API" and not (isinstance(record.get("api_name"), str) and isinstance(record.get("param_dict"), dict)):
            raise SourceError(f"{src / relative}:{line}: an API turn has api_name and param_dict")
        if record["role"] != "API" and not isinstance(record.get("text"), str):
            raise SourceError(f"{src / relative}:{line}: a {record['role']} turn has text")
        events.append((where, record))
    repository.read[relative] += 1
    stem = Path(relative).stem
    offered = list(dict.fromkeys(_name(r["api_name"], apis) for _, r in events if r["role"] == "API" and r["api_name"] != SEARCHER))
    turns: list[dict[str, Any]] = []
    number = 0
    for where, record in events:
        role = record["role"]
        if role == "User":
            turns.append({"user": record["text"]})
        elif role == "AI":
            turns.append({"assistant": record["text"]})
        elif record["api_name"] == SEARCHER:
            continue  # the search is the model's own, live
        else:
            number += 1
            call = {"api": _name(record["api_name"], apis), "args": record["param_dict"]}
            document = {"apis": [SEARCH_API] if category.startswith("retrieval/") else offered, LANG: {"turns": [*turns, {"expect": {"calls": [call]}}]}}
            repository.add_case(case_identifier(f"{stem}-{number}"), category, document, Where(relative, where.line, f"{stem} call {number}"))
            turns += [{"called": [call]}, {"tool": [{"api": call["api"], "result": _result(record.get("result"))}]}]
    if number == 0:
        repository.skip(Where(relative, 1, stem), "the dialogue makes no API call to ask for")


def _name(source: str, apis: Mapping[str, str]) -> str:
    return apis.get(source, api_identifier(source))


def _result(result: Any) -> Any:
    """What the model is shown of a call's result: its output, or the exception it raised."""
    if not isinstance(result, dict):
        return result
    if result.get("exception") is not None:
        return {"exception": result["exception"]}
    return result.get("output")


# ----------------------------------------------------------------------------- level 3


def _scene(src: Path, relative: str, apis: Mapping[str, str], repository: Repository) -> None:
    repository.read[relative] += 1
    where = Where(relative, 1, Path(relative).stem)
    try:
        lines = (src / relative).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise SourceError(f"{src / relative}: cannot be read as UTF-8 text ({error})") from None
    utterance: str | None = None
    info: list[str] = []
    calls: list[tuple[int, str]] = []
    section = ""
    for number, line in enumerate(lines, 1):
        if (match := _UTTERANCE.match(line.strip())) is not None:
            utterance, section = match["text"].strip(), "utterance"
        elif (match := _KEY_INFO.match(line.strip())) is not None:
            section = "info"
            if match["text"].strip():
                info.append(match["text"].strip())
        elif _CALLS_HEADER.match(line.strip()):
            section = "calls"
        elif section == "info":
            info.append(line)
        elif section == "calls" and line.strip():
            calls.append((number, line.strip()))
    if not utterance:
        repository.skip(where, "the scene has no 'First Utterance:' line")
        return
    if not calls:
        repository.skip(where, "the scene lists no API calls")
        return
    expected = []
    for number, text in calls:
        try:
            ((api, args),) = read_calls(text)
        except (CallSyntaxError, ValueError) as error:
            repository.skip(where, f"line {number} is not a call with literal arguments ({error})")
            return
        expected.append({"api": _name(api, apis), "args": args})
    profile = "\n".join(info).strip()
    document: dict[str, Any] = {"apis": [SEARCH_API]}
    if profile:
        document["profile"] = {LANG: profile}
    document[LANG] = {"turns": [{"user": utterance}, {"expect": {"calls": expected}}]}
    repository.add_case(case_identifier(f"level-3-{Path(relative).stem}"), "retrieval/plan", document, where)
