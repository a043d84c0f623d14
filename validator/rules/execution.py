"""Execution rules (EXE): everything the corpus claims is executable, executed.

- parity between specs and sandbox classes (EXE001–EXE003), sandboxes that cannot load (EXE004);
- a static scan of every sandbox.py for isolation breaches and nondeterminism (EXE014, EXE016);
- every ground-truth call of every case whose APIs are runnable, and the tool results its
  dialogue records (EXE005, EXE017; ``validator.rules.execution_cases``);
- retrieval cases: every expected API is found by its reference query, and a plan's later call
  needs an earlier one (EXE018, EXE019; ``validator.retrieval_checks``);
- every scenario's reference calls (EXE006–EXE012), and the content its ``compare.ignore``
  must not drop (EXE020; ``validator.rules.execution_scenarios``);
- sandbox faults seen on the way: crashes and bad results (EXE013), isolation breaches caught
  by the audit hook (EXE014), time-outs (EXE015), placed at the line of sandbox.py at fault.

They run in the ``exec`` stage (``callbank exec``, and ``callbank validate`` after a clean check).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping
from typing import Any

from validator import matchers
from validator.corpus.records import Case, SandboxInfo, Scenario, Spec
from validator.diagnostics import Finding
from validator.retrieval_checks import check_retrieval_case
from validator.rules.execution_cases import execute_case
from validator.rules.execution_context import Execution, merge_languages, relative
from validator.rules.execution_scenarios import execute_scenario
from validator.rules.registry import rule
from validator.sandbox.runtime import function_line
from validator.sandbox.scan import ISOLATION, NONDETERMINISM


def _item_findings(item: Case | Scenario, execution: Execution, code: str) -> Iterator[Finding]:
    """The findings of code among those executing the item gives (it is executed once)."""
    if isinstance(item, Case):
        return execution.findings(item.path, code, lambda: execute_case(item, execution))
    return execution.findings(item.path, code, lambda: execute_scenario(item, execution))


def _scan_findings(sandbox: SandboxInfo, execution: Execution, kind: str) -> Iterator[Finding]:
    for breach in execution.breaches(sandbox.name):
        if breach.kind == kind:
            yield Finding(breach.message, path=sandbox.code_path, line=breach.line)


# ----------------------------------------------------------------------------- parity and loading

@rule("EXE001", "missing-implementation", "A spec names a sandbox whose class has no method for it.", on=Spec, stage="exec")
def missing_implementation(spec: Spec, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Every spec with `sandbox: X` (and no `spec_only: true`) is implemented by a public method of
    the same name in the class of `sandboxes/X/sandbox.py`.
    ## Why is this bad?
    A ground-truth call or an agent's call to this API cannot run: its answer was never executed,
    and agents get an error where the benchmark promised a working tool.
    ## Example
    `specs/phone/send_message.yaml` says `sandbox: phone`, but `PhoneSandbox` has no
    `send_message` method.
    ## Use instead
    Add `def send_message(self, receiver: str, content: str) -> dict[str, Any]: …` to the class,
    or mark the spec `spec_only: true` (and remove `sandbox`) if it is only a distractor.
    """
    runtime = execution.runtime
    if execution.corpus.specs.get(spec.name) is not spec or not spec.runnable or spec.sandbox not in runtime.classes:
        return
    if spec.name not in runtime.methods[spec.sandbox]:
        cls = runtime.classes[spec.sandbox].__name__
        yield Finding(f"{spec.name} names sandbox {spec.sandbox!r}, but {cls} has no method {spec.name}; implement it, or make the spec spec_only", "/sandbox")


