"""Skeletons of new corpus files: the next free id, the schema line, both language sides, and a
``~`` with a ``# fill in:`` comment wherever the author must write something.

A skeleton fails ``callbank check`` (each ``~`` is a schema finding at its line) until it is
filled; filled, it passes (tests/test_scaffold.py fills each kind and checks it). Ids continue
the numbering of the category's folder (``atom-enum-0168``) or of the sandbox's scenarios, over
the whole repository, so a new id is never taken.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from validator.corpus.categories import CASE_CATEGORIES, SCENARIO_MODES
from validator.corpus.index import Corpus
from validator.errors import UserError
from validator.schemas import schema_comment_target

_NUMBERED = re.compile(r"^(?P<prefix>.+)-(?P<number>\d{4,})$")
# the id prefix of a category whose folder is still empty
_DEFAULT_PREFIX = {
    "normal/single_turn/single": "single",
    "normal/single_turn/parallel": "parallel",
    "normal/multi_turn/adjust": "mt-adjust",
    "normal/multi_turn/switch": "mt-switch",
    "normal/similar_api": "similar",
    "normal/preference": "pref",
    "special/incomplete": "sp-incomplete",
    "special/error_param": "sp-error",
    "special/irrelevant": "sp-irrelevant",
    "retrieval/call": "rt-call",
    "retrieval/plan": "rt-plan",
}


class Skeleton(NamedTuple):
    path: str  # repo-relative
    text: str


def next_id(corpus: Corpus, prefix: str) -> str:
    """``<prefix>-NNNN``, one above the highest number any case or scenario uses with that prefix."""
    numbers = [int(m["number"]) for stem in corpus.id_paths if (m := _NUMBERED.match(stem)) and m["prefix"] == prefix]
    return f"{prefix}-{max(numbers, default=0) + 1:04d}"


def _case_prefix(corpus: Corpus, category: str) -> str:
    folder = f"dialogues/{category}/"
    stems = [Path(path).stem for path, kind in corpus.discovered if kind == "case" and path.startswith(folder)]
    prefixes = Counter(m["prefix"] for stem in stems if (m := _NUMBERED.match(stem)))
    if prefixes:
        return prefixes.most_common(1)[0][0]
    return _DEFAULT_PREFIX.get(category, "atom-" + category.rsplit("/", 1)[-1])


def _expect(category: str, api: str) -> list[str]:
    """The ``expect`` turn's lines (at the dialogue's indentation) for a category."""
    kind = category.split("/")[-1] if category.startswith("special/") else None
    if kind == "incomplete":
        return [f"    - expect: {{special: incomplete, api: {api}, missing: ~}}   # fill in: the required parameters the user did not give, e.g. [content]"]
    if kind == "error_param":
        return [f"    - expect: {{special: error_param, api: {api}, params: ~}}   # fill in: parameter -> the invalid value the user gave"]
    if kind == "irrelevant":
        return ["    - expect: {special: irrelevant}"]
    calls = [f"          - {{api: {api}, args: ~}}   # fill in: the right call's arguments (matchers: docs/data-model.md)"]
    if category == "normal/single_turn/parallel":
        calls.append(f"          - {{api: {api}, args: ~}}   # fill in: the second call")
    return ["    - expect:", "        calls:", *calls]


def case_skeleton(corpus: Corpus, category: str, apis: Sequence[str] = ()) -> Skeleton:
    if category not in CASE_CATEGORIES:
        raise UserError(f"{category!r} is not a category; the categories are {', '.join(CASE_CATEGORIES)}")
    identifier = next_id(corpus, _case_prefix(corpus, category))
    path = f"dialogues/{category}/{identifier}.yaml"
    offered = ["search_tools"] if category.startswith("retrieval/") else list(apis)
    target = (list(apis) or ["~"])[0]
    apis_line = f"apis: [{', '.join(offered)}]" if offered else "apis: ~   # fill in: the candidate APIs the model is shown, e.g. [send_message, find_contacts]"
    lines = [f"# yaml-language-server: $schema={schema_comment_target(path, 'case')}", f"id: {identifier}", f"category: {category}", apis_line]
    lines.append('time: ~   # fill in: the fixed "now" of the dialogue, e.g. "2025-05-06T09:00:00+08:00"')
    for lang, say in (("en", "what the user says, in English"), ("zh", "用户说的话，用中文自然地写")):
        lines += [f"{lang}:", "  turns:", f"    - user: ~   # fill in: {say}", *_expect(category, target)]
        if category.startswith("normal/multi_turn/"):
            lines += [
                f"    - tool:\n        - {{api: {target}, result: ~}}   # fill in: what the call returns (`callbank fix` writes it)",
                "    - assistant: ~   # fill in: the assistant's reply, from that result",
                "    - user: ~   # fill in: the user adjusts or switches the request",
                *_expect(category, target),
            ]
    return Skeleton(path, "\n".join(lines) + "\n")


def api_skeleton(corpus: Corpus, name: str, domain: str, sandbox: str | None) -> Skeleton:
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise UserError(f"{name!r} is not an API name: lower case letters, digits and _, starting with a letter")
    if name in corpus.specs:
        raise UserError(f"API {name!r} exists already: {corpus.spec_paths[name][0]}")
    if sandbox is not None and sandbox not in corpus.sandbox_names:
        raise UserError(f"no sandbox {sandbox!r}; the sandboxes are {', '.join(corpus.sandbox_names)}")
    path = f"specs/{domain.split('.')[0]}/{name}.yaml"
    lines = [
        f"# yaml-language-server: $schema={schema_comment_target(path, 'api')}",
        f"name: {name}",
        f"domain: {domain}",
        f"sandbox: {sandbox}" if sandbox else "spec_only: true   # no sandbox implements it: a distractor",
        "description:",
        "  en: ~   # fill in: what the API does, in English",
        "  zh: ~   # fill in: 用中文说明它做什么",
        "parameters:",
        "  type: object",
        "  properties: ~   # fill in: each parameter's schema, with description: {en: …, zh: …}",
        "  required: []",
        "  additionalProperties: false",
        "returns: ~   # fill in: the JSON Schema of the result",
    ]
    return Skeleton(path, "\n".join(lines) + "\n")


def scenario_skeleton(corpus: Corpus, sandbox: str, mode: str) -> Skeleton:
    if sandbox not in corpus.sandbox_names:
        raise UserError(f"no sandbox {sandbox!r}; the sandboxes are {', '.join(corpus.sandbox_names)}")
    if mode not in SCENARIO_MODES:
        raise UserError(f"{mode!r} is not a scenario mode; the modes are {', '.join(SCENARIO_MODES)}")
    identifier = next_id(corpus, sandbox)
    path = f"sandboxes/{sandbox}/scenarios/{identifier}.yaml"
    lines = [
        f"# yaml-language-server: $schema={schema_comment_target(path, 'scenario')}",
        f"id: {identifier}",
        f"mode: {mode}",
        f"sandboxes: [{sandbox}]",
        'time: ~   # fill in: the sandboxes\' clock, e.g. "2025-05-06T09:00:00+08:00"',
        "user:",
        "  en:",
        "    goal: ~   # fill in: what the user wants, in English",
        "    script: ~   # fill in: the scripted user's lines, e.g. [Please …]",
        "  zh:",
        "    goal: ~   # fill in: 用户想做成什么，用中文写",
        "    script: ~   # fill in: 脚本用户的每一句话",
        "reference_calls: ~   # fill in: the calls whose replay gives the expected end state, e.g. [{api: …, args: {…}}]",
        "milestones: ~   # fill in: call patterns the agent must make, e.g. [{id: m1, api: …}]",
        "minefields: []   # calls that must not happen, e.g. [{api: …}]",
        "outputs: ~   # fill in: what the agent must tell the user, e.g. [{phrase: {en: [booked], zh: [订好]}}, {code: B-2}]",
    ]
    return Skeleton(path, "\n".join(lines) + "\n")


def write_skeleton(root: Path, skeleton: Skeleton) -> Path:
    target = root / skeleton.path
    if target.exists():
        raise UserError(f"{skeleton.path} exists already")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(skeleton.text, encoding="utf-8")
    return target
