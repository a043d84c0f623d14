"""Shared helpers for the sandbox tests: loading a sandbox's files and calling it like the runtime.

Everything is read from the repository (``sandboxes/<name>/``, ``specs/<name>/``) through the
validator's own loader, runtime and replay functions, so the tests check the sandboxes the
way ``callbank exec`` and the scorer run them, not with a private re-implementation.
"""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from validator import matchers
from validator.corpus.index import Corpus
from validator.loading import Document, load_file
from validator.sandbox import replay as replay_module
from validator.sandbox.base import ApiError, Sandbox
from validator.sandbox.runtime import Runtime, json_copy, load_sandbox_class
from validator.schemas import SchemaSet, schema_comment_target

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "zh")
HAN = re.compile(r"[\u4e00-\u9fff]")

render = matchers.render  # a reference-call value for one language ($lang picked, matchers rendered)


# ----------------------------------------------------------------------------- files


def sandbox_names() -> list[str]:
    """Every sandbox folder under sandboxes/ (discovered, never listed by hand)."""
    base = ROOT / "sandboxes"
    return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def sandbox_dir(name: str) -> Path:
    return ROOT / "sandboxes" / name


@functools.cache
def document(path: str, kind: str) -> Document:
    """A repository file loaded by the validator's loader; it must load without problems."""
    loaded, problems = load_file(ROOT, path, kind)
    assert not problems, f"{path}: {problems}"
    assert loaded is not None
    return loaded


@functools.cache
def schema_set() -> SchemaSet:
    return SchemaSet(ROOT)


def schema_problems(kind: str, doc: Document) -> list[str]:
    """Why a document breaks its JSON Schema or lacks its `$schema` comment line (empty if fine)."""
    problems = [f"{pointer}: {message}" for message, pointer in schema_set().errors(kind, doc.data)]
    header = f"# yaml-language-server: $schema={schema_comment_target(doc.path, kind)}"
    if doc.first_line != header:
        problems.append(f"first line is {doc.first_line!r}, not {header!r}")
    return problems


def state_document(name: str) -> Document:
    return document(f"sandboxes/{name}/state.yaml", "state")


def state(name: str) -> dict[str, Any]:
    """A fresh copy of the sandbox's state.yaml (sandbox, clock, counters, data)."""
    return json_copy(state_document(name).data)


def spec_documents(name: str) -> dict[str, Document]:
    """API name → document of every spec under specs/<name>/, distractors (spec_only) included."""
    return {p.stem: document(p.relative_to(ROOT).as_posix(), "api") for p in sorted((ROOT / "specs" / name).glob("*.yaml"))}


def all_specs(name: str) -> dict[str, dict[str, Any]]:
    return {api: doc.data for api, doc in spec_documents(name).items()}


def specs(name: str) -> dict[str, dict[str, Any]]:
    """The specs the sandbox implements (spec_only distractors left out)."""
    return {api: spec for api, spec in all_specs(name).items() if not spec.get("spec_only")}


def distractors(name: str) -> dict[str, dict[str, Any]]:
    return {api: spec for api, spec in all_specs(name).items() if spec.get("spec_only")}


@functools.cache
def catalog() -> tuple[dict[str, Any], ...]:
    """Every spec of the repository, as the runtime hands the catalog to the tools sandbox."""
    return tuple(document(p.relative_to(ROOT).as_posix(), "api").data for p in sorted((ROOT / "specs").glob("*/*.yaml")))


def scenario_documents(name: str) -> dict[str, Document]:
    paths = sorted((sandbox_dir(name) / "scenarios").glob("*.yaml"))
    return {p.stem: document(p.relative_to(ROOT).as_posix(), "scenario") for p in paths}


def scenarios(name: str) -> dict[str, dict[str, Any]]:
    return {sid: doc.data for sid, doc in scenario_documents(name).items()}


def render_schema(schema: Any, lang: str) -> Any:
    """A schema for one language: every bilingual description becomes that language's string."""
    if isinstance(schema, list):
        return [render_schema(item, lang) for item in schema]
    if isinstance(schema, dict):
        return {
            key: value[lang] if key == "description" and isinstance(value, dict) and lang in value else render_schema(value, lang)
            for key, value in schema.items()
        }
    return schema


# ----------------------------------------------------------------------------- sandboxes


@functools.cache
def sandbox_class(name: str) -> type[Sandbox]:
    """The Sandbox class of sandboxes/<name>/sandbox.py, imported by the runtime's loader."""
    return load_sandbox_class(sandbox_dir(name) / "sandbox.py", name)


@functools.cache
def runtime() -> Runtime:
    """One Runtime over every sandbox: the specs, classes and states the tests call through."""
    runtime = Runtime.from_corpus(Corpus.load(ROOT, kinds=("api", "state")))
    assert not runtime.load_errors, runtime.load_errors
    return runtime


