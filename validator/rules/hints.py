"""Requests that give the answer away (DLG042): a user turn that names an API or a parameter.

docs/authoring.md §2 forbids hints that make the choice for the model. The one kind a rule can
tell for certain is code talk: a user who writes ``transfer_domestic`` or ``due_date`` has told
the model which API to call or which parameter to fill, and no person says that to an
assistant. Only identifiers with an underscore count — a name that is one word (``checkout``,
``amount``, ``city``) is also an ordinary word and says nothing. Hint phrases in plain words
("don't book, I'm only asking") are left to review: the same words are often the point of a
turn (a user cancelling what they asked for), which no rule can tell apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from validator.corpus.index import Corpus
from validator.corpus.records import Case, UserTurn
from validator.diagnostics import Finding, join_pointer
from validator.rules.registry import rule

_IDENTIFIER = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![A-Za-z0-9_])")


def named_identifiers(text: str, apis: frozenset[str], parameters: frozenset[str]) -> list[tuple[str, str]]:
    """The ``(kind, name)`` of every API or parameter identifier written in ``text``, in order."""
    found: list[tuple[str, str]] = []
    for match in _IDENTIFIER.finditer(text):
        word = match.group(0).lower()
        if word in apis:
            found.append(("API", word))
        elif word in parameters:
            found.append(("parameter", word))
    return found


def _parameters(case: Case, corpus: Corpus) -> frozenset[str]:
    """The candidates' top-level parameter names that are identifiers (have an underscore)."""
    return frozenset(name.lower() for api in case.apis if api in corpus.specs for name in corpus.specs[api].properties if "_" in name)


@rule("DLG042", "identifier-in-request", "A user turn names an API or a parameter by its identifier.", on=Case)
def identifier_in_request(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Looks for identifiers in every user turn of a case, in both languages: the name of any API
    of the catalog, or of a parameter of one of the case's candidate APIs, written as code
    (`send_message`, `due_date`; case-insensitive, as a whole word). Only names with an
    underscore count: a one-word name (`checkout`, `amount`) is an ordinary word too.
    ## Why is this bad?
    The request makes the choice for the model: choosing the API among rivals and mapping
    the user's words onto parameters is what the case tests. And no user talks to an assistant
    in its function names, so the case is not a real request either.
    ## Example
    ```yaml
    apis: [transfer_domestic, transfer_international, get_balance]
    en:
      turns:
        - user: Use transfer_domestic to send 200 to Wang Fang, account_id 6222 0012.
    ```
    ## Use instead
    Say what the user wants in their own words; the situation picks the API:
    ```yaml
        - user: Send Wang Fang 200 for the concert tickets, her card ends in 0012.
    ```
    """
    apis = frozenset(name.lower() for name in corpus.specs if "_" in name)
    parameters = _parameters(case, corpus)
    for lang, dialogue in case.dialogues.items():
        for turn in dialogue.turns:
            if not isinstance(turn, UserTurn):
                continue
            for kind, name in dict.fromkeys(named_identifiers(turn.text, apis, parameters)):
                yield Finding(
                    f"the {lang} user names the {kind} {name!r}; say what the user wants in their own words (the situation, not the function, picks the API and fills its parameters)",
                    join_pointer(lang, "turns", turn.index, "user"),
                )
