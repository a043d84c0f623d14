"""The sandbox runtime: loading by path, fresh state, argument and result checks, observations."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sandbox.toy import STATE, toy_runtime
from validator.sandbox.base import Sandbox
from validator.sandbox.runtime import (
    ERROR,
    INVALID_ARGUMENTS,
    OK,
    SANDBOX_BUG,
    UNKNOWN_API,
    NotJson,
    Runtime,
    SandboxLoadError,
    deep_merge,
    json_copy,
    load_sandbox_class,
    public_methods,
)


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    return toy_runtime(tmp_path)


# ----------------------------------------------------------------------------- plain data


def test_deep_merge_merges_mappings_and_replaces_everything_else() -> None:
    base = {"a": {"x": 1, "y": [1, 2]}, "b": 2}
    merged = deep_merge(base, {"a": {"y": [3], "z": None}, "c": {"d": 1}})
    assert merged == {"a": {"x": 1, "y": [3], "z": None}, "b": 2, "c": {"d": 1}}
    assert base == {"a": {"x": 1, "y": [1, 2]}, "b": 2}  # never mutated


def test_json_copy_copies_deeply_and_rejects_what_is_not_json() -> None:
    value = {"a": [1, {"b": 2.5}], "c": None, "d": True}
    copied = json_copy(value)
    assert copied == value and copied["a"] is not value["a"]
    for bad in ({"a": (1, 2)}, {1: "x"}, {"a": float("nan")}, [object()]):
        with pytest.raises(NotJson):
            json_copy(bad)


# ----------------------------------------------------------------------------- loading


def test_two_repositories_with_the_same_sandbox_name_do_not_collide(tmp_path: Path) -> None:
    first = tmp_path / "one" / "sandbox.py"
    second = tmp_path / "two" / "sandbox.py"
    for path, value in ((first, 1), (second, 2)):
        path.parent.mkdir()
        path.write_text(
            "from validator.sandbox.base import Sandbox\n\n\nclass S(Sandbox):\n    name = 'same'\n\n"
            f"    def value(self) -> dict:\n        return {{'v': {value}}}\n"
        )
    a, b = load_sandbox_class(first, "same"), load_sandbox_class(second, "same")
    assert a is not b and a.__module__ != b.__module__
    assert a({}).value() == {"v": 1} and b({}).value() == {"v": 2}
    assert load_sandbox_class(first, "same") is a  # cached by path and modification time


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("x = 1\n", "defines no class"),
        ("from validator.sandbox.base import Sandbox\nclass S(Sandbox):\n    name = 'other'\n", "set name = 'toy'"),
        ("raise RuntimeError('boom')\n", "RuntimeError: boom"),
        ("def broken(:\n", "does not compile"),
    ],
)
def test_unloadable_sandbox_is_reported_with_its_line(tmp_path: Path, source: str, message: str) -> None:
    runtime = toy_runtime(tmp_path, source)
    assert "toy" not in runtime.classes
    error = runtime.load_errors["toy"]
    assert message in error.message
    assert error.line is not None or "no class" in message


def test_public_methods_include_inherited_ones_and_skip_private_ones() -> None:
    class Base(Sandbox):
        def shared(self) -> dict:
            return {}

        def _helper(self) -> None: ...

    class Child(Base):
        name = "child"

        def own(self) -> dict:
            return {}

        @property
        def shown(self) -> int:
            return 1

    assert list(public_methods(Child)) == ["own", "shared"]


def test_load_error_for_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SandboxLoadError):
        load_sandbox_class(tmp_path / "nope.py", "toy")


# ----------------------------------------------------------------------------- calls


def test_a_successful_call_returns_the_result_and_changes_the_state(runtime: Runtime) -> None:
    session = runtime.session(["toy"])
    assert session.call("add", {"a": 2, "b": 3}) == {"sum": 5, "id": "E-1"}
    assert session.call("add", {"a": 1}) == {"sum": 1, "id": "E-2"}
    assert session.state() == {"toy": {"log": [5, 1], "settings": {"mode": "a", "level": 1}}}


def test_business_error_is_an_observation_with_the_spec_message_in_the_run_language(runtime: Runtime) -> None:
    session = runtime.session(["toy"])
    outcome = session.run("fail", {"kind": "sold_out"}, "zh")
    assert outcome.status == ERROR
    assert outcome.observation == {"error": "sold_out", "message": "已售罄。", "hint": "try again"}
    assert session.call("fail", {"kind": "closed"}, "en") == {"error": "closed", "message": "The shop is closed.", "hint": "try again"}


@pytest.mark.parametrize(
    "args",
    [{"a": "two"}, {}, {"a": 1, "c": 2}, {"a": -1}, ["a"], {"a": True}],
)
def test_bad_arguments_are_an_observation_and_the_method_never_runs(runtime: Runtime, args: object) -> None:
    session = runtime.session(["toy"])
    outcome = session.run("add", args, "en")
    assert outcome.status == INVALID_ARGUMENTS
    assert outcome.observation["error"] == "invalid_arguments"
    assert outcome.observation["message"].startswith("The arguments do not fit")
    assert session.state()["toy"]["log"] == []


def test_invalid_arguments_message_is_bilingual(runtime: Runtime) -> None:
    observation = runtime.session(["toy"]).call("add", {"a": "x"}, "zh")
    assert observation["message"].startswith("参数不符合")


def test_unknown_api_is_an_observation(runtime: Runtime) -> None:
    outcome = runtime.session(["toy"]).run("launch_rocket", {}, "en")
    assert outcome.status == UNKNOWN_API
    assert outcome.observation == {"error": "unknown_api", "message": "No API named launch_rocket is available here."}


@pytest.mark.parametrize(
    ("api", "detail"),
    [
        ("undeclared", "which its spec's errors do not declare"),
        ("bad_result", "returns rejects"),
        ("not_json", "not JSON data"),
        ("crash", "ZeroDivisionError"),
    ],
)
def test_sandbox_bugs_are_reported_as_bugs_not_as_agent_errors(runtime: Runtime, api: str, detail: str) -> None:
    outcome = runtime.session(["toy"]).run(api, {}, "en")
    assert outcome.status == SANDBOX_BUG
    assert detail in outcome.detail
    assert outcome.observation["error"] == "internal_error"
    assert outcome.sandbox == "toy" and outcome.line is not None


def test_crash_line_points_into_sandbox_py(runtime: Runtime) -> None:
    outcome = runtime.session(["toy"]).run("crash", {}, "en")
    source = Path(runtime.files["toy"]).read_text().splitlines()
    assert "1 // 0" in source[outcome.line - 1]


def test_the_method_cannot_alias_the_callers_arguments(runtime: Runtime) -> None:
    session = runtime.session(["toy"])
    items = [1, 2]
    assert session.run("mutate_args", {"items": items}, "en").status == OK
    assert items == [1, 2]


def test_results_are_copies_not_views_of_the_state(runtime: Runtime) -> None:
    session = runtime.session(["toy"])
    session.call("add", {"a": 1})
    state = session.state()
    state["toy"]["log"].append(123)
    assert session.state()["toy"]["log"] == [1]


def test_patch_and_clock_apply_to_a_fresh_copy(runtime: Runtime) -> None:
    session = runtime.session(["toy"], {"toy": {"settings": {"level": 5}, "log": [7]}}, clock="2025-01-01T00:00:00+00:00")
    assert session.state()["toy"] == {"log": [7], "settings": {"mode": "a", "level": 5}}
    assert session.instances["toy"].now().year == 2025
    assert runtime.states["toy"] == STATE  # the loaded initial state is never touched


def test_fork_is_independent(runtime: Runtime) -> None:
    session = runtime.session(["toy"])
    session.call("add", {"a": 1})
    fork = session.fork()
    fork.call("add", {"a": 2})
    assert session.state()["toy"]["log"] == [1]
    assert fork.state()["toy"]["log"] == [1, 2]
    assert fork.call("add", {"a": 3})["id"] == "E-3" and session.call("add", {"a": 3})["id"] == "E-2"


def test_session_apis_lists_what_it_can_run(runtime: Runtime) -> None:
    assert "add" in runtime.session(["toy"]).apis()
    assert runtime.session([]).apis() == []
