"""`callbank export`: training data from a synth run or from scored `callbank run` predictions.

Sources:

* a synth folder (``--synth DIR``): every case it wrote. SFT: each agreed case, in each
  language, as the whole conversation (system prompt of the run harness, user turns, the
  reference calls as ``tool_calls``, the real results as ``tool`` messages), the last checkpoint
  the turn to learn. DPO: each step a disputed case's simulator got wrong — prompt up to that
  checkpoint, the reference as chosen, the simulator's answer as rejected, with its error type.
  Its agent scenarios (``validator.synth.episodes``): SFT, each agreed one in each language as
  the whole episode — the system prompt `callbank run` shows an agent, the user's messages, the
  reference's tool calls, the real results, the final answer (the oracle run in the sandbox
  with the scripted user); DPO, each language a disputed one's simulator failed in, at its first
  call that left the reference: the oracle's episode before that step as the prompt, the
  reference's move chosen, the simulator's call rejected.
* predictions (``--predictions FILE``, cases from ``--repo``): every case checkpoint, scored by
  `callbank score`'s comparison. SFT: the checkpoints the model got right (conversation up to
  there, the reference answer to learn); DPO: the ones it got wrong (its answer rejected).
  Agent episodes are scored by the agent scorer: SFT, each right one's whole transcript; DPO,
  each wrong one at its first wrong step (the model's transcript before it as the prompt, its
  message rejected, the reference's move chosen). Retrieval episodes are skipped (counted in
  the manifest).

Every item passes the contamination guard (``validator.synth.guard``) against the benchmark's
own cases and scenarios: if any overlaps, nothing is written and each offender is named — unless
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
from validator.corpus.records import Case, Checkpoint, Scenario, Spec
from validator.errors import UserError
from validator.models.render import tool_calls as render_tool_calls
from validator.models.request import case_requests, first_alternative
from validator.sandbox import replay as replay_module
from validator.sandbox.replay import runtime_of
from validator.sandbox.runtime import Runtime
from validator.scoring.agent import ReferenceCache, SandboxReplayer, score_scenario
from validator.scoring.match import score_checkpoint
from validator.scoring.parse import parse_prediction
from validator.scoring.predictions import read_predictions
from validator.scoring.special import render_special
from validator.synth.episodes import Episode, first_wrong_step, learned, oracle_episode, prompt_of, reference_move
from validator.synth.formats import line_problems
from validator.synth.guard import Guard, Overlap
from validator.synth.write import atomic_write

MANIFEST_VERSION = 1


@dataclass(frozen=True)
class Item:
    """One training example and the case or scenario it comes from."""

    source: Case | Scenario
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


def from_synth(folder: Path, kind: str, benchmark: Corpus) -> Export:
    if not (folder / "dialogues").is_dir() and not (folder / "sandboxes").is_dir():
        raise UserError(f"--synth {folder}: no dialogues/ or sandboxes/ folder; give the --out folder of a `callbank synth` run")
    loaded = Corpus.load(folder, kinds=("case", "scenario"))
    broken = [f.path for f in loaded.loaded(("case", "scenario")) if f.broken]
    if broken:
        raise UserError(f"--synth {folder}: {len(broken)} file(s) cannot be read ({', '.join(broken[:3])}); run `callbank check` on them")
    records = _synth_records(folder)
    export = Export()
    specs = benchmark.specs
    if loaded.scenarios:
        _synth_scenarios(loaded, records, kind, benchmark, export)
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


def _synth_scenarios(loaded: Corpus, records: Mapping[str, Mapping[str, Any]], kind: str, benchmark: Corpus, export: Export) -> None:
    """The synth folder's scenarios as whole episodes (SFT) or at a disputed one's wrong step (DPO)."""
    runtime = runtime_of(benchmark)
    for scenario in loaded.scenarios_in():
        provenance = (records.get(scenario.id) or {}).get("provenance") or {}
        status = provenance.get("consistency")
        if status is None:
            export.skip("no synth review record")
            continue
        missing = [name for name in scenario.sandboxes if name not in benchmark.states]
        if missing:
            raise UserError(f"--synth: {scenario.path} runs in {', '.join(missing)}, which the benchmark {benchmark.root} does not have; pass its repository with --repo")
        text = loaded.read_text(scenario.path) or ""
        view, _ = benchmark.with_file(scenario.path, "scenario", text)  # the oracle reads the scenario from its corpus
        if kind == "sft":
            if status != "agreed":
                export.skip("disputed (not verified)")
                continue
            for lang in scenario.user:
                episode = oracle_episode(view, scenario, lang, runtime)
                line = sft_line(_clean([episode.system, *learned(episode.messages)])[:-1], _clean(learned(episode.messages))[-1], episode.tools)
                export.items.append(Item(scenario, lang, line, f"synth:{scenario.id}/{lang}"))
            continue
        failed = [verdict for verdict in provenance.get("simulator_answers") or [] if isinstance(verdict, Mapping) and not verdict.get("correct")]
        if status != "disputed" or not failed:
            export.skip("agreed (no rejected step)")
            continue
        for verdict in failed:
            lang = str(verdict.get("lang"))
            oracle = oracle_episode(view, scenario, lang, runtime)
            step = _first_wrong_call(scenario, list(verdict.get("calls") or []), lang, benchmark.specs)
            at = _oracle_call_message(oracle, step[1]) if step is not None else None
            if step is None or at is None:
                export.skip("no wrong call recorded (the simulator's text is not kept)")
                continue
            rejected = {"role": "assistant", "content": None, "tool_calls": render_tool_calls([{"api": step[0]["api"], "args": step[0].get("args") or {}}], prefix="call_sim")}
            prompt = _clean([oracle.system, *oracle.messages[:at]])
            line = dpo_line(prompt, _clean([oracle.messages[at]])[0], rejected, str(verdict.get("error") or "wrong"), oracle.tools)
            export.items.append(Item(scenario, lang, line, f"synth:{scenario.id}/{lang}"))


def _first_wrong_call(scenario: Scenario, calls: Sequence[Mapping[str, Any]], lang: str, specs: Mapping[str, Spec]) -> tuple[Mapping[str, Any], int] | None:
    """The simulator's first call that is not the next reference call, and that call's position."""
    messages: list[dict[str, Any]] = []
    placed: list[dict[str, Any]] = []
    for call in calls:  # one assistant message per call: only their order matters here
        messages.append({"role": "assistant"})
        placed.append({**call, "at": len(messages) - 1})
    messages.append({"role": "assistant"})  # the closing text, never the wrong step here
    step = first_wrong_step(scenario, messages, placed, lang, specs)
    if step is None or step.index >= len(calls):
        return None
    return calls[step.index], step.reference


def _oracle_call_message(oracle: Episode, position: int) -> int | None:
    """The index of the oracle's message that makes its reference call number position."""
    seen = 0
    for index, message in enumerate(oracle.messages):
        for _ in message.get("tool_calls") or []:
            if seen == position:
                return index
            seen += 1
    return None


