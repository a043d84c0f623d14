"""What the report's case browser shows, as plain JSON data embedded in the page.

Shared by every run: each case's dialogue in both languages (the expected answers written
readably, ``validator.report.readable``) and each scenario's user goal, milestones and facts to
tell. Per run: one row per unit (id, language, category, verdict, error, detail) and, per unit,
what the model did — the raw output and the parsed calls with the verdict of every checkpoint;
for a scenario the trajectory (messages and calls), the end-state difference and the milestones
reached, recomputed with the scorer's own replay (``validator.scoring.agent``,
``validator.sandbox.replay``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from validator.corpus.index import Corpus
from validator.corpus.records import AssistantTurn, CalledTurn, Case, Checkpoint, Scenario, ToolTurn, UserTurn
from validator.report.readable import call_text, calls_text, value_text
from validator.runs.load import Run
from validator.sandbox.replay import matched_milestones
from validator.scoring.agent import Confirmations, ReferenceCache, Replayer, read_calls, scenario_clock
from validator.scoring.evaluate import Evaluation
from validator.scoring.literals import FormatError
from validator.scoring.match import Verdict
from validator.scoring.parse import Parsed, parse_prediction
from validator.scoring.predictions import Prediction
from validator.scoring.scorer import UnitResult
from validator.scoring.taxonomy import ERROR_TYPES
from validator.scoring.transcript import read_transcript

TEXT_LIMIT = 20_000  # characters of one raw output or message kept in the page
MESSAGE_LIMIT = 200  # messages of one trajectory kept in the page
SETTINGS = ("model", "endpoint", "mode", "syntax", "style", "prompt_version", "corpus_version", "temperature", "max_tokens", "seed", "user", "created", "callbank_version")


def _clip(text: str | None) -> str:
    if text is None:
        return ""
    return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + f"… ({len(text) - TEXT_LIMIT:,} more characters)"


def expected_text(checkpoint: Checkpoint, lang: str) -> str:
    """A checkpoint's answer, readably: its calls (each acceptable alternative) or its special answer."""
    special = checkpoint.special
    if special is not None:
        parts = [f"special answer: {special.kind}"]
        if special.api:
            parts.append(f"API {special.api}")
        if special.missing:
            parts.append("missing " + ", ".join(special.missing))
        if special.params:
            parts.append("invalid " + ", ".join(f"{name}={value_text(value, lang)}" for name, value in special.params.items()))
        return " — ".join(parts)
    alternatives = [calls_text(alternative.calls, lang) for alternative in checkpoint.alternatives]
    if len(alternatives) == 1:
        return alternatives[0]
    return "\n".join(f"or:\n{text}" if index else f"one of:\n{text}" for index, text in enumerate(alternatives))


def dialogue(case: Case, lang: str) -> list[dict[str, str]]:
    """The turns of one language side: who speaks and what, expected answers included."""
    turns: list[dict[str, str]] = []
    for turn in case.dialogues[lang].turns:
        if isinstance(turn, UserTurn):
            turns.append({"role": "user", "text": turn.text})
        elif isinstance(turn, AssistantTurn):
            turns.append({"role": "assistant", "text": turn.text})
        elif isinstance(turn, ToolTurn):
            turns.append({"role": "tool", "text": "\n".join(f"{r.api} → {json.dumps(r.result, ensure_ascii=False)}" for r in turn.results)})
        elif isinstance(turn, CalledTurn):  # calls made earlier in the dialogue: history, not asked for
            turns.append({"role": "assistant", "text": calls_text(turn.calls, lang)})
        else:
            turns.append({"role": "expect", "step": str(turn.step), "text": expected_text(turn, lang)})
    return turns


def case_entry(case: Case) -> dict[str, Any]:
    entry: dict[str, Any] = {"category": case.category, "time": case.time, "apis": list(case.apis)}
    if case.profile:
        entry["profile"] = dict(case.profile)
    entry["dialogue"] = {lang: dialogue(case, lang) for lang in case.dialogues}
    return entry


