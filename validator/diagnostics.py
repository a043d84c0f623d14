"""Findings as plain data: every stage (check, exec, review gate) reports in this shape."""

from __future__ import annotations

from typing import NamedTuple


class Location(NamedTuple):
    path: str  # repo-relative, forward slashes
    line: int | None  # 1-based
    column: int | None  # 1-based
    pointer: str  # JSON pointer inside the document, "" for the whole file


class Finding(NamedTuple):
    """What a rule yields: a message and where in the document it applies.

    A finding about another file than the one checked names its ``path``; one about a place
    that is no JSON pointer (a line of ``sandbox.py``, a YAML syntax error) gives ``line`` and
    ``column`` itself.
    """

    message: str
    pointer: str = ""
    path: str | None = None
    line: int | None = None
    column: int | None = None
    allowed: tuple[str, ...] = ()  # every value the place takes, when there is a list of them


class Diagnostic(NamedTuple):
    code: str
    rule: str
    message: str
    location: Location
    allowed: tuple[str, ...] = ()  # the complete list, which the message may shorten

    def as_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "path": self.location.path,
            "line": self.location.line,
            "column": self.location.column,
            "code": self.code,
            "rule": self.rule,
            "message": self.message,
            "pointer": self.location.pointer,
        }
        if self.allowed:
            data["allowed"] = list(self.allowed)
        return data

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        return (loc.path, loc.line or 0, loc.column or 0, self.code, self.message)


def escape_pointer_token(token: str | int) -> str:
    text = str(token)
    if "~" in text or "/" in text:
        return text.replace("~", "~0").replace("/", "~1")
    return text


def join_pointer(*tokens: str | int) -> str:
    return "/" + "/".join(map(escape_pointer_token, tokens)) if tokens else ""


def split_pointer(pointer: str) -> list[str]:
    if not pointer:
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
