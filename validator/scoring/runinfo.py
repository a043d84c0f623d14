"""What run wrote a predictions file, from its manifest (``<predictions>.manifest.json``, written
by ``callbank run``): the model, mode, prompt style and date a report names, and the selection of
each session — what the run covered, which ``callbank score`` counts by default.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from validator.corpus.langs import LANGS
from validator.corpus.selection import Selection
from validator.errors import UserError


class RunInfo(NamedTuple):
    manifest: str  # the manifest's file name
    model: str | None
    mode: str | None  # fc | prompt
    style: str | None
    syntax: str | None
    endpoint: str | None
    date: str | None  # when the run began (UTC, ISO 8601)
    selections: tuple[Selection, ...]  # one per session; empty when no session says

    def as_json(self) -> dict[str, Any]:
        return {
            "manifest": self.manifest,
            "model": self.model,
            "mode": self.mode,
            "style": self.style,
            "syntax": self.syntax,
            "endpoint": self.endpoint,
            "date": self.date,
            "sessions": [selection.options() for selection in self.selections],
        }


def manifest_of(predictions: Path) -> Path:
    return Path(f"{predictions}.manifest.json")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def read_run(predictions: Path) -> tuple[RunInfo | None, str | None]:
    """(the run, None), (None, None) when there is no manifest, or (None, why it cannot be read)."""
    path = manifest_of(Path(predictions))
    if not Path(predictions).is_file() or not path.exists():  # no predictions: `score` says so itself
        return None, None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return None, f"{path.name} cannot be read ({error}); every unit of the corpus is scored"
    if not isinstance(data, dict):
        return None, f"{path.name} is not a run manifest (a JSON object); every unit of the corpus is scored"
    listed = data.get("sessions")
    sessions: list[Any] = listed if isinstance(listed, list) else []
    selections = [Selection.from_session(session) for session in sessions if isinstance(session, dict)]
    known = tuple(selection for selection in selections if selection is not None)
    syntax = _text(data.get("syntax"))
    mode = _text(data.get("mode")) or (None if syntax is None else ("fc" if syntax == "tool_calls" else "prompt"))
    first = sessions[0] if sessions and isinstance(sessions[0], dict) else {}
    info = RunInfo(
        manifest=path.name,
        model=_text(data.get("model")),
        mode=mode,
        style=_text(data.get("style")),
        syntax=syntax,
        endpoint=_text(data.get("endpoint")),
        date=_text(data.get("created")) or _text(first.get("started")),
        selections=known if len(known) == len(selections) else (),  # a session that does not say: what it covered is unknown
    )
    return info, None


def choose_units(
    predictions: Path, lang: str | None, categories: Sequence[str], limit: int | None, *, everything: bool = False
) -> tuple[list[Selection] | None, dict[str, Any], list[str]]:
    """Which units to score: (selections, or None for every unit; what the report says about the
    run and the choice; notes).

    ``lang`` (``all``, ``en``, ``zh``), ``categories`` and ``limit`` given: those units. Else
    ``everything``, or no manifest that says what the run covered: every unit. Else the units of
    the run's sessions. UserError for options that contradict each other."""
    given = lang is not None or bool(categories) or limit is not None
    if everything and given:
        raise UserError("--all scores every unit; leave out --lang, --category and --limit, or --all")
    if limit is not None and limit < 1:
        raise UserError("--limit must be at least 1")
    run, problem = read_run(predictions)
    about: dict[str, Any] = {} if run is None else {"run": run.as_json()}
    notes = [problem] if problem else []
    if given:
        selection = Selection.of(LANGS if lang in (None, "all") else (str(lang),), categories, limit)
        about["selection"] = {"source": "options", "options": selection.options()}
        return [selection], about, notes
    if everything or run is None or not run.selections or any(s.everything for s in run.selections):
        about["selection"] = {"source": "all", "options": "everything"}
        return None, about, notes
    about["selection"] = {"source": "run", "options": "; ".join(dict.fromkeys(s.options() for s in run.selections))}
    return list(run.selections), about, notes
