"""Running sandbox methods: loading, fresh state per run, argument and result checks, isolation.

One :class:`Runtime` per repository holds the API specs, each sandbox's class (imported from
``sandboxes/<name>/sandbox.py`` by file path) and initial state. A :class:`Session` is one run:
fresh deep copies of the states of one or more sandboxes, patched, and ``call(api, args, lang)``
returning the observation an agent sees.

What a call guarantees:

- arguments are validated against the spec's ``parameters`` before the method runs; a bad
  argument is an ``invalid_arguments`` error observation, not a crash;
- ``ApiError(kind, **details)`` becomes ``{"error": kind, "message": <the spec's message in the
  run's language>, **details}``; a kind the spec does not declare is a sandbox bug;
- the result must be JSON data valid against the spec's ``returns``, else it is a sandbox bug
  (the agent sees ``internal_error``; :class:`Outcome` says what went wrong and where);
- isolation: an audit hook (installed once per process, :func:`sys.addaudithook` hooks cannot be
  removed) turns file, network, subprocess, ``time.sleep`` (audited from Python 3.12) and
  fresh-import events raised in the thread running a sandbox method into
  :class:`SandboxViolation`, recorded even if the method swallows it;
- a per-call time limit through ``signal.setitimer`` (:class:`CallTimeout`), counted in the
  calling thread's CPU time (a call descheduled on a loaded machine is not stopped; one that
  waits without using CPU is stopped after ten limits of wall time). Both exceptions
  derive from BaseException, so ``except Exception`` in a sandbox cannot swallow them;
- garbage collection is paused during a call, so other code's finalizers never run inside it
  (their time would count against the limit, their file reads would be blamed on the sandbox);
  reading source lines to format a traceback (``linecache``) is not a violation.

Limits, by design of what CPython can observe:

- Randomness and the wall clock raise no audit event (``random.random``, ``time.time``,
  ``datetime.now``, ``os.urandom`` in 3.11). They are caught by the static scan of
  ``sandbox.py`` (rule EXE016) and by replaying every scenario twice (EXE007), not here.
- A method that catches BaseException inside an endless loop cannot be stopped: Python offers
  no way to kill a running frame. The time limit stops everything else.
- The time limit needs SIGALRM, so it applies only in the main thread of a POSIX process; in
  other threads calls run without one. A method stuck inside one long C call (a huge regex)
  is interrupted only when that call returns to Python.
- A sandbox module runs its top-level code unguarded when it is imported; everything it
  imports there is available to its methods. Importing a module for the first time *during* a
  call is a violation (import at the top of sandbox.py instead); ``_strptime``, which
  ``datetime.strptime`` imports lazily, is imported here in advance.
"""

from __future__ import annotations

import _strptime  # noqa: F401  (datetime.strptime imports it lazily: never inside a guarded call)
import gc
import hashlib
import importlib.util
import inspect
import json
import linecache
import marshal
import math
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any, NamedTuple

from validator.corpus.index import Corpus
from validator.corpus.params import Compiled, CompileError, Validators
from validator.corpus.records import Spec
from validator.sandbox.base import ApiError, Sandbox
from validator.sandbox.names import declaration_problems

DEFAULT_TIME_LIMIT = 0.5  # seconds per call; every real sandbox method takes microseconds
_PRISTINE_CACHE = 256  # patched initial states kept per runtime

# Outcome statuses. The first three are ordinary observations for an agent; the last three are
# bugs in the sandbox, reported by `callbank exec`.
OK = "ok"
ERROR = "error"  # a business error declared in the spec (ApiError)
INVALID_ARGUMENTS = "invalid_arguments"
UNKNOWN_API = "unknown_api"
SANDBOX_BUG = "sandbox_bug"
VIOLATION = "violation"
TIMEOUT = "timeout"
AGENT_ERRORS = frozenset({ERROR, INVALID_ARGUMENTS, UNKNOWN_API})
SANDBOX_FAULTS = frozenset({SANDBOX_BUG, VIOLATION, TIMEOUT})

_MESSAGES = {
    INVALID_ARGUMENTS: {
        "en": "The arguments do not fit the API's parameters: {detail}",
        "zh": "参数不符合该接口的定义：{detail}",
    },
    UNKNOWN_API: {
        "en": "No API named {api} is available here.",
        "zh": "这里没有名为 {api} 的接口。",
    },
    "internal_error": {
        "en": "The tool failed internally; the request was not completed.",
        "zh": "工具内部出错，请求未能完成。",
    },
}