def check_catalogue(name: str, min_apis: int, distractors_between: tuple[int, int] | None = None) -> None:
    """A sandbox's own size requirements: how many APIs it implements, how many spec_only distractors."""
    assert len(specs(name)) >= min_apis
    if distractors_between is not None:
        low, high = distractors_between
        assert low <= len(distractors(name)) <= high


def fresh(name: str, patch: Any = None, *, clock: str | None = None, catalog_specs: Any = None) -> Sandbox:
    """A sandbox on a fresh copy of its state, its data deep-merged with a patch (as the runtime does)."""
    initial = runtime().initial_state(name, patch, clock)
    cls = sandbox_class(name)
    if cls.needs_catalog:
        chosen = catalog() if catalog_specs is None else catalog_specs
        return cls(initial, catalog=list(chosen))
    return cls(initial)


def call(sandbox: Sandbox, api: str, /, *, strict_args: bool = True, **args: Any) -> Any:
    """Call one API as the runtime would and check the contract on the way.

    Arguments must fit the spec's ``parameters`` (unless ``strict_args=False``, for tests that
    pass deliberately odd values); the method gets a copy of them. A result must be JSON data
    valid against ``returns``; an ApiError must be declared in ``errors`` with JSON details.
    """
    rt = runtime()
    assert api in rt.specs, f"no spec for {api}"
    if strict_args:
        problems = rt.argument_errors(api, args)
        assert not problems, f"{api} arguments do not fit its parameters: {problems}"
    try:
        result = getattr(sandbox, api)(**copy.deepcopy(args))
    except ApiError as error:
        assert error.kind in rt.specs[api].errors, f"{api} raised undeclared error {error.kind!r}"
        json_copy(error.details)  # details are JSON data
        raise
    assert json_copy(result) == result  # JSON data (no NaN, tuples, non-string keys…)
    problems = rt.result_errors(api, result)
    assert not problems, f"{api} returned a result its spec's returns rejects: {problems}"
    return result


def refused_by_format(api: str, args: dict[str, Any]) -> bool:
    """Whether the runtime refuses args only for values that break a ``format`` (an impossible
    date such as 2024-02-30): a call never reaches the method, which keeps its own guard."""
    problems = runtime().argument_errors(api, args)
    return bool(problems) and all(re.search(r'is not a "[^"]+"', problem) for problem in problems)


def error(sandbox: Sandbox, api: str, /, *, strict_args: bool = True, keeps_state: bool = True, **args: Any) -> ApiError:
    """The declared ApiError a call raises; with ``keeps_state`` the failed call changed nothing.

    A value the runtime refuses by its format is passed to the method anyway: the test probes
    the method's own guard (through the runtime, the call is an ``invalid_arguments`` error).
    """
    if strict_args and refused_by_format(api, args):
        strict_args = False
    before = copy.deepcopy(sandbox.state)
    with pytest.raises(ApiError) as caught:
        call(sandbox, api, strict_args=strict_args, **args)
    if keeps_state:
        assert sandbox.state == before, f"{api} failed with {caught.value.kind} but changed the state"
    return caught.value


def error_kind(sandbox: Sandbox, api: str, /, **args: Any) -> str:
    return error(sandbox, api, **args).kind


# ----------------------------------------------------------------------------- static reading of sandbox.py


@functools.cache
def source(name: str) -> str:
    return (sandbox_dir(name) / "sandbox.py").read_text(encoding="utf-8")


def _functions(tree: ast.AST) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def _kinds_of(node: ast.expr | None) -> list[tuple[bool, str]]:
    """(is a literal, kind or regular expression) for what an ApiError's first argument can be.

    A literal is itself; ``"a" if … else "b"`` is the pattern ``a|b`` (which branch an API takes
    is not known statically); an f-string is a pattern with ``[a-z_]+`` for each interpolation;
    anything else (a variable) is ``.*``: unknown.
    """
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [(True, node.value)]
    if isinstance(node, ast.IfExp):
        branches = [kind if not literal else re.escape(kind) for part in (node.body, node.orelse) for literal, kind in _kinds_of(part)]
        return [(False, "|".join(f"(?:{b})" for b in branches))]
    if isinstance(node, ast.JoinedStr):
        parts = [re.escape(v.value) if isinstance(v, ast.Constant) else "[a-z_]+" for v in node.values]
        return [(False, "".join(parts))]
    return [(False, ".*")]


