"""`callbank exec`: execute everything the corpus claims is executable, and report in rule codes.

- parity between specs and sandbox classes (EXE001–EXE003), sandboxes that cannot load (EXE004);
- a static scan of every sandbox.py for isolation breaches and nondeterminism (EXE014, EXE016);
- every ground-truth call of every case whose APIs are runnable (EXE005), and that the
  results a dialogue records are what the calls return (EXE017);
- retrieval cases: every expected API is found by its reference query, and a plan's later call
  needs an earlier one (EXE018, EXE019; ``validator.retrieval_checks``);
- every scenario: reference calls run (EXE006), twice alike (EXE007), change what a do-nothing
  agent does not (EXE008, EXE009), reach every milestone in order and no minefield (EXE010,
  EXE011), and name only APIs its sandboxes run (EXE012);
- sandbox faults seen on the way: crashes and bad results (EXE013), isolation breaches caught
  by the audit hook (EXE014), time-outs (EXE015), placed at the line of sandbox.py at fault.

The rule docs live in validator/rules/execution.py.
"""

from __future__ import annotations

import ast
import json
import inspect
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from validator import matchers
from validator.diagnostics import Diagnostic, Location, join_pointer
from validator.loading import Document
from validator.repo import Repo
from validator.retrieval_checks import check_retrieval_case
from validator.rules import RULES
from validator.rules.answers import alternatives, checkpoints, iter_calls, sides
from validator.rules.scenarios import scenario_calls
from validator.sandbox.replay import (
    call_matches,
    compare_states,
    matched_milestones,
    minefield_hits,
    replay,
)
from validator.sandbox.runtime import (
    AGENT_ERRORS,
    DEFAULT_TIME_LIMIT,
    SANDBOX_BUG,
    TIMEOUT,
    VIOLATION,
    Outcome,
    Runtime,
    Session,
    function_line,
)

LANGS = ("en", "zh")
FAULT_CODES = {SANDBOX_BUG: "EXE013", VIOLATION: "EXE014", TIMEOUT: "EXE015"}


def run(root: Path, time_limit: float | None = DEFAULT_TIME_LIMIT) -> list[Diagnostic]:
    """Every execution finding for the repository at root, sorted by place."""
    return run_repo(Repo.load(Path(root)), time_limit)


def run_repo(repo: Repo, time_limit: float | None = DEFAULT_TIME_LIMIT) -> list[Diagnostic]:
    report = Report(repo)
    runtime = Runtime.from_repo(repo)
    for _, error in sorted(runtime.load_errors.items()):
        path = _relative(repo.root, error.path)
        report.at_file("EXE004", path, error.line, error.message)
    for name in repo.sandbox_names():
        if (repo.root / "sandboxes" / name / "sandbox.py").is_file():
            scan_source(repo.root, name, report)
    check_parity(repo, runtime, report)
    for document in repo.of_kind("case"):
        execute_case(document, runtime, report, time_limit)
        for finding in check_retrieval_case(document.data, runtime, time_limit):
            report.at_document(finding.code, document.path, finding.pointer, finding.message, finding.lang)
    for document in repo.of_kind("scenario"):
        execute_scenario(document, runtime, report, time_limit)
    return report.diagnostics()


def _relative(root: Path, path: str) -> str:
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return path


# ----------------------------------------------------------------------------- findings


