"""Isolation: files, sockets, processes, sleeping and late imports are stopped and reported."""

from __future__ import annotations

import gc
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.sandbox.toy import toy_runtime
from validator.sandbox.runtime import OK, TIMEOUT, VIOLATION, Runtime


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    return toy_runtime(tmp_path)


def _line_of(runtime: Runtime, line: int | None) -> str:
    assert line is not None
    return Path(runtime.files["toy"]).read_text().splitlines()[line - 1]


@pytest.mark.parametrize(
    ("api", "detail", "code"),
    [
        ("read_file", "opened a file", "open("),
        ("connect", "socket.", "socket.socket("),
        ("spawn", "subprocess.Popen", "subprocess.run("),
        ("shell", "os.system", "os.system("),
        ("list_dir", "os.listdir", "os.listdir("),
        pytest.param("nap", "time.sleep", "time.sleep(", marks=pytest.mark.skipif(sys.version_info < (3, 12), reason="time.sleep is audited from 3.12")),
    ],
)
def test_escaping_the_sandbox_is_stopped_and_reported(runtime: Runtime, api: str, detail: str, code: str) -> None:
    outcome = runtime.session(["toy"]).run(api, {}, "en")
    assert outcome.status == VIOLATION
    assert detail in outcome.detail
    assert outcome.observation == {"error": "internal_error", "message": "The tool failed internally; the request was not completed."}
    assert code in _line_of(runtime, outcome.line)


def test_importing_a_module_during_a_call_is_a_violation(runtime: Runtime) -> None:
    sys.modules.pop("wave", None)
    outcome = runtime.session(["toy"]).run("late_import", {}, "en")
    assert outcome.status == VIOLATION
    assert "imported module 'wave'" in outcome.detail
    assert "wave" not in sys.modules  # the import was stopped before it ran


def test_a_swallowed_violation_is_still_reported(runtime: Runtime) -> None:
    outcome = runtime.session(["toy"]).run("swallow", {}, "en")
    assert outcome.status == VIOLATION
    assert "open(" in _line_of(runtime, outcome.line)


def test_nothing_is_blocked_outside_calls(runtime: Runtime, tmp_path: Path) -> None:
    runtime.session(["toy"]).run("read_file", {}, "en")
    (tmp_path / "after.txt").write_text("fine")  # the guard is off again
    assert (tmp_path / "after.txt").read_text() == "fine"


def test_other_threads_are_not_blocked_while_a_call_runs(runtime: Runtime, tmp_path: Path) -> None:
    # The guard is per thread: a call in the main thread does not stop I/O elsewhere.
    started, results = threading.Event(), []

    def reader() -> None:
        started.wait()
        results.append((tmp_path / "other.txt").write_text("ok"))

    thread = threading.Thread(target=reader)
    thread.start()
    session = runtime.session(["toy"], time_limit=0.3)
    started.set()
    outcome = session.run("spin", {}, "en")
    thread.join()
    assert outcome.status == TIMEOUT and results == [2]


def test_a_call_that_never_returns_is_stopped(runtime: Runtime) -> None:
    session = runtime.session(["toy"], time_limit=0.05)
    began = time.perf_counter()
    outcome = session.run("spin", {}, "en")
    assert time.perf_counter() - began < 2
    assert outcome.status == TIMEOUT
    assert "while True" in _line_of(runtime, outcome.line) or "pass" in _line_of(runtime, outcome.line)
    assert session.run("add", {"a": 1}, "en").status == OK  # the session still works


def test_a_call_that_swallows_the_timeout_is_stopped_too(runtime: Runtime) -> None:
    outcome = runtime.session(["toy"], time_limit=0.05).run("spin_swallow", {}, "en")
    assert outcome.status == TIMEOUT


def test_the_previous_alarm_handler_is_restored(runtime: Runtime) -> None:
    import signal

    def mine(signum: int, frame: object) -> None: ...

    previous = signal.signal(signal.SIGALRM, mine)
    try:
        runtime.session(["toy"], time_limit=0.05).run("add", {"a": 1}, "en")
        assert signal.getsignal(signal.SIGALRM) is mine
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_calls_in_another_thread_run_without_a_time_limit_but_guarded(runtime: Runtime) -> None:
    outcomes = []
    thread = threading.Thread(target=lambda: outcomes.append(runtime.session(["toy"]).run("read_file", {}, "en")))
    thread.start()
    thread.join()
    assert outcomes[0].status == VIOLATION


def test_concurrent_sessions_in_two_threads_guard_their_own_calls(runtime: Runtime) -> None:
    outcomes: dict[str, str] = {}
    thread = threading.Thread(target=lambda: outcomes.setdefault("thread", runtime.session(["toy"]).run("read_file", {}, "en").status))
    session = runtime.session(["toy"], time_limit=0.2)
    thread.start()
    outcomes["main"] = session.run("spin", {}, "en").status
    thread.join()
    assert outcomes == {"thread": VIOLATION, "main": TIMEOUT}
    assert runtime.session(["toy"]).run("add", {"a": 1}, "en").status == OK


def test_a_traceback_formatted_in_a_call_may_read_its_source(runtime: Runtime) -> None:
    # linecache reads source files to show the lines of a traceback; that is not a sandbox's data
    outcome = runtime.session(["toy"]).run("explain", {}, "en")
    assert outcome.status == OK, outcome.detail
    assert outcome.observation["sum"] >= 4  # header, the frame, its source line, the exception


def test_no_garbage_collection_starts_inside_a_call(runtime: Runtime) -> None:
    # A collection starting inside a call runs other code's finalizers there: their file reads
    # would be blamed on the sandbox and their time counted against the call's limit.
    sandbox_file = runtime.files["toy"]
    starts: list[bool] = []

    def on_collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            frame = sys._getframe(1)
            while frame is not None and frame.f_code.co_filename != sandbox_file:
                frame = frame.f_back
            starts.append(frame is not None)

    session = runtime.session(["toy"])
    threshold = gc.get_threshold()
    gc.callbacks.append(on_collection)
    try:
        gc.set_threshold(1)  # every allocation may start a collection
        outcome = session.run("allocate", {}, "en")
        [[i] for i in range(50)]  # the same allocations outside a call do collect
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(on_collection)
    assert outcome.status == OK, outcome.detail
    assert gc.isenabled()
    assert starts and not any(starts)


def test_the_time_limit_counts_the_calls_cpu_time_not_time_spent_descheduled(runtime: Runtime) -> None:
    # On a loaded machine a call can wait for a core longer than its limit without running long.
    session = runtime.session(["toy"], time_limit=0.05)
    assert session.run("wait", {"seconds": 0.2}, "en").status == OK


def test_a_call_that_waits_without_using_cpu_is_still_stopped(runtime: Runtime) -> None:
    outcome = runtime.session(["toy"], time_limit=0.05).run("wait", {"seconds": 3}, "en")
    assert outcome.status == TIMEOUT
