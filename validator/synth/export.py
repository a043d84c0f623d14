"""`callbank export`: training data from a synth run or from scored `callbank run` predictions.

Sources:

* a synth folder (``--synth DIR``): every case it wrote. SFT: each agreed case, in each
  language, as the whole conversation (system prompt of the run harness, user turns, the
  reference calls as ``tool_calls``, the real results as ``tool`` messages), the last checkpoint
  the turn to learn. DPO: each step a disputed case's simulator got wrong — prompt up to that
  checkpoint, the reference as chosen, the simulator's answer as rejected, with its error type.
* predictions (``--predictions FILE``, cases from ``--repo``): every case checkpoint, scored by
  `callbank score`'s comparison. SFT: the checkpoints the model got right (conversation up to
  there, the reference answer to learn); DPO: the ones it got wrong (its answer rejected).
  Agent scenarios and retrieval episodes are skipped (counted in the manifest).

Every item passes the contamination guard (``validator.synth.guard``) against the benchmark's
own cases: if any overlaps, nothing is written and each offender is named — unless
``--allow-overlap REASON``, whose reason and offenders go into the manifest. Output: the JSON
Lines file and ``<out>.manifest.json`` (format, sources, counts, guard threshold, overlaps).
Every line is validated against its format before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from validator import __version__
from validator.corpus.index import Corpus
from validator.corpus.records import Case, Checkpoint, Spec
from validator.errors import UserError
from validator.models.render import tool_calls as render_tool_calls
from validator.models.request import case_requests, first_alternative
from validator.scoring.match import score_checkpoint
from validator.scoring.parse import parse_prediction
from validator.scoring.predictions import read_predictions
from validator.scoring.special import render_special
from validator.synth.formats import line_problems
from validator.synth.guard import Guard, Overlap
from validator.synth.write import atomic_write

MANIFEST_VERSION = 1


@dataclass(frozen=True)
class Item:
    """One training example and the case it comes from."""

    case: Case
    lang: str
    line: dict[str, Any]
    origin: str  # "synth:<id>" | "predictions:<id>/<lang>/<step>"


@dataclass
class Export:
    items: list[Item] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


# ----------------------------------------------------------------------------- messages


def reference_message(checkpoint: Checkpoint, lang: str) -> dict[str, Any]:
    """The assistant message a perfect model sends at a checkpoint."""
    if checkpoint.special is not None:
        return {"role": "assistant", "content": render_special(dict(checkpoint.answer), lang)}
    return {"role": "assistant", "content": None, "tool_calls": render_tool_calls(first_alternative(checkpoint, lang), prefix=f"call_{checkpoint.step}")}


def answer_message(content: Any, tool_calls: Any) -> dict[str, Any] | None:
    """A model's answer as an assistant message; None when it said nothing at all."""
    calls = []
    for index, call in enumerate(tool_calls or []):
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str) and function["name"]:
            arguments = function.get("arguments")
            arguments = arguments if isinstance(arguments, str) else json.dumps(arguments or {}, ensure_ascii=False)
            calls.append({"id": str(call.get("id") or f"call_r_{index}"), "type": "function", "function": {"name": function["name"], "arguments": arguments}})
    text = content if isinstance(content, str) and content.strip() else None
    if calls:
        return {"role": "assistant", "content": text, "tool_calls": calls}
    return {"role": "assistant", "content": text} if text else None