class Report:
    """Collects findings; merges one finding seen in both languages; places them at file:line."""

    def __init__(self, repo: Repo) -> None:
        self.root = repo.root
        self.documents: dict[str, Document] = {d.path: d for d in repo.documents}
        self._entries: dict[tuple[Any, ...], list[str]] = {}
        self._order: list[tuple[Any, ...]] = []
        self._static: set[tuple[str, str, int | None]] = set()
        self._places: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # (code, path, pointer) -> entry key

    def _add(self, key: tuple[Any, ...], lang: str | None) -> None:
        if key not in self._entries:
            self._entries[key] = []
            self._order.append(key)
        if lang and lang not in self._entries[key]:
            self._entries[key].append(lang)

    def at_document(self, code: str, path: str, pointer: str, message: str, lang: str | None = None) -> None:
        """One finding per rule and place: seen in both languages, the first message is kept."""
        place = (code, path, pointer)
        key = self._places.setdefault(place, ("doc", code, path, pointer, message)) if lang is not None else ("doc", code, path, pointer, message)
        self._add(key, lang)

    def at_file(self, code: str, path: str, line: int | None, message: str, *, static: bool = False) -> None:
        if static:
            self._static.add((code, path, line))
        self._add(("file", code, path, line, message), None)

    def fault(self, outcome: Outcome, runtime: Runtime, where: str) -> None:
        """A sandbox fault, placed in sandbox.py once however many calls show it."""
        code = FAULT_CODES[outcome.status]
        name = outcome.sandbox or ""
        path = _relative(self.root, runtime.files.get(name, f"sandboxes/{name}/sandbox.py"))
        if (code, path, outcome.line) in self._static:
            return  # the static scan already points at this line
        key = ("fault", code, path, outcome.line, outcome.detail)
        if key not in self._entries:
            self._entries[key] = [where]
            self._order.append(key)

    def diagnostics(self) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        for key in self._order:
            extra = self._entries[key]
            kind, code = key[0], key[1]
            rule = RULES[code].name
            if kind == "doc":
                _, _, path, pointer, message = key
                document = self.documents.get(path)
                line, column = document.locate(pointer) if document is not None else (None, None)
                suffix = f" ({', '.join(extra)})" if extra else ""
                out.append(Diagnostic(code, rule, message + suffix, Location(path, line, column, pointer)))
            elif kind == "file":
                _, _, path, line, message = key
                out.append(Diagnostic(code, rule, message, Location(path, line, None, "")))
            else:
                _, _, path, line, detail = key
                out.append(Diagnostic(code, rule, f"{detail} (seen {extra[0]})", Location(path, line, None, "")))
        return sorted(out, key=lambda d: d.sort_key)


# ----------------------------------------------------------------------------- static scan

ISOLATION_MODULES = frozenset(
    {
        "os", "pathlib", "io", "shutil", "tempfile", "glob", "socket", "ssl", "select", "selectors", "asyncio",
        "subprocess", "multiprocessing", "threading", "concurrent", "signal", "ctypes", "urllib", "http",
        "ftplib", "smtplib", "requests", "httpx", "aiohttp", "webbrowser", "sqlite3", "zoneinfo", "importlib",
        "shelve", "dbm", "mmap", "fcntl", "pty",
    }
)
NONDETERMINISM_MODULES = frozenset({"random", "secrets", "uuid", "time"})
ISOLATION_BUILTINS = frozenset({"open", "input", "__import__", "breakpoint"})
NONDETERMINISM_BUILTINS = frozenset({"hash", "id"})
CLOCK_METHODS = frozenset({"now", "today", "utcnow", "fromtimestamp", "utcfromtimestamp"})


def scan_source(root: Path, name: str, report: Report) -> None:
    """EXE014 / EXE016 from reading sandbox.py: what no audit event reveals, or before it runs."""
    path = f"sandboxes/{name}/sandbox.py"
    try:
        tree = ast.parse((root / path).read_text(encoding="utf-8"), path)
    except (SyntaxError, UnicodeDecodeError, OSError):
        return  # EXE004 reports a sandbox.py that does not load
    for code, line, message in _scan(tree):
        report.at_file(code, path, line, message, static=True)


