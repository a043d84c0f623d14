"""`callbank synth scenarios --sandbox NAME`: agent scenarios from a sandbox's state and policy.

The same stages as cases, for a scenario:

* *plan* — the sandbox, the mode (``multi_step``: the user speaks once; ``multi_turn``: at least
  twice; alternating unless ``--mode``), its clock;
* *generate* — the generator, shown the sandbox's policy, its data and its APIs, writes the user
  (goal, known and unknown facts, a script per language), the reference calls, the minefields
  the policy suggests and a few words for the outcome;
* *execute* — the reference calls are replayed in the sandbox in both languages (any error
  rejects); a scenario that changes nothing is rejected (read-only scenarios need outputs a
  model would have to invent); the milestones are the calls that change the state, in order
  (their arguments without free text, which the end state checks); the outputs are computed from
  the real results: the first identifier a write returned, with the outcome words, else the
  words alone;
* *consistency* — the simulator runs the scenario as the agent, with `callbank run`'s harness
  (system prompt, policy, tools) and the scripted user, in both languages; `callbank score`'s
  agent verdict (end state equal to the reference's, no minefield, outcome told) must be right;
  with ``--search`` the episode is the one best-first search over sampled turns finds
  (``validator.synth.scenario_search``);
* *check*, *dedupe* (the user's goal and script against every scenario's, per language) and
  *write* (``DIR/sandboxes/<name>/scenarios/<id>.yaml`` with a pending record), as for cases.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from validator.corpus.build import build_scenario
from validator.corpus.canonical import sha256_of
from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.corpus.records import Scenario
from validator.errors import UserError
from validator.loading import load_text
from validator.models.base import EndpointError
from validator.models.episode import SessionEnvironment, policy_text, run_episode_async
from validator.models.prompts import PROMPT_VERSION
from validator.models.user import scripted_user
from validator.sandbox import replay as replay_module
from validator.sandbox.replay import compare_states, replay, scenario_session
from validator.sandbox.runtime import Runtime
from validator.scoring.agent import ReferenceCache, SandboxReplayer, score_scenario
from validator.similarity import ShingleIndex, shingles
from validator.synth.cache import AnswerCache
from validator.synth.checks import Checker
from validator.synth.client import Asker
from validator.synth.config import SearchConfig, SynthConfig
from validator.synth.consistency import SimulatorAgent
from validator.synth.generate import parse_reply
from validator.synth.outcome import Rejected
from validator.synth.pipeline import folder_lock
from validator.synth.prompts import GeneratorPrompt, fill, load_generator_prompt
from validator.synth.report import CandidateLog, build_report, dump_json, render_summary
from validator.synth.scenario_search import ScenarioSearch
from validator.synth.write import atomic_write, write_item

MODES = ("multi_step", "multi_turn")
STATE_LIMIT = 6000  # characters of the sandbox's data shown to the generator
SCRIPT_RULE = {
    "en": {"multi_step": "the user speaks once: one script message", "multi_turn": "the user speaks at least twice: two or more script messages"},
    "zh": {"multi_step": "用户只说一次：script 只有一条", "multi_turn": "用户至少说两次：script 有两条及以上"},
}
_CODE = re.compile(r"^[A-Za-z0-9]+([-_/][A-Za-z0-9]+)*$")


@dataclass(frozen=True)
class ScenarioRecipe:
    index: int
    seed: int
    sandbox: str
    mode: str
    time: str

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "seed": self.seed, "sandbox": self.sandbox, "mode": self.mode, "time": self.time}

    @property
    def key(self) -> str:
        return sha256_of({"kind": "scenario", **self.as_dict()})

    @property
    def id(self) -> str:
        return f"syn-{self.sandbox.replace('_', '-')}-{self.seed}-{self.index:04d}"

    @property
    def path(self) -> str:
        return f"sandboxes/{self.sandbox}/scenarios/{self.id}.yaml"


def plan_scenarios(corpus: Corpus, sandbox: str, n: int, seed: int, mode: str | None = None) -> list[ScenarioRecipe]:
    if sandbox not in corpus.sandboxes or corpus.states.get(sandbox) is None:
        raise UserError(f"--sandbox: no sandbox {sandbox!r} with a state under {corpus.root}/sandboxes (there are: {', '.join(sorted(corpus.states)) or 'none'})")
    if not corpus.specs_of_sandbox(sandbox):
        raise UserError(f"--sandbox {sandbox}: no API is implemented by it")
    clock = corpus.states[sandbox].clock
    return [ScenarioRecipe(index, seed, sandbox, mode or MODES[index % 2], clock) for index in range(n)]


# ----------------------------------------------------------------------------- generate


def messages(recipe: ScenarioRecipe, corpus: Corpus, prompt: GeneratorPrompt) -> list[dict[str, str]]:
    lang = prompt.lang
    policy = corpus.read_text(corpus.sandboxes[recipe.sandbox].policy_path(lang)) or ""
    state = json.dumps(corpus.states[recipe.sandbox].data, ensure_ascii=False)
    material = {
        "mode": recipe.mode,
        "sandbox": recipe.sandbox,
        "script_rule": SCRIPT_RULE[lang][recipe.mode],
        "time": recipe.time,
        "policy": policy.strip(),
        "state": state if len(state) <= STATE_LIMIT else state[:STATE_LIMIT] + " …",
        "apis": json.dumps([spec.function_schema(lang) for spec in corpus.specs_of_sandbox(recipe.sandbox)], ensure_ascii=False, indent=1),
    }
    return [{"role": "system", "content": fill(prompt.sections["system"], material)}, {"role": "user", "content": fill(prompt.sections["user"], material)}]


def _reject(reason: str, detail: str) -> Rejected:
    return Rejected("generate", reason, detail)


def _texts(value: Any, where: str, minimum: int = 0) -> list[str]:
    if value is None and minimum == 0:
        return []
    if not isinstance(value, list) or len(value) < minimum or not all(isinstance(v, str) and v.strip() for v in value):
        raise _reject("bad_shape", f"{where} must be a list of at least {minimum} non-empty text(s)")
    return [v.strip() for v in value]


def draft_from_reply(recipe: ScenarioRecipe, content: str | None, apis: Sequence[str]) -> dict[str, Any]:
    """The generator's scenario, checked for shape (Rejected at generate otherwise)."""
    data = parse_reply(content)
    user = data.get("user")
    if not isinstance(user, dict):
        raise _reject("bad_shape", "the reply has no user object")
    sides: dict[str, Any] = {}
    for lang in LANGS:
        side = user.get(lang)
        if not isinstance(side, dict) or not isinstance(side.get("goal"), str) or not side["goal"].strip():
            raise _reject("bad_shape", f"user.{lang} needs a goal")
        script = _texts(side.get("script"), f"user.{lang}.script", 1)
        if (recipe.mode == "multi_step") != (len(script) == 1):
            raise _reject("recipe_mismatch", f"a {recipe.mode} scenario's user speaks {'once' if recipe.mode == 'multi_step' else 'at least twice'}; the {lang} script has {len(script)} message(s)")
        entry: dict[str, Any] = {"goal": side["goal"].strip()}
        for key in ("known", "unknown"):
            found = _texts(side.get(key), f"user.{lang}.{key}")
            if found:
                entry[key] = found
        entry["script"] = script
        sides[lang] = entry
    calls = data.get("reference_calls")
    if not isinstance(calls, list) or not calls:
        raise _reject("bad_shape", "reference_calls must be a non-empty list")
    for number, call in enumerate(calls, 1):
        if not isinstance(call, dict) or not isinstance(call.get("args", {}), dict) or call.get("api") not in apis:
            reason = "unknown_api" if isinstance(call, dict) and isinstance(call.get("api"), str) else "bad_shape"
            raise _reject(reason, f"reference call {number}: expected {{api, args}} with one of the sandbox's APIs")
    called = {call["api"] for call in calls}
    minefields = []
    for entry in data.get("minefields") or []:
        if isinstance(entry, dict) and entry.get("api") in apis and entry["api"] not in called:
            minefields.append({"api": entry["api"]})
    words = data.get("outcome_words")
    if not isinstance(words, dict):
        raise _reject("bad_shape", "outcome_words needs en and zh lists")
    outcome = {lang: _texts(words.get(lang), f"outcome_words.{lang}", 1) for lang in LANGS}
    return {"user": sides, "reference_calls": [{"api": c["api"], "args": c.get("args") or {}} for c in calls], "minefields": minefields, "outcome": outcome}