def _clean(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Messages as the fine-tuning formats take them (no ``name`` on tool messages)."""
    out = []
    for message in messages:
        kept = {key: value for key, value in message.items() if key in ("role", "content", "tool_calls", "tool_call_id")}
        if kept.get("role") == "tool" and not isinstance(kept.get("content"), str):
            kept["content"] = json.dumps(kept.get("content"), ensure_ascii=False)
        out.append(kept)
    return out


def prompts(case: Case, lang: str, specs: Mapping[str, Spec]) -> list[tuple[Checkpoint, list[dict[str, Any]], list[dict[str, Any]]]]:
    """(checkpoint, messages before it, tools) for every checkpoint of one language side."""
    checkpoints = case.dialogues[lang].checkpoints
    return [(checkpoints[request.step], _clean(request.messages), request.tools) for request in case_requests(case, lang, specs, "tool_calls")]


def sft_line(messages: list[dict[str, Any]], answer: dict[str, Any], tools: list[dict[str, Any]]) -> dict[str, Any]:
    return {"messages": [*messages, answer], "tools": tools}


def dpo_line(messages: list[dict[str, Any]], chosen: dict[str, Any], rejected: dict[str, Any], error: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    return {"prompt": messages, "tools": tools, "chosen": [chosen], "rejected": [rejected], "rejected_error": error}


# ----------------------------------------------------------------------------- sources


def _synth_records(folder: Path) -> dict[str, dict[str, Any]]:
    records: dict[str, dict[str, Any]] = {}
    for path in sorted((folder / "review" / "queue").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            records[data["id"]] = data
    return records


def from_synth(folder: Path, kind: str, specs: Mapping[str, Spec]) -> Export:
    if not (folder / "dialogues").is_dir() and not (folder / "sandboxes").is_dir():
        raise UserError(f"--synth {folder}: no dialogues/ or sandboxes/ folder; give the --out folder of a `callbank synth` run")
    loaded = Corpus.load(folder, kinds=("case",))
    broken = [f.path for f in loaded.loaded(("case",)) if f.broken]
    if broken:
        raise UserError(f"--synth {folder}: {len(broken)} case file(s) cannot be read ({', '.join(broken[:3])}); run `callbank check` on them")
    records = _synth_records(folder)
    export = Export()
    for _, kind_found in loaded.discovered:
        if kind_found == "scenario":
            export.skip("scenario (not exported)")
    for case in loaded.cases_in():
        record = records.get(case.id)
        provenance = (record or {}).get("provenance") or {}
        status = provenance.get("consistency")
        if record is None or status is None:
            export.skip("no synth review record")
            continue
        if kind == "sft":
            if status != "agreed":
                export.skip("disputed (not verified)")
                continue
            for lang in case.dialogues:
                checkpoint, messages, tools = prompts(case, lang, specs)[-1]
                export.items.append(Item(case, lang, sft_line(messages, reference_message(checkpoint, lang), tools), f"synth:{case.id}"))
            continue
        wrong = [answer for answer in provenance.get("simulator_answers") or [] if not answer.get("correct")]
        if status != "disputed" or not wrong:
            export.skip("agreed (no rejected step)")
            continue
        for answer in wrong:
            lang, step = answer["lang"], int(answer["step"])
            checkpoint, messages, tools = prompts(case, lang, specs)[step]
            rejected = answer_message((answer.get("answer") or {}).get("content"), (answer.get("answer") or {}).get("tool_calls"))
            if rejected is None:
                export.skip("the rejected answer is empty")
                continue
            line = dpo_line(messages, reference_message(checkpoint, lang), rejected, str(answer.get("error") or "wrong"), tools)
            export.items.append(Item(case, lang, line, f"synth:{case.id}/{lang}/{step}"))
    return export


def from_predictions(path: Path, kind: str, corpus: Corpus) -> Export:
    predictions = read_predictions(path)
    if predictions.problems:
        raise UserError(f"{path}: {predictions.problems[0]} (run `callbank score` for every problem)")
    export = Export()
    for (case_id, lang, step), prediction in sorted(predictions.records.items()):
        case = corpus.cases.get(case_id)
        record = prediction.record
        if case is None:
            export.skip("scenario or unknown id")
            continue
        if "calls" in record or case.category.startswith("retrieval/"):
            export.skip("retrieval episode")
            continue
        found = prompts(case, lang, corpus.specs)
        if step >= len(found):
            export.skip("unknown step")
            continue
        checkpoint, messages, tools = found[step]
        verdict = score_checkpoint(checkpoint, parse_prediction(record), corpus.specs, lang)
        origin = f"predictions:{case_id}/{lang}/{step}"
        if kind == "sft":
            if verdict.correct:
                export.items.append(Item(case, lang, sft_line(messages, reference_message(checkpoint, lang), tools), origin))
            else:
                export.skip("scored wrong (not an SFT example)")
            continue
        if verdict.correct:
            export.skip("scored right (no rejected answer)")
            continue
        rejected = answer_message(record.get("output"), record.get("tool_calls"))
        if rejected is None:
            export.skip("the rejected answer is empty")
            continue
        export.items.append(Item(case, lang, dpo_line(messages, reference_message(checkpoint, lang), rejected, verdict.error or "wrong", tools), origin))
    return export


# ----------------------------------------------------------------------------- the export


@dataclass(frozen=True)
class ExportResult:
    written: int
    refused: list[tuple[str, list[Overlap]]]  # (origin, overlaps) of every offending item
    manifest: dict[str, Any]


def _unique_cases(items: Sequence[Item]) -> list[Case]:
    return list({(item.case.id, item.case.path): item.case for item in items}.values())


def run_export(
    *,
    kind: str,
    out: Path,
    benchmark: Corpus,
    synth: Path | None = None,
    predictions: Path | None = None,
    cases: Corpus | None = None,
    allow_overlap: str | None = None,
    threshold: float = 0.5,
) -> ExportResult:
    """Build, guard, validate and write one export; refuses (writes nothing) on overlap."""
    if (synth is None) == (predictions is None):
        raise UserError("give one source: --synth DIR or --predictions FILE")
    if allow_overlap is not None and not allow_overlap.strip():
        raise UserError("--allow-overlap needs a reason (it is written into the manifest)")
    if synth is not None:
        export = from_synth(synth, kind, benchmark.specs)
        source = {"synth": str(synth)}
    else:
        assert predictions is not None
        export = from_predictions(predictions, kind, cases or benchmark)
        source = {"predictions": str(predictions), "cases": str((cases or benchmark).root)}
    guard = Guard(benchmark.cases.values(), threshold)
    offending = {case.id: found for case in _unique_cases(export.items) if (found := guard.overlaps(case))}
    refused = [(item.origin, offending[item.case.id]) for item in export.items if item.case.id in offending]
    manifest: dict[str, Any] = {
        "version": MANIFEST_VERSION,
        "callbank": __version__,
        "format": kind,
        "source": source,
        "benchmark": str(benchmark.root),
        "items": len(export.items),
        "skipped": dict(sorted(export.skipped.items())),
        "guard": {"threshold": threshold, "languages": sorted({lang for case in benchmark.cases.values() for lang in case.dialogues})},
        "allow_overlap": None,
    }
    if refused and allow_overlap is None:
        return ExportResult(0, refused, manifest)
    if refused:
        manifest["allow_overlap"] = {
            "reason": allow_overlap,
            "items": [{"item": origin, "overlaps": [o.describe() for o in overlaps]} for origin, overlaps in refused],
        }
    for item in export.items:
        problems = line_problems(kind, item.line)
        if problems:
            raise RuntimeError(f"export built an invalid {kind} line ({item.origin}): {problems[0]}")  # a bug, never the user's input
    atomic_write(out, "".join(json.dumps(item.line, ensure_ascii=False) + "\n" for item in export.items))
    atomic_write(manifest_path(out), json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
    return ExportResult(len(export.items), refused, manifest)


def manifest_path(out: Path) -> Path:
    return out.with_name(out.name + ".manifest.json")
