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
