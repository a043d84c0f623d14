"""Rules for cases: bilingual parity, ground truth valid for its API, category and special rules."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from validator import matchers
from validator.diagnostics import Finding, join_pointer
from validator.loading import Document
from validator.rules.answers import (
    LANGS,
    alternatives,
    checkpoints,
    iter_calls,
    sides,
    spec_parameters,
    special_of,
    turn_kind,
    user_text,
    value_errors,
)
from validator.rules.context import Context
from validator.rules.registry import rule
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


@rule("DLG001", "missing-translation", "One language of a bilingual field is missing.", applies_to=("case", "scenario"))
def missing_translation(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    A case has both an `en` and a `zh` side; a profile and a scenario's `user` have both
    languages (the words of a scenario's output facts are required in both by its schema).
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
    data = _data(document)
    places = [("", data)] if document.kind == "case" else []
    if isinstance(data.get("profile"), dict):
        places.append(("/profile", data["profile"]))
    if document.kind == "scenario" and isinstance(data.get("user"), dict):
        places.append(("/user", data["user"]))
    for pointer, mapping in places:
        for lang in LANGS:
            if lang not in mapping:
                where = pointer[1:] or "the case"
                yield Finding(f"{where} has no {lang!r} side; add it (both languages are required and parallel)", pointer + "/" + lang)


def _texts(document: Document) -> Iterator[tuple[str, str, str]]:
    """(lang, text, pointer) of every natural-language string the case or scenario holds."""
    data = _data(document)
    for lang, turns in sides(data):
        for i, turn in enumerate(turns):
            kind = turn_kind(turn)
            if kind in ("user", "assistant") and isinstance(turn[kind], str):
                yield lang, turn[kind], join_pointer(lang, "turns", i, kind)
    for key in ("profile",):
        if isinstance(data.get(key), dict):
            for lang in LANGS:
                if isinstance(data[key].get(lang), str):
                    yield lang, data[key][lang], join_pointer(key, lang)
    user = data.get("user")
    if isinstance(user, dict):
        for lang in LANGS:
            side = user.get(lang)
            if isinstance(side, dict):
                for field in ("goal", "known", "unknown", "script"):
                    values = side.get(field)
                    values = [values] if isinstance(values, str) else values if isinstance(values, list) else []
                    for j, text in enumerate(values):
                        if isinstance(text, str):
                            suffix = join_pointer(j) if field != "goal" else ""
                            yield lang, text, join_pointer("user", lang, field) + suffix
    outputs = data.get("outputs")
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
    for j, option in enumerate(fact.get("any") if isinstance(fact.get("any"), list) else []):
        yield from _fact_words(option, pointer + join_pointer("any", j))


@rule("DLG002", "wrong-language", "Text on the zh side has no Chinese, or the en side has Chinese.", applies_to=("case", "scenario"))
def wrong_language(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    Every user / assistant turn, profile, scenario goal, script line and output on the `zh`
    side contains Chinese; on the `en` side none, except inside quotes (a Chinese proper noun
    may be quoted: `"湖畔小厨"`).
    ## Why is this bad?
    An untranslated turn makes the Chinese track partly English (and vice versa), so
    per-language results stop meaning what they say.
    ## Example
    ```yaml
    zh: {turns: [{user: Book a table for four.}, …]}
    ```
    ## Use instead
    ```yaml
    zh: {turns: [{user: 帮我订一张四人桌。}, …]}
    ```
    """
    for lang, text, pointer in _texts(document):
        if lang == "zh" and not has_cjk(text):
            yield Finding("this zh text contains no Chinese; write it in Chinese", pointer)
        elif lang == "en" and cjk_outside_quotes(text):
            yield Finding("this en text contains Chinese; translate it, or quote a Chinese proper noun", pointer)