@rule("EXE002", "unspecified-method", "A public sandbox method has no spec naming that sandbox.", on=SandboxInfo, stage="exec")
def unspecified_method(sandbox: SandboxInfo, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Every public method (not starting with `_`) of a sandbox class is the implementation of a
    spec of the same name whose `sandbox` is this sandbox.
    ## Why is this bad?
    A public method is an API: without a spec, models are never shown it and its arguments and
    results are never checked. Helpers that are not APIs belong in private methods.
    ## Example
    ```python
    def find_contact(self, name: str) -> dict[str, Any]:   # used by send_message, no spec
    ```
    ## Use instead
    ```python
    def _find_contact(self, name: str) -> dict[str, Any]:
    ```
    or add `specs/<domain>/find_contact.yaml` with `sandbox:` naming this sandbox.
    """
    for api, _, line in _methods(sandbox, execution):
        if _own_spec(api, sandbox, execution) is None:
            yield Finding(_unspecified(api, sandbox.name, execution.corpus.specs.get(api)), path=execution.code_path(sandbox.name), line=line)


@rule("EXE003", "signature-mismatch", "A sandbox method's parameters differ from its spec's.", on=SandboxInfo, stage="exec")
def signature_mismatch(sandbox: SandboxInfo, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    A method takes exactly the spec's parameter names as keyword parameters (no `*args` or
    `**kwargs`); a parameter has a Python default exactly when the spec does not require it, and
    that default equals the spec's `default` when the spec declares one.
    ## Why is this bad?
    Arguments are passed by name as the spec defines them: a missing or renamed parameter
    crashes valid calls, and a default that differs from the documented one makes the model
    (told the spec's default) and the sandbox disagree about calls that omit it.
    ## Example
    ```yaml
    unit: {type: string, enum: [celsius, fahrenheit], default: celsius, …}
    ```
    ```python
    def get_weather(self, city: str, unit: str = "fahrenheit") -> dict[str, Any]:
    ```
    ## Use instead
    ```python
    def get_weather(self, city: str, unit: str = "celsius") -> dict[str, Any]:
    ```
    """
    for api, function, line in _methods(sandbox, execution):
        own = _own_spec(api, sandbox, execution)
        if own is not None:
            for problem in signature_problems(function, own):
                yield Finding(f"{api}: {problem}", path=execution.code_path(sandbox.name), line=line)


@rule("EXE004", "sandbox-unloadable", "A sandbox's class or initial state cannot be loaded.", on=SandboxInfo, stage="exec")
def sandbox_unloadable(sandbox: SandboxInfo, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    `sandboxes/<name>/sandbox.py` imports without error and defines exactly one class deriving
    `validator.sandbox.base.Sandbox` with `name = "<name>"`; `state.yaml` has a clock, counters
    and data; every state patch of a case or scenario merges into it.
    ## Why is this bad?
    Nothing in the sandbox can run, so none of its ground truth can be executed.
    ## Example
    ```python
    class PhoneSandbox(Sandbox):
        name = "phones"
    ```
    ## Use instead
    ```python
    class PhoneSandbox(Sandbox):
        name = "phone"
    ```
    """
    error = execution.runtime.load_errors.get(sandbox.name)
    if error is not None:
        yield Finding(error.message, path=relative(execution.corpus.root, error.path), line=error.line)


# ----------------------------------------------------------------------------- executing items

@rule("EXE005", "ground-truth-call-fails", "A case's ground-truth call returns an error when executed.", on=Case, stage="exec")
def ground_truth_call_fails(case: Case, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Runs every call of every checkpoint of every case whose APIs are all runnable, in order, in
    one session per case and language (the sandboxes' initial states with the case's `state`
    patch and its `time` as the clock; the first alternative of each checkpoint carries the
    state forward, the others are tried on a copy). A call whose result is an error observation
    is reported.
    ## Why is this bad?
    An answer that fails when executed is a wrong answer: the model that gets it right is told
    it failed. Published benchmarks ship such answers because they never run them.
    ## Example
    ```yaml
    - expect: {calls: [{api: get_weather, args: {city: Atlantis}}]}
    ```
    with no forecast for `Atlantis` in the state (`unknown_city`).
    ## Use instead
    Fix the answer, or add what it needs to the case's `state` patch:
    ```yaml
    state: {mini: {forecasts: {Atlantis: [20, 21]}}}
    ```
    """
    return _item_findings(case, execution, "EXE005")


@rule("EXE006", "reference-call-fails", "A scenario's reference call returns an error when replayed.", on=Scenario, stage="exec")
def reference_call_fails(scenario: Scenario, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Replays a scenario's `reference_calls` on its initial state (sandbox states with the
    `initial_state` patch), in each language, and reports every call whose result is an error
    observation (a business error, invalid arguments, an API outside the scenario's sandboxes).
    ## Why is this bad?
    The reference calls define the expected end state. If one fails, the expected state is not
    what the scenario's author meant, and a competent agent is scored against a broken plan —
    a published peer's agent ground truth replays to its expected state in only 30 of 50 cases.
    ## Example
    ```yaml
    reference_calls:
      - {api: send_message, args: {receiver: Zhang Wei, content: Hi}}   # Wi-Fi is off
    ```
    ## Use instead
    ```yaml
    reference_calls:
      - {api: turn_on_wifi, args: {}}
      - {api: send_message, args: {receiver: Zhang Wei, content: Hi}}
    ```
    """
    return _item_findings(scenario, execution, "EXE006")


@rule("EXE007", "nondeterministic-replay", "Replaying the same reference calls twice gives different results.", on=Scenario, stage="exec")
def nondeterministic_replay(scenario: Scenario, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Replays every scenario's reference calls twice, each time on a fresh copy of the initial
    state, and compares the observations and end states.
    ## Why is this bad?
    Agents are scored by comparing end states. If the same calls give different states, scores
    swing between identical runs (a published peer swings 8–9 points between runs).
    ## Example
    ```python
    _SENT = [0]
    def send_note(self, to: str, text: str) -> dict[str, Any]:
        _SENT[0] += 1                     # module state survives between runs
        return {"note_id": f"N-{_SENT[0]}"}
    ```
    ## Use instead
    ```python
    def send_note(self, to: str, text: str) -> dict[str, Any]:
        return {"note_id": self.new_id("note", "N-")}   # counters live in the state
    ```
    """
    return _item_findings(scenario, execution, "EXE007")


@rule("EXE008", "do-nothing-agent-passes", "An agent that does nothing would pass the scenario.", on=Scenario, stage="exec")
def do_nothing_agent_passes(scenario: Scenario, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Runs a do-nothing agent (no calls, says nothing): its end state is the initial state. It must
    fail every scenario: the reference end state differs from the initial state under `compare`,
    or, for a `no_change: true` scenario, the agent must tell the user something (`outputs` in
    both languages).
    ## Why is this bad?
    A scenario that inaction passes measures nothing; a published peer lets do-nothing agents
    pass its refusal tasks.
    ## Example
    ```yaml
    reference_calls: [{api: get_weather, args: {city: Hangzhou}}]   # reads, changes nothing
    ```
    ## Use instead
    Make the goal change something the comparison sees, or mark a refusal task
    `no_change: true` with the facts the agent must say in `outputs: {en: […], zh: […]}`.
    """
    return _item_findings(scenario, execution, "EXE008")


@rule("EXE009", "no-change-scenario-changes-state", "A scenario marked `no_change: true` has reference calls that change the state.", on=Scenario, stage="exec")
def no_change_scenario_changes_state(scenario: Scenario, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    In a `no_change: true` scenario, replaying the reference calls leaves the state equal to the
    initial state under `compare`.
    ## Why is this bad?
    The flag says the right behaviour changes nothing, while the reference calls — the right
    behaviour — change something: one of the two is wrong, and the scenario is scored against
    the reference end state either way.
    ## Example
    ```yaml
    no_change: true
    reference_calls: [{api: send_note, args: {to: Li Lei, text: Hello}}]
    ```
    ## Use instead
    Remove `no_change: true`, or remove the changing calls from `reference_calls`.
    """
    return _item_findings(scenario, execution, "EXE009")


@rule("EXE010", "milestone-unreached", "The reference calls never reach a milestone (in its `after` order).", on=Scenario, stage="exec")
def milestone_unreached(scenario: Scenario, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Matches each milestone against the scenario's reference calls: some call must match the
    milestone's API and argument subset, later than calls reaching every milestone in its
    `after` list (the cycle-consistency check: the plan and its execution agree).
    ## Why is this bad?
    Process accuracy is matched milestones / milestones; a milestone the reference agent itself
    misses caps every agent below 1, and usually means the milestone or the calls are wrong.
    ## Example
    ```yaml
    reference_calls:
      - {api: send_note, args: {to: Li Lei, text: Rain tomorrow}}
      - {api: get_weather, args: {city: Hangzhou}}
    milestones:
      - {id: checked, api: get_weather}
      - {id: told, api: send_note, after: [checked]}
    ```
    ## Use instead
    Put the calls in the order the milestones require (check the weather, then send the note),
    or drop an `after` that is not really needed.
    """
    return _item_findings(scenario, execution, "EXE010")


@rule("EXE011", "reference-hits-minefield", "A reference call matches one of the scenario's minefields.", on=Scenario, stage="exec")
def reference_hits_minefield(scenario: Scenario, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    No reference call matches a minefield (a call pattern that must not happen).
    ## Why is this bad?
    The reference agent would fail its own scenario: either the minefield is too broad or the
    reference calls do what the scenario forbids.
    ## Example
    ```yaml
    reference_calls: [{api: send_note, args: {to: Li Lei, text: Hi, urgent: true}}]
    minefields: [{api: send_note, args: {urgent: true}}]
    ```
    ## Use instead
    Narrow the minefield to the call that is really forbidden, or fix the reference call.
    """
    return _item_findings(scenario, execution, "EXE011")


@rule("EXE012", "api-not-runnable-in-scenario", "A scenario names an API that its sandboxes cannot run, or arguments it rejects.", on=Scenario, stage="exec")
def api_not_runnable_in_scenario(scenario: Scenario, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Every API in a scenario's reference calls and milestones is implemented by one of the
    scenario's `sandboxes`; minefields and candidate `apis` name such APIs or spec-only
    distractors; milestone and minefield arguments are parameters of their API with values the
    parameter accepts.
    ## Why is this bad?
    The agent runs only in the scenario's sandboxes: a milestone no call there can reach, or a
    minefield no call can hit, checks nothing.
    ## Example
    ```yaml
    sandboxes: [phone]
    minefields: [{api: transfer_to_payee}]   # implemented by the bank sandbox
    ```
    ## Use instead
    ```yaml
    sandboxes: [phone, bank]
    minefields: [{api: transfer_to_payee}]
    ```
    """
    return _item_findings(scenario, execution, "EXE012")


@rule("EXE013", "sandbox-bug", "A sandbox method crashed, or returned a result its spec does not allow.", on=(Case, Scenario), stage="exec")
def sandbox_bug(item: Case | Scenario, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    While executing ground truth and reference calls, reports a method that raised an exception
    other than `ApiError`, raised an `ApiError` kind its spec's `errors` does not declare,
    returned something that is not JSON data or that its spec's `returns` rejects, or left
    non-JSON data in its state.
    ## Why is this bad?
    The agent is promised results in the documented shape; a crash or an undocumented result
    is a bug in the benchmark, not a mistake of the model under test.
    ## Example
    ```python
    return {"note_id": 17}        # returns says note_id is a string
    ```
    ## Use instead
    ```python
    return {"note_id": self.new_id("note", "N-")}
    ```
    """
    return _item_findings(item, execution, "EXE013")


@rule("EXE014", "sandbox-escapes-isolation", "A sandbox touches files, the network or processes, or imports a module that does.", on=(SandboxInfo, Case, Scenario), stage="exec")
def sandbox_escapes_isolation(item: SandboxInfo | Case | Scenario, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Reports a sandbox method that, while it runs, opens a file, uses a socket, starts a process,
    sleeps, or imports a module for the first time (an audit hook stops it), and a `sandbox.py`
    that imports a module for files, network, processes or threads (`os`, `pathlib`, `socket`,
    `subprocess`, `urllib`, `threading`, …) or calls `open`, `input` or `__import__`.
    ## Why is this bad?
    A sandbox is plain data in, plain data out: anything read from outside its state differs
    between machines and runs, and anything written outside it leaks between runs.
    ## Example
    ```python
    def send_note(self, to: str, text: str) -> dict[str, Any]:
        with open("notes.log", "a") as log:
            log.write(text)
    ```
    ## Use instead
    ```python
    def send_note(self, to: str, text: str) -> dict[str, Any]:
        self.data["notes"].append({"to": to, "text": text})
    ```
    """
    if isinstance(item, SandboxInfo):
        yield from _scan_findings(item, execution, ISOLATION)
    else:
        yield from _item_findings(item, execution, "EXE014")


@rule("EXE015", "call-timeout", "A sandbox method runs longer than the per-call time limit.", on=(Case, Scenario), stage="exec")
def call_timeout(item: Case | Scenario, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Every call runs under a time limit (half a second; real methods take microseconds) and is
    stopped when it runs longer.
    ## Why is this bad?
    A method that loops or searches without bound stalls every evaluation run, and its result,
    if any, depends on how long it was allowed to run.
    ## Example
    ```python
    while self.data["queue"]:       # never shrinks
        ...
    ```
    ## Use instead
    Iterate over a bounded collection, and make every loop shrink what it walks.
    """
    return _item_findings(item, execution, "EXE015")


@rule("EXE016", "nondeterminism-source", "A sandbox reads randomness, the wall clock or process-specific values.", on=SandboxInfo, stage="exec")
def nondeterminism_source(sandbox: SandboxInfo, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Scans `sandbox.py` for imports of `random`, `secrets`, `uuid` or `time`, calls of
    `datetime.now()`, `date.today()` and the like, and of `hash()` or `id()`.
    ## Why is this bad?
    None of these raise an audit event, so only reading the code finds them. Their values differ
    between runs (string hashes change with every process), so replaying the same calls gives
    different end states and agents are scored by chance.
    ## Example
    ```python
    import uuid
    order_id = str(uuid.uuid4())
    ```
    ## Use instead
    ```python
    order_id = self.new_id("order", "O-")    # and self.now() for the time
    ```
    """
    return _scan_findings(sandbox, execution, NONDETERMINISM)


@rule("EXE017", "tool-result-mismatch", "A dialogue's recorded tool result differs from what the call really returns.", on=Case, stage="exec")
def tool_result_mismatch(case: Case, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Executes each checkpoint's calls (first alternative) in the case's sandboxes and compares
    the `tool` turn that follows, result by result, with what the calls really return.
    ## Why is this bad?
    The model under test reads the recorded results as the history of the dialogue. A result
    written by hand (or computed before the sandbox or the API catalog changed) makes the
    history contradict the sandbox, and the later checkpoints test reasoning over data no
    call would ever return — the plan, the executed calls and the results must agree.
    ## Example
    ```yaml
    - expect: {calls: [{api: get_weather, args: {city: Hangzhou, days: 1}}]}
    - tool: [{api: get_weather, result: {city: Hangzhou, forecast: [{day: 1, high: 30}]}}]   # the sandbox says 24
    ```
    ## Use instead
    ```yaml
    - tool: [{api: get_weather, result: {city: Hangzhou, forecast: [{day: 1, high: 24}]}}]
    ```
    """
    return _item_findings(case, execution, "EXE017")


def _retrieval_findings(case: Case, execution: Execution, code: str) -> Iterator[Finding]:
    def compute() -> Iterator[tuple[str, Finding]]:
        found = check_retrieval_case(case, execution.runtime, execution.time_limit)
        return merge_languages((f.code, Finding(f.message, f.pointer), f.lang) for f in found)

    return execution.findings(case.path + "#retrieval", code, compute)


@rule("EXE018", "retrieval-target-unfindable", "A retrieval case expects an API that a plain search for it does not find.", on=Case, stage="exec")
def retrieval_target_unfindable(case: Case, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    For every API a `retrieval/*` case expects (in any alternative), searches the catalog with
    the first sentence of the API's description in the case's language — the query the
    reference model writes — and requires the API among the results of the default `top_k` (5).
    ## Why is this bad?
    Retrieval is scored live: a model is right only when one of its own searches returned the
    API it calls. An API that even its own description does not find can be reached only by
    guessing its name, so the case ranks luck rather than search; and the reference model, which
    must score 1.000, could not solve it.
    ## Example
    A new spec `get_weather_summary` whose description starts "Get the current weather and a
    short forecast for a city." outranks `get_current_weather` ("Current conditions in a city
    right now …") on the latter's own sentence, together with four other weather APIs.
    ## Use instead
    Make the first sentence of each description say plainly what the API does and how it
    differs from its neighbours: "Current conditions in a city right now: sky, temperature,
    feels-like temperature, humidity and wind."
    """
    return _retrieval_findings(case, execution, "EXE018")


@rule("EXE019", "plan-without-dependency", "A retrieval/plan case's calls do not depend on one another.", on=Case, stage="exec")
def plan_without_dependency(case: Case, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Runs the first alternative of a `retrieval/plan` checkpoint in the case's sandboxes and
    requires a later call that needs an earlier one: it uses a value (an id, a date, an
    address) that an earlier call's real result holds and no user turn gives, or it fails when
    run without the earlier calls.
    ## Why is this bad?
    A plan case tests finding a second API with what the first one returned (API-Bank's level
    3). Two calls that could be written from the request alone test nothing a parallel case
    does not, and they let a model skip reading results.
    ## Example
    ```yaml
    - user: Cancel booking TB-1001 and text Li Lei that I'm not coming.
    - expect: {calls: [{api: cancel_booking, args: {booking_id: TB-1001}}, {api: send_message, args: {…}}]}
    ```
    ## Use instead
    ```yaml
    - user: Cancel my flight to Chengdu on Friday and text Li Lei that I'm not coming.
    - expect: {calls: [{api: list_bookings, args: {}}, {api: cancel_booking, args: {booking_id: TB-1001}}, {api: send_message, args: {…}}]}
    ```
    (the booking id comes from `list_bookings`' result)
    """
    return _retrieval_findings(case, execution, "EXE019")


@rule("EXE020", "ignored-user-content", "A scenario's `compare.ignore` drops content the user supplied.", on=Scenario, stage="exec")
def ignored_user_content(scenario: Scenario, execution: Execution) -> Iterator[Finding]:
    """
    ## What it does
    Replays the reference calls and looks at every value an ignored path drops from the end
    state: a value the calls changed that one of them passed as a free-text argument (a string
    without `enum`, `format` or `pattern`) or a number — a title, a label, a note, an amount —
    is a finding. Timestamps and generated ids come from no argument; a sandbox's `session`
    (who is logged in, failed logins) is bookkeeping and may be ignored.
    ## Why is this bad?
    An ignored path is never compared: an agent that saves the reminder "Buy cat food" as
    "Buy milk", or transfers the wrong amount into an ignored field, passes the scenario.
    ## Example
    ```yaml
    compare: {ignore: [phone.session, "phone.reminders.*.title"]}
    ```
    ## Use instead
    Compare what the user dictated, as free text (case, punctuation and spacing aside):
    ```yaml
    compare: {ignore: [phone.session], text: ["phone.reminders.*.title"]}
    ```
    """
    return _item_findings(scenario, execution, "EXE020")


# ----------------------------------------------------------------------------- parity helpers


def _methods(sandbox: SandboxInfo, execution: Execution) -> Iterator[tuple[str, Any, int | None]]:
    """(api, function, line in sandbox.py) of every public method of a loaded sandbox class."""
    runtime = execution.runtime
    filename = runtime.files.get(sandbox.name)
    for api, function in runtime.methods.get(sandbox.name, {}).items():
        code = getattr(inspect.unwrap(function), "__code__", None)
        yield api, function, function_line(function) if code is not None and code.co_filename == filename else None


def _own_spec(api: str, sandbox: SandboxInfo, execution: Execution) -> Spec | None:
    spec = execution.corpus.specs.get(api)
    return spec if spec is not None and spec.sandbox == sandbox.name and not spec.spec_only else None


def _unspecified(api: str, sandbox: str, spec: Spec | None) -> str:
    if spec is not None and spec.spec_only:
        return f"public method {api} implements a spec marked spec_only; drop spec_only and set sandbox: {sandbox}, or make the method private (_{api})"
    if spec is not None:
        return f"public method {api} implements a spec that names sandbox {spec.sandbox!r}, not {sandbox!r}; fix the spec's sandbox or move the method"
    return f"public method {api} has no spec; add a spec with sandbox: {sandbox}, or make it private (_{api})"


def signature_problems(function: Any, spec: Spec) -> list[str]:
    """How a method's parameters differ from its spec's (names, required, defaults)."""
    properties: Mapping[str, Any] = spec.properties
    required = set(spec.parameters.get("required") or [])
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return ["its signature cannot be read"]
    params = list(signature.parameters.values())[1:]  # skip self
    problems: list[str] = []
    seen: set[str] = set()
    for param in params:
        if param.kind is param.VAR_POSITIONAL or param.kind is param.VAR_KEYWORD:
            problems.append(f"takes {'*' if param.kind is param.VAR_POSITIONAL else '**'}{param.name}; declare the spec's parameters by name")
            continue
        if param.kind is param.POSITIONAL_ONLY:
            problems.append(f"parameter {param.name!r} is positional-only; arguments are passed by name")
        seen.add(param.name)
        if param.name not in properties:
            problems.append(f"parameter {param.name!r} is not in the spec's parameters")
            continue
        has_default = param.default is not param.empty
        if param.name in required and has_default:
            problems.append(f"{param.name!r} is required by the spec but has a default; remove the default")
        elif param.name not in required and not has_default:
            problems.append(f"{param.name!r} is optional in the spec but has no default; give it one (the spec's default, or None)")
        schema = properties[param.name]
        spec_default = schema.get("default", param.empty) if isinstance(schema, dict) else param.empty
        if has_default and param.name not in required and spec_default is not param.empty and not matchers.literal_equal(spec_default, param.default):
            problems.append(f"the default of {param.name!r} is {param.default!r}, but the spec's default is {spec_default!r}")
    for name in properties:
        if name not in seen:
            problems.append(f"has no parameter {name!r}, which the spec defines")
    return problems