Scorer = tuple[Runtime, SandboxReplayer, ReferenceCache]


def _scenario_prediction(scenario: Scenario, lang: str, record: Mapping[str, Any], kind: str, corpus: Corpus, scorer: Scorer, export: Export, origin: str) -> None:
    runtime, replayer, cache = scorer
    verdict = score_scenario(scenario.data, record, lang, replayer, cache)
    system, tools = prompt_of(corpus, scenario, lang)
    messages = [dict(m) for m in record.get("messages") or [] if isinstance(m, Mapping)]
    if kind == "sft":
        kept = learned(messages)
        if not verdict.correct or not kept:
            export.skip("scored wrong (not an SFT example)" if not verdict.correct else "the episode has no assistant message")
            return
        cleaned = _clean([system, *kept])
        export.items.append(Item(scenario, lang, sft_line(cleaned[:-1], cleaned[-1], tools), origin))
        return
    if verdict.correct:
        export.skip("scored right (no rejected answer)")
        return
    step = first_wrong_step(scenario, messages, [c for c in record.get("calls") or [] if isinstance(c, Mapping)], lang, corpus.specs)
    rejected = answer_message(messages[step.index].get("content"), messages[step.index].get("tool_calls")) if step is not None else None
    if step is None or rejected is None:
        export.skip("no wrong step found in the episode")
        return
    chosen = reference_move(scenario, step.reference, lang, oracle_episode(corpus, scenario, lang, runtime))
    export.items.append(Item(scenario, lang, dpo_line(_clean([system, *messages[: step.index]]), chosen, rejected, verdict.error or "wrong", tools), origin))


def from_predictions(path: Path, kind: str, corpus: Corpus) -> Export:
    predictions = read_predictions(path)
    if predictions.problems:
        raise UserError(f"{path}: {predictions.problems[0]} (run `callbank score` for every problem)")
    export = Export()
    scorer: Scorer | None = None
    for (case_id, lang, step), prediction in sorted(predictions.records.items()):
        case = corpus.cases.get(case_id)
        record = prediction.record
        scenario = corpus.scenarios.get(case_id) if case is None else None
        if scenario is not None:
            if scorer is None:
                runtime = runtime_of(corpus)
                replayer = SandboxReplayer(replay_module, runtime)
                scorer = (runtime, replayer, ReferenceCache(replayer))
            _scenario_prediction(scenario, lang, record, kind, corpus, scorer, export, f"predictions:{case_id}/{lang}")
            continue
        if case is None:
            export.skip("unknown id")
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


def _unique_sources(items: Sequence[Item]) -> list[Case | Scenario]:
    return list({(item.source.id, item.source.path): item.source for item in items}.values())


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
        export = from_synth(synth, kind, benchmark)
        source = {"synth": str(synth)}
    else:
        assert predictions is not None
        export = from_predictions(predictions, kind, cases or benchmark)
        source = {"predictions": str(predictions), "cases": str((cases or benchmark).root)}
    guard = Guard(benchmark.cases.values(), threshold, benchmark.scenarios.values())
    offending = {(source.id, source.path): found for source in _unique_sources(export.items) if (found := guard.overlaps(source))}
    refused = [(item.origin, offending[(item.source.id, item.source.path)]) for item in export.items if (item.source.id, item.source.path) in offending]
    manifest: dict[str, Any] = {
        "version": MANIFEST_VERSION,
        "callbank": __version__,
        "format": kind,
        "source": source,
        "benchmark": str(benchmark.root),
        "items": len(export.items),
        "skipped": dict(sorted(export.skipped.items())),
        "guard": {"threshold": threshold, "languages": sorted({lang for case in benchmark.cases.values() for lang in case.dialogues}), "scenarios": len(benchmark.scenarios)},
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
