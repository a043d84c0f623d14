"""DLG042's reading of a request: identifiers with an underscore, as whole words, of the catalog's APIs and the candidates' parameters."""

from __future__ import annotations

import pytest

from validator.rules.hints import named_identifiers

APIS = frozenset({"send_note", "get_weather"})
PARAMETERS = frozenset({"target_c", "due_date"})


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Use send_note to tell Li Wei.", [("API", "send_note")]),
        ("用Get_Weather查一下，再把due_date设好", [("API", "get_weather"), ("parameter", "due_date")]),
        ("把 target_c 改成 21", [("parameter", "target_c")]),
        ("send a note about the weather", []),  # plain words, not the identifier
        ("resend_note or send_notes or send_note2", []),  # only whole identifiers
        ("the order SKU_3002 is late", []),  # an identifier the catalog does not name
        ("checkout", []),
    ],
)
def test_named_identifiers(text: str, found: list[tuple[str, str]]) -> None:
    assert named_identifiers(text, APIS, PARAMETERS) == found
