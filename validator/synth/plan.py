"""Stage 1, *plan* (no model): draw the APIs, the distractors and what the case must exercise.

A recipe is a pure function of (category, the APIs drawn from, seed, candidate index): the same
run plans the same recipes, which is what makes the cache work. What each category asks for:

=========================  ==========================================================
category                   what the generator is told to write
=========================  ==========================================================
normal/single_turn/single  one request answered by one call of the target API
normal/single_turn/parallel one request answered by two or more calls in one step
normal/multi_turn/adjust   two requests: the second changes a value of the first
normal/multi_turn/switch   two requests: the second moves on to another API
normal/similar_api         a rival API of the same domain is among the candidates;
                           the request must make the target the only right choice
normal/preference          a user profile the answer must take a value from
normal/atom/<type>         the target's parameter of that JSON type must be filled
special/incomplete         the user leaves out one required value (named)
special/error_param        the user gives a value the parameter's schema forbids
special/irrelevant         no candidate API can serve the request
retrieval/call             only the tool-search API is offered; one call of the target,
                           which the model must find first (the request gives every value)
retrieval/plan             as retrieval/call, two calls of one sandbox: the second takes a
                           value from the first's result
=========================  ==========================================================

A retrieval recipe offers ``apis: [search_tools]`` (the case's only candidate) and names the
targets the generator writes the calls of; the rival APIs are the whole catalog the model
searches. It needs a runnable ``search_tools`` in the repository (a UserError says so).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from validator.corpus.canonical import sha256_of
from validator.corpus.categories import CASE_CATEGORIES
from validator.corpus.index import Corpus
from validator.corpus.records import Spec
from validator.errors import UserError
from validator.toolsearch import SEARCH_API, is_retrieval

SUPPORTED = CASE_CATEGORIES
DISTRACTORS = 2
ATOM_TYPES = {"bool": ("boolean",), "number": ("number", "integer"), "list": ("array",), "object": ("object",)}
CONSTRAINTS = ("enum", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "format")


@dataclass(frozen=True)
class Recipe:
    """What one candidate must be: the plan the generator is given and the checks hold it to."""

    index: int  # the candidate's number in this run
    seed: int
    category: str
    targets: tuple[str, ...]  # the APIs the answer must call (the special answer's API)
    apis: tuple[str, ...]  # every candidate API the dialogue shows (targets and distractors)
    time: str  # the dialogue's "now" and the sandboxes' clock
    checkpoints: int  # how many points the assistant must act at
    exercise: Mapping[str, Any] = field(default_factory=dict)  # {"kind": ..., "api": ..., "param": ...}

    @property
    def callable(self) -> tuple[str, ...]:
        """The APIs the reference answer may call: the candidates, or in a retrieval case the
        targets the model must find (its only candidate is the search)."""
        return self.targets if is_retrieval(self.category) else self.apis

    @property
    def key(self) -> str:
        """The recipe's identity in the cache (everything it says, hashed)."""
        return sha256_of(self.as_dict())

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seed": self.seed,
            "category": self.category,
            "targets": list(self.targets),
            "apis": list(self.apis),
            "time": self.time,
            "checkpoints": self.checkpoints,
            "exercise": dict(self.exercise),
        }


def pool(corpus: Corpus, apis: Sequence[str] = (), sandbox: str | None = None) -> list[Spec]:
    """The runnable specs a run draws from: the named APIs, a sandbox's, or every runnable one."""
    if apis:
        unknown = [name for name in apis if name not in corpus.specs]
        if unknown:
            raise UserError(f"--apis: no spec named {', '.join(unknown)} in {corpus.root}")
        chosen = [corpus.specs[name] for name in apis]
    elif sandbox is not None:
        if sandbox not in corpus.sandboxes:
            raise UserError(f"--sandbox: no sandbox {sandbox!r} under {corpus.root}/sandboxes (there are: {', '.join(sorted(corpus.sandboxes)) or 'none'})")
        chosen = corpus.specs_of_sandbox(sandbox)
    else:
        chosen = list(corpus.specs.values())
    runnable = sorted((spec for spec in chosen if spec.runnable and spec.sandbox in corpus.states), key=lambda s: s.name)
    if not runnable:
        raise UserError("none of the chosen APIs is runnable in a sandbox: synthesised cases are verified by execution")
    return runnable


def _type_of(schema: Mapping[str, Any]) -> tuple[str, ...]:
    kind = schema.get("type")
    return tuple(kind) if isinstance(kind, list) else (kind,) if isinstance(kind, str) else ()


def _atom_params(spec: Spec, atom: str) -> list[str]:
    if atom == "enum":
        return [name for name, schema in spec.properties.items() if "enum" in schema]
    wanted = ATOM_TYPES[atom]
    return [name for name, schema in spec.properties.items() if set(_type_of(schema)) & set(wanted)]


def _constrained(spec: Spec) -> list[str]:
    return [name for name, schema in spec.properties.items() if any(key in schema for key in CONSTRAINTS)]


def _fits(category: str, spec: Spec, specs: Sequence[Spec]) -> bool:
    """Whether spec can be the target of a case of this category."""
    if is_retrieval(category):
        return spec.name != SEARCH_API and (category == "retrieval/call" or _partners(spec, specs) != [])
    if category == "normal/similar_api":
        return any(other.domain == spec.domain and other.name != spec.name for other in specs)
    if category.startswith("normal/atom/"):
        return bool(_atom_params(spec, category.rsplit("/", 1)[1]))
    if category == "special/incomplete":
        return bool(spec.required)
    if category == "special/error_param":
        return bool(_constrained(spec))
    return True