@rule("DLG003", "turn-structure-mismatch", "The en and zh dialogues differ in their turn sequence.", applies_to=("case", "scenario"))
def turn_structure_mismatch(document: Document, context: Context) -> Iterator[Finding]:
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
    data = _data(document)
    found = dict(sides(data))
    if len(found) == 2:
        en = [turn_kind(t) for t in found["en"]]
        zh = [turn_kind(t) for t in found["zh"]]
        if en != zh:
            at = next((i for i, (a, b) in enumerate(zip(en, zh)) if a != b), min(len(en), len(zh)))
            yield Finding(
                f"turn {at}: en has {' → '.join(en)} but zh has {' → '.join(zh)}; both languages need the same turns in the same order",
                join_pointer("zh", "turns", min(at, max(len(zh) - 1, 0))),
            )
    user = data.get("user")
    if isinstance(user, dict) and all(isinstance(user.get(lang), dict) for lang in LANGS):
        scripts = [user[lang].get("script") for lang in LANGS]
        if all(isinstance(s, list) for s in scripts) and len(scripts[0]) != len(scripts[1]):
            yield Finding(f"the en script has {len(scripts[0])} messages and the zh script {len(scripts[1])}; make them parallel", "/user/zh/script")
    outputs = data.get("outputs")
    if isinstance(outputs, dict) and all(isinstance(outputs.get(lang), list) for lang in LANGS):
        if len(outputs["en"]) != len(outputs["zh"]):
            yield Finding("en and zh outputs list a different number of facts; make them parallel", "/outputs/zh")


def _answer_shape(answer: Any) -> Any:
    special = special_of(answer)
    if special:
        shape: tuple[Any, ...] = (special, answer.get("api"))
        if isinstance(answer.get("missing"), list):
            shape += (tuple(sorted(map(str, answer["missing"]))),)
        if isinstance(answer.get("params"), dict):
            shape += (tuple(sorted(answer["params"])),)
        return shape
    return [
        sorted((str(c.get("api")), tuple(sorted(c["args"])) if isinstance(c.get("args"), dict) else ()) for c in calls if isinstance(c, dict))
        for calls, _ in alternatives(answer, "")
    ]


@rule("DLG004", "answer-parity-mismatch", "A checkpoint's answer differs between en and zh beyond string values.", applies_to="case")
def answer_parity_mismatch(document: Document, context: Context) -> Iterator[Finding]:
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
    found = dict(sides(_data(document)))
    if len(found) != 2:
        return
    en, zh = checkpoints(found["en"]), checkpoints(found["zh"])
    for (i, a), (j, b) in zip(en, zh):
        if _answer_shape(a) != _answer_shape(b):
            yield Finding(
                "this checkpoint's answer differs from the en one (APIs, argument names, or special kind); "
                "only language-dependent values may differ",
                join_pointer("zh", "turns", j, "expect"),
            )