class SandboxLoadError(Exception):
    """sandbox.py cannot be imported, defines no usable class, or the state is unusable."""

    def __init__(self, message: str, path: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line


class SandboxViolation(BaseException):
    """A sandbox method touched files, the network, processes, or imported a module.

    A BaseException, like KeyboardInterrupt, so a method's ``except Exception`` cannot swallow it
    (and it is recorded when raised, so even ``except BaseException`` does not hide it).
    """


class CallTimeout(BaseException):
    """A sandbox method ran longer than the per-call time limit (a BaseException, see above)."""


class NotJson(TypeError):
    """A value that is not JSON data (a tuple, a datetime, NaN, a non-string key…)."""


class Outcome(NamedTuple):
    """What one call did: the agent's observation and, for faults, what and where."""

    api: str
    args: Any
    status: str  # OK, ERROR, INVALID_ARGUMENTS, UNKNOWN_API, SANDBOX_BUG, VIOLATION, TIMEOUT
    observation: Any
    detail: str = ""  # for developers: why the call failed
    sandbox: str | None = None
    line: int | None = None  # line in the sandbox's sandbox.py where a fault arose

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def is_fault(self) -> bool:
        return self.status in SANDBOX_FAULTS


# ----------------------------------------------------------------------------- plain data


def json_copy(value: Any) -> Any:
    """A deep copy of JSON data; raises NotJson for anything else (faster than copy.deepcopy)."""
    kind = type(value)
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise NotJson(f"mapping key {key!r} is not a string")
            out[key] = json_copy(item)
        return out
    if kind is list:
        return [json_copy(item) for item in value]
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise NotJson(f"{value!r} is not a JSON number")
        return value
    raise NotJson(f"a {kind.__name__} ({value!r:.60}) is not JSON data")


def deep_merge(base: Any, patch: Any) -> Any:
    """A new value: mappings merge key by key, anything else in the patch replaces the base.

    ``null`` in a patch sets the value to null (it does not delete the key); lists are replaced
    whole, never merged item by item.
    """
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = dict(base)
        for key, value in patch.items():
            merged[key] = deep_merge(base[key], value) if key in base else json_copy(value)
        return merged
    return json_copy(patch)


# ----------------------------------------------------------------------------- loading


def public_methods(cls: type[Sandbox]) -> dict[str, Any]:
    """Name → function of every public method, inherited ones included (up to Sandbox)."""
    methods: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if klass in Sandbox.__mro__:
            continue
        for name, value in vars(klass).items():
            if name.startswith("_"):
                methods.pop(name, None)
            elif inspect.isfunction(value):
                methods[name] = value
            else:
                methods.pop(name, None)  # a property or attribute hides an inherited method
    return dict(sorted(methods.items()))


def load_sandbox_class(path: Path, name: str) -> type[Sandbox]:
    """Import ``sandboxes/<name>/sandbox.py`` by file path and return its Sandbox class.

    The module gets a name unique to the file's path and modification time, so two fixture
    repositories with a sandbox of the same name never collide, and an edited file is reloaded.
    """
    path = Path(path).resolve()
    try:
        stat = path.stat()
    except OSError as error:
        raise SandboxLoadError(f"cannot read sandbox.py: {error.strerror}", str(path)) from None
    digest = hashlib.sha1(f"{path}:{stat.st_mtime_ns}:{stat.st_size}".encode()).hexdigest()[:12]
    module_name = f"_callbank_sandbox_{name}_{digest}"
    module = sys.modules.get(module_name)
    if module is None:
        module = _import_file(module_name, path)
    return _sandbox_class(module, name, path)


def _import_file(module_name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise SandboxLoadError("cannot import sandbox.py", str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        del sys.modules[module_name]
        raise SandboxLoadError(f"sandbox.py does not compile: {error.msg}", str(path), error.lineno) from None
    except Exception as error:
        del sys.modules[module_name]
        line = _line_in(error.__traceback__, str(path))
        raise SandboxLoadError(f"importing sandbox.py raised {type(error).__name__}: {error}", str(path), line) from None
    return module


def _sandbox_class(module: ModuleType, name: str, path: Path) -> type[Sandbox]:
    found = [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Sandbox) and value is not Sandbox and value.__module__ == module.__name__
    ]
    if not found:
        raise SandboxLoadError("sandbox.py defines no class deriving validator.sandbox.base.Sandbox", str(path))
    named = [cls for cls in found if cls.name == name]
    if len(named) == 1:
        return named[0]
    if len(found) == 1:
        cls = found[0]
        raise SandboxLoadError(
            f"class {cls.__name__} has name = {cls.name!r}; set name = {name!r}, the sandbox's folder name",
            str(path),
            _class_line(cls),
        )
    raise SandboxLoadError(f"sandbox.py defines {len(found)} Sandbox classes; keep exactly one with name = {name!r}", str(path))


def _class_line(cls: type) -> int | None:
    try:
        return inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        return None


def _line_in(tb: Any, filename: str) -> int | None:
    """The line of the innermost traceback frame in filename."""
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == filename:
            line = frame.lineno
    return line


def function_line(function: Any) -> int | None:
    code = getattr(inspect.unwrap(function), "__code__", None)
    return code.co_firstlineno if code is not None else None


# ----------------------------------------------------------------------------- isolation


class _Guard(threading.local):
    """Per thread: is a sandbox call running here, and what did it do that it must not.

    Thread-local, so sessions in several threads (a scorer running agents concurrently) each
    guard their own calls, and I/O in other threads is never blocked.
    """

    def __init__(self) -> None:
        self.active = False
        self.files: frozenset[str] = frozenset()
        self.incidents: list[tuple[str, str, int | None]] = []  # (status, message, line)
        self.limit = 0.0  # seconds of this thread's CPU time a call may use
        self.cpu_start = 0.0
        self.wall_start = 0.0


_GUARD = _Guard()
_HOOK: list[bool] = []  # non-empty once the audit hook is installed

# Audit events (https://docs.python.org/3/library/audit_events.html) a sandbox call must not raise.
_BLOCKED_EVENTS = frozenset({"open", "import", "time.sleep", "builtins.input", "builtins.breakpoint", "sys.addaudithook", "cpython.run_command"})
_BLOCKED_PREFIXES = (
    "os.", "socket.", "subprocess.", "shutil.", "ctypes.", "fcntl.", "sqlite3.", "urllib.", "http.",
    "ftplib.", "smtplib.", "poplib.", "imaplib.", "nntplib.", "telnetlib.", "webbrowser.", "syslog.",
    "tempfile.", "glob.", "pty.", "mmap.", "resource.", "signal.", "msvcrt.", "winreg.", "_winapi.",
)


def _describe(event: str, args: tuple[Any, ...]) -> str:
    if event == "import":
        return f"imported module {args[0]!r} during a call (import it at the top of sandbox.py)"
    if event == "open":
        return f"opened a file ({args[0]!r}); sandboxes keep all data in their state"
    shown = ", ".join(repr(a)[:60] for a in args[:2])
    return f"raised the audit event {event}({shown}): no files, network, processes or sleeping in a sandbox"


def _sandbox_line(frame: FrameType | None) -> int | None:
    files = _GUARD.files
    while frame is not None:
        if frame.f_code.co_filename in files:
            return frame.f_lineno
        frame = frame.f_back
    return None


def _formatting_a_traceback(frame: FrameType | None) -> bool:
    """True when ``linecache`` reads a source file to show a traceback, never a sandbox's data."""
    while frame is not None:
        if frame.f_code.co_filename == linecache.__file__:
            return True
        frame = frame.f_back
    return False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    guard = _GUARD
    if not guard.active:
        return
    if event in _BLOCKED_EVENTS or event.startswith(_BLOCKED_PREFIXES):
        if event == "open" and _formatting_a_traceback(sys._getframe(1)):
            return
        message = _describe(event, args)
        guard.incidents.append((VIOLATION, message, _sandbox_line(sys._getframe(1))))
        raise SandboxViolation(message)


def install_guard() -> None:
    """Install the audit hook (once per process; it does nothing outside sandbox calls)."""
    if not _HOOK:
        sys.addaudithook(_audit)
        _HOOK.append(True)


# A call that uses no CPU (blocked, waiting) is stopped once this many limits of wall time pass.
_WALL_FACTOR = 10


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    # The limit is the thread's CPU time: a call descheduled on a loaded machine has not run
    # long, and stopping it would make the same call pass on one machine and fail on another.
    guard = _GUARD
    if not guard.active:
        return
    if time.thread_time() - guard.cpu_start >= guard.limit or time.monotonic() - guard.wall_start >= _WALL_FACTOR * guard.limit:
        message = "ran past the per-call time limit"
        _GUARD.incidents.append((TIMEOUT, message, _sandbox_line(frame)))
        raise CallTimeout(message)


class _CollectorPause:
    """Garbage collection off while any thread is inside a guarded call.

    A collection that starts inside a call runs other code's finalizers there: their time counts
    against the sandbox's limit (a full collection late in a long process takes longer than a
    call is allowed) and their file reads trip the guard. Sandbox calls take microseconds and
    the collector runs again as soon as the last one ends.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.was_enabled = False

    def __enter__(self) -> None:
        with self.lock:
            if self.depth == 0:
                self.was_enabled = gc.isenabled()
                gc.disable()
            self.depth += 1

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0 and self.was_enabled:
                gc.enable()


_COLLECTOR = _CollectorPause()


class _Limited:
    """Guarded region for one call: collector paused, audit guard on, SIGALRM armed (main thread only)."""

    def __init__(self, files: frozenset[str], seconds: float | None) -> None:
        self.files = files
        self.seconds = seconds if seconds and threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer") else None
        self.previous: Any = None

    def __enter__(self) -> list[tuple[str, str, int | None]]:
        _COLLECTOR.__enter__()
        if self.seconds:
            self.previous = signal.signal(signal.SIGALRM, _on_alarm)
            # keeps firing until cancelled: a method that swallowed one CallTimeout gets another
            signal.setitimer(signal.ITIMER_REAL, self.seconds, self.seconds / 4)
        _GUARD.incidents = []
        _GUARD.files = self.files
        _GUARD.limit = self.seconds or 0.0
        _GUARD.cpu_start = time.thread_time()
        _GUARD.wall_start = time.monotonic()
        _GUARD.active = True
        return _GUARD.incidents

    def __exit__(self, *exc: object) -> None:
        _GUARD.active = False
        if self.seconds:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous if self.previous is not None else signal.SIG_DFL)
        _COLLECTOR.__exit__()


# ----------------------------------------------------------------------------- runtime


class Runtime:
    """The runnable side of a repository: specs, sandbox classes, initial states, validators."""

    def __init__(
        self,
        specs: Mapping[str, Spec],
        classes: Mapping[str, type[Sandbox]],
        states: Mapping[str, Mapping[str, Any]],
        files: Mapping[str, str] | None = None,
        load_errors: Mapping[str, SandboxLoadError] | None = None,
    ) -> None:
        self.specs = dict(specs)
        self.classes = dict(classes)
        self.states = {name: json_copy(dict(state)) for name, state in states.items()}
        self.files = dict(files or {})  # sandbox name -> absolute path of its sandbox.py
        self.load_errors = dict(load_errors or {})
        self.methods = {name: public_methods(cls) for name, cls in self.classes.items()}
        self.validators = Validators(self.specs)
        self._pristine: dict[tuple[str, str], bytes] = {}  # (sandbox, patch) -> marshalled state
        install_guard()

    @classmethod
    def from_corpus(cls, corpus: Corpus) -> Runtime:
        """Load every sandbox of a corpus (load failures are kept, not raised)."""
        classes: dict[str, type[Sandbox]] = {}
        files: dict[str, str] = {}
        errors: dict[str, SandboxLoadError] = {}
        usable: dict[str, dict[str, Any]] = {}
        for name, sandbox in corpus.sandboxes.items():
            path = corpus.root / sandbox.code_path
            if not sandbox.has_code:
                continue
            state = dict(sandbox.state.document.data) if sandbox.state is not None else None
            problem = _state_problem(state)
            if problem:
                errors[name] = SandboxLoadError(problem, str(corpus.root / sandbox.folder / "state.yaml"))
                continue
            try:
                classes[name] = load_sandbox_class(path, name)
            except SandboxLoadError as error:
                errors[name] = error
                continue
            files[name] = str(path.resolve())
            usable[name] = state  # type: ignore[assignment]
        return cls(corpus.specs, classes, usable, files, errors)

    # -- what is runnable

    def sandbox_of(self, api: str) -> str | None:
        """The loaded sandbox implementing an API, or None (spec-only, unknown, unimplemented)."""
        spec = self.specs.get(api)
        if spec is None or spec.spec_only or spec.sandbox is None:
            return None
        return spec.sandbox if api in self.methods.get(spec.sandbox, {}) else None

    def runnable(self, api: str) -> bool:
        return self.sandbox_of(api) is not None

    # -- validators (validator.corpus.params: the ones `callbank check` uses)

    def argument_errors(self, api: str, args: Any) -> list[str]:
        """Why args do not fit the API's parameters (empty when they do)."""
        if not isinstance(args, dict):
            return [f"arguments must be an object, not {type(args).__name__}"]
        return _schema_errors(self.validators.arguments(api), args)

    def parameter_errors(self, api: str, name: str, value: Any) -> list[str]:
        """Why one value does not fit one parameter (empty when it does)."""
        return _schema_errors(self.validators.parameter(api, name), value)

    def result_errors(self, api: str, result: Any) -> list[str]:
        return _schema_errors(self.validators.returns(api), result)

    def error_message(self, api: str, kind: str, lang: str) -> str | None:
        spec = self.specs.get(api)
        return spec.error_message(kind, lang) if spec is not None else None

    # -- sessions

    def initial_state(self, name: str, patch: Any = None, clock: str | None = None) -> dict[str, Any]:
        """A fresh copy of a sandbox's state, its data deep-merged with a patch.

        The merged state is kept marshalled: unmarshalling is C code, about twice as fast as
        any Python deep copy, and every run needs a fresh copy (it is exec's main cost).
        """
        key = (name, json.dumps(patch, sort_keys=True) if patch is not None else "")
        blob = self._pristine.get(key)
        if blob is None:
            merged = json_copy(self.states[name])
            if patch is not None:
                merged["data"] = deep_merge(merged["data"], patch)
            blob = marshal.dumps(merged)
            if len(self._pristine) >= _PRISTINE_CACHE:
                self._pristine.clear()
            self._pristine[key] = blob
        state: dict[str, Any] = marshal.loads(blob)
        if clock is not None:
            state["clock"] = clock
        return state

    def session(
        self,
        names: Iterable[str],
        patch: Mapping[str, Any] | None = None,
        clock: str | None = None,
        time_limit: float | None = DEFAULT_TIME_LIMIT,
    ) -> Session:
        """A run over fresh copies of the named sandboxes (patch: sandbox name → data patch)."""
        patch = patch or {}
        instances: dict[str, Sandbox] = {}
        for name in names:
            if name not in self.classes:
                raise KeyError(f"sandbox {name!r} is not loaded")
            cls = self.classes[name]
            state = self.initial_state(name, patch.get(name), clock)
            instances[name] = cls(state, self.catalog) if cls.needs_catalog else cls(state)
        return Session(self, instances, time_limit)

    @property
    def catalog(self) -> list[dict[str, Any]]:
        """Every spec as plain data, for sandboxes that search the API catalog (`needs_catalog`)."""
        if not hasattr(self, "_catalog"):
            self._catalog = [json_copy(self.specs[name].document.data) for name in sorted(self.specs)]
        return self._catalog


def _state_problem(state: Any) -> str | None:
    if not isinstance(state, dict):
        return "the sandbox has no readable state.yaml"
    if not isinstance(state.get("data"), dict) or not isinstance(state.get("counters"), dict) or not isinstance(state.get("clock"), str):
        return "state.yaml needs clock (a string), counters (a mapping) and data (a mapping)"
    try:
        json_copy(state)
    except NotJson as error:
        return f"state.yaml holds a value that is not JSON data: {error}"
    for problem in declaration_problems(state):
        return f"state.yaml {problem}"
    return None


def _schema_errors(validator: Compiled | CompileError | None, value: Any) -> list[str]:
    if validator is None:
        return []
    if isinstance(validator, CompileError):  # never a silent pass: the spec is broken (SPC008)
        return [f"the spec's schema cannot be compiled, so nothing can be checked against it ({validator.message})"]
    return [str(problem) for problem in validator.problems(value)]


class Session:
    """One run: live sandbox instances; every call validated, guarded and time-limited."""

    def __init__(self, runtime: Runtime, instances: Mapping[str, Sandbox], time_limit: float | None = DEFAULT_TIME_LIMIT) -> None:
        self.runtime = runtime
        self.instances = dict(instances)
        self.time_limit = time_limit
        self._files = frozenset(runtime.files[name] for name in self.instances if name in runtime.files)

    def apis(self) -> list[str]:
        """Every API this session can run."""
        return sorted(api for api in self.runtime.specs if self.runtime.sandbox_of(api) in self.instances)

    def call(self, api: str, args: Any, lang: str = "en") -> Any:
        """The observation an agent sees: the result, or {"error": kind, "message": …, …}."""
        return self.run(api, args, lang).observation

    def run(self, api: str, args: Any, lang: str = "en") -> Outcome:
        """Run one call and say what happened (see :class:`Outcome`)."""
        runtime = self.runtime
        name = runtime.sandbox_of(api)
        if name is None or name not in self.instances:
            message = _MESSAGES[UNKNOWN_API][lang].format(api=api)
            return Outcome(api, args, UNKNOWN_API, {"error": UNKNOWN_API, "message": message}, f"no sandbox of this session implements {api}")
        problems = runtime.argument_errors(api, args)
        if problems:
            detail = "; ".join(problems[:3])
            message = _MESSAGES[INVALID_ARGUMENTS][lang].format(detail=detail)
            return Outcome(api, args, INVALID_ARGUMENTS, {"error": INVALID_ARGUMENTS, "message": message}, detail, name)
        instance = self.instances[name]
        function = runtime.methods[name][api]
        try:
            arguments = json_copy(args)  # the method never aliases the caller's data
        except NotJson as error:
            message = _MESSAGES[INVALID_ARGUMENTS][lang].format(detail=str(error))
            return Outcome(api, args, INVALID_ARGUMENTS, {"error": INVALID_ARGUMENTS, "message": message}, str(error), name)
        filename = runtime.files.get(name, "")
        raised: BaseException | None = None
        result: Any = None
        try:
            with _Limited(self._files, self.time_limit) as incidents:
                try:
                    result = function(instance, **arguments)
                except (Exception, SystemExit) as error:
                    raised = error
        except (SandboxViolation, CallTimeout) as error:  # BaseExceptions: they pass the inner except
            raised = error
        if incidents:  # even when the method swallowed the exception
            status, message, line = incidents[0]
            return self._fault(api, args, status, f"{api} {message}", name, line, lang)
        if isinstance(raised, ApiError):
            return self._business_error(api, args, raised, name, lang, _line_in(raised.__traceback__, filename))
        if raised is not None:
            line = _line_in(raised.__traceback__, filename) or function_line(function)
            return self._fault(api, args, SANDBOX_BUG, f"{api} raised {type(raised).__name__}: {raised}", name, line, lang)
        try:
            result = json_copy(result)
        except NotJson as error:
            return self._fault(api, args, SANDBOX_BUG, f"{api} returned something that is not JSON data: {error}", name, function_line(function), lang)
        problems = runtime.result_errors(api, result)
        if problems:
            return self._fault(api, args, SANDBOX_BUG, f"{api} returned a result its spec's returns rejects: {problems[0]}", name, function_line(function), lang)
        return Outcome(api, args, OK, result, "", name)

    def _business_error(self, api: str, args: Any, error: ApiError, name: str, lang: str, line: int | None) -> Outcome:
        message = self.runtime.error_message(api, error.kind, lang)
        if message is None:
            return self._fault(
                api, args, SANDBOX_BUG, f"{api} raised ApiError({error.kind!r}), which its spec's errors do not declare", name, line, lang
            )
        try:
            details = json_copy(error.details)
        except NotJson as problem:
            return self._fault(api, args, SANDBOX_BUG, f"{api} raised ApiError({error.kind!r}) with details that are not JSON data: {problem}", name, line, lang)
        observation = {"error": error.kind, "message": message}
        for key, value in details.items():
            observation.setdefault(key, value)
        return Outcome(api, args, ERROR, observation, f"{api} returned the business error {error.kind!r}", name, line)

    def _fault(self, api: str, args: Any, status: str, detail: str, name: str, line: int | None, lang: str) -> Outcome:
        observation = {"error": "internal_error", "message": _MESSAGES["internal_error"][lang]}
        return Outcome(api, args, status, observation, detail, name, line)

    def state(self) -> dict[str, Any]:
        """The end state: sandbox name → a copy of its data (raises NotJson if it is not JSON)."""
        return {name: json_copy(instance.state["data"]) for name, instance in self.instances.items()}

    def fork(self) -> Session:
        """An independent copy of this session as it is now (to try an alternative)."""
        instances = {
            name: type(instance)(json_copy(instance.state), instance.catalog) if instance.needs_catalog else type(instance)(json_copy(instance.state))
            for name, instance in self.instances.items()
        }
        return Session(self.runtime, instances, self.time_limit)