def scenario_entry(scenario: Scenario) -> dict[str, Any]:
    return {
        "category": scenario.category,
        "time": scenario.time,
        "sandboxes": list(scenario.sandboxes),
        "goal": {lang: side.goal for lang, side in scenario.user.items()},
        "reference": {lang: calls_text(scenario.reference_calls, lang) for lang in scenario.user},
        "milestones": [_milestone_text(m) for m in scenario.milestones],
        "outputs": [json.dumps(fact, ensure_ascii=False) for fact in scenario.outputs] if isinstance(scenario.outputs, list) else [],
    }


def _milestone_text(milestone: Mapping[str, Any]) -> dict[str, str]:
    if isinstance(milestone.get("one_of"), list):
        shown = " or ".join("; ".join(call_text(str(c.get("api")), c.get("args") or {}) for c in option) for option in milestone["one_of"] if isinstance(option, list))
    else:
        shown = call_text(str(milestone.get("api")), milestone.get("args") or {})
    after = milestone.get("after")
    if isinstance(after, list) and after:
        shown += f"  (after {', '.join(map(str, after))})"
    if milestone.get("confirmed"):
        shown += "  (confirmed by the user first)"
    return {"id": str(milestone.get("id")), "text": shown}


def shared(corpus: Corpus, evaluations: Sequence[Evaluation]) -> dict[str, Any]:
    """Dialogues and scenarios of every unit any run scored, once for all runs."""
    case_ids = sorted({r.id for e in evaluations for r in e.scored.results if r.agent is None})
    scenario_ids = sorted({r.id for e in evaluations for r in e.scored.results if r.agent is not None})
    return {
        "cases": {identifier: case_entry(corpus.cases[identifier]) for identifier in case_ids if identifier in corpus.cases},
        "scenarios": {identifier: scenario_entry(corpus.scenarios[identifier]) for identifier in scenario_ids if identifier in corpus.scenarios},
        "errors": {error.code: error.title for error in ERROR_TYPES},
    }


def _parsed(parsed: Parsed) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": parsed.kind}
    if parsed.kind == "calls":
        out["calls"] = calls_text(parsed.calls)
    elif parsed.kind == "special" and parsed.special is not None:
        special = parsed.special
        out["special"] = " — ".join(
            part
            for part in (
                special.kind,
                f"API {special.api}" if special.api else "",
                "missing " + ", ".join(special.missing) if special.missing else "",
                "invalid " + ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in special.params) if special.params else "",
            )
            if part
        )
    else:
        out["error"] = parsed.error
    return out


def _raw(record: Mapping[str, Any]) -> dict[str, Any]:
    raw: dict[str, Any] = {"output": _clip(record.get("output") if isinstance(record.get("output"), str) else None)}
    if record.get("tool_calls"):
        raw["tool_calls"] = _clip(json.dumps(record["tool_calls"], ensure_ascii=False, indent=1))
    if isinstance(record.get("calls"), list):
        raw["calls"] = _clip(calls_text([c for c in record["calls"] if isinstance(c, Mapping) and "api" in c]))
    if record.get("error"):
        raw["error"] = str(record["error"])
    return raw


def _verdict(verdict: Verdict | None) -> dict[str, Any]:
    if verdict is None:
        return {"correct": False, "missing": True, "error": None, "detail": "no prediction"}
    return {"correct": verdict.correct, "error": verdict.error, "detail": verdict.detail}


def case_detail(result: UnitResult, records: Mapping[tuple[str, str, int], Prediction]) -> dict[str, Any]:
    steps = []
    for step, verdict in enumerate(result.checkpoints):
        prediction = records.get((result.id, result.lang, step))
        entry: dict[str, Any] = {"step": step, "verdict": _verdict(verdict)}
        if prediction is not None:
            entry["raw"] = _raw(prediction.record)
            if "calls" not in prediction.record:  # a retrieval episode's calls are its answer, shown raw
                entry["parsed"] = _parsed(parse_prediction(prediction.record))
        steps.append(entry)
    return {"checkpoints": steps}