@rule("DLG005", "dialogue-flow", "A dialogue has no checkpoint, or a checkpoint or tool turn is out of place.", applies_to="case")
def dialogue_flow(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    Each language side has at least one `expect` checkpoint; the first turn is the user's;
    a `tool` turn follows a checkpoint that expects calls, with one result per call of its
    first alternative, naming the same APIs in order; the dialogue ends with a checkpoint.
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
    for lang, turns in sides(_data(document)):
        kinds = [turn_kind(t) for t in turns]
        base = join_pointer(lang, "turns")
        if "expect" not in kinds:
            yield Finding(f"the {lang} dialogue has no expect checkpoint; add the answer the model must give", base)
            continue
        if kinds and kinds[0] != "user":
            yield Finding("a dialogue starts with the user speaking", base + "/0")
        if kinds[-1] != "expect":
            yield Finding("the dialogue ends after its last checkpoint; remove the trailing turns or add a checkpoint", base + join_pointer(len(kinds) - 1))
        for i, kind in enumerate(kinds):
            if kind != "tool":
                continue
            previous = turns[i - 1].get("expect") if i > 0 and kinds[i - 1] == "expect" else None
            options = alternatives(previous, "")
            if not options:
                yield Finding("a tool turn must directly follow a checkpoint that expects calls", base + join_pointer(i))
                continue
            expected = [c.get("api") for c in options[0][0] if isinstance(c, dict)]
            got = [r.get("api") for r in turns[i]["tool"] if isinstance(r, dict)] if isinstance(turns[i]["tool"], list) else []
            if expected != got:
                yield Finding(
                    f"tool results name {got} but the checkpoint before calls {expected}; give one result per call, in order",
                    base + join_pointer(i, "tool"),
                )


# ----------------------------------------------------------------------------- ground truth


def _arg_findings(context: Context, api: str, args: Any, pointer: str, *, final: bool) -> Iterator[tuple[str, Finding]]:
    """(code, finding) for unknown, missing and invalid arguments of one call."""
    parameters = spec_parameters(context, api)
    if parameters is None or not isinstance(args, dict):
        return
    properties, required = parameters
    for name, value in args.items():
        here = pointer + join_pointer("args", name)
        if name not in properties:
            known = ", ".join(sorted(properties)) or "none"
            yield "DLG011", Finding(f"{api} has no parameter {name!r}; its parameters are: {known}", here)
            continue
        has_matcher = _contains_matcher(value)
        if has_matcher and next(matchers.problems(value), None) is not None:
            continue  # reported by DLG013
        if name in required and matchers.is_omittable(value):
            yield "DLG014", Finding(f"{name!r} is required by {api}, so it cannot be $optional", here)
            continue
        for concrete in matchers.concrete_values(value) if has_matcher else (value,):
            errors = value_errors(context, api, name, concrete)
            if errors:
                yield "DLG010", Finding(f"{name}={_show(concrete)} is not valid for {api}: {errors[0]}", here)
                break
            if name in required and concrete in ("", [], {}) and not _allows_empty(properties[name]):
                yield "DLG010", Finding(f"{name}={_show(concrete)} is empty, but {api} needs content for it", here)
                break
    if final:
        for name in required:
            if name not in args:
                yield "DLG012", Finding(f"{api} requires {name!r}, which this call does not give", pointer + "/args")


def _allows_empty(schema: Any) -> bool:
    return isinstance(schema, dict) and (schema.get("minLength") == 0 or schema.get("minItems") == 0 or schema.get("minProperties") == 0)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


def _case_arg_findings(document: Document, context: Context, code: str) -> Iterator[Finding]:
    # DLG010/011/012 (and DLG014) share one pass over the arguments, computed once per file
    key = ("arguments", document.path)
    if key not in context.memo:
        found: list[tuple[str, Finding]] = []
        for _, call, pointer in iter_calls(_data(document)):
            api = call.get("api")
            if isinstance(api, str):
                found.extend(_arg_findings(context, api, call.get("args"), pointer, final=True))
        context.memo[key] = found
    for found_code, finding in context.memo[key]:
        if found_code == code:
            yield finding


@rule("DLG010", "invalid-argument-value", "A ground-truth argument value breaks its parameter's schema.", applies_to="case")
def invalid_argument_value(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    Validates every ground-truth argument against its parameter schema: type, enum, pattern,
    minimum / maximum, lengths, nested objects; through matchers too (every `$any` branch,
    the `$text` string, the `$regex` example). A required parameter may not be empty unless
    its schema allows it.
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
    yield from _case_arg_findings(document, context, "DLG010")


@rule("DLG011", "unknown-argument", "A ground-truth call passes a parameter its API does not have.", applies_to="case")
def unknown_argument(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    Every argument name in an answer is a parameter of the called API.
    ## Why is this bad?
    No model can produce a parameter the API does not declare; the case is unanswerable.
    ## Example
    ```yaml
    {api: get_weather, args: {city: Lyon, country: France}}   # get_weather has no country
    ```
    ## Use instead
    ```yaml
    {api: get_weather, args: {city: Lyon}}
    ```
    """
    yield from _case_arg_findings(document, context, "DLG011")


@rule("DLG012", "missing-required-argument", "A ground-truth call omits a required parameter.", applies_to="case")
def missing_required_argument(document: Document, context: Context) -> Iterator[Finding]:
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
    yield from _case_arg_findings(document, context, "DLG012")


@rule("DLG013", "invalid-matcher", "A matcher is malformed.", applies_to=("case", "scenario"))
def invalid_matcher(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    Every mapping with `$` keys in an argument value is one well-formed matcher:
    `$any` (≥ 2 values), `$optional`, `$text`, `$approx` with `$tol`, `$unordered`, `$regex`
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
    for message, where in _matcher_problems(document, context):
        if not message.startswith(_PLACEMENT):
            yield Finding(message, where)


@rule("DLG014", "misplaced-matcher", "A matcher is used where it cannot apply.", applies_to=("case", "scenario"))
def misplaced_matcher(document: Document, context: Context) -> Iterator[Finding]:
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
    for message, where in _matcher_problems(document, context):
        if message.startswith(_PLACEMENT):
            yield Finding(message, where)
    if document.kind == "case":
        yield from _case_arg_findings(document, context, "DLG014")
        for lang, turns in sides(_data(document)):
            for index, answer in checkpoints(turns):
                params = answer.get("params") if isinstance(answer, dict) else None
                if isinstance(params, dict):
                    for name, value in params.items():
                        if _contains_matcher(value):
                            yield Finding("a special answer's params hold the literal bad value the user gave; remove the matcher", join_pointer(lang, "turns", index, "expect", "params", name))


_PLACEMENT = ("$optional only", "$lang is only")


def _matcher_problems(document: Document, context: Context) -> list[tuple[str, str]]:
    key = ("matchers", document.path)
    if key not in context.memo:
        context.memo[key] = [
            problem
            for pointer, value, allow_lang, top in _argument_values(document)
            if _contains_matcher(value)
            for problem in matchers.problems(value, pointer, allow_lang=allow_lang, top=top)
        ]
    return context.memo[key]


def _contains_matcher(value: Any) -> bool:
    if isinstance(value, dict):
        return any(isinstance(k, str) and k.startswith("$") for k in value) or any(_contains_matcher(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_matcher(v) for v in value)
    return False


def _argument_values(document: Document) -> Iterator[tuple[str, Any, bool, bool]]:
    """(pointer, value, $lang allowed, directly on an argument) of every argument value."""
    data = _data(document)
    if document.kind == "case":
        for _, call, pointer in iter_calls(data):
            if isinstance(call.get("args"), dict):
                for name, value in call["args"].items():
                    yield pointer + join_pointer("args", name), value, False, True
        return
    from validator.rules.scenarios import scenario_calls

    for _, entry, pointer in scenario_calls(data):
        if isinstance(entry.get("args"), dict):
            for name, value in entry["args"].items():
                yield pointer + join_pointer("args", name), value, True, True


# ----------------------------------------------------------------------------- categories


def _category(document: Document) -> str:
    category = _data(document).get("category")
    return category if isinstance(category, str) else ""


@rule("DLG020", "atom-category-mismatch", "An atom case's answer has no argument of its atom type.", applies_to="case")
def atom_category_mismatch(document: Document, context: Context) -> Iterator[Finding]:
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
    category = _category(document)
    if not category.startswith("normal/atom/"):
        return
    for lang, turns in sides(_data(document)):
        for index, answer in checkpoints(turns):
            for calls, pointer in alternatives(answer, join_pointer(lang, "turns", index, "expect")):
                if not any(_call_has_atom(context, category, c) for c in calls if isinstance(c, dict)):
                    yield Finding(f"no argument of this checkpoint exercises {category.rsplit('/', 1)[1]}; this case belongs in another category", pointer)


def _call_has_atom(context: Context, category: str, call: dict[str, Any]) -> bool:
    parameters = spec_parameters(context, call.get("api", "")) if isinstance(call.get("api"), str) else None
    if parameters is None or not isinstance(call.get("args"), dict):
        return True  # unknown APIs are reported elsewhere
    properties = parameters[0]
    for name in call["args"]:
        schema = properties.get(name)
        if not isinstance(schema, dict):
            continue
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        if category == "normal/atom/enum" and ("enum" in schema or "enum" in items):
            return True
        if schema.get("type") in ATOM_TYPES.get(category, ()):
            return True
    return False


@rule("DLG021", "similar-api-without-rival", "A similar_api case does not offer two APIs of one domain.", applies_to="case")
def similar_api_without_rival(document: Document, context: Context) -> Iterator[Finding]:
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
    if _category(document) != "normal/similar_api":
        return
    apis = _data(document).get("apis")
    domains: dict[str, int] = {}
    for api in apis if isinstance(apis, list) else []:
        spec = context.specs.get(api)
        if isinstance(spec, dict) and isinstance(spec.get("domain"), str):
            domains[spec["domain"]] = domains.get(spec["domain"], 0) + 1
    if not any(n >= 2 for n in domains.values()):
        yield Finding("offer at least two candidate APIs of one domain (the look-alikes the model must tell apart)", "/apis")


@rule("DLG022", "preference-not-from-profile", "A preference case lacks a profile, or its answer uses nothing from it.", applies_to="case")
def preference_not_from_profile(document: Document, context: Context) -> Iterator[Finding]:
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
    data = _data(document)
    if _category(document) != "normal/preference":
        return
    profile = data.get("profile")
    if not isinstance(profile, dict):
        yield Finding("a preference case needs a profile: {en: …, zh: …}", "/profile")
        return
    values: dict[str, set[str]] = {}
    for lang, turns in sides(data):
        values[lang] = set()
        for _, call, _pointer in iter_calls({lang: {"turns": turns}}):
            for value in (call.get("args") or {}).values() if isinstance(call.get("args"), dict) else []:
                for concrete in matchers.concrete_values(value) if _contains_matcher(value) else (value,):
                    values[lang].update(n for leaf in _leaves(concrete) if (n := matchers.normalize_text(str(leaf))))
    texts = {lang: matchers.normalize_text(profile[lang]) for lang in LANGS if isinstance(profile.get(lang), str)}
    for lang, used in values.items():
        other = "zh" if lang == "en" else "en"
        own = any(n in texts.get(lang, "") for n in used)
        # a language-neutral value (an enum code, a city code) that both answers share may come
        # from the other language's profile: "特别爱吃日料" → cuisine: japanese
        shared = any(n in texts.get(other, "") and n in values.get(other, set()) for n in used)
        if lang in texts and not own and not shared:
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


@rule("DLG023", "category-shape-mismatch", "The dialogue's shape does not fit its category.", applies_to="case")
def category_shape_mismatch(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    `normal/multi_turn/*` dialogues have at least two user turns and two checkpoints;
    `single_turn/single` has one checkpoint with one call; `single_turn/parallel` one
    checkpoint whose alternatives each have at least two calls. A `retrieval/*` case offers
    only the tool search (`apis: [search_tools]`) and ends in its one checkpoint, with no tool
    turns and no `search_tools` call in its answer: the search is live when the model runs, so
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
    category = _category(document)
    data = _data(document)
    if category.startswith("retrieval/") and data.get("apis") != [SEARCH_API]:
        yield Finding(f"a retrieval case offers only the tool search: apis: [{SEARCH_API}]", "/apis")
    for lang, turns in sides(data):
        kinds = [turn_kind(t) for t in turns]
        points = checkpoints(turns)
        base = join_pointer(lang, "turns")
        options = [alternatives(a, "") for _, a in points]
        if category.startswith("normal/multi_turn/"):
            if kinds.count("user") < 2 or len(points) < 2:
                yield Finding("a multi-turn case needs at least two user turns and two checkpoints", base)
        elif category.startswith("normal/single_turn/") or category in ("normal/similar_api", "normal/preference") or category.startswith("normal/atom/"):
            if len(points) != 1:
                yield Finding(f"a {category} case has exactly one checkpoint", base)
            elif category == "normal/single_turn/single" and any(len(calls) != 1 for calls, _ in options[0]):
                yield Finding("a single-call case expects exactly one call; use normal/single_turn/parallel for several", base + join_pointer(points[0][0], "expect"))
            elif category == "normal/single_turn/parallel" and any(len(calls) < 2 for calls, _ in options[0]):
                yield Finding("a parallel case expects at least two calls in every alternative", base + join_pointer(points[0][0], "expect"))
        elif category.startswith("retrieval/"):
            yield from _retrieval_shape(category, turns, kinds, points, options, base)


def _retrieval_shape(
    category: str, turns: list[Any], kinds: list[str], points: list[tuple[int, Any]], options: list[list[tuple[list[Any], str]]], base: str
) -> Iterator[Finding]:
    for i, kind in enumerate(kinds):
        if kind == "tool":
            yield Finding("a retrieval case has no tool turns: the model's searches and calls run live", base + join_pointer(i))
    if len(points) != 1 or points[0][0] != len(turns) - 1:
        yield Finding("a retrieval case has exactly one checkpoint, its last turn", base)
    for (index, _), alternatives_ in zip(points, options):
        for calls, pointer in alternatives_:
            for j, call in enumerate(calls):
                if isinstance(call, dict) and call.get("api") == SEARCH_API:
                    yield Finding(
                        "list only the calls made with what the search finds; the search itself is live and never part of the answer",
                        base + join_pointer(index, "expect") + pointer + join_pointer(j, "api"),
                    )
        first = alternatives_[0][0] if alternatives_ else None
        if first is None:
            continue
        if category == "retrieval/call" and len(first) != 1:
            yield Finding("a retrieval/call case expects one call (in its first alternative); use retrieval/plan for several", base + join_pointer(index, "expect"))
        elif category == "retrieval/plan" and len(first) < 2:
            yield Finding("a retrieval/plan case expects two or more calls, a later one using an earlier one's result", base + join_pointer(index, "expect"))


@rule("DLG025", "tool-search-recorded", "A case outside retrieval calls the tool search or records its results.", applies_to="case")
def tool_search_recorded(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    Outside `retrieval/*`, no answer calls `search_tools` and no `tool` turn records its
    results.
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
    data = _data(document)
    if _category(document).startswith("retrieval/"):
        return  # DLG023 holds retrieval cases to their live shape
    for lang, call, pointer in iter_calls(data):
        if call.get("api") == SEARCH_API:
            yield Finding(f"{SEARCH_API} is called outside retrieval; its results change with the catalog", pointer + "/api")
    for lang, turns in sides(data):
        for i, turn in enumerate(turns):
            if turn_kind(turn) == "tool" and isinstance(turn["tool"], list):
                for k, result in enumerate(turn["tool"]):
                    if isinstance(result, dict) and result.get("api") == SEARCH_API:
                        yield Finding(f"a recorded {SEARCH_API} result goes stale when an API is added; do not store search results", join_pointer(lang, "turns", i, "tool", k))


@rule("DLG024", "special-kind-mismatch", "Special answers do not match the case's category.", applies_to="case")
def special_kind_mismatch(document: Document, context: Context) -> Iterator[Finding]:
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
    category = _category(document)
    for lang, turns in sides(_data(document)):
        points = checkpoints(turns)
        reported: set[int] = set()
        for index, answer in points:
            special = special_of(answer)
            pointer = join_pointer(lang, "turns", index, "expect")
            if special and not category.startswith("special/"):
                yield Finding(f"a {category} case cannot expect special: {special}; move it to special/{special}", pointer)
            elif special and category.startswith("special/") and special != category.split("/")[1]:
                reported.add(index)
                yield Finding(f"expects special: {special} in a {category} case; make them agree", pointer)
        # a last checkpoint already reported for expecting another special kind is not reported
        # twice, and an irrelevant case expecting calls is DLG032's finding
        last_expects_calls = bool(points) and special_of(points[-1][1]) is None
        if category == "special/irrelevant" and last_expects_calls:
            continue
        if category.startswith("special/") and points and points[-1][0] not in reported and special_of(points[-1][1]) != category.split("/")[1]:
            yield Finding(f"the last checkpoint of a {category} case must expect special: {category.split('/')[1]}", join_pointer(lang, "turns", points[-1][0], "expect"))


# ----------------------------------------------------------------------------- special cases


@rule("DLG030", "incomplete-not-missing", "An `incomplete` answer names a parameter that is not really missing.", applies_to="case")
def incomplete_not_missing(document: Document, context: Context) -> Iterator[Finding]:
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
    data = _data(document)
    apis = data.get("apis") if isinstance(data.get("apis"), list) else []
    for lang, turns in sides(data):
        for index, answer in checkpoints(turns):
            if special_of(answer) != "incomplete" or not isinstance(answer.get("api"), str):
                continue
            api = answer["api"]
            pointer = join_pointer(lang, "turns", index, "expect")
            parameters = spec_parameters(context, api)
            if parameters is None or api not in apis:
                continue  # unknown or non-candidate APIs are reported by REF rules
            properties, required = parameters
            raw = user_text(turns, index)
            said = matchers.normalize_text(raw)
            for k, name in enumerate(answer.get("missing") or []):
                here = pointer + join_pointer("missing", k)
                if name not in properties:
                    yield Finding(f"{api} has no top-level parameter {name!r}; name a required parameter of {api}", here)
                elif name not in required:
                    yield Finding(f"{name!r} is optional for {api}; a model may rightly proceed without it", here)
                else:
                    enum = properties[name].get("enum") if isinstance(properties[name], dict) else None
                    given = [
                        v
                        for v in enum or []
                        if (isinstance(v, str) and matchers.normalize_text(v) and f" {matchers.normalize_text(v)} " in f" {said} ")
                        or (isinstance(v, (int, float)) and not isinstance(v, bool) and _said_verbatim(str(v), raw))
                    ]
                    if given:
                        yield Finding(f"the user already said {given[0]!r}, a value of {name!r}; it is not missing", here)


@rule("DLG031", "error-param-not-erroneous", "An `error_param` answer names a value that is valid or that the user never said.", applies_to="case")
def error_param_not_erroneous(document: Document, context: Context) -> Iterator[Finding]:
    """
    ## What it does
    Each `params` entry names a top-level parameter of the API whose value breaks that
    parameter's schema (type, enum, pattern, range), and the value appears in the user's words.
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
    data = _data(document)
    for lang, turns in sides(data):
        for index, answer in checkpoints(turns):
            if special_of(answer) != "error_param" or not isinstance(answer.get("api"), str) or not isinstance(answer.get("params"), dict):
                continue
            api = answer["api"]
            parameters = spec_parameters(context, api)
            if parameters is None:
                continue
            said = user_text(turns, index)
            for name, bad in answer["params"].items():
                here = join_pointer(lang, "turns", index, "expect", "params", name)
                if name not in parameters[0]:
                    yield Finding(f"{api} has no top-level parameter {name!r}", here)
                    continue
                if not value_errors(context, api, name, bad):
                    yield Finding(f"{name}={bad!r} is valid for {api}; an error_param case needs a value that breaks the schema", here)
                shown = bad if isinstance(bad, str) else str(bad).lower() if isinstance(bad, bool) else str(bad)
                if not _said_verbatim(shown, said):
                    yield Finding(f"the user never says {shown!r}; the bad value must come from the user's words", here)


def _said_verbatim(value: str, said: str) -> bool:
    """The value occurs in the user's words as a whole token: "6" is not said by "FO1006"."""
    return re.search(r"(?<![0-9A-Za-z])" + re.escape(value) + r"(?![0-9A-Za-z])", said) is not None


@rule("DLG032", "irrelevant-expects-call", "An `irrelevant` case expects a call.", applies_to="case")
def irrelevant_expects_call(document: Document, context: Context) -> Iterator[Finding]:
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
    if _category(document) != "special/irrelevant":
        return
    for lang, turns in sides(_data(document)):
        for index, answer in checkpoints(turns):
            if alternatives(answer, ""):
                yield Finding("an irrelevant case expects no call at any checkpoint; the candidate APIs cannot serve the request", join_pointer(lang, "turns", index, "expect"))
