"""Stage 3, *execute*: the reference calls run in the real sandbox under the case's clock.

Per language, one session over the sandboxes the answer's APIs belong to (their initial states,
the recipe's time as the clock); each checkpoint's calls run in order and their observations
become the ``tool`` turn right after it (the last checkpoint's calls run too, but the case ends
there). A business error (the API refused: unknown city, no
such booking), arguments the API's schema rejects, or a sandbox fault rejects the candidate —
a reference answer must be a call that works. The result is the case document, which must then
pass the case schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from validator.corpus.langs import LANGS
from validator.corpus.records import Case
from validator.rules.aliases import rejected_names
from validator.rules.execution_context import Execution
from validator.sandbox.runtime import Runtime
from validator.schemas import SchemaSet
from validator.synth.outcome import Rejected
from validator.synth.plan import Recipe

STAGE = "execute"


def _reason(status: str) -> str:
    return {"ERROR": "api_error", "INVALID_ARGUMENTS": "invalid_arguments", "UNKNOWN_API": "not_runnable"}.get(status.upper(), "sandbox_fault")


def run_turns(runtime: Runtime, recipe: Recipe, lang: str, turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The turns with a tool turn after every checkpoint of calls (Rejected when a call fails)."""
    apis = {call["api"] for turn in turns if "expect" in turn for call in turn["expect"].get("calls", ())}
    missing = sorted(api for api in apis if not runtime.runnable(api))
    if missing:
        raise Rejected(STAGE, "not_runnable", f"{', '.join(missing)} cannot run in any loaded sandbox")
    names = sorted({runtime.sandbox_of(api) or "" for api in apis})
    session = runtime.session(names, None, recipe.time) if names else None
    out: list[dict[str, Any]] = []
    step = 0
    for turn in turns:
        out.append(turn)
        if "expect" not in turn:
            continue
        step += 1
        calls = turn["expect"].get("calls")
        if not calls or session is None:
            continue
        results = []
        for number, call in enumerate(calls, 1):
            outcome = session.run(call["api"], call["args"], lang)
            if not outcome.ok:
                observation = outcome.observation if isinstance(outcome.observation, dict) else {}
                what = outcome.detail or f"{observation.get('error')}: {observation.get('message')}"
                raise Rejected(STAGE, _reason(outcome.status), f"{lang} step {step}, call {number} {call['api']}: {what}")
            results.append({"api": call["api"], "result": outcome.observation})
        out.append({"tool": results})
    last = max((i for i, turn in enumerate(out) if "expect" in turn), default=len(out) - 1)
    # the last checkpoint's calls ran (they must work) but a case ends at its last checkpoint
    return out[: last + 1] if all("user" not in turn for turn in out[last + 1 :]) else out


def case_document(recipe: Recipe, draft: Mapping[str, Any], case_id: str, runtime: Runtime, schemas: SchemaSet) -> dict[str, Any]:
    """The case's data, results included; Rejected when a call fails or the case breaks its schema."""
    data: dict[str, Any] = {"id": case_id, "category": recipe.category, "apis": list(recipe.apis), "time": recipe.time}
    if "profile" in draft:
        data["profile"] = dict(draft["profile"])
    for lang in LANGS:
        data[lang] = {"turns": run_turns(runtime, recipe, lang, [dict(turn) for turn in draft[lang]])}
    problems = schemas.errors("case", data)
    if problems:
        message, pointer = problems[0]
        raise Rejected(STAGE, "case_schema", f"the case breaks schemas/case.schema.json at {pointer or '/'}: {message}")
    return data


def accept_aliases(data: dict[str, Any], case: Case, execution: Execution) -> int:
    """Widen every answer value the sandbox resolves under other names too (EXE021's finding, as
    data): ``city: 杭州`` becomes ``city: {$any: [杭州, Hangzhou]}`` when both names reach the same
    record and the calls do exactly the same. Returns how many values were widened (data is
    changed in place); a value inside a matcher already is left to EXE021."""
    widened = 0
    for call, rejected in rejected_names(case, execution):
        pointer = call.arg_pointer(rejected.param) + "".join(f"/{part}" for part in rejected.path)
        parent, key = _locate(data, pointer)
        if parent is None or not isinstance(parent[key], str):
            continue
        parent[key] = {"$any": [parent[key], *[name for name in rejected.names if name != parent[key]]]}
        widened += 1
    return widened


def _locate(data: Any, pointer: str) -> tuple[Any, Any]:
    """The container holding the value at a JSON pointer, and its key (None when absent)."""
    parts = [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]
    node = data
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node.get(part) if isinstance(node, dict) else None
        if node is None:
            return None, None
    last: Any = int(parts[-1]) if isinstance(node, list) else parts[-1]
    if (isinstance(node, list) and last < len(node)) or (isinstance(node, dict) and last in node):
        return node, last
    return None, None