def _scan(tree: ast.AST) -> Iterator[tuple[str, int, str]]:
    clock_classes: set[str] = set()  # local names of datetime.datetime / datetime.date
    clock_modules: set[str] = set()  # local names of the datetime module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                yield from _module_finding(top, node.lineno)
                if alias.name == "datetime":
                    clock_modules.add(alias.asname or "datetime")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            top = node.module.split(".")[0]
            yield from _module_finding(top, node.lineno)
            if node.module == "datetime":
                clock_classes.update(a.asname or a.name for a in node.names if a.name in ("datetime", "date"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in ISOLATION_BUILTINS:
            yield ("EXE014", node.lineno, f"sandbox.py calls {func.id}(); a sandbox reads and writes only its state")
        elif isinstance(func, ast.Name) and func.id in NONDETERMINISM_BUILTINS:
            yield ("EXE016", node.lineno, f"sandbox.py calls {func.id}(), whose value changes from one process to the next")
        elif isinstance(func, ast.Attribute) and func.attr in CLOCK_METHODS and _is_clock(func.value, clock_classes, clock_modules):
            yield ("EXE016", node.lineno, f"sandbox.py reads the wall clock ({func.attr}()); use self.now() and self.advance_clock()")


def _module_finding(top: str, line: int) -> Iterator[tuple[str, int, str]]:
    if top in ISOLATION_MODULES:
        yield ("EXE014", line, f"sandbox.py imports {top}, a module for files, network, processes or threads; keep everything in the state")
    elif top in NONDETERMINISM_MODULES:
        yield ("EXE016", line, f"sandbox.py imports {top}; use self.now() for time and self.new_id() for ids, never randomness")


def _is_clock(value: ast.expr, classes: set[str], modules: set[str]) -> bool:
    if isinstance(value, ast.Name):
        return value.id in classes
    return isinstance(value, ast.Attribute) and value.attr in ("datetime", "date") and isinstance(value.value, ast.Name) and value.value.id in modules


# ----------------------------------------------------------------------------- parity


def check_parity(repo: Repo, runtime: Runtime, report: Report) -> None:
    """EXE001–EXE003: every spec of a sandbox implemented, every method specified, same signature."""
    spec_documents = repo.spec_documents
    for name, cls in sorted(runtime.classes.items()):
        path = _relative(repo.root, runtime.files[name])
        methods = runtime.methods[name]
        own = {
            api: spec
            for api, spec in repo.specs.items()
            if isinstance(spec, dict) and spec.get("sandbox") == name and not spec.get("spec_only")
        }
        for api in sorted(own):
            if api not in methods:
                report.at_document(
                    "EXE001",
                    spec_documents[api].path,
                    "/sandbox",
                    f"{api} names sandbox {name!r}, but {cls.__name__} has no method {api}; implement it, or make the spec spec_only",
                )
        for api, function in methods.items():
            line = _own_line(function, runtime.files[name])
            if api not in own:
                report.at_file("EXE002", path, line, _unspecified(api, name, repo.specs.get(api)))
                continue
            for problem in signature_problems(function, own[api]):
                report.at_file("EXE003", path, line, f"{api}: {problem}")


def _own_line(function: Any, filename: str) -> int | None:
    code = getattr(inspect.unwrap(function), "__code__", None)
    return function_line(function) if code is not None and code.co_filename == filename else None


def _unspecified(api: str, sandbox: str, spec: Any) -> str:
    if isinstance(spec, dict) and spec.get("spec_only"):
        return f"public method {api} implements a spec marked spec_only; drop spec_only and set sandbox: {sandbox}, or make the method private (_{api})"
    if isinstance(spec, dict):
        return f"public method {api} implements a spec that names sandbox {spec.get('sandbox')!r}, not {sandbox!r}; fix the spec's sandbox or move the method"
    return f"public method {api} has no spec; add a spec with sandbox: {sandbox}, or make it private (_{api})"


def signature_problems(function: Any, spec: Mapping[str, Any]) -> list[str]:
    """How a method's parameters differ from its spec's (names, required, defaults)."""
    parameters = spec.get("parameters") if isinstance(spec.get("parameters"), dict) else {}
    properties = parameters.get("properties") if isinstance(parameters.get("properties"), dict) else {}
    required = set(parameters.get("required") or []) if isinstance(parameters.get("required"), list) else set()
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return ["its signature cannot be read"]
    params = list(signature.parameters.values())[1:]  # skip self
    problems: list[str] = []
    seen: set[str] = set()
    for param in params:
        if param.kind is param.VAR_POSITIONAL or param.kind is param.VAR_KEYWORD:
            problems.append(f"takes {'*' if param.kind is param.VAR_POSITIONAL else '**'}{param.name}; declare the spec's parameters by name")
            continue
        if param.kind is param.POSITIONAL_ONLY:
            problems.append(f"parameter {param.name!r} is positional-only; arguments are passed by name")
        seen.add(param.name)
        if param.name not in properties:
            problems.append(f"parameter {param.name!r} is not in the spec's parameters")
            continue
        has_default = param.default is not param.empty
        if param.name in required and has_default:
            problems.append(f"{param.name!r} is required by the spec but has a default; remove the default")
        elif param.name not in required and not has_default:
            problems.append(f"{param.name!r} is optional in the spec but has no default; give it one (the spec's default, or None)")
        schema = properties[param.name]
        spec_default = schema.get("default", param.empty) if isinstance(schema, dict) else param.empty
        if has_default and param.name not in required and spec_default is not param.empty and not matchers.literal_equal(spec_default, param.default):
            problems.append(f"the default of {param.name!r} is {param.default!r}, but the spec's default is {spec_default!r}")
    for name in properties:
        if name not in seen:
            problems.append(f"has no parameter {name!r}, which the spec defines")
    return problems


# ----------------------------------------------------------------------------- cases


class StaleResult(NamedTuple):
    """A recorded tool result that differs from what its call really returns (EXE017), as data:
    what ``validator.regenerate`` hands a fixer to write back."""

    path: str
    pointer: str  # JSON pointer of the recorded result, e.g. /en/turns/2/tool/0/result
    lang: str
    api: str | None
    recorded: Any
    actual: Any


def execute_case(
    document: Document, runtime: Runtime, report: Report, time_limit: float | None, on_stale: Callable[[StaleResult], None] | None = None
) -> None:
    """EXE005: run every checkpoint of a case whose called APIs are all runnable (and EXE017:
    compare the tool turns that record their results; ``on_stale`` also receives each mismatch)."""
    data = document.data
    if not isinstance(data, dict):
        return
    apis = {call.get("api") for _, call, _ in iter_calls(data)}
    if not apis or not all(isinstance(api, str) and runtime.runnable(api) for api in apis):
        return
    names = sorted({runtime.sandbox_of(api) for api in apis})  # type: ignore[arg-type]
    patch = data.get("state") if isinstance(data.get("state"), dict) else None
    clock = data.get("time") if isinstance(data.get("time"), str) else None
    for lang, turns in sides(data):
        session = runtime.session(names, patch, clock, time_limit)  # type: ignore[arg-type]
        for index, answer in checkpoints(turns):
            options = alternatives(answer, join_pointer(lang, "turns", index, "expect"))
            # other alternatives are tried on copies first; the first one carries the dialogue on
            for calls, pointer in options[1:]:
                _run_calls(session.fork(), calls, pointer, lang, document, runtime, report)
            observed: list[Any] = []
            if options and not _run_calls(session, options[0][0], options[0][1], lang, document, runtime, report, observed):
                break  # later checkpoints build on this one
            _compare_tool_turn(turns, index + 1, observed, lang, document, report, on_stale)


def _compare_tool_turn(
    turns: list[Any], index: int, observed: list[Any], lang: str, document: Document, report: Report, on_stale: Callable[[StaleResult], None] | None
) -> None:
    """EXE017: the results a dialogue shows are the results its calls really return."""
    turn = turns[index] if index < len(turns) else None
    if not isinstance(turn, dict) or not isinstance(turn.get("tool"), list):
        return
    for k, (recorded, actual) in enumerate(zip(turn["tool"], observed)):
        result = recorded.get("result") if isinstance(recorded, dict) else None
        if not matchers.literal_equal(result, actual):
            pointer = join_pointer(lang, "turns", index, "tool", k, "result")
            api = recorded.get("api") if isinstance(recorded, dict) else None
            if on_stale is not None:
                on_stale(StaleResult(document.path, pointer, lang, api, result, actual))
            shown = json.dumps(actual, ensure_ascii=False, sort_keys=True)
            shown = shown if len(shown) <= 300 else shown[:299] + "…"
            report.at_document(
                "EXE017",
                document.path,
                pointer,
                f"this recorded result differs from what {api} really returns here; replace it with: {shown}",
            )


def _run_calls(
    session: Session, calls: list[Any], pointer: str, lang: str, document: Document, runtime: Runtime, report: Report, observed: list[Any] | None = None
) -> bool:
    for j, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("api"), str):
            return False
        outcome = session.run(call["api"], matchers.render(call.get("args") or {}, lang), lang)
        if observed is not None:
            observed.append(outcome.observation)
        if outcome.ok:
            continue
        where = f"{document.path} {pointer}/{j}"
        if outcome.is_fault:
            report.fault(outcome, runtime, f"running {where}")
        else:
            report.at_document("EXE005", document.path, pointer + join_pointer(j), _error_text(outcome))
        return False
    return True


def _error_text(outcome: Outcome) -> str:
    observation = outcome.observation if isinstance(outcome.observation, dict) else {}
    if outcome.status in AGENT_ERRORS and outcome.status != "error":
        return f"{outcome.api} fails with {outcome.status}: {outcome.detail}"
    shown = {k: v for k, v in observation.items() if k not in ("error", "message")}
    extra = f" {shown}" if shown else ""
    return f"{outcome.api} returns the error {observation.get('error')!r} ({observation.get('message')}){extra}"


# ----------------------------------------------------------------------------- scenarios


def execute_scenario(document: Document, runtime: Runtime, report: Report, time_limit: float | None) -> None:
    data = document.data
    if not isinstance(data, dict):
        return
    names = data.get("sandboxes")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n in runtime.classes for n in names):
        return  # REF004 / EXE004 report sandboxes that do not exist or do not load
    calls = data.get("reference_calls") if isinstance(data.get("reference_calls"), list) else []  # indexes = pointers
    milestones = [m for m in data.get("milestones") or [] if isinstance(m, dict)] if isinstance(data.get("milestones"), list) else []
    minefields = [m for m in data.get("minefields") or [] if isinstance(m, dict)] if isinstance(data.get("minefields"), list) else []
    blocked = check_scenario_apis(document, runtime, report)
    if any(p.startswith("/reference_calls/") for p in blocked):
        return
    compare = data.get("compare") if isinstance(data.get("compare"), dict) else {}
    nothing: Any = None  # the do-nothing agent's end state: the initial state, in any language
    for lang in LANGS:
        first = replay(runtime, data, calls, lang, time_limit=time_limit)
        if first.errors:
            for error in first.errors:
                if error.index < 0:
                    report.at_document("EXE013", document.path, "/reference_calls", error.message, lang)
                    continue
                outcome = first.outcomes[error.index]
                if outcome.is_fault:
                    report.fault(outcome, runtime, f"replaying {document.path} reference call {error.index} ({lang})")
                else:
                    report.at_document("EXE006", document.path, join_pointer("reference_calls", error.index), _error_text(outcome), lang)
            continue
        second = replay(runtime, data, calls, lang, time_limit=time_limit)
        drift = _drift(first.observations, second.observations, first.end_state, second.end_state)
        if drift:
            report.at_document("EXE007", document.path, "/reference_calls", f"replaying the reference calls twice gives different results: {drift}", lang)
            return  # nothing else about this scenario can be trusted
        if nothing is None:
            nothing = replay(runtime, data, [], lang, time_limit=time_limit).end_state
        changes = compare_states(nothing, first.end_state, compare, limit=1, lang=lang)  # initial state vs after the reference calls
        outputs = data.get("outputs")
        if data.get("no_change") is True:
            if changes:
                report.at_document(
                    "EXE009", document.path, "/no_change", f"no_change is true, but the reference calls change the state (initial state vs after them): {changes[0]}", lang
                )
            elif not isinstance(outputs, list) or not outputs:
                report.at_document(
                    "EXE008",
                    document.path,
                    "/no_change",
                    "a do-nothing agent passes: nothing is to change and there are no outputs to tell the user; add outputs",
                    lang,
                )
        elif not changes:
            report.at_document(
                "EXE008",
                document.path,
                "/reference_calls",
                "a do-nothing agent passes: the reference calls change nothing that compare sees; "
                "make the goal change the state, or mark a refusal no_change with outputs",
                lang,
            )
        rendered = [{"api": c.get("api"), "args": matchers.render(c.get("args") or {}, lang)} if isinstance(c, dict) else {} for c in calls]
        for index, message in ignored_user_content(compare, nothing, first.end_state, rendered, runtime):
            report.at_document("EXE020", document.path, join_pointer("compare", "ignore", index), message, lang)
        reached = matched_milestones(milestones, rendered, lang)
        for i, milestone in enumerate(milestones):
            pointer = join_pointer("milestones", i)
            if milestone.get("id") not in reached and pointer not in blocked:
                report.at_document("EXE010", document.path, pointer, _unreached(milestone, milestones, rendered, lang), lang)
        for m, index in minefield_hits(minefields, rendered, lang):
            report.at_document(
                "EXE011", document.path, join_pointer("minefields", m), f"reference call {index} ({rendered[index]['api']}) hits this minefield", lang
            )


