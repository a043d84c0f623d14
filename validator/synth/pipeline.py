"""`callbank synth cases`: the stages in order, per candidate, with the log, the cache and the report.

Candidates run one after another (the model-free stages take milliseconds; the models are the
cost, and each answer is cached the moment it arrives). A run over a folder that holds an
earlier run's cache asks nothing already answered: the same recipes are planned, their answers
read back, and the model-free stages recomputed, so a killed run loses only the answer in
flight. One run writes to a folder at a time (an flock on it).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from validator.corpus.build import build_case
from validator.corpus.index import Corpus
from validator.corpus.records import Case
from validator.errors import UserError
from validator.loading import load_text
from validator.models.base import EndpointError
from validator.models.prompts import PROMPT_VERSION
from validator.scoring.retrieval import load_searcher
from validator.synth import consistency, execute, generate
from validator.synth.cache import AnswerCache
from validator.synth.checks import Checker
from validator.synth.client import Asker
from validator.synth.config import SynthConfig
from validator.synth.dedupe import Deduper
from validator.synth.outcome import Rejected
from validator.synth.plan import Recipe, plan, pool, sandbox_clocks
from validator.synth.prompts import load_generator_prompt
from validator.synth.render import case_path, render_case
from validator.synth.report import CandidateLog, build_report, dump_json, render_summary
from validator.synth.write import atomic_write, write_candidate
from validator.toolsearch import SEARCH_API, is_retrieval

ID_PREFIX = "syn"


@dataclass(frozen=True)
class SynthOptions:
    root: Path
    out: Path
    category: str
    n: int
    seed: int
    config: SynthConfig
    apis: tuple[str, ...] = ()
    sandbox: str | None = None
    keep_disputed: bool = False
    search: bool = False


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # no flock on this platform
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(f"another `callbank synth` run is writing to {folder}; wait for it or choose another --out") from None
        yield
    finally:
        os.close(fd)


def candidate_id(recipe: Recipe) -> str:
    """A fresh, stable id: the same recipe gets the same id on every run (ids match ^[a-z0-9-]+$)."""
    slug = recipe.category.replace("/", "-").replace("_", "-")
    return f"{ID_PREFIX}-{slug}-{recipe.seed}-{recipe.index:04d}"


def case_record(path: str, text: str) -> Case:
    document, problems = load_text(text, path, "case")
    if document is None or problems:
        raise Rejected("execute", "case_yaml", problems[0].message if problems else "the case does not load")
    return build_case(document)


class Pipeline:
    """The loaded repository and everything the stages share over a run."""

    def __init__(self, options: SynthOptions, corpus: Corpus) -> None:
        self.options = options
        self.corpus = corpus
        self.specs = corpus.specs
        self.prompt = load_generator_prompt(options.config.generator.lang)
        self.checker = Checker(corpus)
        self.runtime = self.checker.execution.runtime
        self.asker = Asker({"generator": options.config.generator, "simulator": options.config.simulator}, AnswerCache(options.out))
        self.syntax = options.config.simulator.syntax
        self.simulator_prompt = f"run.{PROMPT_VERSION}.{self.syntax}" + (f"+search.w{options.config.search.width}" if options.search else "")
        if is_retrieval(options.category):
            self.simulator_prompt = f"retrieval.{PROMPT_VERSION}.{self.syntax}"
        self.searcher = load_searcher(corpus) if is_retrieval(options.category) else None

    def generator_seed(self, recipe: Recipe) -> int:
        """Each candidate's own seed: recipes of one category can share a prompt word for word."""
        return (self.options.config.generator.seed or 0) + recipe.seed * 100_000 + recipe.index

    def state_of(self, recipe: Recipe) -> Any:
        """The data of the sandbox of a retrieval plan's targets (the generator must write a value
        the first call returns); None for every other recipe, whose prompt shows no data."""
        if recipe.category != "retrieval/plan":
            return None
        spec = self.specs.get(recipe.targets[0])
        state = self.corpus.states.get(spec.sandbox or "") if spec is not None else None
        return state.data if state is not None else None

    def deduper(self, planned: set[str]) -> Deduper:
        """The corpus's cases and the cases earlier runs wrote to --out (not this run's own)."""
        earlier: list[Case] = []
        if (self.options.out / "dialogues").is_dir():
            previous = Corpus.load(self.options.out, kinds=("case",))
            earlier = [case for case in previous.cases.values() if case.id not in planned and case.id not in self.corpus.cases]
        return Deduper([*self.corpus.cases.values(), *earlier], self.options.config.dedupe_threshold)

    def provenance(self, recipe: Recipe, status: str, checks: Sequence[consistency.StepCheck]) -> dict[str, Any]:
        config = self.options.config
        found: dict[str, Any] = {
            "source": "callbank synth",
            "generator": {"model": config.generator.model, "prompt_version": f"{self.prompt.name}.{self.prompt.lang}"},
            "simulator": {"model": config.simulator.model, "prompt_version": self.simulator_prompt},
            "seed": recipe.seed,
            "recipe": recipe.key,
            "exercise": dict(recipe.exercise),
            "consistency": status,
        }
        if status == "disputed":
            found["simulator_answers"] = [check.as_dict() for check in checks]
        return found

    async def candidate(self, recipe: Recipe, log: CandidateLog, deduper: Deduper) -> None:
        """Run one candidate through the stages; Rejected leaves at the stage that refused it."""
        log.passed("plan", 0.0)
        log.started = time.perf_counter()
        key = self.asker.key("generator", self.prompt.name + "." + self.prompt.lang, recipe.key, "draft")
        answer = await self.asker.ask(key, generate.messages(recipe, self.specs, self.prompt, self.state_of(recipe)), seed=self.generator_seed(recipe))
        started = log.started = time.perf_counter()
        draft = generate.draft_from_reply(recipe, answer.content)
        log.passed("generate", time.perf_counter() - started, cached=answer.cached)

        started = log.started = time.perf_counter()
        case_id = log.case_id = candidate_id(recipe)
        data = execute.case_document(recipe, draft, case_id, self.runtime, self.corpus.schemas)
        path = case_path(recipe.category, case_id)
        text = render_case(data)
        case = case_record(path, text)
        widened = execute.accept_aliases(data, case, self.checker.execution)
        if widened:  # names the sandbox resolves alike are right answers too
            text = render_case(data)
            case = case_record(path, text)
        log.passed("execute", time.perf_counter() - started, aliases=widened)

        log.started = time.perf_counter()
        checks = await self._consistency(recipe, case)
        started = log.started = time.perf_counter()
        reason = consistency.disagreement(checks)
        steps = [check.as_dict() for check in checks]
        status = "agreed"
        if reason is not None:
            if not self.options.keep_disputed:
                raise Rejected("consistency", "simulator_disagrees", reason, {"steps": steps})
            status = "disputed"
        log.passed("consistency", time.perf_counter() - started, agreement=status, steps=[{k: s[k] for k in ("lang", "step", "correct", "api_f1", "param_f1")} for s in steps])

        started = log.started = time.perf_counter()
        self.checker.require_clean(path, text)
        log.passed("check", time.perf_counter() - started)

        started = log.started = time.perf_counter()
        deduper.require_new(case)
        log.passed("dedupe", time.perf_counter() - started)

        started = log.started = time.perf_counter()
        written, record = write_candidate(self.options.out, data, text, self.provenance(recipe, status, checks))
        deduper.accept(case)
        log.path = written
        log.outcome = "accepted" if status == "agreed" else "disputed"
        log.passed("write", time.perf_counter() - started, record=record)

    async def _consistency(self, recipe: Recipe, case: Case) -> list[consistency.StepCheck]:
        if is_retrieval(recipe.category):
            if self.searcher is None:
                raise UserError(f"no loaded sandbox runs {SEARCH_API}: retrieval cases cannot be solved")
            return await consistency.simulate_retrieval(case, self.corpus, self.runtime, self.searcher, self.asker, recipe.key, self.syntax)
        if self.options.search and sum(len(d.checkpoints) for d in case.dialogues.values()) > len(case.dialogues):
            from validator.synth.search import search_case

            return await search_case(case, self.specs, self.asker, self.runtime, recipe.key, self.syntax, self.options.config.search)
        return await consistency.simulate(case, self.specs, self.asker, recipe.key, self.syntax)


