"""System prompts for the model under test and the user simulator, from versioned files.

``prompts/<version>/<style>.<lang>.md`` (styles ``standard``, ``condensed``, ``minimal``) and
``prompts/<version>/user.<lang>.md`` hold named sections, each introduced by a line
``<!-- name -->`` (anything before the first is a comment for maintainers); ``{{name}}``
placeholders are filled in. A released version is never edited: a change is a new version,
and a run's manifest records the version and :func:`prompt_hash` of its files.

A case's system prompt is: intro, current time (with its weekday, :func:`clock_text`) and
user profile (where the case has them),
the APIs (text syntaxes only — with native tool calling they travel as ``tools``), how to call,
a one-shot example (text syntaxes: small models follow the call syntax only with one), and the
special-answer markers of ``docs/predictions.md``. An agent's is: agent intro, the sandboxes'
policy, the current time (the scenario's clock), the APIs, how to call, the example, and how to
talk with the user.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
PROMPT_VERSION = "v1"
STYLES = ("standard", "condensed", "minimal")
STOP_MARKER = "###STOP###"  # the user simulator's end of conversation

# sections every model-prompt file must have, and every user-simulator file
MODEL_SECTIONS = (
    "intro", "agent_intro", "policy", "time", "profile", "apis",
    "syntax.python", "syntax.json", "syntax.tool_calls", "example.python", "example.json",
    "special", "agent", "results",
)  # fmt: skip
USER_SECTIONS = ("system", "none", "start")
# how a style lists the APIs in a text-syntax prompt: indented JSON, or one compact object per line
API_LAYOUT = {"standard": "indented", "condensed": "lines", "minimal": "lines"}

_SECTION = re.compile(r"^<!--\s*([a-z_.]+)\s*-->[ \t]*$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")


class PromptError(ValueError):
    """A prompt file that is missing, or lacks a section."""


def parse_sections(text: str) -> dict[str, str]:
    """The named sections of a prompt file (text stripped of surrounding blank lines)."""
    marks = list(_SECTION.finditer(text))
    sections: dict[str, str] = {}
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        sections[mark.group(1)] = text[mark.end() : end].strip("\n")
    return sections


@cache
def load_sections(name: str, lang: str, version: str = PROMPT_VERSION) -> dict[str, str]:
    """The sections of ``prompts/<version>/<name>.<lang>.md``, checked for completeness."""
    path = PROMPTS_DIR / version / f"{name}.{lang}.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise PromptError(f"no prompt file {path.relative_to(PROMPTS_DIR.parent)}") from None
    sections = parse_sections(text)
    required = USER_SECTIONS if name == "user" else MODEL_SECTIONS
    missing = [s for s in required if s not in sections]
    if missing:
        raise PromptError(f"{path.name} ({version}) lacks the section(s) {', '.join(missing)}")
    return sections


def fill(template: str, values: Mapping[str, str]) -> str:
    """Replace ``{{name}}`` placeholders; unknown names are left as they are."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def prompt_files(version: str = PROMPT_VERSION) -> list[Path]:
    folder = PROMPTS_DIR / version
    return sorted(folder.glob("*.md")) if folder.is_dir() else []


def prompt_hash(version: str = PROMPT_VERSION) -> str:
    """sha256 over the version's files (names and bytes): recorded in a run's manifest."""
    digest = hashlib.sha256()
    for path in prompt_files(version):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


def render_apis(tools: Sequence[Mapping[str, Any]], style: str) -> str:
    functions = [tool.get("function", tool) for tool in tools]
    if API_LAYOUT.get(style) == "indented":
        return json.dumps(functions, ensure_ascii=False, indent=2)
    return "\n".join(json.dumps(function, ensure_ascii=False) for function in functions)


def system_prompt(
    lang: str,
    syntax: str,
    *,
    tools: Sequence[dict[str, Any]] = (),
    time: str | None = None,
    profile: str | None = None,
    policy: str | None = None,
    style: str = "standard",
    version: str = PROMPT_VERSION,
) -> str:
    """The system prompt of one request; ``policy`` not None makes it an agent's prompt."""
    sections = load_sections(style, lang, version)
    agent = policy is not None
    text_syntax = syntax != "tool_calls"
    values = {"time": clock_text(time, lang) if time else "", "profile": profile or "", "policy": (policy or "").strip(), "apis": render_apis(tools, style)}
    names = ["agent_intro" if agent else "intro"]
    if agent and policy and policy.strip():
        names.append("policy")
    if time:
        names.append("time")
    if profile:
        names.append("profile")
    if text_syntax and tools:
        names.append("apis")
    names.append(f"syntax.{syntax}")
    if text_syntax:
        names.append(f"example.{syntax}")
    names.append("agent" if agent else "special")
    return "\n\n".join(fill(sections[name], values) for name in names if sections[name].strip())


_WEEKDAYS = {
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "zh": ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"),
}


def clock_text(time: str, lang: str) -> str:
    """The current time as shown to the model: the ISO timestamp the APIs take, with its weekday
    (``2025-05-06T09:00:00+08:00 (Tuesday)``, ``…（星期二）``) so that "next Friday" is not a
    calendar puzzle. A value that is not a timestamp is shown as it is."""
    try:
        moment = _dt.datetime.fromisoformat(time)
    except ValueError:
        return time
    weekday = _WEEKDAYS[lang if lang in _WEEKDAYS else "en"][moment.weekday()]
    return f"{time} ({weekday})" if lang != "zh" else f"{time}（{weekday}）"


def results_message(results: Sequence[tuple[str, Any]], lang: str, style: str = "standard", version: str = PROMPT_VERSION) -> str:
    """Tool results as text for a model without native tool calling: one ``api: json`` line each."""
    lines = [f"{name}: {content}" for name, content in results]
    return fill(load_sections(style, lang, version)["results"], {"results": "\n".join(lines)})


def user_prompt(side: Mapping[str, Any], lang: str, version: str = PROMPT_VERSION) -> tuple[str, str]:
    """(system prompt, opening message) for a simulator playing a scenario's user in lang."""
    sections = load_sections("user", lang, version)

    def listed(items: Any) -> str:
        entries = [str(item) for item in items] if isinstance(items, list) else ([str(items)] if items else [])
        return "\n".join(f"- {entry}" for entry in entries) if entries else sections["none"]

    values = {"goal": str(side.get("goal") or ""), "known": listed(side.get("known")), "unknown": listed(side.get("unknown")), "stop": STOP_MARKER}
    return fill(sections["system"], values), fill(sections["start"], values)
