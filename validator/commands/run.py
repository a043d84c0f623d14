"""``callbank run``: run a model over the benchmark and write its predictions (JSON Lines).

Built-in models need no endpoint: ``oracle`` answers every checkpoint with the ground truth,
``null`` answers nothing. Any other model is reached through an OpenAI-compatible endpoint
(``--base-url``). Every model goes through the same loop (``validator.models.runner``); only
the transport differs. See ``docs/running.md``.

Exit status: 0 when every selected record is in ``--out``; 1 when the endpoint failed during the
run (what was answered is kept: re-run the same command to resume); 2 for a usage error, found
before any work starts (bad option, missing key, unreachable endpoint, unknown model); 130 when
interrupted (likewise resumable).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import click

from validator.commands.score import LANG_CHOICES, fail, repo_root_of, selected_langs
from validator.corpus.langs import LANGS
from validator.errors import UserError

SYNTAX_CHOICES = ("python", "json", "tool_calls")
MODE_CHOICES = ("fc", "prompt")
STYLE_CHOICES = ("standard", "condensed", "minimal")
SCRIPTED = "scripted"  # --user-model value: the scenario's scripted user (the default)


class RunOptions(NamedTuple):
    model: str
    out: Path
    root: Path
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    mode: str | None = None  # fc | prompt; None: from syntax
    syntax: str | None = None  # python | json | tool_calls; None: from mode
    style: str = "standard"
    temperature: float = 0.0
    max_tokens: int | None = 1024
    timeout: float = 120.0
    max_retries: int = 4
    backoff: float = 1.0
    seed: int | None = None
    concurrency: int = 4
    user_model: str | None = None
    user_base_url: str | None = None
    user_api_key_env: str | None = None
    max_turns: int | None = None
    langs: Sequence[str] = LANGS
    categories: Sequence[str] = ()
    limit: int | None = None
    overwrite: bool = False
    progress: bool | None = None  # None: when standard error is a terminal
    shard: str | None = None  # "I/N": this machine's slice of the selection
    repeats: int = 1  # trials of every scenario (and case, with repeat_cases)
    repeat_cases: bool = False
    prices: Path | None = None  # a price table: the run's cost goes into the manifest


def resolve_syntax(mode: str | None, syntax: str | None) -> str:
    """The answer syntax asked for: --mode fc is tool_calls, --mode prompt python (or json)."""
    if mode is None:
        return syntax or "python"
    if mode == "fc":
        if syntax not in (None, "tool_calls"):
            raise UserError(f"--mode fc reads answers from tool_calls; --syntax {syntax} needs --mode prompt")
        return "tool_calls"
    if syntax == "tool_calls":
        raise UserError("--syntax tool_calls is native function calling; use --mode fc")
    return syntax or "python"


class _Endpoints(NamedTuple):
    model: Any  # ChatClient | None (None: a built-in model)
    user: Any  # ChatClient | None (None: the scripted user)


def _endpoints(options: RunOptions) -> _Endpoints:
    """Check the options naming endpoints and keys, and make their clients (no network yet)."""
    from validator.models import MODELS

    builtin = options.model in MODELS and options.base_url is None
    if not builtin and options.base_url is None:
        raise UserError(
            f"unknown model {options.model!r}; choose one of {', '.join(sorted(MODELS))}, or pass --base-url for a model served by an OpenAI-compatible endpoint"
        )
    wants_user = options.user_model not in (None, SCRIPTED)
    if builtin and not wants_user:
        return _Endpoints(None, None)
    try:
        from validator.models.endpoint import ChatClient, EndpointConfig, check_base_url, resolve_api_key
    except ImportError as error:
        raise UserError(f"running a model over an endpoint needs the `run` extra ({error.name} is not installed): pip install 'callbank[run]'") from None

    def client(base_url: str, model: str, key_env: str, url_option: str, key_option: str) -> Any:
        check_base_url(base_url, url_option)
        config = EndpointConfig(
            base_url=base_url.rstrip("/"),
            model=model,
            api_key_env=key_env,
            temperature=options.temperature,
            max_tokens=options.max_tokens,
            timeout=options.timeout,
            max_retries=options.max_retries,
            backoff=options.backoff,
            seed=options.seed,
        )
        return ChatClient(config, resolve_api_key(base_url, key_env, key_option))

    model = None if builtin else client(str(options.base_url), options.model, options.api_key_env, "--base-url", "--api-key-env")
    user = None
    if wants_user:
        base_url = options.user_base_url or options.base_url
        if base_url is None:
            raise UserError("--user-model needs --user-base-url (or --base-url) to reach the simulator")
        key_env = options.user_api_key_env or options.api_key_env
        user = client(base_url, str(options.user_model), key_env, "--user-base-url", "--user-api-key-env")
    return _Endpoints(model, user)


def _check_numbers(options: RunOptions) -> None:
    if options.concurrency < 1:
        raise UserError("--concurrency must be at least 1")
    if options.limit is not None and options.limit < 1:
        raise UserError("--limit must be at least 1")
    if options.max_retries < 0 or options.timeout <= 0 or options.backoff < 0:
        raise UserError("--max-retries must be ≥ 0, --timeout > 0 and --backoff ≥ 0")
    if options.max_tokens is not None and options.max_tokens < 1:
        raise UserError("--max-tokens must be at least 1")
    if options.max_turns is not None and options.max_turns < 1:
        raise UserError("--max-turns must be at least 1")
    if options.shard is not None:
        from validator.models.shards import parse_shard

        parse_shard(options.shard)
    if options.repeats < 1:
        raise UserError("--repeats must be at least 1")
    if options.repeats > 1 and options.seed is not None:
        raise UserError("--seed sends every repeat the same request and seed, so the repeats would not be independent trials; drop --seed (or --repeats)")
    if options.repeat_cases and options.repeats < 2:
        raise UserError("--repeat-cases repeats cases as often as --repeats says; give --repeats 2 or more")


def selection_of(options: RunOptions) -> dict[str, Any]:
    """What a shard's slicing depends on besides the corpus: languages, categories, limit."""
    return {"langs": list(options.langs), "categories": sorted(options.categories), "limit": options.limit}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class _Progress:
    """A tqdm bar on standard error (rate, ETA, tokens), or nothing."""

    def __init__(self, total: int, enabled: bool | None, label: str) -> None:
        self.bar: Any = None
        if enabled is False or total == 0:
            return
        if enabled is None and not sys.stderr.isatty():
            return
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self.bar = tqdm(total=total, desc=label, unit="rec", file=sys.stderr, dynamic_ncols=True, smoothing=0.1)

    def update(self, tokens: int | None) -> None:
        if self.bar is not None:
            if tokens is not None:
                self.bar.set_postfix_str(f"{tokens:,} tok", refresh=False)
            self.bar.update(1)

    def write(self, line: str) -> None:
        """A line on standard error that leaves the bar intact."""
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            click.echo(line, err=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _State:
    """What the session did, readable after an interruption."""

    def __init__(self) -> None:
        self.written = 0
        self.skipped = 0
        self.started = time.monotonic()
        self.out: Path | None = None


async def _session(options: RunOptions, endpoints: _Endpoints, syntax: str, state: _State) -> int:
    from validator.corpus.index import Corpus
    from validator.models import create_model
    from validator.models.base import EndpointError, ModelContext
    from validator.models.episode import environments
    from validator.models.prompts import PROMPT_VERSION, prompt_hash
    from validator.models.resume import RecordWriter, corpus_version, manifest_path, open_run, write_manifest
    from validator.models.retrieval import case_environments
    from validator.models.runner import RunContext, execute, plan
    from validator.models.shards import parse_shard
    from validator.models.user import scripted_user
    from validator.runs.prices import read_prices
    from validator.runs.usage import run_totals

    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    if task is not None and hasattr(signal, "SIGTERM"):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # a polite kill ends the run like Ctrl-C
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
    prices = read_prices(options.prices) if options.prices is not None else None
    try:
        # 1. the endpoints answer and serve the models — before any work
        for client in (endpoints.model, endpoints.user):
            if client is not None:
                try:
                    await client.preflight()
                except EndpointError as error:
                    raise UserError(str(error)) from None
        # 2. the corpus, the plan, what is already done
        corpus = Corpus.load_benchmark(options.root, "run")
        if not set(options.langs) & set(corpus.langs):
            raise UserError(f"the repository {options.root} holds {', '.join(corpus.langs)} only (callbank.yaml); --lang {options.langs[0]} selects nothing")
        skipped = corpus.skipped_note()
        if skipped:
            click.echo(f"note: {skipped}", err=True)
        shard = parse_shard(options.shard) if options.shard is not None else None
        jobs = plan(
            corpus, syntax=syntax, style=options.style, langs=options.langs, categories=options.categories, limit=options.limit,
            shard=shard, repeats=options.repeats, repeat_cases=options.repeat_cases,
        )  # fmt: skip
        if not jobs:
            if shard is not None and plan(corpus, syntax=syntax, style=options.style, langs=options.langs, categories=options.categories, limit=options.limit):
                raise UserError(f"shard {shard} is empty: the selection has fewer than {shard.index} items; use fewer shards")
            raise UserError(f"no case or scenario under {options.root} matches the selection")
        user_model = {"model": SCRIPTED} if endpoints.user is None else {"model": endpoints.user.config.model, "endpoint": endpoints.user.config.base_url}
        remote = endpoints.model is not None
        settings: dict[str, Any] = {
            "model": options.model,
            "endpoint": endpoints.model.config.base_url if remote else None,
            "mode": "fc" if syntax == "tool_calls" else "prompt",
            "syntax": syntax,
            "style": options.style,
            "prompt_version": PROMPT_VERSION,
            "prompt_hash": prompt_hash(PROMPT_VERSION),
            "corpus_version": corpus_version(corpus.root),
            "temperature": options.temperature if remote else None,
            "max_tokens": options.max_tokens if remote else None,
            "seed": options.seed if remote else None,
            "max_turns": options.max_turns,
            "user": user_model,
            "shard": None if shard is None else {**shard.as_dict(), "selection": selection_of(options)},
        }
        from validator import __version__

        done, manifest = open_run(options.out, settings, overwrite=options.overwrite)
        manifest.setdefault("created", _now())
        manifest["callbank_version"] = __version__
        todo = [job for job in jobs if job.trial_key not in done]
        state.skipped = len(jobs) - len(todo)
        state.out = options.out
        if not todo:
            click.echo(f"nothing to do: all {len(jobs)} selected record(s) are already in {options.out}", err=True)
            return 0
        from validator.models.estimate import Pace, describe_plan, plan_load

        planned, loads = plan_load(todo, corpus.specs, syntax, options.style)
        if remote:
            click.echo(describe_plan(planned, options.langs) + (f" ({state.skipped:,} already in {options.out})" if state.skipped else ""), err=True)
        session: dict[str, Any] = {
            "started": _now(), "status": "running", "langs": list(options.langs), "categories": list(options.categories),
            "limit": options.limit, "concurrency": options.concurrency, "planned": len(jobs), "skipped": state.skipped,
            "repeats": options.repeats, "repeat_cases": options.repeat_cases,
        }  # fmt: skip
        manifest["sessions"].append(session)
        manifest_file = manifest_path(options.out)
        try:
            write_manifest(manifest_file, manifest)
        except OSError as error:
            raise UserError(f"cannot write {manifest_file}: {error.strerror}") from None

        # 3. the run
        if remote:
            from validator.models.endpoint import EndpointModel

            model: Any = EndpointModel(endpoints.model, style=options.style)
        else:
            model = create_model(options.model, ModelContext(corpus))
        if endpoints.user is not None:
            from validator.models.user import simulated_users

            users: Any = simulated_users(endpoints.user)
        else:
            users = scripted_user
        context = RunContext(
            model, corpus.specs, environments(corpus), users, syntax=syntax, style=options.style, max_turns=options.max_turns,
            case_environment=case_environments(corpus),
        )  # fmt: skip
        writer = RecordWriter(options.out)
        progress = _Progress(len(todo), options.progress, options.model)
        pace = Pace(loads)
        if remote:

            def warn(message: str) -> None:  # said once, and kept with the session
                session.setdefault("warnings", []).append(message)
                progress.write(f"warning: {message}")

            endpoints.model.on_warning = warn
        began = time.monotonic()  # the pace counts from the first request, not from loading the corpus
        load_of = {job.key: load for job, load in zip(todo, loads, strict=True)}

        def on_record(job: Any, record: dict[str, Any]) -> None:
            writer.write(record)
            state.written += 1
            progress.update(endpoints.model.usage.total_tokens if remote else None)
            estimate = pace.record(load_of[job.key], time.monotonic() - began) if remote else None
            if estimate is not None:
                progress.write(estimate)

        status = "failed"
        try:
            await execute(todo, context, on_record, concurrency=options.concurrency)
            status = "complete"
        except asyncio.CancelledError:
            status = "interrupted"
            raise
        finally:
            progress.close()
            writer.close()
            session.update(status=status, ended=_now(), written=state.written, wall_time_s=round(time.monotonic() - state.started, 3))
            if endpoints.model is not None:
                session["usage"] = endpoints.model.usage.as_dict()
            if endpoints.user is not None:
                session["user_usage"] = endpoints.user.usage.as_dict()
            with contextlib.suppress(OSError, ValueError):  # the records are written; totals that cannot be read are no reason to fail
                manifest["totals"] = run_totals(options.out, manifest, prices)
            with contextlib.suppress(OSError):  # the records are written; a manifest that cannot be is no reason to fail
                write_manifest(manifest_file, manifest)
        return 0
    finally:
        for client in (endpoints.model, endpoints.user):
            if client is not None:
                await client.close()


def run_model(options: RunOptions) -> int:
    """Write the model's predictions for the selected corpus to options.out; the exit status."""
    from validator.models.base import EndpointError

    _check_numbers(options)
    syntax = resolve_syntax(options.mode, options.syntax)
    endpoints = _endpoints(options)
    state = _State()
    try:
        status = asyncio.run(_session(options, endpoints, syntax, state))
    except (KeyboardInterrupt, asyncio.CancelledError):
        click.echo(f"interrupted: {state.written} record(s) written to {options.out}; run the same command again to continue", err=True)
        return 130
    except EndpointError as error:
        click.echo(
            f"error: {error}; {state.written} record(s) written to {options.out} — run the same command again to resume", err=True
        )
        return 1
    if state.out is not None and state.written:
        elapsed = time.monotonic() - state.started
        kept = f" ({state.skipped} already there)" if state.skipped else ""
        click.echo(f"wrote {state.written} prediction record(s) to {options.out}{kept} in {elapsed:.1f} s", err=True)
        if endpoints.model is not None:
            click.echo(f"model {options.model}: {endpoints.model.usage.summary()}", err=True)
        if endpoints.user is not None:
            click.echo(f"user simulator {endpoints.user.config.model}: {endpoints.user.usage.summary()}", err=True)
    return status


@click.command("run")
@click.option("--model", "model_name", required=True, help="The model under test: oracle (the ground truth), null (answers nothing), or a model name served at --base-url.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Predictions file (JSON Lines); records are appended as they complete and a re-run skips those already there.")
@click.option("--base-url", help="OpenAI-compatible API root of the model's server, e.g. http://127.0.0.1:8000/v1.")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True, help="Environment variable holding the API key (a localhost server needs none).")
@click.option("--mode", type=click.Choice(MODE_CHOICES), help="fc: APIs as `tools`, answers from tool_calls; prompt: APIs in the system prompt, answers as [Api(k=v)] text.  [default: prompt]")
@click.option("--syntax", type=click.Choice(SYNTAX_CHOICES), help="Answer syntax: python or json (prompt mode), tool_calls (fc mode).  [default: from --mode]")
@click.option("--style", type=click.Choice(STYLE_CHOICES), default="standard", show_default=True, help="System prompt style (validator/models/prompts/).")
@click.option("--temperature", type=float, default=0.0, show_default=True, help="Sampling temperature.")
@click.option("--max-tokens", type=int, default=1024, show_default=True, help="Completion token limit per request.")
@click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds per request before it is retried.")
@click.option("--max-retries", type=int, default=4, show_default=True, help="Retries of a request after 429, 5xx, timeouts, connection errors.")
@click.option("--backoff", type=float, default=1.0, show_default=True, help="Seconds before the first retry; doubles with each retry (at most 30).")
@click.option("--seed", type=int, help="Sampling seed sent with every request (for servers that honour it).")
@click.option("--concurrency", type=int, default=4, show_default=True, help="Requests (case checkpoints or whole agent episodes) in flight at once.")
@click.option("--user-model", help="Simulator model playing the user in agent scenarios (default: the scenario's scripted user).")
@click.option("--user-base-url", help="API root of the user simulator's server (default: --base-url).")
@click.option("--user-api-key-env", help="Environment variable with the user simulator's key (default: --api-key-env).")
@click.option("--max-turns", type=int, help="Model turns per agent episode (default: the scenario's max_turns, else 30).")
@click.option("--lang", type=click.Choice(LANG_CHOICES), default="all", show_default=True, help="Languages to run.")
@click.option("--category", "categories", multiple=True, metavar="PREFIX", help="Run only these categories (prefixes; repeatable).")
@click.option("--limit", type=int, help="At most N cases (by id) of each category and N scenarios of each agent category.")
@click.option("--shard", metavar="I/N", help="Run only slice I of N of the selection (deterministic; score the N files together). See docs/evaluating.md.")
@click.option("--repeats", type=int, default=1, show_default=True, help="Run every agent scenario this many times (pass^k and pass@k in the score).")
@click.option("--repeat-cases", is_flag=True, help="Repeat the case checkpoints too, not only the scenarios.")
@click.option("--prices", type=click.Path(path_type=Path), help="Price table (YAML or JSON, docs/evaluating.md): the run's cost goes into its manifest.")
@click.option("--overwrite", is_flag=True, help="Start over: delete --out and its manifest first.")
@click.option("--progress/--no-progress", default=None, help="Show a progress bar (default: when standard error is a terminal).")
@click.option("--repo", "root", type=click.Path(path_type=Path), metavar="DIR", help="Repository root (default: found from the current folder).")
def run(model_name: str, out: Path, root: Path | None, lang: str, categories: tuple[str, ...], **options: Any) -> None:
    """Run a model over every case checkpoint and agent scenario; write predictions to --out."""
    try:
        status = run_model(
            RunOptions(model=model_name, out=out, root=repo_root_of(root), langs=selected_langs(lang), categories=categories, **options)
        )
    except UserError as error:
        fail(error)
    sys.exit(status)
