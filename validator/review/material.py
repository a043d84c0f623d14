"""The case as a judge reads it: specs rendered per language, both dialogues side by side.

Every value is text ready to drop into a prompt template (``{{name}}`` placeholders). JSON is
written with real Chinese characters and a stable key order, so equal cases give equal prompts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from validator.corpus.langs import LANGS
from validator.corpus.records import Case, Spec
from validator.review.items import Item
from validator.toolsearch import is_retrieval

MAX_POLICY_CHARS = 6000  # a policy longer than this is cut (the judge is told so)


def dumps(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=False)


def render_apis(names: list[str], specs: Mapping[str, Spec], lang: str) -> str:
    blocks = []
    for name in names:
        spec = specs.get(name)
        if spec is None:
            blocks.append(f"// {name}: no spec with this name exists")
        else:
            blocks.append(dumps(spec.function_schema(lang), indent=2))
    return "\n".join(blocks) if blocks else "(none)"


def _turn_parts(turn: Any) -> tuple[str, str]:
    """(kind, text) of one turn."""
    if not isinstance(turn, dict) or len(turn) != 1:
        return ("?", dumps(turn))
    ((kind, value),) = turn.items()
    if kind in ("user", "assistant") and isinstance(value, str):
        return (kind, value)
    return (kind, dumps(value))


KIND_LABELS = {
    "user": "user",
    "assistant": "assistant",
    "expect": "EXPECTED ANSWER (checkpoint: the assistant must act here)",
    "called": "calls the assistant already made (history, not scored)",
    "tool": "tool results (of the calls just before)",
}


def render_dialogue(case: Mapping[str, Any]) -> str:
    """Every language turn by turn: `[n] kind` then the EN and ZH versions under each other (the
    one language a case of a one-language repository has)."""
    langs = [lang for lang in LANGS if lang in case] or list(LANGS)
    sides = {lang: (case.get(lang) or {}).get("turns") or [] for lang in langs}
    count = max(len(turns) for turns in sides.values())
    lines = []
    for index in range(count):
        parts = {lang: _turn_parts(sides[lang][index]) if index < len(sides[lang]) else ("(missing)", "(no such turn)") for lang in langs}
        kinds = {kind for kind, _ in parts.values()}
        first = parts[langs[0]][0]
        label = KIND_LABELS.get(first, first) if len(kinds) == 1 else " / ".join(f"{lang}: {parts[lang][0]}" for lang in langs)
        lines.append(f"[{index + 1}] {label}")
        for lang in langs:
            lines.append(f"    {lang.upper()}: {parts[lang][1]}")
    return "\n".join(lines)


def _bilingual(value: Any) -> str:
    if isinstance(value, dict) and set(value) & set(LANGS):
        return "\n".join(f"{lang.upper()}: {value.get(lang, '(missing)')}" for lang in LANGS)
    return "(none)" if value is None else dumps(value)


def case_material(item: Item, specs: Mapping[str, Spec]) -> dict[str, str]:
    case = item.data
    apis = [a for a in case.get("apis") or [] if isinstance(a, str)]
    if is_retrieval(case.get("category")):
        # the model finds the answer's APIs with its own search; the judge needs their specs too
        called = [call.api for _, _, _, call in item.record.calls()] if isinstance(item.record, Case) else []
        apis += [api for api in dict.fromkeys(called) if api not in apis]
    return {
        "id": item.id,
        "category": str(case.get("category", "")),
        "time": str(case.get("time") or "(not given)"),
        "profile": _bilingual(case.get("profile")),
        "state": dumps(case["state"], indent=2) if case.get("state") else "(none)",
        "apis_en": render_apis(apis, specs, "en"),
        "apis_zh": render_apis(apis, specs, "zh"),
        "dialogue": render_dialogue(case),
    }


def _user_side(user: Mapping[str, Any], lang: str) -> str:
    side = user.get(lang) or {}
    lines = [f"goal: {side.get('goal', '(missing)')}"]
    for key in ("known", "unknown", "script"):
        values = side.get(key) or []
        lines.append(f"{key}:")
        lines += [f"  {i + 1}. {v}" for i, v in enumerate(values)] or ["  (none)"]
    return "\n".join(lines)


def _policy(root: Path, sandboxes: list[str], lang: str) -> str:
    texts = []
    for name in sandboxes:
        path = root / "sandboxes" / name / f"policy.{lang}.md"
        try:
            text = path.read_text(encoding="utf-8").strip()
        except OSError:
            text = "(no policy file)"
        if len(text) > MAX_POLICY_CHARS:
            text = text[:MAX_POLICY_CHARS] + "\n[… policy cut here for length]"
        texts.append(f"--- {name} ---\n{text}")
    return "\n".join(texts) if texts else "(none)"


def scenario_apis(scenario: Mapping[str, Any], specs: Mapping[str, Spec]) -> list[str]:
    if isinstance(scenario.get("apis"), list):
        return [a for a in scenario["apis"] if isinstance(a, str)]
    sandboxes = set(scenario.get("sandboxes") or [])
    return sorted(name for name, spec in specs.items() if spec.sandbox in sandboxes)


def _compact_apis(names: list[str], specs: Mapping[str, Spec], lang: str) -> str:
    """One line per API (name, parameters, description): scenarios offer many APIs."""
    lines = []
    for name in names:
        spec = specs.get(name)
        if spec is None:
            lines.append(f"- {name}(): (no spec)")
            continue
        params = ", ".join(f"{p}{'' if p in spec.required else '?'}: {s.get('type', 'any')}" for p, s in spec.properties.items())
        lines.append(f"- {name}({params}): {spec.description[lang]}")
    return "\n".join(lines) if lines else "(none)"


def scenario_material(item: Item, specs: Mapping[str, Spec], root: Path) -> dict[str, str]:
    scenario = item.data
    sandboxes = [s for s in scenario.get("sandboxes") or [] if isinstance(s, str)]
    apis = scenario_apis(scenario, specs)
    user = scenario.get("user") or {}

    def listing(key: str) -> str:
        values = scenario.get(key) or []
        return "\n".join(f"{i + 1}. {dumps(v)}" for i, v in enumerate(values)) if values else "(none)"

    return {
        "id": item.id,
        "mode": str(scenario.get("mode", "")),
        "sandboxes": ", ".join(sandboxes) or "(none)",
        "no_change": "true" if scenario.get("no_change") else "false",
        "policy_en": _policy(root, sandboxes, "en"),
        "policy_zh": _policy(root, sandboxes, "zh"),
        "apis_en": _compact_apis(apis, specs, "en"),
        "apis_zh": _compact_apis(apis, specs, "zh"),
        "initial_state": dumps(scenario.get("initial_state") or {}, indent=2),
        "user_en": _user_side(user, "en"),
        "user_zh": _user_side(user, "zh"),
        "reference_calls": listing("reference_calls"),
        "milestones": listing("milestones"),
        "minefields": listing("minefields"),
        "compare": dumps(scenario.get("compare") or {}),
        "outputs": listing("outputs"),
    }


def material_for(item: Item, specs: Mapping[str, Spec], root: Path) -> dict[str, str]:
    return scenario_material(item, specs, root) if item.kind == "scenario" else case_material(item, specs)