def _drift(obs_a: list[Any], obs_b: list[Any], end_a: Any, end_b: Any) -> str:
    for index, (a, b) in enumerate(zip(obs_a, obs_b)):
        if not matchers.literal_equal(a, b):
            return f"call {index} returned {a!r:.120} then {b!r:.120}"
    if end_a == end_b:  # C-speed; exact replays never trade true for 1
        return ""
    differences = compare_states(end_a, end_b, None)
    return f"end states differ at {differences[0]}" if differences else ""


def _unreached(milestone: Mapping[str, Any], milestones: list[dict[str, Any]], calls: list[dict[str, Any]], lang: str) -> str:
    api = milestone.get("api")
    if "one_of" in milestone:
        return "the reference calls complete none of this milestone's one_of alternatives in order (after its after milestones); fix the alternatives or the calls"
    if not any(call_matches(milestone, call, lang) for call in calls):
        args = milestone.get("args") or {}
        return f"no reference call matches {api} with {args}; fix the milestone or the calls"
    after = ", ".join(str(a) for a in milestone.get("after") or [])
    return f"reference calls match {api} only before they reach {after}; reorder the calls or relax after"


def check_scenario_apis(document: Document, runtime: Runtime, report: Report) -> set[str]:
    """EXE012; returns the pointers of entries that cannot run (they are skipped afterwards)."""
    data = document.data
    names = set(data.get("sandboxes") or [])
    blocked: set[str] = set()
    apis = data.get("apis")
    entries = [(key, entry, pointer) for key, entry, pointer in scenario_calls(data)]
    entries += [("apis", api, join_pointer("apis", i)) for i, api in enumerate(apis if isinstance(apis, list) else [])]
    for key, entry, pointer in entries:
        api = entry if key == "apis" else entry.get("api") if isinstance(entry, dict) else None
        if not isinstance(api, str) or api not in runtime.specs:
            continue  # REF001 reports unknown APIs
        spec = runtime.specs[api]
        sandbox = runtime.sandbox_of(api)
        spec_only = isinstance(spec, dict) and spec.get("spec_only") is True
        if sandbox is None and not spec_only and isinstance(spec, dict) and spec.get("sandbox") in names:
            blocked.update((pointer, "/".join(pointer.split("/")[:3])))  # EXE001 / EXE004 report the missing implementation
            continue
        if sandbox not in names and not (spec_only and key in ("minefields", "apis")):
            blocked.update((pointer, "/".join(pointer.split("/")[:3])))
            report.at_document("EXE012", document.path, pointer + ("" if key == "apis" else "/api"), _not_runnable(api, spec, sandbox, names))
            continue
        if key in ("milestones", "minefields"):
            for problem, arg_pointer in _pattern_problems(api, entry, runtime):
                blocked.update((pointer, "/".join(pointer.split("/")[:3])))
                report.at_document("EXE012", document.path, pointer + arg_pointer, problem)
    return blocked


