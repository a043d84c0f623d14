"""Stage 2, *generate*: the generator model writes the dialogue in both languages and the
reference answer at every checkpoint, as one JSON object (the prompt's reply format).

What this stage guarantees about a draft that passes it: it is a JSON object with an ``en`` and a
``zh`` conversation; each starts with the user and acts (``calls`` / ``special``) only right
after a user turn; it has exactly the recipe's number of checkpoints, in both languages the same
kinds of turns and the same APIs at each checkpoint; every call names a candidate API with an
arguments object; a special category is answered by its special kind (naming the planned API and
parameter), a normal one by calls. Whether the calls run, agree with a blind solver and pass the
rules is for the later stages.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from validator.corpus.canonical import canonical_json
from validator.corpus.langs import LANGS
from validator.corpus.records import Spec
from validator.scoring.parse import unfence
from validator.synth.outcome import Rejected
from validator.synth.plan import Recipe
from validator.synth.prompts import GeneratorPrompt, fill

STAGE = "generate"
STATE_LIMIT = 6000  # characters of a sandbox's data shown to the generator
TURN_KINDS = ("user", "assistant", "calls", "special")
SPECIAL_KINDS = ("incomplete", "error_param", "irrelevant")
TASKS = {
    "single": "task.single",
    "parallel": "task.parallel",
    "adjust": "task.adjust",
    "switch": "task.switch",
    "rival": "task.rival",
    "profile": "task.profile",
    "atom": "task.atom",
    "missing": "task.missing",
    "invalid": "task.invalid",
    "irrelevant": "task.irrelevant",
    "retrieve": "task.retrieve",
    "retrieve_plan": "task.retrieve_plan",
}


def messages(recipe: Recipe, specs: Mapping[str, Spec], prompt: GeneratorPrompt, state: Any = None) -> list[dict[str, str]]:
    """The generator's request for one recipe, in the prompt's language. state is the data of
    the targets' sandbox, shown when the task needs a value only a result gives (a retrieval plan)."""
    exercise = dict(recipe.exercise) or {"kind": "single", "api": recipe.targets[0] if recipe.targets else ""}
    task = prompt.sections.get(TASKS.get(str(exercise.get("kind")), "task.single"), "")
    values = {key: str(value) for key, value in exercise.items()}
    shown = json.dumps(state, ensure_ascii=False, default=str) if state is not None else "{}"
    values["state"] = shown if len(shown) <= STATE_LIMIT else shown[:STATE_LIMIT] + " …"
    schemas = [specs[name].function_schema(prompt.lang) for name in recipe.callable if name in specs]  # a retrieval case's targets: the model finds them
    material = {
        "category": recipe.category,
        "time": recipe.time,
        "apis": json.dumps(schemas, ensure_ascii=False, indent=1),
        "task": fill(task, values),
        "checkpoints": str(recipe.checkpoints),
    }
    return [{"role": "system", "content": fill(prompt.sections["system"], material)}, {"role": "user", "content": fill(prompt.sections["user"], material)}]


def _reject(reason: str, detail: str) -> Rejected:
    return Rejected(STAGE, reason, detail)


def parse_reply(content: str | None) -> dict[str, Any]:
    """The JSON object of a reply (a code fence around it is fine); Rejected otherwise."""
    text = unfence((content or "").strip())
    if not text:
        raise _reject("invalid_json", "the generator replied with nothing")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        shown = text if len(text) <= 80 else text[:79] + "…"
        raise _reject("invalid_json", f"the reply is not JSON ({error.msg} at line {error.lineno} column {error.colno}): {shown!r}") from None
    if not isinstance(data, dict):
        raise _reject("invalid_json", f"the reply is JSON but not an object (a {type(data).__name__})")
    return data


def _turn(lang: str, index: int, turn: Any, apis: Sequence[str]) -> dict[str, Any]:
    where = f"{lang} turn {index + 1}"
    if not isinstance(turn, dict):
        raise _reject("bad_shape", f"{where} is not an object")
    kinds = [key for key in TURN_KINDS if key in turn]
    if len(kinds) != 1:
        raise _reject("bad_shape", f"{where} must have exactly one of {', '.join(TURN_KINDS)} (has {', '.join(sorted(turn)) or 'none'})")
    kind = kinds[0]
    if kind in ("user", "assistant"):
        text = turn[kind]
        if not isinstance(text, str) or not text.strip() or len(turn) != 1:
            raise _reject("bad_shape", f"{where}: {kind} must be the only key, with a non-empty text")
        return {kind: text.strip()}
    if kind == "special":
        answer = {key: turn[key] for key in ("special", "api", "missing", "params") if key in turn}
        if answer["special"] not in SPECIAL_KINDS:
            raise _reject("bad_shape", f"{where}: special must be one of {', '.join(SPECIAL_KINDS)}, not {answer['special']!r}")
        if "api" in answer and answer["api"] not in apis:
            raise _reject("unknown_api", f"{where}: {answer['api']!r} is not one of the candidate APIs ({', '.join(apis)})")
        return {"expect": answer}
    calls = turn["calls"]
    if not isinstance(calls, list) or not calls:
        raise _reject("bad_shape", f"{where}: calls must be a non-empty list")
    checked = []
    for number, call in enumerate(calls, 1):
        if not isinstance(call, dict) or not isinstance(call.get("api"), str) or not isinstance(call.get("args", {}), dict):
            raise _reject("bad_shape", f'{where}, call {number}: expected {{"api": name, "args": {{...}}}}')
        if call["api"] not in apis:
            raise _reject("unknown_api", f"{where}, call {number}: {call['api']!r} is not one of the candidate APIs ({', '.join(apis)})")
        checked.append({"api": call["api"], "args": call.get("args", {})})
    return {"expect": {"calls": checked}}