def _messages(record: Mapping[str, Any]) -> list[dict[str, str]]:
    out = []
    for message in (record.get("messages") or [])[:MESSAGE_LIMIT]:
        if isinstance(message, str):
            out.append({"role": "assistant", "text": _clip(message)})
            continue
        if not isinstance(message, Mapping):
            continue
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False) if content is not None else ""
        if message.get("tool_calls"):
            calls = []
            for entry in message["tool_calls"]:
                function = entry.get("function") or {} if isinstance(entry, Mapping) else {}
                calls.append(f"{function.get('name')}({function.get('arguments')})")
            text = (text + "\n" if text else "") + "\n".join(calls)
        role = str(message.get("role") or "?")
        if role == "tool":
            role = f"tool {message.get('name') or ''}".strip()
        out.append({"role": role, "text": _clip(text)})
    return out


def scenario_detail(result: UnitResult, scenario: Scenario, prediction: Prediction | None, replayer: Replayer | None, cache: ReferenceCache | None) -> dict[str, Any]:
    detail: dict[str, Any] = {"verdict": {"correct": result.correct, "error": result.error, "detail": result.detail}}
    if result.agent is not None:
        detail["process"] = {"matched": result.agent.matched, "total": result.agent.total}
    if prediction is None:
        return detail
    record = prediction.record
    detail["messages"] = _messages(record)
    try:
        calls = [{"api": call.api, "args": call.args} for call in read_calls(record.get("calls"))]
        transcript = read_transcript(record.get("messages"), record.get("calls"))
    except FormatError as error:
        detail["problem"] = str(error)
        return detail
    detail["calls"] = calls_text(calls)
    confirmed = Confirmations(transcript, result.lang, scenario_clock(scenario.data))
    try:
        detail["reached"] = sorted(matched_milestones(scenario.milestones, calls, result.lang, confirmed))
    except Exception:  # a model's calls must never break the report, as they never break the scorer
        detail["reached"] = []
    if replayer is not None and cache is not None:
        expected, problem = cache.get(scenario.data, result.lang)
        if problem:
            detail["differences"] = [problem]
        else:
            try:
                actual = replayer.end_state(scenario.data, calls, result.lang)
                detail["differences"] = replayer.differences(expected, actual, scenario.compare, result.lang)
            except Exception as error:  # a model's calls must never break the report
                detail["differences"] = [f"the agent's calls do not replay ({type(error).__name__}: {error})"]
    return detail


def run_entry(run: Run, evaluation: Evaluation, corpus: Corpus, replayer: Replayer | None, usage: Mapping[str, Any]) -> dict[str, Any]:
    """One run: its settings, score report (without the per-unit list), usage, rows and details."""
    records = run.predictions.records
    cache = ReferenceCache(replayer) if replayer is not None else None
    rows: list[list[Any]] = []
    details: dict[str, Any] = {}
    for result in evaluation.scored.results:
        status = "right" if result.correct else "missing" if result.missing and result.error is None else "wrong"
        rows.append([result.id, result.lang, result.category, status, result.error or "", result.detail])
        key = f"{result.id}|{result.lang}"
        if result.agent is not None and result.id in corpus.scenarios:
            details[key] = scenario_detail(result, corpus.scenarios[result.id], records.get((result.id, result.lang, 0)), replayer, cache)
        else:
            details[key] = case_detail(result, records)
    report = {key: value for key, value in evaluation.report.items() if key != "results"}
    manifest = run.manifest or {}
    settings = {key: manifest.get(key) for key in SETTINGS}
    return {"label": run.label, "files": [str(path) for path in run.paths], "settings": settings, "report": report, "usage": dict(usage), "rows": rows, "details": details}