def _not_runnable(api: str, spec: Any, sandbox: str | None, names: set[str]) -> str:
    listed = ", ".join(sorted(names))
    if isinstance(spec, dict) and spec.get("spec_only"):
        return f"{api} is a spec-only distractor; no call can run it"
    if sandbox is None:
        return f"{api} runs in sandbox {spec.get('sandbox')!r}, which this scenario does not use (sandboxes: {listed}); add it to sandboxes"
    return f"{api} runs in sandbox {sandbox!r}, which this scenario does not use (sandboxes: {listed}); add it to sandboxes"


def _pattern_problems(api: str, entry: Mapping[str, Any], runtime: Runtime) -> Iterator[tuple[str, str]]:
    args = entry.get("args") or {}
    if not isinstance(args, dict):
        return
    properties = ((runtime.specs.get(api) or {}).get("parameters") or {}).get("properties") or {}
    for name, value in args.items():
        pointer = join_pointer("args", name)
        if name not in properties:
            yield f"{api} has no parameter {name!r}", pointer
            continue
        if list(matchers.problems(value, allow_lang=True)):
            continue  # DLG013 reports malformed matchers
        for concrete in matchers.concrete_values(value):
            errors = runtime.parameter_errors(api, name, concrete)
            if errors:
                yield f"{name}={concrete!r} is not valid for {api}: {errors[0]}", pointer
                break


