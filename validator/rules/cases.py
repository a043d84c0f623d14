"""Rules for cases: bilingual parity, ground truth valid for its API, category and special rules."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from validator import matchers
from validator.corpus.index import Corpus
from validator.corpus.langs import LANGS, other
from validator.corpus.params import CompileError
from validator.corpus.records import Call, CalledTurn, Case, Checkpoint, Dialogue, Scenario, Spec, ToolTurn
from validator.diagnostics import Finding, join_pointer
from validator.loading import Document
from validator.rules.registry import rule
from validator.rules.scenarios import scenario_calls
from validator.text import cjk_outside_quotes, has_cjk
from validator.toolsearch import SEARCH_API

ATOM_TYPES = {
    "normal/atom/bool": ("boolean",),
    "normal/atom/number": ("integer", "number"),
    "normal/atom/list": ("array",),
    "normal/atom/object": ("object",),
}


def _data(document: Document) -> dict[str, Any]:
    return document.data if isinstance(document.data, dict) else {}


# ----------------------------------------------------------------------------- language


@rule("DLG001", "missing-translation", "One language of a bilingual field is missing.", on="document", kinds=("case", "scenario"))
def missing_translation(document: Document, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    A case has a side in each of the repository's languages (both `en` and `zh` unless
    `callbank.yaml` names one); so do a profile and a scenario's `user` (the words of a
    scenario's output facts are required in each by its schema).
    ## Why is this bad?
    callbank's two languages are parallel: every case is scored in both. A case with one side
    silently shrinks the other language's track.
    ## Example
    ```yaml
    en: {turns: [{user: What's the weather in Paris?}, {expect: …}]}
    ```
    ## Use instead
    Add the `zh` side with the same turns and answers:
    ```yaml
    zh: {turns: [{user: 巴黎天气怎么样？}, {expect: …}]}
    ```
    """
    # a missing side breaks the schema, so this rule reads the document as written
    data = _data(document)
    places = [("", data)] if document.kind == "case" else []
    if isinstance(data.get("profile"), dict):
        places.append(("/profile", data["profile"]))
    if document.kind == "scenario" and isinstance(data.get("user"), dict):
        places.append(("/user", data["user"]))
    for pointer, mapping in places:
        for lang in corpus.langs:
            if lang not in mapping:
                where = pointer[1:] or "the case"
                need = "both languages are required and parallel" if corpus.config.parallel else f"this repository's cases are in {lang}"
                yield Finding(f"{where} has no {lang!r} side; add it ({need})", pointer + "/" + lang)


def _texts(item: Case | Scenario) -> Iterator[tuple[str, str, str]]:
    """(lang, text, pointer) of every natural-language string the case or scenario holds."""
    if isinstance(item, Case):
        for dialogue in item.dialogues.values():
            for turn in dialogue.turns:
                if turn.kind in ("user", "assistant"):
                    yield dialogue.lang, turn.text, join_pointer(dialogue.lang, "turns", turn.index, turn.kind)  # type: ignore[union-attr]
        if item.profile is not None:
            for lang, text in item.profile.items():
                yield lang, text, join_pointer("profile", lang)
        return
    for lang, side in item.user.items():
        yield lang, side.goal, join_pointer("user", lang, "goal")
        for field in ("known", "unknown", "script"):
            for j, text in enumerate(getattr(side, field)):
                yield lang, text, join_pointer("user", lang, field, j)
    outputs = item.outputs
    for j, fact in enumerate(outputs if isinstance(outputs, list) else []):
        yield from _fact_words(fact, join_pointer("outputs", j))


def _fact_words(fact: Any, pointer: str) -> Iterator[tuple[str, str, str]]:
    """(lang, alternatives joined, pointer) of a fact's phrase and about words: the zh side must
    have some Chinese among its alternatives ("Wi-Fi" may be one), the en side none."""
    if not isinstance(fact, dict):
        return
    for key in ("phrase", "about", "unit"):
        words = fact.get(key)
        if isinstance(words, dict):
            for lang in LANGS:
                if isinstance(words.get(lang), list) and all(isinstance(w, str) for w in words[lang]):
                    yield lang, "、".join(words[lang]) if lang == "zh" else " / ".join(words[lang]), pointer + join_pointer(key, lang)
    options = fact.get("any")
    for j, option in enumerate(options if isinstance(options, list) else []):
        yield from _fact_words(option, pointer + join_pointer("any", j))