def _side(data: Mapping[str, Any], lang: str, apis: Sequence[str]) -> list[dict[str, Any]]:
    side = data.get(lang)
    if not isinstance(side, dict) or not isinstance(side.get("turns"), list) or not side["turns"]:
        raise _reject("bad_shape", f"the reply has no {lang} conversation ({lang}.turns must be a non-empty list)")
    turns = [_turn(lang, i, turn, apis) for i, turn in enumerate(side["turns"])]
    if "user" not in turns[0]:
        raise _reject("bad_shape", f"the {lang} conversation must start with the user")
    for i, turn in enumerate(turns[1:], 1):
        if "expect" in turn and "user" not in turns[i - 1]:
            raise _reject("bad_shape", f"{lang} turn {i + 1}: the assistant acts only right after a user turn")
    while turns and "assistant" in turns[-1]:
        turns.pop()  # a closing remark after the last results is not part of the case
    return turns


def _signature(turns: Sequence[Mapping[str, Any]]) -> list[Any]:
    """What both languages must share: the kinds of turns and, per checkpoint, the answer's APIs."""
    shape: list[Any] = []
    for turn in turns:
        if "expect" in turn:
            expect = turn["expect"]
            shape.append(("special", expect["special"], expect.get("api")) if "special" in expect else ("calls", sorted(c["api"] for c in expect["calls"])))
        else:
            shape.append(next(iter(turn)))
    return shape


def _check_recipe(recipe: Recipe, turns: Sequence[Mapping[str, Any]]) -> None:
    answers = [turn["expect"] for turn in turns if "expect" in turn]
    if len(answers) != recipe.checkpoints:
        raise _reject("recipe_mismatch", f"the conversation acts at {len(answers)} point(s); the recipe asks for {recipe.checkpoints}")
    family, _, _ = recipe.category.partition("/")
    exercise = recipe.exercise
    if family == "special":
        wanted = recipe.category.split("/")[1]
        special = answers[0].get("special")
        if special != wanted:
            raise _reject("recipe_mismatch", f"a {recipe.category} case is answered by the special answer {wanted!r}, not {special or 'calls'!r}")
        if wanted != "irrelevant" and answers[0].get("api") != exercise.get("api"):
            raise _reject("recipe_mismatch", f"the special answer must name {exercise.get('api')!r} (the recipe's API), not {answers[0].get('api')!r}")
        param = exercise.get("param")
        if wanted == "incomplete" and list(answers[0].get("missing") or []) != [param]:
            raise _reject("recipe_mismatch", f"the recipe leaves out {param!r}; the answer says missing {answers[0].get('missing')!r}")
        if wanted == "error_param" and list(dict(answers[0].get("params") or {})) != [param]:
            raise _reject("recipe_mismatch", f"the recipe gives a bad {param!r}; the answer names {sorted(dict(answers[0].get('params') or {}))!r}")
        return
    if any("special" in answer for answer in answers):
        raise _reject("recipe_mismatch", f"a {recipe.category} case is answered by calls, not a special answer")
    called = {call["api"] for answer in answers for call in answer["calls"]}
    missing = [api for api in recipe.targets if api not in called]
    if missing:
        raise _reject("recipe_mismatch", f"the answer never calls {', '.join(missing)}, which the recipe asks for")
    if recipe.category == "normal/single_turn/parallel" and len(answers[0]["calls"]) < 2:
        raise _reject("recipe_mismatch", "a parallel case makes two or more calls in one step")
    if recipe.category == "retrieval/call" and len(answers[0]["calls"]) != 1:
        raise _reject("recipe_mismatch", f"a retrieval/call case is answered by one call, not {len(answers[0]['calls'])}")


def draft_from_reply(recipe: Recipe, content: str | None) -> dict[str, Any]:
    """The draft case (``{profile?, en: turns, zh: turns}``, turns in the case's shape without
    tool results) from the generator's reply; Rejected with the first problem."""
    data = parse_reply(content)
    sides = {lang: _side(data, lang, recipe.callable) for lang in LANGS}
    if canonical_json(_signature(sides["en"])) != canonical_json(_signature(sides["zh"])):
        raise _reject("languages_differ", "the English and Chinese conversations differ in their turns or in the APIs they call")
    _check_recipe(recipe, sides["en"])
    draft: dict[str, Any] = dict(sides)
    profile = data.get("profile")
    if recipe.category == "normal/preference":
        if not (isinstance(profile, dict) and all(isinstance(profile.get(lang), str) and profile[lang].strip() for lang in LANGS)):
            raise _reject("recipe_mismatch", "a preference case needs a profile with en and zh text")
        draft["profile"] = {lang: profile[lang].strip() for lang in LANGS}
    return draft