# ----------------------------------------------------------------------------- compare.ignore


def ignored_user_content(
    compare: Mapping[str, Any], start: Any, end: Any, calls: list[dict[str, Any]], runtime: Runtime
) -> Iterator[tuple[int, str]]:
    """(index in compare.ignore, message) for each ignored path that drops content the user
    supplied: a value the reference calls changed and that one of them passed as a free-text
    or numeric argument (a title, a label, an amount). Timestamps and generated ids come from no
    argument, so ignoring them is fine; a sandbox's ``session`` (who is logged in) is
    bookkeeping too, though the login call names the user."""
    supplied: dict[tuple[str, Any], str] = {}
    for i, call in enumerate(calls):
        spec = runtime.specs.get(call.get("api")) if isinstance(call.get("api"), str) else None
        schema = (spec or {}).get("parameters") if isinstance(spec, dict) else None
        for where, value, leaf_schema in _argument_leaves(call.get("args") or {}, schema, ""):
            if _is_content(value, leaf_schema):
                supplied.setdefault(_leaf_key(value), f"reference call {i} ({call.get('api')}) passes as {where}")
    paths = compare.get("ignore") if isinstance(compare.get("ignore"), list) else []
    for index, path in enumerate(paths):
        if not isinstance(path, str) or path.split(".")[1:2] == ["session"]:
            continue  # who is logged in is bookkeeping: an agent may log out when it is done
        for place, value in _reached_leaves(end, [p for p in path.split(".") if p], []):
            if not isinstance(value, (str, int, float)) or isinstance(value, bool) or _leaf_at(start, place) == (True, value):
                continue
            source = supplied.get(_leaf_key(value))
            if source is not None:
                yield index, (
                    f"compare.ignore drops {'.'.join(place)} = {value!r}, which {source}: content the user supplied must be compared "
                    "(list free text under compare.text to compare it as text); ignore only bookkeeping"
                )
                break


