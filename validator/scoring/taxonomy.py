"""The fixed error taxonomy: every wrong verdict carries exactly one of these types.

Errors are data (a stable code, a title, a description) so the report, the JSON output and
``docs/scoring.md`` all name them the same way. The order is the precedence used when one
answer has several problems: the first applicable type is reported.
"""

from __future__ import annotations

from typing import NamedTuple


class ErrorType(NamedTuple):
    code: str
    title: str
    description: str


ERROR_TYPES: tuple[ErrorType, ...] = (
    ErrorType("format", "format error", "The answer cannot be read: not a call list in a supported syntax, a value that is not a literal, invalid UTF-8, too large or too deeply nested."),
    ErrorType(
        "hedged",
        "hedged answer",
        "The answer mixes a special answer with calls, or gives two different special answers (\"[IRRELEVANT]\" plus a guessed call, "
        "\"[MISSING] …\" plus \"[INVALID] …\"): a model that always answers both ways must not score on both.",
    ),
    ErrorType(
        "not_retrieved",
        "API not retrieved",
        "A retrieval answer calls an API that none of the model's own searches before the call returned (the searches are re-run against the catalog when scoring).",
    ),
    ErrorType("wrong_call_count", "wrong number of calls", "The answer makes more or fewer calls than expected (including none at all, or a special answer where calls were expected)."),
    ErrorType("wrong_api", "wrong API", "A call names an API other than the expected one."),
    ErrorType("missing_parameter", "missing parameter", "A call omits an argument the answer requires."),
    ErrorType("unexpected_parameter", "unexpected parameter", "A call gives an argument the API does not have, or one the answer does not use (and not at its declared default)."),
    ErrorType("wrong_type", "wrong type", "An argument value has the wrong JSON type for its parameter (a string for a number, a number for a boolean …)."),
    ErrorType("wrong_value", "wrong value", "An argument value has the right type but a wrong value."),
    ErrorType(
        "special_not_detected",
        "special case not detected",
        "The model called APIs, answered nothing, or gave another kind of special answer where it should have said that information is missing, a value is wrong, or the request is out of scope.",
    ),
    ErrorType("special_wrong_detail", "special case detected, wrong detail", "The right kind of special answer, but the API, the parameter names or the bad values it names are wrong."),
    ErrorType("agent_end_state", "agent end state", "Replaying the agent's calls does not reach the expected end state."),
    ErrorType("agent_unconfirmed", "agent acted unconfirmed", "The agent made a write the user had to confirm before it told the user what it would do and the user answered."),
    ErrorType("agent_untold", "agent did not tell", "The agent never told the user a fact it had to (only its words to the user count, not its calls or their results)."),
    ErrorType("minefield", "minefield", "The agent made a call that must not happen."),
)
CODES: tuple[str, ...] = tuple(error.code for error in ERROR_TYPES)
BY_CODE: dict[str, ErrorType] = {error.code: error for error in ERROR_TYPES}

# within one call, the first of these that applies is reported
CALL_ERROR_RANK: dict[str, int] = {
    "wrong_api": 0,
    "missing_parameter": 1,
    "unexpected_parameter": 2,
    "wrong_type": 3,
    "wrong_value": 4,
}