@rule("DLG002", "wrong-language", "Text on the zh side has no Chinese, or the en side has Chinese.", on=(Case, Scenario))
def wrong_language(item: Case | Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every user and assistant turn, profile, goal, script line and output on the `zh` side
    contains Chinese characters; on the `en` side none appear outside quotation marks
    (a quoted Chinese proper noun is fine).
    ## Why is this bad?
    A "Chinese" case written in English (or the reverse) measures the wrong language, and
    copy-paste mistakes of this kind are easy to miss in review.
    ## Example
    ```yaml
    zh: {turns: [{user: Book a table for four.}, …]}
    ```
    ## Use instead
    ```yaml
    zh: {turns: [{user: 帮我订一张四人桌。}, …]}
    ```
    """
    for lang, text, pointer in _texts(item):
        if lang == "zh" and not has_cjk(text):
            yield Finding("this zh text contains no Chinese; write it in Chinese", pointer)
        elif lang == "en" and cjk_outside_quotes(text):
            yield Finding("this en text contains Chinese; translate it, or quote a Chinese proper noun", pointer)


@rule("DLG003", "turn-structure-mismatch", "The en and zh dialogues differ in their turn sequence.", on=(Case, Scenario))
def turn_structure_mismatch(item: Case | Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Both languages have the same kinds of turns in the same order (so the same checkpoints);
    a scenario's scripts have as many messages, and its outputs as many facts, in both.
    ## Why is this bad?
    The two languages must test the same thing; a checkpoint present in one language only
    makes them incomparable.
    ## Example
    `en` turns `user, expect, tool, user, expect` and `zh` turns `user, expect`.
    ## Use instead
    Give `zh` the same five turns.
    """
    if not corpus.config.parallel:
        return  # a one-language repository has nothing to compare
    if isinstance(item, Case):
        en, zh = list(item.dialogues["en"].kinds), list(item.dialogues["zh"].kinds)
        if en != zh:
            at = next((i for i, (a, b) in enumerate(zip(en, zh, strict=False)) if a != b), min(len(en), len(zh)))
            yield Finding(
                f"turn {at}: en has {' → '.join(en)} but zh has {' → '.join(zh)}; both languages need the same turns in the same order",
                join_pointer("zh", "turns", min(at, max(len(zh) - 1, 0))),
            )
        return
    scripts = [item.user[lang].script for lang in ("en", "zh")]
    if len(scripts[0]) != len(scripts[1]):
        yield Finding(f"the en script has {len(scripts[0])} messages and the zh script {len(scripts[1])}; make them parallel", "/user/zh/script")
    outputs = item.outputs
    if isinstance(outputs, dict) and all(isinstance(outputs.get(lang), list) for lang in LANGS) and len(outputs["en"]) != len(outputs["zh"]):
        yield Finding("en and zh outputs list a different number of facts; make them parallel", "/outputs/zh")


def _answer_shape(checkpoint: Checkpoint) -> Any:
    special = checkpoint.special
    if special is not None:
        shape: tuple[Any, ...] = (special.kind, special.api)
        if special.kind == "incomplete":
            shape += (tuple(sorted(special.missing)),)
        if special.kind == "error_param":
            shape += (tuple(sorted(special.params)),)
        return shape
    return [sorted((c.api, tuple(sorted(c.args))) for c in alternative.calls) for alternative in checkpoint.alternatives]


@rule("DLG004", "answer-parity-mismatch", "A checkpoint's answer differs between en and zh beyond string values.", on=Case)
def answer_parity_mismatch(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    At every checkpoint both languages expect the same special kind, or the same alternatives
    with the same APIs and the same argument names; only language-dependent values differ.
    ## Why is this bad?
    A published peer's Chinese and English sets are unrelated; callbank's are parallel so
    the two languages can be compared case by case.
    ## Example
    en expects `get_weather(city, date)`, zh expects `get_weather(city)`.
    ## Use instead
    Give both languages the same call with the same argument names.
    """
    # a checkpoint only one language has is DLG003's finding; the shared ones are compared here
    if not corpus.config.parallel:
        return
    for a, b in zip(case.dialogues["en"].checkpoints, case.dialogues["zh"].checkpoints, strict=False):
        if _answer_shape(a) != _answer_shape(b):
            yield Finding(
                "this checkpoint's answer differs from the en one (APIs, argument names, or special kind); "
                "only language-dependent values may differ",
                b.expect_pointer,
            )


@rule("DLG005", "dialogue-flow", "A dialogue has no checkpoint, or a checkpoint or tool turn is out of place.", on=Case)
def dialogue_flow(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Each language side has at least one `expect` checkpoint; the first turn is the user's;
    a `tool` turn follows a checkpoint that expects calls (one result per call of its first
    alternative) or a `called` history turn (one result per call), naming the same APIs in
    order; the dialogue ends with a checkpoint.
    ## Why is this bad?
    The model is asked at each checkpoint given the dialogue so far; results that do not
    correspond to the calls before them make the history inconsistent.
    ## Example
    ```yaml
    - expect: {calls: [{api: get_weather, args: {city: Oslo}}]}
    - tool: [{api: get_forecast, result: {…}}]
    ```
    ## Use instead
    ```yaml
    - tool: [{api: get_weather, result: {…}}]
    ```
    """
    for dialogue in case.dialogues.values():
        kinds = dialogue.kinds
        base = dialogue.pointer
        if not dialogue.checkpoints:
            yield Finding(f"the {dialogue.lang} dialogue has no expect checkpoint; add the answer the model must give", base)
            continue
        if kinds[0] != "user":
            yield Finding("a dialogue starts with the user speaking", base + "/0")
        if kinds[-1] != "expect":
            yield Finding("the dialogue ends after its last checkpoint; remove the trailing turns or add a checkpoint", base + join_pointer(len(kinds) - 1))
        for i, turn in enumerate(dialogue.turns):
            if not isinstance(turn, ToolTurn):
                continue
            previous = dialogue.turns[i - 1] if i > 0 else None
            if isinstance(previous, CalledTurn):
                expected, before = [c.api for c in previous.calls], "the history calls before"
            elif isinstance(previous, Checkpoint) and previous.alternatives:
                expected, before = [c.api for c in previous.first], "the checkpoint before calls"
            else:
                yield Finding("a tool turn must directly follow a checkpoint that expects calls, or a called turn", turn.pointer)
                continue
            got = [r.api for r in turn.results]
            if expected != got:
                yield Finding(
                    f"tool results name {got} but {before} {expected}; give one result per call, in order",
                    turn.pointer + "/tool",
                )


@rule("DLG006", "case-without-clock", "A case that offers a runnable API has no full `time`.", on=Case)
def case_without_clock(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    A case whose candidate APIs include one that a sandbox runs has a `time` with a time of day
    and a UTC offset (`2024-06-11T16:00:00+08:00`). A case offering only spec-only APIs (an
    imported repository's) may give a date alone (`2024-06-11`) or no `time`; so may a retrieval
    case whose answers call only spec-only APIs (its tool search reads no clock).
    ## Why is this bad?
    `time` is the clock its calls run on when `callbank exec` executes the ground truth, and the
    "now" the model resolves "tomorrow" against: without it the execution takes the sandbox's own
    clock, and the dialogue and the results disagree about what day it is.
    ## Example
    ```yaml
    apis: [set_alarm]        # runnable in the phone sandbox
    time: "2025-03-14"
    ```
    ## Use instead
    ```yaml
    time: "2025-03-14T21:40:00+08:00"
    ```
    """
    # a retrieval case runs the APIs its searches find, not the search alone (whose index reads no
    # clock): what needs the clock is what its answers call
    offered = list(case.apis)
    if case.category.startswith("retrieval/"):
        offered = [api for api in offered if api != SEARCH_API] + list(dict.fromkeys(call.api for _, _, _, call in case.calls()))
    runnable = [api for api in offered if (spec := corpus.specs.get(api)) is not None and spec.runnable]
    if not runnable:
        return
    if case.time is None:
        yield Finding(f"the case offers {runnable[0]}, which a sandbox runs: give it a time (the clock its calls run on), e.g. 2025-03-14T21:40:00+08:00", "")
    elif "T" not in case.time:
        yield Finding(f"time {case.time!r} is a date alone; {runnable[0]} runs in a sandbox, whose clock needs a time of day and a UTC offset", "/time")


@rule("DLG015", "invalid-history-call", "A history call names an API the case does not offer, or arguments its API rejects.", on=Case)
def invalid_history_call(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every call of a `called` history turn names one of the case's candidate `apis` (in a
    retrieval case, any API of the repository: the search found it) and passes
    literal arguments its spec accepts: no unknown parameter, every required one, each value
    valid for its schema (the checks DLG010–DLG012 make of answers).
    ## Why is this bad?
    The model is shown history calls as what the assistant already did. A call to an API it was
    never offered, or with arguments the API rejects, is a history that cannot have happened,
    and a model that learns from it is misled. An imported peer's earlier calls break their own
    specs this way.
    ## Example
    ```yaml
    - called: [{api: get_weather, args: {city: Paris, unit: kelvin}}]   # unit: celsius | fahrenheit
    ```
    ## Use instead
    ```yaml
    - called: [{api: get_weather, args: {city: Paris, unit: celsius}}]
    ```
    """
    # a retrieval case offers only the tool search: its earlier calls are to APIs a search found
    searched = case.category.startswith("retrieval/")
    for _, call in case.history_calls():
        if call.api in corpus.specs and call.api not in case.apis and not searched:
            yield Finding(f"{call.api!r} is not among the case's candidate apis; the model could not have called it", call.pointer + "/api")
            continue
        if _contains_matcher(dict(call.args)):
            yield Finding("a history call shows what was called: write literal values, not matchers", call.pointer + "/args")
            continue
        for _, finding in _arg_findings(corpus, call):
            yield finding


# ----------------------------------------------------------------------------- ground truth


def _arg_findings(corpus: Corpus, call: Call) -> Iterator[tuple[str, Finding]]:
    """(code, finding) for unknown, missing and invalid arguments of one call."""
    spec = corpus.specs.get(call.api)
    if spec is None:
        return
    properties, required = spec.properties, spec.required
    for name, value in call.args.items():
        here = call.arg_pointer(name)
        if name not in properties:
            known = ", ".join(sorted(properties)) or "none"
            yield "DLG011", Finding(f"{call.api} has no parameter {name!r}; its parameters are: {known}", here, allowed=tuple(sorted(properties)))
            continue
        unknown = list(nested_unknown_keys(value, properties[name], here, name))
        for path, pointer, known_keys in unknown:
            yield "DLG011", Finding(f"{call.api}: unknown key {path!r}; the object there has: {', '.join(known_keys) or 'no keys'}", pointer, allowed=tuple(known_keys))
        if unknown:
            continue  # the value's other problems are easier to read once the keys are right
        has_matcher = _contains_matcher(value)
        if has_matcher and next(matchers.problems(value), None) is not None:
            continue  # reported by DLG013
        if name in required and matchers.is_omittable(value):
            yield "DLG014", Finding(f"{name!r} is required by {call.api}, so it cannot be $optional", here)
            continue
        validator = corpus.validators.parameter(call.api, name)
        if validator is None or isinstance(validator, CompileError):
            continue  # SPC008 reports a schema that cannot check values
        for concrete in matchers.concrete_values(value) if has_matcher else (value,):
            errors = validator.problems(concrete)
            if errors:
                yield "DLG010", Finding(f"{name}={_show(concrete)} is not valid for {call.api}: {errors[0].message}", here, allowed=errors[0].allowed)
                break
            if name in required and concrete in ("", [], {}) and not _allows_empty(properties[name]):
                yield "DLG010", Finding(f"{name}={_show(concrete)} is empty, but {call.api} needs content for it", here)
                break
    for name in required:
        if name not in call.args:
            yield "DLG012", Finding(f"{call.api} requires {name!r}, which this call does not give", call.pointer + "/args")


def nested_unknown_keys(value: Any, schema: Any, pointer: str, path: str) -> Iterator[tuple[str, str, list[str]]]:
    """(dotted path, pointer, known keys) of every key of a literal object inside value that its
    schema's ``properties`` do not declare, at any depth (through matchers and list items).
    Objects whose schema declares no ``properties`` are free-form and not looked into."""
    for tokens, steps, known in _unknown_keys(value, schema, (), ()):
        yield path + "".join(steps), pointer + join_pointer(*tokens), known


def _unknown_keys(value: Any, schema: Any, tokens: tuple[str | int, ...], steps: tuple[str, ...]) -> Iterator[tuple[tuple[str | int, ...], tuple[str, ...], list[str]]]:
    # pointer tokens and path steps travel as tuples and are joined only for a finding (most
    # values have none, and this runs over every argument of the corpus)
    if not isinstance(schema, Mapping) or not isinstance(value, list | dict):
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield from _unknown_keys(item, schema.get("items"), (*tokens, i), (*steps, f"[{i}]"))
        return
    if matchers.is_matcher(value):
        kind = matchers.matcher_kind(value)
        body = value.get(kind) if kind else None
        if kind in ("$any", "$unordered") and isinstance(body, list):
            for i, option in enumerate(body):
                item_schema = schema.get("items") if kind == "$unordered" else schema
                yield from _unknown_keys(option, item_schema, (*tokens, kind, i), steps)
        elif kind in ("$optional", "$literal"):
            yield from _unknown_keys(body, schema, (*tokens, kind), steps)
        elif kind == "$lang" and isinstance(body, dict):
            for lang, option in body.items():
                yield from _unknown_keys(option, schema, (*tokens, kind, lang), steps)
        return
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return
    for key, item in value.items():
        if key not in properties:
            yield (*tokens, key), (*steps, f".{key}"), sorted(properties)
        else:
            yield from _unknown_keys(item, properties[key], (*tokens, key), (*steps, f".{key}"))


def _allows_empty(schema: Any) -> bool:
    return isinstance(schema, dict) and (schema.get("minLength") == 0 or schema.get("minItems") == 0 or schema.get("minProperties") == 0)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


# DLG010, DLG011, DLG012 and DLG014 each report their share of one walk over a case's calls;
# the rules of a case run one after the other, so the last case's walk is kept for the next.
_LAST_WALK: tuple[Case, Corpus, int, tuple[tuple[str, Finding], ...]] | None = None


def _case_arg_findings(case: Case, corpus: Corpus, code: str) -> Iterator[Finding]:
    global _LAST_WALK  # noqa: PLW0603  (a one-entry cache, see above)
    last = _LAST_WALK
    if last is None or last[0] is not case or last[1] is not corpus or last[2] != len(corpus.specs):
        last = _LAST_WALK = (case, corpus, len(corpus.specs), tuple(found for _, _, _, call in case.calls() for found in _arg_findings(corpus, call)))
    return (finding for found_code, finding in last[3] if found_code == code)


@rule("DLG010", "invalid-argument-value", "A ground-truth argument value breaks its parameter's schema.", on=Case)
def invalid_argument_value(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Validates every ground-truth argument against its parameter schema: type, enum, pattern,
    minimum / maximum, lengths, formats, nested objects; through matchers too (every `$any`
    branch, the `$text` string, the `$regex` example). A required parameter may not be empty
    unless its schema allows it. The validator is the sandbox runtime's, so a value this rule
    accepts is a value a sandbox call accepts.
    ## Why is this bad?
    A published peer's answers break their own enums, patterns and ranges: a model that obeys
    the API schema is scored wrong.
    ## Example
    ```yaml
    args: {unit: kelvin}        # enum: [celsius, fahrenheit]
    ```
    ## Use instead
    ```yaml
    args: {unit: celsius}
    ```
    """
    return _case_arg_findings(case, corpus, "DLG010")


@rule("DLG011", "unknown-argument", "A ground-truth call passes a parameter (or an object key) its API does not have.", on=Case)
def unknown_argument(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every argument name in an answer is a parameter of the called API, and every key of an
    object value (at any depth, inside matchers and lists too) is a property its schema
    declares, wherever that schema lists `properties`.
    ## Why is this bad?
    No model can produce a parameter the API does not declare; the case is unanswerable. A
    nested key the schema does not know is the same mistake one level down.
    ## Example
    ```yaml
    {api: get_weather, args: {city: Lyon, country: France}}   # get_weather has no country
    {api: book_hotel, args: {guest: {name: Li Lei, age: 30}}}  # guest declares name and phone
    ```
    ## Use instead
    ```yaml
    {api: get_weather, args: {city: Lyon}}
    {api: book_hotel, args: {guest: {name: Li Lei}}}
    ```
    """
    return _case_arg_findings(case, corpus, "DLG011")


@rule("DLG012", "missing-required-argument", "A ground-truth call omits a required parameter.", on=Case)
def missing_required_argument(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every required parameter of the called API appears in each ground-truth call.
    ## Why is this bad?
    A call without a required parameter fails when executed; it cannot be the right answer.
    ## Example
    ```yaml
    {api: send_message, args: {receiver: Wang Fang}}   # content is required
    ```
    ## Use instead
    ```yaml
    {api: send_message, args: {receiver: Wang Fang, content: On my way}}
    ```
    """
    return _case_arg_findings(case, corpus, "DLG012")


_PLACEMENT = ("$optional only", "$lang is only")


def _raw_argument_values(document: Document) -> Iterator[tuple[str, Any, bool]]:
    """(pointer, value, $lang allowed) of every argument value, read from the document as
    written: a malformed matcher breaks the schema, so there is no record to read it from."""
    data = _data(document)
    if document.kind == "case":
        for lang in LANGS:
            side = data.get(lang)
            turns = side.get("turns") if isinstance(side, dict) else None
            for index, turn in enumerate(turns if isinstance(turns, list) else []):
                answer = turn.get("expect") if isinstance(turn, dict) and len(turn) == 1 else None
                if not isinstance(answer, dict):
                    continue
                base = join_pointer(lang, "turns", index, "expect")
                lists = [(base + "/calls", answer.get("calls"))]
                if isinstance(answer.get("one_of"), list):
                    lists += [(base + join_pointer("one_of", i, "calls"), o.get("calls")) for i, o in enumerate(answer["one_of"]) if isinstance(o, dict)]
                for pointer, calls in lists:
                    for j, call in enumerate(calls if isinstance(calls, list) else []):
                        args = call.get("args") if isinstance(call, dict) else None
                        for name, value in args.items() if isinstance(args, dict) else ():
                            yield pointer + join_pointer(j, "args", name), value, False
        return
    for _, entry, pointer in scenario_calls(data):
        args = entry.get("args")
        for name, value in args.items() if isinstance(args, dict) else ():
            yield pointer + join_pointer("args", name), value, True


@rule("DLG013", "invalid-matcher", "A matcher is malformed.", on="document", kinds=("case", "scenario"))
def invalid_matcher(document: Document, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every mapping with `$` keys in an argument value is one well-formed matcher:
    `$any` (≥ 2 values), `$optional`, `$text`, `$approx` with `$tol`, `$range` `[low, high]`, `$unordered`, `$regex`
    with a matching `$example`, `$literal`; `$lang` only in scenarios.
    ## Why is this bad?
    A malformed matcher cannot be rendered for the oracle nor matched by the scorer.
    ## Example
    ```yaml
    args: {city: {$any: Hangzhou}}
    ```
    ## Use instead
    ```yaml
    args: {city: {$any: [Hangzhou, 杭州]}}
    ```
    """
    for pointer, value, allow_lang in _raw_argument_values(document):
        if _contains_matcher(value):
            for message, where in matchers.problems(value, pointer, allow_lang=allow_lang, top=True):
                if not message.startswith(_PLACEMENT):
                    yield Finding(message, where)


def _record_argument_values(item: Case | Scenario) -> Iterator[tuple[str, Any, bool]]:
    """(pointer, value, $lang allowed) of every argument value of a case or scenario record."""
    if isinstance(item, Case):
        for _, _, _, call in item.calls():
            for name, value in call.args.items():
                yield call.arg_pointer(name), value, False
        return
    for call in item.reference_calls:
        for name, value in call.args.items():
            yield call.arg_pointer(name), value, True
    for key, entry, pointer in scenario_calls(item.data):
        args = entry.get("args")
        for name, value in args.items() if key != "reference_calls" and isinstance(args, dict) else ():
            yield pointer + join_pointer("args", name), value, True


@rule("DLG014", "misplaced-matcher", "A matcher is used where it cannot apply.", on=(Case, Scenario))
def misplaced_matcher(item: Case | Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    `$optional` only on a parameter the API does not require and only directly on an
    argument; `$lang` only in scenarios; no matchers in a special answer's `params` (the bad
    value is a literal the user said).
    ## Why is this bad?
    An optional required parameter, or a matcher inside a value the scorer compares
    literally, silently accepts wrong answers.
    ## Example
    ```yaml
    args: {receiver: {$optional: Li Na}}   # receiver is required
    ```
    ## Use instead
    ```yaml
    args: {receiver: Li Na}
    ```
    """
    for pointer, value, allow_lang in _record_argument_values(item):
        if _contains_matcher(value):
            for message, where in matchers.problems(value, pointer, allow_lang=allow_lang, top=True):
                if message.startswith(_PLACEMENT):
                    yield Finding(message, where)
    if isinstance(item, Case):
        yield from _case_arg_findings(item, corpus, "DLG014")
        for dialogue in item.dialogues.values():
            for checkpoint in dialogue.checkpoints:
                special = checkpoint.special
                for name, value in special.params.items() if special is not None else ():
                    if _contains_matcher(value):
                        yield Finding(
                            "a special answer's params hold the literal bad value the user gave; remove the matcher",
                            checkpoint.expect_pointer + join_pointer("params", name),
                        )


def _contains_matcher(value: Any) -> bool:
    if isinstance(value, dict):
        return any(isinstance(k, str) and k.startswith("$") for k in value) or any(_contains_matcher(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_matcher(v) for v in value)
    return False


# ----------------------------------------------------------------------------- categories


@rule("DLG020", "atom-category-mismatch", "An atom case's answer has no argument of its atom type.", on=Case)
def atom_category_mismatch(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    A `normal/atom/<type>` case expects at least one argument of that type: a boolean for
    `bool`, a parameter with an `enum` (or a list of enum values) for `enum`, an integer or number for `number`, an array
    for `list`, an object for `object`.
    ## Why is this bad?
    Atom categories measure one kind of argument; a case without it measures something else
    and skews that category's score.
    ## Example
    A `normal/atom/bool` case whose only argument is `city: Oslo`.
    ## Use instead
    Move it to the right category, or make it exercise a boolean parameter.
    """
    category = case.category
    if not category.startswith("normal/atom/"):
        return
    for dialogue in case.dialogues.values():
        for checkpoint in dialogue.checkpoints:
            for alternative in checkpoint.alternatives:
                if not any(_call_has_atom(corpus.specs.get(c.api), category, c) for c in alternative.calls):
                    yield Finding(f"no argument of this checkpoint exercises {category.rsplit('/', 1)[1]}; this case belongs in another category", alternative.pointer)


def _call_has_atom(spec: Spec | None, category: str, call: Call) -> bool:
    if spec is None:
        return True  # unknown APIs are reported elsewhere
    for name in call.args:
        schema = spec.properties.get(name)
        if not isinstance(schema, dict):
            continue
        items: Any = schema.get("items")
        items = items if isinstance(items, dict) else {}
        if category == "normal/atom/enum" and ("enum" in schema or "enum" in items):
            return True
        if schema.get("type") in ATOM_TYPES.get(category, ()):
            return True
    return False


@rule("DLG021", "similar-api-without-rival", "A similar_api case does not offer two APIs of one domain.", on=Case)
def similar_api_without_rival(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    A `normal/similar_api` case offers at least two candidate APIs of the same domain, and its
    answer calls one of them.
    ## Why is this bad?
    The category tests telling near-identical APIs apart; without a look-alike it is a plain
    single-call case.
    ## Example
    `apis: [get_weather, send_message]`
    ## Use instead
    `apis: [get_weather, get_air_quality, send_message]` (both weather APIs share a domain).
    """
    if case.category != "normal/similar_api":
        return
    domains: dict[str, int] = {}
    for api in case.apis:
        spec = corpus.specs.get(api)
        if spec is not None:
            domains[spec.domain] = domains.get(spec.domain, 0) + 1
    if not any(n >= 2 for n in domains.values()):
        yield Finding("offer at least two candidate APIs of one domain (the look-alikes the model must tell apart)", "/apis")


@rule("DLG022", "preference-not-from-profile", "A preference case lacks a profile, or its answer uses nothing from it.", on=Case)
def preference_not_from_profile(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    A `normal/preference` case has a `profile`, and in each language some argument value of
    the answer (a string or a number) appears in that language's profile text — or is a
    language-neutral value (an enum code) that both answers share and the other language's
    profile states.
    ## Why is this bad?
    Preference cases test using what is known about the user; if no argument comes from the
    profile, the profile is decoration.
    ## Example
    ```yaml
    profile: {en: Vegetarian; lives in Chengdu., zh: 素食者，住在成都。}
    # answer: search_restaurants(city: Beijing)
    ```
    ## Use instead
    An answer such as `search_restaurants(city: Chengdu, diet: vegetarian)`.
    """
    if case.category != "normal/preference":
        return
    profile = case.profile
    if profile is None:
        yield Finding("a preference case needs a profile: {en: …, zh: …}", "/profile")
        return
    values: dict[str, set[str]] = {}
    for lang, dialogue in case.dialogues.items():
        values[lang] = set()
        for _, _, call in dialogue.calls():
            for value in call.args.values():
                for concrete in matchers.concrete_values(value) if _contains_matcher(value) else (value,):
                    values[lang].update(n for leaf in _leaves(concrete) if (n := matchers.normalize_text(str(leaf))))
    texts = {lang: matchers.normalize_text(text) for lang, text in profile.items()}
    for lang, used in values.items():
        own = any(n in texts.get(lang, "") for n in used)
        # a language-neutral value (an enum code, a city code) that both answers share may come
        # from the other language's profile: "特别爱吃日料" → cuisine: japanese
        shared = any(n in texts.get(other(lang), "") and n in values.get(other(lang), set()) for n in used)
        if not own and not shared:
            yield Finding(f"no argument value of the {lang} answer appears in the {lang} profile; the answer must use what the profile says", join_pointer("profile", lang))


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    elif not isinstance(value, bool) and value is not None:
        yield value


@rule("DLG023", "category-shape-mismatch", "The dialogue's shape does not fit its category.", on=Case)
def category_shape_mismatch(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    `normal/multi_turn/*` dialogues have at least two user turns and act on two requests: two
    checkpoints, or a `called` history turn before the checkpoint;
    `single_turn/single` has one checkpoint with one call; `single_turn/parallel` one
    checkpoint whose alternatives each have at least two calls. A `retrieval/*` case offers
    only the tool search (`apis: [search_tools]`) and ends in its one checkpoint, with no tool
    turn but the results of `called` history calls, and no `search_tools` call in its answer: the search is live when the model runs, so
    the checkpoint lists only the calls to make with what the search finds — one call in
    `retrieval/call` (in the first alternative), two or more in `retrieval/plan`.
    ## Why is this bad?
    Per-category accuracy is only meaningful if every case in a category has its shape. Stored
    search results go stale whenever an API is added, and a stored search call can only be
    judged by accepting any query.
    ## Example
    A `normal/multi_turn/adjust` case with a single user turn; a retrieval case whose first
    checkpoint is `{api: search_tools, args: {query: {$regex: "(?s).+"}}}`.
    ## Use instead
    Add the user's follow-up and the second checkpoint, or move the case to `single_turn`; in a
    retrieval case keep only the target calls: `expect: {calls: [{api: list_saved_places, args: {}}]}`.
    """
    category = case.category
    if category.startswith("retrieval/") and list(case.apis) != [SEARCH_API]:
        yield Finding(f"a retrieval case offers only the tool search: apis: [{SEARCH_API}]", "/apis")
    for dialogue in case.dialogues.values():
        points = dialogue.checkpoints
        base = dialogue.pointer
        if category.startswith("normal/multi_turn/"):
            acted = len(points) + sum(1 for turn in dialogue.turns[: points[-1].index if points else 0] if isinstance(turn, CalledTurn))
            if dialogue.kinds.count("user") < 2 or acted < 2:
                yield Finding("a multi-turn case needs at least two user turns and two requests acted on (checkpoints, or history calls before one)", base)
        elif category.startswith(("normal/single_turn/", "normal/atom/")) or category in ("normal/similar_api", "normal/preference"):
            if len(points) != 1:
                yield Finding(f"a {category} case has exactly one checkpoint", base)
            elif category == "normal/single_turn/single" and any(len(a.calls) != 1 for a in points[0].alternatives):
                yield Finding("a single-call case expects exactly one call; use normal/single_turn/parallel for several", points[0].expect_pointer)
            elif category == "normal/single_turn/parallel" and any(len(a.calls) < 2 for a in points[0].alternatives):
                yield Finding("a parallel case expects at least two calls in every alternative", points[0].expect_pointer)
        elif category.startswith("retrieval/"):
            yield from _retrieval_shape(category, dialogue)


def _retrieval_shape(category: str, dialogue: Dialogue) -> Iterator[Finding]:
    for i, turn in enumerate(dialogue.turns):
        if isinstance(turn, ToolTurn) and not (i > 0 and isinstance(dialogue.turns[i - 1], CalledTurn)):
            yield Finding("a retrieval case has no tool turns but the results of history calls: the model's searches and calls run live", turn.pointer)
    points = dialogue.checkpoints
    if len(points) != 1 or points[0].index != len(dialogue.turns) - 1:
        yield Finding("a retrieval case has exactly one checkpoint, its last turn", dialogue.pointer)
    for checkpoint in points:
        for alternative in checkpoint.alternatives:
            for call in alternative.calls:
                if call.api == SEARCH_API:
                    yield Finding("list only the calls made with what the search finds; the search itself is live and never part of the answer", call.pointer + "/api")
        if not checkpoint.alternatives:
            continue
        first = checkpoint.first
        if category == "retrieval/call" and len(first) != 1:
            yield Finding("a retrieval/call case expects one call (in its first alternative); use retrieval/plan for several", checkpoint.expect_pointer)
        elif category == "retrieval/plan" and len(first) < 2:
            yield Finding("a retrieval/plan case expects two or more calls, a later one using an earlier one's result", checkpoint.expect_pointer)


@rule("DLG025", "tool-search-recorded", "A case outside retrieval calls the tool search or records its results.", on=Case)
def tool_search_recorded(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Outside `retrieval/*`, no answer calls `search_tools` and no `tool` turn records its
    results; no case anywhere shows a `search_tools` call in its `called` history.
    ## Why is this bad?
    Search results are a function of the whole API catalog: every API a contributor adds or
    rewords changes them, so a recorded result goes stale in a file nobody touched (EXE017).
    Tool search is tested where it runs live — in the retrieval categories.
    ## Example
    ```yaml
    category: normal/single_turn/single
    apis: [search_tools, get_weather]
    en:
      turns:
        - user: Find a tool for the weather.
        - expect: {calls: [{api: search_tools, args: {query: weather}}]}
    ```
    ## Use instead
    Move the case to `retrieval/call` with only the target call in its answer, or offer the
    target API directly as a candidate.
    """
    if case.category.startswith("retrieval/"):
        yield from _history_searches(case)  # DLG023 holds the rest of a retrieval case to its live shape
        return
    for _, _, _, call in case.calls():
        if call.api == SEARCH_API:
            yield Finding(f"{SEARCH_API} is called outside retrieval; its results change with the catalog", call.pointer + "/api")
    yield from _history_searches(case)
    for dialogue in case.dialogues.values():
        for turn in dialogue.turns:
            if isinstance(turn, ToolTurn):
                for result in turn.results:
                    if result.api == SEARCH_API:
                        yield Finding(f"a recorded {SEARCH_API} result goes stale when an API is added; do not store search results", result.pointer)


def _history_searches(case: Case) -> Iterator[Finding]:
    for _, call in case.history_calls():
        if call.api == SEARCH_API:
            yield Finding(f"a history {SEARCH_API} call shows results that go stale when an API is added; the search runs live", call.pointer + "/api")


def _special_kind(checkpoint: Checkpoint) -> str | None:
    return checkpoint.special.kind if checkpoint.special is not None else None


@rule("DLG024", "special-kind-mismatch", "Special answers do not match the case's category.", on=Case)
def special_kind_mismatch(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    A `special/<kind>` case's final checkpoint expects `special: <kind>` and no checkpoint
    expects another special kind; `normal/*` and `retrieval/*` cases expect no special answer.
    ## Why is this bad?
    Special detection is scored separately per kind; a mislabeled case moves points between
    categories.
    ## Example
    `category: special/incomplete` with `expect: {special: irrelevant}`.
    ## Use instead
    Move it to `special/irrelevant`, or change the answer.
    """
    category = case.category
    for dialogue in case.dialogues.values():
        points = dialogue.checkpoints
        reported: set[int] = set()
        for checkpoint in points:
            special = _special_kind(checkpoint)
            if special and not category.startswith("special/"):
                yield Finding(f"a {category} case cannot expect special: {special}; move it to special/{special}", checkpoint.expect_pointer)
            elif special and category.startswith("special/") and special != category.split("/")[1]:
                reported.add(checkpoint.index)
                yield Finding(f"expects special: {special} in a {category} case; make them agree", checkpoint.expect_pointer)
        # a last checkpoint already reported for expecting another special kind is not reported
        # twice, and an irrelevant case expecting calls is DLG032's finding
        last_expects_calls = bool(points) and _special_kind(points[-1]) is None
        if category == "special/irrelevant" and last_expects_calls:
            continue
        if category.startswith("special/") and points and points[-1].index not in reported and _special_kind(points[-1]) != category.split("/")[1]:
            yield Finding(f"the last checkpoint of a {category} case must expect special: {category.split('/')[1]}", points[-1].expect_pointer)


# ----------------------------------------------------------------------------- special cases


@rule("DLG030", "incomplete-not-missing", "An `incomplete` answer names a parameter that is not really missing.", on=Case)
def incomplete_not_missing(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Each name in `missing` is a required, top-level parameter of the named API, which must
    be a candidate; and the user has not already given it (no enum value of it — a word or a
    number — appears in the user's words).
    ## Why is this bad?
    A published peer lists "missing" parameters that are optional or nested: a model that
    rightly goes ahead is scored wrong.
    ## Example
    ```yaml
    expect: {special: incomplete, api: book_flight, missing: [seat_preference]}   # optional
    ```
    ## Use instead
    Name only required parameters the user did not give: `missing: [from_city]`.
    """
    for dialogue in case.dialogues.values():
        for checkpoint in dialogue.checkpoints:
            special = checkpoint.special
            if special is None or special.kind != "incomplete" or special.api is None:
                continue
            api = special.api
            spec = corpus.specs.get(api)
            if spec is None or api not in case.apis:
                continue  # unknown or non-candidate APIs are reported by REF rules
            properties, required = spec.properties, spec.required
            raw = dialogue.user_text(checkpoint.index)
            said = matchers.normalize_text(raw)
            for k, name in enumerate(special.missing):
                here = checkpoint.expect_pointer + join_pointer("missing", k)
                if name not in properties:
                    yield Finding(f"{api} has no top-level parameter {name!r}; name a required parameter of {api}", here)
                elif name not in required:
                    yield Finding(f"{name!r} is optional for {api}; a model may rightly proceed without it", here)
                else:
                    enum = properties[name].get("enum")
                    given = [
                        v
                        for v in enum or []
                        if (isinstance(v, str) and matchers.normalize_text(v) and f" {matchers.normalize_text(v)} " in f" {said} ")
                        or (isinstance(v, (int, float)) and not isinstance(v, bool) and _said_verbatim(str(v), raw))
                    ]
                    if given:
                        yield Finding(f"the user already said {given[0]!r}, a value of {name!r}; it is not missing", here)


@rule("DLG031", "error-param-not-erroneous", "An `error_param` answer names a value that is valid or that the user never said.", on=Case)
def error_param_not_erroneous(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Each `params` entry names a top-level parameter of the API whose value breaks that
    parameter's schema (type, enum, pattern, range, format), and the value appears in the
    user's words. An answer that names no API (an imported peer's) is checked against every
    candidate API that has the parameter: the value must break each of them.
    ## Why is this bad?
    If the value is valid, calling the API is right and the "error" answer is wrong; if the
    user never said it, the case asks the model to flag something absent.
    ## Example
    ```yaml
    expect: {special: error_param, api: book_flight, params: {date: "2024-03-14"}}   # a valid date
    ```
    ## Use instead
    ```yaml
    expect: {special: error_param, api: book_flight, params: {date: "2024-02-30"}}
    ```
    """
    for dialogue in case.dialogues.values():
        for checkpoint in dialogue.checkpoints:
            special = checkpoint.special
            if special is None or special.kind != "error_param":
                continue
            if special.api is not None:
                if special.api not in corpus.specs:
                    continue  # REF001 reports it
                apis = [special.api]
            else:
                apis = [api for api in case.apis if api in corpus.specs]
            said = dialogue.user_text(checkpoint.index)
            for name, bad in special.params.items():
                here = checkpoint.expect_pointer + join_pointer("params", name)
                having = [api for api in apis if name in corpus.specs[api].properties]
                if not having:
                    if special.api is not None:
                        yield Finding(f"{special.api} has no top-level parameter {name!r}", here)
                    else:
                        yield Finding(f"no candidate API has a top-level parameter {name!r}; the answer names no API, so one of the case's apis must have it", here)
                    continue
                for api in having:
                    validator = corpus.validators.parameter(api, name)
                    # a schema that does not compile proves nothing valid (SPC008 reports it)
                    if validator is not None and not isinstance(validator, CompileError) and not validator.messages(bad):
                        yield Finding(f"{name}={bad!r} is valid for {api}; an error_param case needs a value that breaks the schema", here)
                        break
                shown = bad if isinstance(bad, str) else str(bad).lower() if isinstance(bad, bool) else str(bad)
                if not _said_verbatim(shown, said):
                    yield Finding(f"the user never says {shown!r}; the bad value must come from the user's words", here)


def _said_verbatim(value: str, said: str) -> bool:
    """The value occurs in the user's words as a whole token: "6" is not said by "FO1006"."""
    return re.search(r"(?<![0-9A-Za-z])" + re.escape(value) + r"(?![0-9A-Za-z])", said) is not None


@rule("DLG032", "irrelevant-expects-call", "An `irrelevant` case expects a call.", on=Case)
def irrelevant_expects_call(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every checkpoint of a `special/irrelevant` case expects `special: irrelevant`: none of the
    candidate APIs can serve the request.
    ## Why is this bad?
    If some checkpoint expects a call, the case is a normal case and abstaining is wrong there.
    ## Example
    A `special/irrelevant` case whose checkpoint expects `get_weather(...)`.
    ## Use instead
    `expect: {special: irrelevant}`, or move the case to a normal category.
    """
    if case.category != "special/irrelevant":
        return
    for dialogue in case.dialogues.values():
        for checkpoint in dialogue.checkpoints:
            if checkpoint.alternatives:
                yield Finding("an irrelevant case expects no call at any checkpoint; the candidate APIs cannot serve the request", checkpoint.expect_pointer)