def _leaf_key(value: Any) -> tuple[str, Any]:
    return ("n", float(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) else ("s", value)


def _is_content(value: Any, schema: Any) -> bool:
    """A value the user may dictate: free text (a string without enum, format, pattern or
    const) of two characters or more, or a number without enum."""
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, bool) or any(key in schema for key in ("enum", "const")):
        return False
    if isinstance(value, str):
        return len(value.strip()) >= 2 and not any(key in schema for key in ("format", "pattern"))
    return isinstance(value, (int, float))


def _argument_leaves(value: Any, schema: Any, where: str) -> Iterator[tuple[str, Any, Any]]:
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, dict):
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        for key, item in value.items():
            yield from _argument_leaves(item, properties.get(key), f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _argument_leaves(item, schema.get("items"), f"{where}[{i}]")
    else:
        yield where, value, schema


def _reached_leaves(value: Any, parts: list[str], place: list[str]) -> Iterator[tuple[list[str], Any]]:
    """(concrete path, scalar) of every leaf at or below what a dotted path (``*`` = any) reaches."""
    if not parts:
        if isinstance(value, dict):
            for key, item in value.items():
                yield from _reached_leaves(item, [], [*place, str(key)])
        elif isinstance(value, list):
            for i, item in enumerate(value):
                yield from _reached_leaves(item, [], [*place, str(i)])
        else:
            yield place, value
        return
    head, rest = parts[0], parts[1:]
    if isinstance(value, dict):
        keys = list(value) if head == "*" else [head] if head in value else []
        for key in keys:
            yield from _reached_leaves(value[key], rest, [*place, str(key)])
    elif isinstance(value, list):
        indexes = range(len(value)) if head == "*" else [int(head)] if head.isdigit() and int(head) < len(value) else []
        for i in indexes:
            yield from _reached_leaves(value[i], rest, [*place, str(i)])


def _leaf_at(value: Any, place: list[str]) -> tuple[bool, Any]:
    for part in place:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return False, None
    return True, value
