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


def test_an_unordered_mapping_compares_its_values_whatever_ids_they_were_filed_under() -> None:
    # two bookings made in the other order get each other's generated ids
    expected = {"travel": {"bookings": {"TB-9": {"id": "TB-9", "flight": "CA1501"}, "TB-10": {"id": "TB-10", "flight": "CA1502"}}}}
    swapped = {"travel": {"bookings": {"TB-9": {"id": "TB-9", "flight": "CA1502"}, "TB-10": {"id": "TB-10", "flight": "CA1501"}}}}
    compare = {"ignore": ["travel.bookings.*.id"], "unordered": ["travel.bookings"]}
    assert compare_states(expected, swapped) != []
    assert compare_states(expected, swapped, compare) == []
    other = {"travel": {"bookings": {"TB-9": {"id": "TB-9", "flight": "CA1502"}, "TB-10": {"id": "TB-10", "flight": "MU5101"}}}}
    assert compare_states(expected, other, compare) == [
        'travel.bookings: expected item {"flight": "CA1501"}, missing',
        'travel.bookings: unexpected item {"flight": "MU5101"}',
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


def test_a_scenarios_time_is_the_clock_of_its_sandboxes(toy: Runtime) -> None:
    from validator.sandbox.replay import scenario_session

    session = scenario_session(toy, {"sandboxes": ["toy"], "time": "2025-05-06T18:30:00+01:00"})
    assert session.instances["toy"].now().isoformat() == "2025-05-06T18:30:00+01:00"
    assert scenario_session(toy, {"sandboxes": ["toy"]}).instances["toy"].now().isoformat() == "2024-05-06T09:00:00+08:00"


# ----------------------------------------------------------------------------- compare: text and match


def test_text_paths_compare_free_text_and_nothing_else() -> None:
    shouted = _with(messages__0__text="HI!")
    assert compare_states(STATE, shouted) == ['phone.messages.0.text: expected "hi", got "HI!"']
    assert compare_states(STATE, shouted, {"text": ["phone.messages.*.text"]}) == []
    assert compare_states(STATE, _with(messages__0__text="hello"), {"text": ["phone.messages.*.text"]}) != []
    assert compare_states(STATE, _with(device__volume=4), {"text": ["phone.messages.*.text"]}) != []


def test_match_paths_take_a_matcher_instead_of_the_reference_value() -> None:
    compare = {"match": {"phone.messages.1.text": {"$any": [{"$text": "yo"}, {"$lang": {"en": "hey", "zh": "喂"}}]}}}
    assert compare_states(STATE, _with(messages__1__text="Yo!"), compare, lang="en") == []
    assert compare_states(STATE, _with(messages__1__text="hey"), compare, lang="en") == []
    assert compare_states(STATE, _with(messages__1__text="喂"), compare, lang="zh") == []
    wrong = compare_states(STATE, _with(messages__1__text="hello"), compare, lang="en")
    assert wrong == ['phone.messages.1.text: expected a value matching {"$any": [{"$text": "yo"}, {"$lang": {"en": "hey", "zh": "喂"}}]}, got "hello"']
    # the path must exist on both sides, and everything else is still compared exactly
    import copy

    missing = copy.deepcopy(STATE)
    del missing["phone"]["messages"][1]["text"]
    assert "missing" in compare_states(STATE, missing, compare, lang="en")[0]
    assert compare_states(STATE, _with(device__wifi=False), compare, lang="en") == ["phone.device.wifi: expected true, got false"]


# ----------------------------------------------------------------------------- one_of and confirmations


def test_a_one_of_milestone_is_reached_by_any_of_its_lists_in_order() -> None:
    from validator.sandbox.replay import milestone_alternatives

    milestone = {"id": "m", "one_of": [[{"api": "add_reminder"}], [{"api": "turn_on_wifi"}, {"api": "send_message"}]]}
    assert milestone_alternatives(milestone) == [[{"api": "add_reminder"}], [{"api": "turn_on_wifi"}, {"api": "send_message"}]]
    assert milestone_alternatives({"id": "p", "api": "x"}) == [[{"id": "p", "api": "x"}]]
    assert matched_milestones([milestone], [CALLS[2]], "en") == {"m"}
    assert matched_milestones([milestone], [CALLS[0], CALLS[1]], "en") == {"m"}
    assert matched_milestones([milestone], [CALLS[1], CALLS[0]], "en") == set()  # a list is matched in order
    # the earliest completion is taken, so a successor can follow the shorter list
    follow = {"id": "f", "api": "send_message", "after": ["m"]}
    assert matched_milestones([milestone, follow], [CALLS[2], CALLS[1]], "en") == {"m", "f"}


def test_confirmed_milestones_count_only_confirmed_calls() -> None:
    from validator.sandbox.replay import unconfirmed_calls

    milestones = [{"id": "sent", "api": "send_message", "confirmed": True}, {"id": "wifi", "api": "turn_on_wifi"}]
    calls = [CALLS[0], CALLS[1], CALLS[1]]
    only_the_second = lambda milestone, index: index == 2  # noqa: E731
    assert matched_milestones(milestones, calls, "en", only_the_second) == {"sent", "wifi"}
    assert matched_milestones(milestones, calls[:2], "en", only_the_second) == {"wifi"}
    assert matched_milestones(milestones, calls[:2], "en") == {"sent", "wifi"}  # without a judge (exec), assumed
    assert unconfirmed_calls(milestones, calls, "en", only_the_second) == [("sent", 1)]
    assert unconfirmed_calls(milestones, [CALLS[0], CALLS[1]], "en", lambda m, i: True) == []
