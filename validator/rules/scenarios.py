"""Rules for agent scenarios and sandbox folders (what can be checked without executing)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from validator import facts, matchers
from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS
from validator.corpus.params import CompileError
from validator.corpus.records import SandboxInfo, Scenario
from validator.diagnostics import Finding, join_pointer
from validator.loading import Document
from validator.rules.registry import rule
from validator.text import has_cjk

SANDBOX_FILES = ("sandbox.py", "state.yaml", "policy.en.md", "policy.zh.md")


def _data(scenario: Scenario) -> Mapping[str, Any]:
    return scenario.data


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def scenario_calls(data: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(key, call pattern, pointer) of every reference call, milestone (each call of its
    ``one_of`` alternatives) and minefield of a scenario."""
    for key in ("reference_calls", "milestones", "minefields"):
        entries = data.get(key)
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            if not isinstance(entry, dict):
                continue
            options = entry.get("one_of") if key == "milestones" else None
            if isinstance(options, list):
                for j, option in enumerate(options):
                    for k, call in enumerate(option if isinstance(option, list) else []):
                        if isinstance(call, dict):
                            yield key, call, join_pointer(key, i, "one_of", j, k)
            else:
                yield key, entry, join_pointer(key, i)


@rule("SBX001", "milestone-order-invalid", "Milestone ids repeat, or `after` names an unknown id or forms a cycle.", on=Scenario)
def milestone_order_invalid(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Milestone ids are unique; every `after` entry names another milestone; the `after`
    relation has no cycle (it is a partial order).
    ## Why is this bad?
    A cycle or a dangling `after` makes the milestone unreachable: process accuracy can never
    reach 1 even for the reference agent.
    ## Example
    ```yaml
    - {id: m1, api: bank_login, after: [m2]}
    - {id: m2, api: transfer_funds, after: [m1]}
    ```
    ## Use instead
    ```yaml
    - {id: m1, api: bank_login}
    - {id: m2, api: transfer_funds, after: [m1]}
    ```
    """
    milestones = [m for m in _data(scenario).get("milestones") or [] if isinstance(m, dict)] if isinstance(_data(scenario).get("milestones"), list) else []
    ids: dict[str, int] = {}
    for i, milestone in enumerate(milestones):
        mid = milestone.get("id")
        if isinstance(mid, str) and mid in ids:
            yield Finding(f"milestone id {mid!r} is used twice; make ids unique", join_pointer("milestones", i, "id"))
        elif isinstance(mid, str):
            ids[mid] = i
    edges: dict[str, list[str]] = {}
    for i, milestone in enumerate(milestones):
        for j, before in enumerate(milestone.get("after") or [] if isinstance(milestone.get("after"), list) else []):
            if not isinstance(before, str):
                continue  # not an id at all: a schema violation (SCH010)
            if before not in ids:
                yield Finding(f"after names {before!r}, which is no milestone id", join_pointer("milestones", i, "after", j))
            elif before == milestone.get("id"):
                yield Finding("a milestone cannot come after itself", join_pointer("milestones", i, "after", j))
            else:
                edges.setdefault(str(milestone.get("id")), []).append(before)
    state: dict[str, int] = {}

    def cyclic(node: str) -> bool:
        state[node] = 1
        for nxt in edges.get(node, []):
            if state.get(nxt) == 1 or (state.get(nxt) is None and cyclic(nxt)):
                return True
        state[node] = 2
        return False

    for mid in ids:
        if state.get(mid) is None and cyclic(mid):
            yield Finding(f"the after relation has a cycle through {mid!r}; milestones must form a partial order", join_pointer("milestones", ids[mid], "after"))
            break


@rule("SBX002", "script-mode-mismatch", "The scripted user does not fit the scenario's mode.", on=Scenario)
def script_mode_mismatch(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    In `multi_step` scenarios the user speaks once (one script message); in `multi_turn`
    scenarios at least twice.
    ## Why is this bad?
    The mode is reported as its own category; a `multi_turn` scenario with one message
    tests multi-step planning instead.
    ## Example
    `mode: multi_turn` with `script: [Transfer 200 yuan to my savings.]`
    ## Use instead
    Use `mode: multi_step`, or add the user's follow-up message.
    """
    data = _data(scenario)
    mode = data.get("mode")
    user = _mapping(data.get("user"))
    for lang in LANGS:
        side = user.get(lang)
        script = side.get("script") if isinstance(side, dict) else None
        if not isinstance(script, list):
            continue
        if mode == "multi_step" and len(script) != 1:
            yield Finding(f"a multi_step scenario has exactly one user message; this {lang} script has {len(script)}", join_pointer("user", lang, "script"))
        elif mode == "multi_turn" and len(script) < 2:
            yield Finding(f"a multi_turn scenario has at least two user messages; this {lang} script has {len(script)}", join_pointer("user", lang, "script"))


@rule("SBX003", "no-change-without-outputs", "A no-change scenario does not say what the agent must tell the user.", on=Scenario)
def no_change_without_outputs(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    A scenario marked `no_change: true` (the right behaviour leaves the state as it is: a
    refusal, a question back) lists the facts the agent must tell the user in `outputs`.
    ## Why is this bad?
    The end state of a do-nothing agent equals the expected one and it hits no minefield, so
    only required outputs can fail it — a published peer lets do-nothing agents pass its
    refusal tasks.
    ## Example
    ```yaml
    no_change: true
    minefields: [{api: transfer_to_payee}]
    ```
    ## Use instead
    ```yaml
    no_change: true
    minefields: [{api: transfer_to_payee}]
    outputs:
      - {number: 5000, unit: CNY, about: {en: [left, remaining], zh: [剩余, 还剩]}}
    ```
    """
    data = _data(scenario)
    if data.get("no_change") is not True:
        return
    outputs = data.get("outputs")
    if not isinstance(outputs, list) or not outputs:
        yield Finding("a no_change scenario needs outputs (the facts the agent must tell the user), or a do-nothing agent passes it", "/no_change")


@rule("SBX004", "invalid-scenario-call", "A reference call, milestone or minefield has arguments its API rejects.", on="document", kinds=("scenario",))
def invalid_scenario_call(document: Document, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Arguments of reference calls, milestones and minefields are parameters of their API with
    values valid for them (through matchers and both `$lang` sides); reference calls give
    every required parameter; the matchers of `compare.match` are well formed.
    ## Why is this bad?
    A milestone no valid call can match, or a minefield no valid call can hit, checks nothing.
    ## Example
    ```yaml
    milestones: [{id: m1, api: transfer_funds, args: {amount: -50}}]
    ```
    ## Use instead
    ```yaml
    milestones: [{id: m1, api: transfer_funds, args: {amount: 50}}]
    ```
    """
    # a malformed compare.match matcher breaks the schema, so this rule reads the document as written
    data = document.data if isinstance(document.data, Mapping) else {}
    for key, entry, base in scenario_calls(data):
        if not isinstance(entry.get("api"), str):
            continue
        api = entry["api"]
        spec = corpus.specs.get(api)
        args = _mapping(entry.get("args"))
        if spec is None:
            continue
        properties, required = spec.properties, spec.required
        for name, value in args.items():
            if name not in properties:
                yield Finding(f"{api} has no parameter {name!r}", base + join_pointer("args", name))
                continue
            validator = corpus.validators.parameter(api, name)
            if list(matchers.problems(value, allow_lang=True)) or validator is None or isinstance(validator, CompileError):
                continue  # DLG013 reports malformed matchers, SPC008 schemas that cannot check values
            for concrete in matchers.concrete_values(value):
                errors = validator.messages(concrete)
                if errors:
                    yield Finding(f"{name}={concrete!r} is not valid for {api}: {errors[0]}", base + join_pointer("args", name))
                    break
        if key == "reference_calls":
            for name in required:
                if name not in args:
                    yield Finding(f"{api} requires {name!r}, which this reference call does not give", base + "/args")
    compare = data.get("compare")
    matched = compare.get("match") if isinstance(compare, dict) else None
    for path, value in matched.items() if isinstance(matched, dict) else ():
        for problem, pointer in matchers.problems(value, allow_lang=True):
            yield Finding(f"compare.match {path}: {problem}", join_pointer("compare", "match", path) + pointer)


@rule("SBX005", "incomplete-sandbox", "A sandbox folder lacks one of its fixed files.", on=SandboxInfo)
def incomplete_sandbox(sandbox: SandboxInfo, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every folder under `sandboxes/` holds `sandbox.py`, `state.yaml`, `policy.en.md` and
    `policy.zh.md` (and optionally `scenarios/`); both policies are non-empty, the Chinese
    one written in Chinese. A one-language repository (`callbank.yaml`) needs only the policy
    of its language.
    ## Why is this bad?
    The agent is told the policy in its language, and the sandbox cannot run without its
    class and state.
    ## Example
    `sandboxes/bank/` with no `policy.zh.md`.
    ## Use instead
    Add the missing file.
    """
    name = sandbox.name
    folder = corpus.root / sandbox.folder
    files = [file for file in SANDBOX_FILES if not file.startswith("policy.") or file.split(".")[1] in corpus.langs]
    for file in files:
        path = folder / file
        if not path.is_file():
            yield Finding(f"sandboxes/{name}/ has no {file}; every sandbox has {', '.join(files)}", path=f"sandboxes/{name}/{file}")
        elif file.startswith("policy") and not path.read_text(encoding="utf-8", errors="replace").strip():
            yield Finding(f"{file} is empty; write the rules the agent is told", path=f"sandboxes/{name}/{file}")


# ----------------------------------------------------------------------------- output facts


def _facts(data: Mapping[str, Any]) -> Iterator[tuple[Any, str]]:
    """(fact, pointer) of every output fact and every fact a milestone's confirmation lists."""
    outputs = data.get("outputs")
    for i, fact in enumerate(outputs if isinstance(outputs, list) else []):
        yield fact, join_pointer("outputs", i)
    milestones = data.get("milestones")
    for i, milestone in enumerate(milestones if isinstance(milestones, list) else []):
        confirmed = milestone.get("confirmed") if isinstance(milestone, dict) else None
        for j, fact in enumerate(confirmed if isinstance(confirmed, list) else []):
            yield fact, join_pointer("milestones", i, "confirmed", j)


def _readable(data: Any) -> facts.Fact | None:
    try:
        return facts.read_fact(data)
    except facts.FactError:
        return None


@rule("SBX006", "sentence-fact", "An output fact is a sentence the agent would have to repeat, not a short fact.", on=Scenario)
def sentence_fact(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every `phrase` alternative and every `about` word of an output fact (and of a milestone's
    `confirmed` facts) is at most four English words or eight Chinese characters.
    ## Why is this bad?
    A phrase must appear in what the agent said; a sentence appears only when the agent says
    it word for word, so a correct paraphrase ("the loan was refused: your credit score is too
    low") is scored wrong and strong models are separated by luck.
    ## Example
    ```yaml
    outputs:
      - {phrase: {en: [The loan cannot be granted because the credit score is too low], zh: [由于信用评分不足，无法办理这笔贷款]}}
    ```
    ## Use instead
    Keep the key words, each with the alternatives any correct paraphrase contains:
    ```yaml
    outputs:
      - {phrase: {en: [credit score, credit rating], zh: [信用评分, 信用分]}}
      - {phrase: {en: [not eligible, declined, cannot, rejected], zh: [不符合, 无法, 不能, 拒绝]}}
    ```
    """
    for data, pointer in _facts(_data(scenario)):
        fact = _readable(data)
        if fact is None:
            continue
        for lang, words, below in facts.phrases(fact):
            size = _size(words, lang)
            if size is not None:
                yield Finding(f"{words!r} is {size}; a fact's words are at most {MAX_EN_WORDS} English words or {MAX_ZH_CHARS} Chinese characters", pointer + below)


MAX_EN_WORDS = 4
MAX_ZH_CHARS = 8


def _size(words: str, lang: str) -> str | None:
    """How long words are, when too long for a fact (None when short enough)."""
    if lang == "en":
        count = len(words.split())
        return f"{count} words" if count > MAX_EN_WORDS else None
    chars = sum(1 for c in words if has_cjk(c))
    latin = len([w for w in "".join(c if c.isascii() else " " for c in words).split() if w.strip(".,;:!?")])
    return f"{chars} Chinese characters" if chars > MAX_ZH_CHARS else f"{latin} English words" if latin > MAX_EN_WORDS else None


@rule("SBX007", "outcome-not-required", "A scenario that changes the state requires no words about the outcome from the agent.", on=Scenario)
def outcome_not_required(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    A scenario whose reference calls change the state (not `no_change`) has an output fact
    with words: a `phrase`, or a number, code, time or date with `about` words, so that what
    the agent says about the outcome is checked, not only its figures.
    ## Why is this bad?
    Facts made only of numbers and codes are satisfied by an agent that does the work and then
    tells the user "Sorry, I could NOT do any of that. 1260 CNY BK-2001".
    ## Example
    ```yaml
    outputs: [{number: 1260, unit: CNY}, {code: BK-2001}]
    ```
    ## Use instead
    ```yaml
    outputs:
      - {number: 1260, unit: CNY, about: {en: [paid, charged], zh: [支付, 付款, 扣款]}}
      - {code: BK-2001}
    ```
    """
    data = _data(scenario)
    if data.get("no_change") is True:
        return
    outputs = data.get("outputs")
    read = [_readable(fact) for fact in outputs] if isinstance(outputs, list) else []
    if any(fact is None for fact in read):
        return  # SBX009 and the schema report facts that cannot be read
    if not any(facts.has_words(fact) for fact in read if fact is not None):
        yield Finding(
            "no output fact says what happened; add a phrase (booked, 已取消 …) or about words to a number or code", "/outputs" if outputs else ""
        )


@rule("SBX008", "unanswerable-confirmation", "A milestone needs the user's confirmation, but the scripted user speaks only once.", on=Scenario)
def unanswerable_confirmation(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    A milestone marked `confirmed` (the agent must ask and the user answer before the call)
    belongs to a `multi_turn` scenario, whose user can answer a question.
    ## Why is this bad?
    In a `multi_step` scenario the user speaks once: no agent can get a confirmation, so the
    milestone is unreachable even for the reference agent. When the policy lets a request that
    names everything count as the agreement, the milestone needs no `confirmed`.
    ## Example
    ```yaml
    mode: multi_step
    milestones: [{id: pay, api: pay_booking, confirmed: true}]
    ```
    ## Use instead
    Drop `confirmed`, or make the scenario `multi_turn` with a script line that answers the
    agent's question ("If it's under 500 yuan, yes, book it.").
    """
    data = _data(scenario)
    if data.get("mode") != "multi_step":
        return
    milestones = data.get("milestones")
    for i, milestone in enumerate(milestones if isinstance(milestones, list) else []):
        if isinstance(milestone, dict) and milestone.get("confirmed"):
            yield Finding("the user of a multi_step scenario speaks once and cannot confirm; drop confirmed or make the scenario multi_turn", join_pointer("milestones", i, "confirmed"))


@rule("SBX009", "invalid-fact", "An output fact names a unit the matcher does not know or a date that does not exist.", on=Scenario)
def invalid_fact(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    An output fact's `unit` is one of the units the scorer understands (CNY, GBP, USD, km,
    night, seat, star, percent … listed in `docs/scoring.md`) or the fact's own words
    `{en: [...], zh: [...]}`; a `date` is a real calendar date.
    ## Why is this bad?
    A unit the scorer does not know, or a date no text can mention, makes the fact impossible
    to tell: every agent fails the scenario.
    ## Example
    ```yaml
    outputs: [{number: 3, unit: tickets}, {date: "2025-02-30"}]
    ```
    ## Use instead
    ```yaml
    outputs: [{number: 3, unit: ticket}, {date: "2025-02-28"}]
    ```
    """
    for data, pointer in _facts(_data(scenario)):
        for message, below in facts.fact_problems(data, langs=corpus.langs):
            if "unit" in message or "calendar date" in message:
                yield Finding(message, pointer + below)


@rule("SBX010", "untellable-phrase", "A phrase of an output fact is not told even by its own words.", on=Scenario)
def untellable_phrase(scenario: Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reads every `phrase` alternative of an output fact (and of a milestone's `confirmed` facts)
    as if the agent had said exactly those words, and reports an alternative that does not
    tell its own fact.
    ## Why is this bad?
    The scorer reads an answer clause by clause: a comma, colon, full stop, `!`, `?`, `;` or
    `。` inside the words (other than in a number or a clock time, `No.` or `Dr.`) splits
    them, so `booked, thanks` is never found in any answer, even one that repeats it. The
    alternative only looks like it widens the key; when every alternative is like that, every
    agent fails the scenario.
    ## Example
    ```yaml
    outputs:
      - {phrase: {en: ["booked, table for two"], zh: [订好了，两位]}}
    ```
    ## Use instead
    Short words without clause marks, each its own alternative or fact:
    ```yaml
    outputs:
      - {phrase: {en: [booked, reserved], zh: [订好了, 已预订]}}
      - {number: 2, unit: person}
    ```
    """
    for data, pointer in _facts(_data(scenario)):
        fact = _readable(data)
        if fact is None:
            continue
        for lang, words, below in facts.phrases(fact):
            if "/phrase/" not in below:
                continue  # about words are read beside their number, code, time or date
            if not facts.told(facts.PhraseFact({lang: (words,)}), facts.analyse(words, None), lang):
                yield Finding(
                    f"{words!r} is never found in an answer, even one that says exactly that: a clause mark (, ; : . ! ? 。) inside the words splits them; "
                    "drop it, or split the words into alternatives or facts of their own",
                    pointer + below,
                )