@functools.cache
def raised_error_kinds(name: str) -> tuple[dict[str, set[str]], dict[str, list[str]]]:
    """(API → literal ApiError kinds it can raise, API → patterns of its non-literal kinds), statically.

    Follows calls to other functions of sandbox.py (``self._helper(...)``, ``_helper(...)``),
    so a kind raised in a shared helper counts for every API that uses it. A non-literal kind
    is a regular expression (see :func:`_kinds_of`); ``.*`` means it cannot be read.
    """
    tree = ast.parse(source(name))
    functions = _functions(tree)
    direct: dict[str, set[str]] = {}
    dynamic: dict[str, list[str]] = {}
    calls: dict[str, set[str]] = {}
    for fname, node in functions.items():
        direct[fname], dynamic[fname], calls[fname] = set(), [], set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "ApiError":
                for literal, kind in _kinds_of(sub.args[0] if sub.args else None):
                    (direct[fname].add if literal else dynamic[fname].append)(kind)
            elif isinstance(sub, ast.Name) and sub.id in functions:
                calls[fname].add(sub.id)
            elif isinstance(sub, ast.Attribute) and sub.attr in functions:
                calls[fname].add(sub.attr)

    def closure(fname: str) -> tuple[set[str], list[str]]:
        seen, todo = {fname}, [fname]
        kinds: set[str] = set()
        patterns: list[str] = []
        while todo:
            current = todo.pop()
            kinds |= direct[current]
            patterns += dynamic[current]
            for callee in calls[current] - seen:
                seen.add(callee)
                todo.append(callee)
        return kinds, patterns

    found = {api: closure(api) for api in sandbox_class(name).api_names()}
    return {api: kinds for api, (kinds, _) in found.items()}, {api: patterns for api, (_, patterns) in found.items()}


def imported_modules(name: str) -> set[str]:
    tree = ast.parse(source(name))
    return {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
    }


def parameter_kinds(name: str) -> set[Any]:
    """The kinds (positional-or-keyword, keyword-only…) of every API parameter of a sandbox."""
    cls = sandbox_class(name)
    return {
        parameter.kind
        for api in cls.api_names()
        for key, parameter in inspect.signature(getattr(cls, api)).parameters.items()
        if key != "self"
    }


def signature_order_mismatches(name: str) -> list[str]:
    """APIs whose method lists its parameters in another order than the spec's properties."""
    cls = sandbox_class(name)
    return [
        api
        for api, spec in specs(name).items()
        if [k for k in inspect.signature(getattr(cls, api)).parameters if k != "self"] != list(spec["parameters"]["properties"])
    ]


def undeclared_defaults(name: str) -> list[str]:
    """api.parameter of every Python default (None included) that the spec declares no default for."""
    cls = sandbox_class(name)
    return [
        f"{api}.{key}"
        for api, spec in specs(name).items()
        for key, parameter in inspect.signature(getattr(cls, api)).parameters.items()
        if key != "self" and parameter.default is not inspect.Parameter.empty and "default" not in spec["parameters"]["properties"][key]
    ]


def chinese_in_english(name: str) -> list[str]:
    """Where an English description or error message of the sandbox's specs holds Chinese, even quoted."""
    found = []

    def walk(schema: dict[str, Any], where: str) -> None:
        description = schema.get("description")
        if isinstance(description, dict) and HAN.search(description.get("en", "")):
            found.append(where)
        for key, prop in (schema.get("properties") or {}).items():
            walk(prop, f"{where}.{key}")
        if isinstance(schema.get("items"), dict):
            walk(schema["items"], f"{where}[]")

    for api, spec in all_specs(name).items():
        walk({"description": spec.get("description"), **spec["parameters"]}, api)
        found += [f"{api} error {kind}" for kind, message in (spec.get("errors") or {}).items() if HAN.search(message.get("en", ""))]
    return found


# ----------------------------------------------------------------------------- scenarios


def reference_calls(scenario: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """The scenario's reference calls with concrete arguments for one language."""
    return [{"api": c["api"], "args": render(c.get("args") or {}, lang)} for c in scenario["reference_calls"]]


def replay(name: str, scenario_id: str, lang: str) -> replay_module.ReplayResult:
    """Replay a scenario's reference calls through the runtime (a new run every time)."""
    scenario = scenarios(name)[scenario_id]
    return replay_module.replay(runtime(), scenario, scenario["reference_calls"], lang)


@functools.cache
def replayed(name: str, scenario_id: str, lang: str) -> replay_module.ReplayResult:
    """The first replay of a scenario, kept: spot checks of end states reuse it instead of re-running."""
    return replay(name, scenario_id, lang)


def start_state(name: str, scenario: dict[str, Any]) -> dict[str, Any]:
    """{sandbox: data} before any call, for every sandbox the scenario spans, patched by its initial_state."""
    patches = scenario.get("initial_state") or {}
    return {sandbox: runtime().initial_state(sandbox, patches.get(sandbox))["data"] for sandbox in scenario.get("sandboxes") or [name]}


def end_state(name: str, scenario_id: str, lang: str = "en", *, sandbox: str | None = None) -> dict[str, Any]:
    """The data of one sandbox (by default the scenario's folder, ``name``) after the scenario's
    reference calls (from the kept replay)."""
    result = replayed(name, scenario_id, lang)
    assert not result.errors, result.errors
    return result.end_state[sandbox or name]