# ----------------------------------------------------------------------------- execute


def _milestone_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments a milestone pins: numbers, booleans and one-word strings (ids, codes,
    dates, enum values); free text is left to the end-state comparison."""
    return {name: value for name, value in args.items() if isinstance(value, (int, float, bool)) or (isinstance(value, str) and value and not re.search(r"\s", value))}


def _first_code(observation: Any) -> str | None:
    if isinstance(observation, dict):
        for key, value in observation.items():
            if key.endswith("id") and isinstance(value, str) and _CODE.match(value):
                return value
    return None


def scenario_document(recipe: ScenarioRecipe, draft: Mapping[str, Any], runtime: Runtime, checker_schemas: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": recipe.id,
        "mode": recipe.mode,
        "sandboxes": [recipe.sandbox],
        "time": recipe.time,
        "user": draft["user"],
        "reference_calls": draft["reference_calls"],
        "milestones": [],
        "minefields": draft["minefields"],
    }
    results = {}
    for lang in LANGS:
        result = replay(runtime, doc, doc["reference_calls"], lang)
        if result.errors:
            error = result.errors[0]
            reason = {"error": "api_error", "invalid_arguments": "invalid_arguments", "unknown_api": "not_runnable"}.get(error.status, "sandbox_fault")
            raise Rejected("execute", reason, f"{lang} reference call {error.index + 1} {error.api}: {error.message or error.status}")
        results[lang] = result
    initial = scenario_session(runtime, doc).state()
    if not compare_states(initial, results["en"].end_state):
        raise Rejected("execute", "no_state_change", "the reference calls change nothing; synth writes only scenarios whose goal changes the data")
    milestones: list[dict[str, Any]] = []
    code = None
    for index, call in enumerate(doc["reference_calls"]):
        before = replay(runtime, doc, doc["reference_calls"][:index], "en").end_state
        after = replay(runtime, doc, doc["reference_calls"][: index + 1], "en").end_state
        if compare_states(before, after):
            milestone: dict[str, Any] = {"id": f"m{index + 1}", "api": call["api"]}
            pinned = _milestone_args(call["args"])
            if pinned:
                milestone["args"] = pinned
            milestones.append(milestone)
            code = code or _first_code(results["en"].observations[index])
    doc["milestones"] = milestones
    words = dict(draft["outcome"])
    doc["outputs"] = [{"code": code, "about": words}] if code else [{"phrase": words}]
    problems = checker_schemas.errors("scenario", doc)
    if problems:
        message, pointer = problems[0]
        raise Rejected("execute", "scenario_schema", f"the scenario breaks schemas/scenario.schema.json at {pointer or '/'}: {message}")
    return doc


def render_scenario(doc: Mapping[str, Any]) -> str:
    body = yaml.safe_dump(dict(doc), allow_unicode=True, sort_keys=False, width=4096, default_flow_style=False)
    return "# yaml-language-server: $schema=../../../schemas/scenario.schema.json\n" + body


def scenario_record(path: str, text: str) -> Scenario:
    document, problems = load_text(text, path, "scenario")
    if document is None or problems:
        raise Rejected("execute", "scenario_yaml", problems[0].message if problems else "the scenario does not load")
    return build_scenario(document)


# ----------------------------------------------------------------------------- consistency


async def agree(
    scenario: Scenario, doc: Mapping[str, Any], corpus: Corpus, runtime: Runtime, asker: Asker, recipe_key: str, syntax: str, search: SearchConfig | None = None
) -> list[dict[str, Any]]:
    """The simulator's episode in each language, scored; one verdict per language. With a search
    config the episode is the one best-first search finds (``validator.synth.scenario_search``)."""
    replayer = SandboxReplayer(replay_module, runtime)
    cache = ReferenceCache(replayer)
    verdicts = []
    if search is not None:
        policies = {lang: policy_text(corpus, scenario, lang) for lang in LANGS}
        searcher = ScenarioSearch(scenario, doc, corpus.specs, runtime, policies, asker, recipe_key, syntax, search)
        for lang in LANGS:
            found = await searcher.side(lang)
            verdict = found.verdict
            shown = {"lang": lang, "correct": verdict.correct, "error": verdict.error, "detail": verdict.detail, "process": round(verdict.process, 4)}
            verdicts.append({**shown, "calls": found.record["calls"], "searched": found.spent})
        return verdicts
    for lang in LANGS:
        agent = SimulatorAgent(asker, recipe_key, syntax, lang, "agent")
        environment = SessionEnvironment(scenario_session(runtime, doc), lang)
        record = await run_episode_async(agent, scenario, lang, corpus.specs, syntax, environment, policy_text(corpus, scenario, lang), user=scripted_user(scenario, lang))
        verdict = score_scenario(doc, record, lang, replayer, cache)
        verdicts.append({"lang": lang, "correct": verdict.correct, "error": verdict.error, "detail": verdict.detail, "process": round(verdict.process, 4), "calls": record.get("calls", [])})
    return verdicts


# ----------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class ScenarioOptions:
    root: Path
    out: Path
    sandbox: str
    n: int
    seed: int
    config: SynthConfig
    mode: str | None = None
    keep_disputed: bool = False
    search: bool = False  # best-first search over the simulator's turns (config.search: width, budget)


async def run_scenarios(options: ScenarioOptions) -> dict[str, Any]:
    corpus = Corpus.load(options.root)
    corpus.require_intact("synth scenarios")
    recipes = plan_scenarios(corpus, options.sandbox, options.n, options.seed, options.mode)
    apis = [spec.name for spec in corpus.specs_of_sandbox(options.sandbox)]
    with folder_lock(options.out):
        prompt = load_generator_prompt(options.config.generator.lang, family="scenario")
        checker = Checker(corpus)
        runtime = checker.execution.runtime
        asker = Asker({"generator": options.config.generator, "simulator": options.config.simulator}, AnswerCache(options.out))
        syntax = options.config.simulator.syntax
        try:
            await asker.preflight()
        except EndpointError as error:
            await asker.close()
            raise UserError(str(error)) from None
        seen = {lang: ShingleIndex(options.config.dedupe_threshold) for lang in LANGS}
        for existing in corpus.scenarios.values():
            for lang in LANGS:
                seen[lang].add(existing.id, shingles(_user_text(existing.data, lang), lang))
        logs: list[CandidateLog] = []
        stopped: str | None = None
        try:
            for recipe in recipes:
                log = CandidateLog(recipe.index, recipe.as_dict())
                logs.append(log)
                try:
                    await _candidate(recipe, log, corpus, prompt, checker, runtime, asker, syntax, apis, seen, options)
                except Rejected as rejection:
                    log.rejected(rejection.stage, rejection.reason, rejection.detail, time.perf_counter() - log.started, **rejection.extra)
                except EndpointError as error:
                    logs.pop()
                    stopped = str(error)
                    break
        finally:
            await asker.close()
        header = {
            "category": f"agent scenarios ({options.sandbox})",
            "seed": options.seed,
            "n": options.n,
            "sandbox": options.sandbox,
            "keep_disputed": options.keep_disputed,
            "search": options.search,
            "stopped": stopped,
        }
        report = build_report(header, logs, {role: totals.as_dict() for role, totals in asker.totals.items()})
        atomic_write(options.out / "candidates.jsonl", "".join(json.dumps(log.as_dict(), ensure_ascii=False) + "\n" for log in logs))
        atomic_write(options.out / "report.json", dump_json(report))
        atomic_write(options.out / "report.md", render_summary(report))
    return report


def _user_text(data: Mapping[str, Any], lang: str) -> str:
    side = (data.get("user") or {}).get(lang) or {}
    return "\n".join([str(side.get("goal") or ""), *map(str, side.get("script") or [])])


async def _candidate(
    recipe: ScenarioRecipe,
    log: CandidateLog,
    corpus: Corpus,
    prompt: GeneratorPrompt,
    checker: Checker,
    runtime: Runtime,
    asker: Asker,
    syntax: str,
    apis: Sequence[str],
    seen: dict[str, ShingleIndex],
    options: ScenarioOptions,
) -> None:
    log.passed("plan", 0.0)
    log.started = time.perf_counter()
    key = asker.key("generator", f"{prompt.name}.{prompt.lang}", recipe.key, "scenario")
    seed = (options.config.generator.seed or 0) + recipe.seed * 100_000 + recipe.index
    answer = await asker.ask(key, messages(recipe, corpus, prompt), seed=seed)
    started = log.started = time.perf_counter()
    draft = draft_from_reply(recipe, answer.content, apis)
    log.passed("generate", time.perf_counter() - started, cached=answer.cached)

    started = log.started = time.perf_counter()
    doc = scenario_document(recipe, draft, runtime, corpus.schemas)
    text = render_scenario(doc)
    scenario = scenario_record(recipe.path, text)
    log.case_id = recipe.id
    log.passed("execute", time.perf_counter() - started, milestones=len(doc["milestones"]))

    log.started = time.perf_counter()
    verdicts = await agree(scenario, doc, corpus, runtime, asker, recipe.key, syntax, options.config.search if options.search else None)
    started = log.started = time.perf_counter()
    wrong = [v for v in verdicts if not v["correct"]]
    status = "agreed"
    if wrong:
        detail = f"{wrong[0]['lang']}: {wrong[0]['error']}: {wrong[0]['detail']}"
        if not options.keep_disputed:
            raise Rejected("consistency", "simulator_disagrees", detail, {"verdicts": verdicts})
        status = "disputed"
    log.passed("consistency", time.perf_counter() - started, agreement=status)

    started = log.started = time.perf_counter()
    checker.require_clean(recipe.path, text, "scenario")
    log.passed("check", time.perf_counter() - started)

    started = log.started = time.perf_counter()
    for lang in LANGS:
        close = seen[lang].query(shingles(_user_text(doc, lang), lang), exclude=recipe.id)
        if close:
            raise Rejected("dedupe", "near_duplicate", f"its {lang} goal and script are {close[0].similarity:.2f} similar to the scenario {close[0].key}", {"neighbour": str(close[0].key)})
    log.passed("dedupe", time.perf_counter() - started)

    started = log.started = time.perf_counter()
    provenance: dict[str, Any] = {
        "source": "callbank synth",
        "generator": {"model": options.config.generator.model, "prompt_version": f"{prompt.name}.{prompt.lang}"},
        "simulator": {"model": options.config.simulator.model, "prompt_version": f"agent.{PROMPT_VERSION}.{syntax}" + (f"+search.w{options.config.search.width}" if options.search else "")},
        "seed": recipe.seed,
        "recipe": recipe.key,
        "exercise": {"kind": "scenario", "mode": recipe.mode},
        "consistency": status,
    }
    if status == "disputed":
        provenance["simulator_answers"] = verdicts
    written, record = write_item(options.out, recipe.path, doc, text, provenance)
    for lang in LANGS:
        if recipe.id not in seen[lang]:
            seen[lang].add(recipe.id, shingles(_user_text(doc, lang), lang))
    log.path = written
    log.outcome = "accepted" if status == "agreed" else "disputed"
    log.passed("write", time.perf_counter() - started, record=record)
