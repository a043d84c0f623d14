"""DLG051: a request never names an API or a parameter by its identifier.

A user who writes ``send_message`` or ``party_size`` is reading the tool list, not asking for
something: the request hands the model the choice it is being tested on. Identifiers are
recognised exactly — a snake_case word, or any word in backquotes, equal to the name of a
candidate API or of one of its parameters (at any depth) — so a user's ordinary words ("book",
"city", "message") never count.

Hint *phrases* ("don't book, I'm only asking", "search for 'product sync'") are not a rule: the
same words state real requirements elsewhere (docs/decisions.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from validator.corpus.index import Corpus
from validator.corpus.records import Case, UserTurn
from validator.diagnostics import Finding
from validator.rules.registry import rule

_SNAKE = re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![A-Za-z0-9_]|\.[A-Za-z0-9])")  # not file.ext
_QUOTED = re.compile(r"`([^`\n]{1,64})`")


@rule("DLG051", "identifier-in-request", "A user turn names a candidate API or parameter by its identifier.", on=Case)
def identifier_in_request(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports a user turn (in either language) that writes the name of one of the case's candidate
    APIs, or of one of their parameters at any depth, as an identifier: a snake_case word
    (`send_message`, `party_size`) or any word in backquotes (`` `checkout` ``).
    ## Why is this bad?
    A real user describes what they want; a request that names `schedule_transfer` or
    `open_now` tells the model which rival to call and which parameter to set — the very choice
    the case is meant to test.
    ## Example
    ```yaml
    - user: Use schedule_transfer to pay Wang Fang 2,000 yuan on the 1st.
    ```
    ## Use instead
    ```yaml
    - user: Pay Wang Fang 2,000 yuan on the 1st of next month.
    ```
    """
    names = _identifiers(case, corpus)
    for dialogue in case.dialogues.values():
        for turn in dialogue.turns:
            if not isinstance(turn, UserTurn):
                continue
            found = [m.group() for m in _SNAKE.finditer(turn.text) if m.group() in names]
            found += [m.group(1).strip() for m in _QUOTED.finditer(turn.text) if m.group(1).strip() in names]
            if found:
                shown = ", ".join(dict.fromkeys(f"{name!r} ({names[name]})" for name in found))
                yield Finding(
                    f"this request names {shown} by its identifier, handing the model the choice it is tested on; "
                    "say what the user wants in their own words",
                    turn.pointer + "/user",
                )


def _identifiers(case: Case, corpus: Corpus) -> dict[str, str]:
    """Identifier -> what it names, for the case's candidate APIs and all their parameters."""
    names: dict[str, str] = {}
    for api in case.apis:
        spec = corpus.specs.get(api)
        if spec is None:
            continue
        names.setdefault(api, "an API")
        for name in _property_names(spec.parameters):
            names.setdefault(name, f"a parameter of {api}")
    return names


def _property_names(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for name, sub in properties.items():
                yield str(name)
                yield from _property_names(sub)
        yield from _property_names(schema.get("items"))
    elif isinstance(schema, list):
        for item in schema:
            yield from _property_names(item)
