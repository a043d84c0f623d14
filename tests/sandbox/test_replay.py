"""Replay, state comparison under `compare`, and milestone / minefield matching."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sandbox.toy import toy_runtime
from validator.sandbox.replay import (
    compare_states,
    matched_milestones,
    minefield_hits,
    normalise_state,
    replay,
)
from validator.sandbox.runtime import Runtime

# ----------------------------------------------------------------------------- compare_states

STATE = {
    "phone": {
        "messages": [{"id": "M-1", "text": "hi", "sent_at": "09:00"}, {"id": "M-2", "text": "yo", "sent_at": "09:01"}],
        "device": {"wifi": True, "volume": 3},
        "tags": ["a", "b"],
    }
}


def _with(**changes: object) -> dict:
    import copy

    state = copy.deepcopy(STATE)
    for path, value in changes.items():
        node = state["phone"]
        *parents, last = path.split("__")
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return state


def test_equal_states_have_no_differences() -> None:
    assert compare_states(STATE, _with()) == []


def test_a_changed_leaf_is_named_by_its_dotted_path() -> None:
    assert compare_states(STATE, _with(device__wifi=False)) == ["phone.device.wifi: expected true, got false"]


def test_ignore_paths_take_a_star_for_any_key_or_index() -> None:
    other = _with(messages__0__sent_at="10:00", messages__1__sent_at="10:05")
    assert compare_states(STATE, other) != []
    assert compare_states(STATE, other, {"ignore": ["phone.messages.*.sent_at"]}) == []
    assert compare_states(STATE, _with(device__volume=9), {"ignore": ["*.device"]}) == []


def test_unordered_lists_compare_as_multisets() -> None:
    swapped = _with(messages=list(reversed(STATE["phone"]["messages"])))
    assert compare_states(STATE, swapped) != []
    assert compare_states(STATE, swapped, {"unordered": ["phone.messages"]}) == []
    duplicated = _with(tags=["a", "a"])
    assert compare_states(STATE, duplicated, {"unordered": ["phone.tags"]}) == [
        'phone.tags: expected item "b", missing',
        'phone.tags: unexpected item "a"',
    ]


def test_ignore_applies_before_unordered_sorting() -> None:
    other = _with(messages=[{"id": "M-2", "text": "yo", "sent_at": "x"}, {"id": "M-1", "text": "hi", "sent_at": "y"}])
    assert compare_states(STATE, other, {"ignore": ["phone.messages.*.sent_at"], "unordered": ["phone.messages"]}) == []


def test_numbers_compare_as_json_numbers_and_booleans_stay_apart() -> None:
    assert compare_states({"a": {"x": 1}}, {"a": {"x": 1.0}}) == []
    assert compare_states({"a": {"x": 1}}, {"a": {"x": True}}) == ["a.x: expected 1, got true"]
    assert compare_states({"a": [1, 2.0]}, {"a": [2, 1]}, {"unordered": ["a"]}) == []


def test_missing_and_unexpected_keys_and_items() -> None:
    found = compare_states({"a": {"x": 1, "l": [1]}}, {"a": {"y": 2, "l": [1, 2]}})
    assert found == ["a.x: expected 1, missing", "a.l: expected 1 items, got 2 (unexpected [2])", "a.y: unexpected 2"]


def test_normalise_never_mutates_its_input() -> None:
    import copy

    before = copy.deepcopy(STATE)
    normalise_state(STATE, {"ignore": ["phone.messages.*.sent_at", "phone.device"], "unordered": ["phone.tags"]})
    assert before == STATE


def test_limit_caps_the_differences() -> None:
    assert len(compare_states({"a": list(range(50))}, {"a": list(range(1, 51))}, limit=3)) == 3


# ----------------------------------------------------------------------------- milestones and minefields

CALLS = [
    {"api": "turn_on_wifi", "args": {}},
    {"api": "send_message", "args": {"receiver": "Zhang Wei", "content": "See you at ten"}},
    {"api": "add_reminder", "args": {"title": "Meet Zhang Wei", "time": "2024-07-16T10:00"}},
]
MILESTONES = [
    {"id": "wifi", "api": "turn_on_wifi"},
    {"id": "sent", "api": "send_message", "args": {"receiver": "Zhang Wei"}, "after": ["wifi"]},
    {"id": "reminded", "api": "add_reminder", "args": {"time": "2024-07-16T10:00"}},
]


def test_every_milestone_reached_in_order() -> None:
    assert matched_milestones(MILESTONES, CALLS, "en") == {"wifi", "sent", "reminded"}


def test_a_milestone_reached_before_its_predecessor_does_not_count() -> None:
    calls = [CALLS[1], CALLS[0], CALLS[2]]
    assert matched_milestones(MILESTONES, calls, "en") == {"wifi", "reminded"}
    assert matched_milestones(MILESTONES, [*calls, CALLS[1]], "en") == {"wifi", "sent", "reminded"}


def test_one_call_cannot_reach_a_milestone_and_its_successor() -> None:
    milestones = [{"id": "a", "api": "turn_on_wifi"}, {"id": "b", "api": "turn_on_wifi", "after": ["a"]}]
    assert matched_milestones(milestones, [CALLS[0]], "en") == {"a"}
    assert matched_milestones(milestones, [CALLS[0], CALLS[0]], "en") == {"a", "b"}


def test_milestones_in_a_cycle_or_after_unknown_ids_are_never_reached() -> None:
    milestones = [
        {"id": "a", "api": "turn_on_wifi", "after": ["b"]},
        {"id": "b", "api": "turn_on_wifi", "after": ["a"]},
        {"id": "c", "api": "turn_on_wifi", "after": ["ghost"]},
        {"id": "d", "api": "turn_on_wifi", "after": ["c"]},
    ]
    assert matched_milestones(milestones, [CALLS[0]] * 5, "en") == set()


def test_milestone_arguments_use_matchers_and_lang() -> None:
    milestones = [
        {"id": "m", "api": "send_message", "args": {"receiver": {"$lang": {"en": "Zhang Wei", "zh": "张伟"}}, "content": {"$text": "see you at TEN!"}}},
        {"id": "o", "api": "send_message", "args": {"priority": {"$optional": "high"}}},
    ]
    assert matched_milestones(milestones, [CALLS[1]], "en") == {"m", "o"}
    assert matched_milestones(milestones, [CALLS[1]], "zh") == {"o"}


def test_minefield_hits_name_the_first_call_that_hit_each() -> None:
    mines = [{"api": "delete_message"}, {"api": "send_message", "args": {"receiver": "Zhang Wei"}}, {"api": "send_message", "args": {"receiver": "Li Na"}}]
    assert minefield_hits(mines, [*CALLS, CALLS[1]], "en") == [(1, 1)]


# ----------------------------------------------------------------------------- replay


@pytest.fixture
def toy(tmp_path: Path) -> Runtime:
    return toy_runtime(tmp_path)


def test_replay_runs_calls_on_the_patched_initial_state(toy: Runtime) -> None:
    scenario = {"sandboxes": ["toy"], "initial_state": {"toy": {"log": [100]}}}
    calls = [{"api": "add", "args": {"a": {"$lang": {"en": 1, "zh": 2}}}}, {"api": "fail", "args": {"kind": "closed"}}, {"api": "add", "args": {"a": 3}}]
    result = replay(toy, scenario, calls, "zh")
    assert result.end_state == {"toy": {"log": [100, 2, 3], "settings": {"mode": "a", "level": 1}}}
    assert result.observations[1] == {"error": "closed", "message": "店铺已打烊。", "hint": "try again"}
    assert [(e.index, e.status) for e in result.errors] == [(1, "error")]


def test_replay_without_rendering_passes_values_as_given(toy: Runtime) -> None:
    result = replay(toy, {"sandboxes": ["toy"]}, [{"api": "add", "args": {"a": {"$lang": {"en": 1, "zh": 2}}}}], "en", render=False)
    assert result.errors[0].status == "invalid_arguments"


def test_replay_twice_gives_the_same_result(toy: Runtime) -> None:
    scenario = {"sandboxes": ["toy"]}
    calls = [{"api": "add", "args": {"a": 1}}, {"api": "add", "args": {"a": 2, "b": 5}}]
    assert replay(toy, scenario, calls, "en")[:3] == replay(toy, scenario, calls, "en")[:3]


def test_a_leaking_method_shows_up_as_a_different_replay(toy: Runtime) -> None:
    scenario = {"sandboxes": ["toy"]}
    calls = [{"api": "leak", "args": {}}]
    assert replay(toy, scenario, calls, "en").end_state != replay(toy, scenario, calls, "en").end_state