def _partners(spec: Spec, specs: Sequence[Spec]) -> list[Spec]:
    """The APIs a retrieval plan may call after spec: another API of its sandbox."""
    return [other for other in specs if other.sandbox == spec.sandbox and other.name not in (spec.name, SEARCH_API)]


def plan(category: str, specs: Sequence[Spec], clocks: Mapping[str, str], n: int, seed: int, *, searchable: bool = False) -> list[Recipe]:
    """n recipes for one category, drawn deterministically from specs (clocks: sandbox → its
    clock); searchable says whether the repository runs the tool search a retrieval case needs."""
    if category not in SUPPORTED:
        known = ", ".join(SUPPORTED)
        raise UserError(f"--category {category!r}: synth plans only these categories: {known}")
    if is_retrieval(category) and not searchable:
        raise UserError(f"--category {category}: a retrieval case offers only {SEARCH_API}, and no sandbox of this repository runs it")
    targets = [spec for spec in specs if _fits(category, spec, specs)]
    if not targets:
        raise UserError(f"--category {category}: none of the {len(specs)} API(s) drawn from can be its target ({_why(category)})")
    return [_recipe(category, targets, specs, clocks, index, seed) for index in range(n)]


def _why(category: str) -> str:
    if category == "normal/similar_api":
        return "it needs two runnable APIs of one domain"
    if category.startswith("normal/atom/"):
        return f"it needs a parameter of type {category.rsplit('/', 1)[1]}"
    if category == "retrieval/plan":
        return "it needs two runnable APIs of one sandbox besides the search"
    if category == "special/incomplete":
        return "it needs an API with a required parameter"
    if category == "special/error_param":
        return "it needs a parameter whose schema forbids some values (enum, pattern, range, length)"
    return "no runnable API"


def _recipe(category: str, targets: Sequence[Spec], specs: Sequence[Spec], clocks: Mapping[str, str], index: int, seed: int) -> Recipe:
    rng = random.Random(f"{seed}:{category}:{index}")
    target = rng.choice(list(targets))
    chosen = [target]
    exercise: dict[str, Any] = {}
    checkpoints = 1
    if category == "normal/similar_api":
        rival = rng.choice([s for s in specs if s.domain == target.domain and s.name != target.name])
        chosen.append(rival)
        exercise = {"kind": "rival", "api": target.name, "rival": rival.name}
    elif category.startswith("normal/atom/"):
        atom = category.rsplit("/", 1)[1]
        exercise = {"kind": "atom", "api": target.name, "param": rng.choice(_atom_params(target, atom)), "type": atom}
    elif category == "special/incomplete":
        exercise = {"kind": "missing", "api": target.name, "param": rng.choice(list(target.required))}
    elif category == "special/error_param":
        exercise = {"kind": "invalid", "api": target.name, "param": rng.choice(_constrained(target))}
    elif category == "special/irrelevant":
        exercise = {"kind": "irrelevant"}
    elif category == "retrieval/call":
        exercise = {"kind": "retrieve", "api": target.name}
    elif category == "retrieval/plan":
        chosen.append(rng.choice(_partners(target, specs)))
        exercise = {"kind": "retrieve_plan", "api": target.name, "then": chosen[-1].name}
    elif category == "normal/preference":
        exercise = {"kind": "profile", "api": target.name}
    elif category == "normal/single_turn/parallel":
        exercise = {"kind": "parallel", "api": target.name}
    elif category.startswith("normal/multi_turn/"):
        checkpoints = 2
        if category.endswith("switch"):
            others = [s for s in specs if s.name != target.name and s.sandbox == target.sandbox]
            if others:
                chosen.append(rng.choice(others))
            exercise = {"kind": "switch", "api": target.name, "then": chosen[-1].name}
        else:
            exercise = {"kind": "adjust", "api": target.name}
    if is_retrieval(category):  # the only candidate is the search; the catalog holds the rivals
        clock = clocks.get(target.sandbox or "", "2024-07-15T09:00:00+08:00")
        return Recipe(index, seed, category, tuple(s.name for s in chosen), (SEARCH_API,), clock, checkpoints, exercise)
    rest = [s for s in specs if s not in chosen]
    # distractors from the target's own sandbox first: a rival that plausibly belongs in the dialogue
    rest.sort(key=lambda s: (s.sandbox != target.sandbox, rng.random()))
    distractors = rest[:DISTRACTORS]
    names = [s.name for s in chosen + distractors]
    rng.shuffle(names)
    target_names = tuple(s.name for s in chosen) if category != "normal/similar_api" else (target.name,)
    if category == "special/irrelevant":
        target_names = ()
    clock = clocks.get(target.sandbox or "", "2024-07-15T09:00:00+08:00")
    return Recipe(index, seed, category, target_names, tuple(names), clock, checkpoints, exercise)


def sandbox_clocks(corpus: Corpus) -> dict[str, str]:
    """Each sandbox's clock (the recipes' "now"), from its state.yaml."""
    return {name: state.clock for name, state in corpus.states.items()}
