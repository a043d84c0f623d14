"""Schema-valid documents into records.

Each builder relies on what the document's JSON Schema guarantees (``schemas/*.schema.json``)
and on nothing more; ``validator.corpus.index`` calls it only for documents with no schema
finding.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from validator.corpus.langs import LANGS
from validator.corpus.records import (
    AssistantTurn,
    Call,
    CalledTurn,
    Calls,
    Case,
    Checkpoint,
    Dialogue,
    Record,
    ReviewRecord,
    SandboxState,
    Scenario,
    Spec,
    Special,
    ToolResult,
    ToolTurn,
    Turn,
    UserSide,
    UserTurn,
)
from validator.diagnostics import join_pointer
from validator.loading import Document


def build_spec(document: Document, langs: Sequence[str] = LANGS) -> Spec:
    data = document.data
    parameters = data["parameters"]
    properties = parameters["properties"]
    return Spec(
        document=document,
        name=data["name"],
        domain=data["domain"],
        sandbox=data.get("sandbox"),
        spec_only=data.get("spec_only") is True,
        description=data["description"],
        parameters=parameters,
        properties=properties,
        required=tuple(name for name in parameters.get("required", ()) if name in properties),
        returns=data["returns"],
        errors=data.get("errors") or {},
    )


def _call(data: Mapping[str, Any], pointer: str) -> Call:
    return Call(data["api"], data.get("args") or {}, pointer)


def _calls(items: list[Any], pointer: str) -> Calls:
    return Calls(tuple(_call(call, pointer + join_pointer(j)) for j, call in enumerate(items)), pointer)


def build_checkpoint(answer: Mapping[str, Any], index: int = 0, pointer: str = "", step: int = 0) -> Checkpoint:
    """The checkpoint of one schema-valid ``expect`` answer (at turn index, pointer and step)."""
    here = pointer + "/expect"
    if "calls" in answer:
        return Checkpoint(index, pointer, step, answer, (_calls(answer["calls"], here + "/calls"),), None)
    if "one_of" in answer:
        options = tuple(_calls(option["calls"], here + join_pointer("one_of", i, "calls")) for i, option in enumerate(answer["one_of"]))
        return Checkpoint(index, pointer, step, answer, options, None)
    special = Special(answer["special"], answer.get("api"), tuple(answer.get("missing", ())), answer.get("params") or {})
    return Checkpoint(index, pointer, step, answer, (), special)


def _dialogue(lang: str, side: Mapping[str, Any]) -> Dialogue:
    base = join_pointer(lang, "turns")
    turns: list[Turn] = []
    checkpoints: list[Checkpoint] = []
    for index, turn in enumerate(side["turns"]):
        ((kind, value),) = turn.items()
        pointer = base + join_pointer(index)
        if kind == "user":
            turns.append(UserTurn(index, pointer, value))
        elif kind == "assistant":
            turns.append(AssistantTurn(index, pointer, value))
        elif kind == "called":
            turns.append(CalledTurn(index, pointer, tuple(_call(call, pointer + join_pointer("called", j)) for j, call in enumerate(value))))
        elif kind == "tool":
            results = tuple(ToolResult(r["api"], r["result"], pointer + join_pointer("tool", k)) for k, r in enumerate(value))
            turns.append(ToolTurn(index, pointer, results))
        else:
            checkpoint = build_checkpoint(value, index, pointer, len(checkpoints))
            checkpoints.append(checkpoint)
            turns.append(checkpoint)
    return Dialogue(lang, tuple(turns), tuple(checkpoints), base)


def build_case(document: Document, langs: Sequence[str] = LANGS) -> Case:
    data = document.data
    return Case(
        document=document,
        id=data["id"],
        category=data["category"],
        apis=tuple(data["apis"]),
        time=data.get("time"),
        features=tuple(data.get("features", ())),
        profile=data.get("profile"),
        state=data.get("state"),
        dialogues={lang: _dialogue(lang, data[lang]) for lang in langs},
    )


def _user_side(side: Mapping[str, Any]) -> UserSide:
    return UserSide(side["goal"], tuple(side.get("known", ())), tuple(side.get("unknown", ())), tuple(side["script"]), side)


def build_scenario(document: Document, langs: Sequence[str] = LANGS) -> Scenario:
    data = document.data
    return Scenario(
        document=document,
        id=data["id"],
        mode=data["mode"],
        sandboxes=tuple(data["sandboxes"]),
        apis=tuple(data["apis"]) if "apis" in data else None,
        initial_state=data.get("initial_state"),
        user={lang: _user_side(data["user"][lang]) for lang in langs},
        reference_calls=tuple(_call(call, join_pointer("reference_calls", i)) for i, call in enumerate(data["reference_calls"])),
        milestones=tuple(data["milestones"]),
        minefields=tuple(data["minefields"]),
        compare=data.get("compare") or {},
        outputs=data.get("outputs"),
        no_change=data.get("no_change") is True,
        max_turns=data.get("max_turns"),
        time=data.get("time"),
    )


def build_state(document: Document, langs: Sequence[str] = LANGS) -> SandboxState:
    data = document.data
    return SandboxState(document, data["sandbox"], data["clock"], data["counters"], data["data"])


def build_review_record(document: Document, langs: Sequence[str] = LANGS) -> ReviewRecord:
    data = document.data
    return ReviewRecord(
        document=document,
        id=data["id"],
        item_path=data.get("path"),
        status=data["status"],
        content_hash=data.get("content_hash"),
        accepted_hash=data.get("accepted_hash"),
        decided_by=data.get("decided_by"),
    )


# every builder takes the repository's languages (only cases and scenarios hold per-language parts)
BUILDERS: dict[str, Callable[[Document, Sequence[str]], Record]] = {
    "api": build_spec,
    "case": build_case,
    "scenario": build_scenario,
    "state": build_state,
    "review-record": build_review_record,
}


def build(document: Document, langs: Sequence[str] = LANGS) -> Record | None:
    """The record of a schema-valid document of a repository with langs; None for kinds without
    records (judges, unknown)."""
    builder = BUILDERS.get(document.kind)
    return builder(document, langs) if builder is not None else None