async def run_synth(options: SynthOptions) -> dict[str, Any]:
    """Plan, run every candidate, write the report; returns the report (report.json's content)."""
    corpus = Corpus.load(options.root)
    corpus.require_intact("synth cases")
    specs = pool(corpus, options.apis, options.sandbox)
    search = corpus.specs.get(SEARCH_API)
    recipes = plan(options.category, specs, sandbox_clocks(corpus), options.n, options.seed, searchable=search is not None and search.runnable and search.sandbox in corpus.states)
    with folder_lock(options.out):
        pipeline = Pipeline(options, corpus)
        try:
            await pipeline.asker.preflight()
        except EndpointError as error:
            await pipeline.asker.close()
            raise UserError(str(error)) from None
        deduper = pipeline.deduper({candidate_id(r) for r in recipes})
        logs: list[CandidateLog] = []
        stopped: str | None = None
        try:
            for recipe in recipes:
                log = CandidateLog(recipe.index, recipe.as_dict())
                logs.append(log)
                try:
                    await pipeline.candidate(recipe, log, deduper)
                except Rejected as rejection:
                    log.rejected(rejection.stage, rejection.reason, rejection.detail, time.perf_counter() - log.started, **rejection.extra)
                except EndpointError as error:
                    logs.pop()
                    stopped = str(error)
                    break
        finally:
            await pipeline.asker.close()
        header = {
            "category": options.category,
            "seed": options.seed,
            "n": options.n,
            "apis": [spec.name for spec in specs],
            "keep_disputed": options.keep_disputed,
            "search": options.search,
            "stopped": stopped,
        }
        report = build_report(header, logs, {role: totals.as_dict() for role, totals in pipeline.asker.totals.items()})
        atomic_write(options.out / "candidates.jsonl", "".join(json.dumps(log.as_dict(), ensure_ascii=False) + "\n" for log in logs))
        atomic_write(options.out / "report.json", dump_json(report))
        atomic_write(options.out / "report.md", render_summary(report))
    return report
