"""Text for `review list` and `review show`: tables and side-by-side columns, CJK-width aware."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from validator.corpus.langs import LANGS
from validator.review.items import Item
from validator.review.material import dumps, render_dialogue
from validator.review.records import next_step


def width(text: str) -> int:
    """Columns the text takes in a terminal (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 0 if unicodedata.combining(c) else 1 for c in text)


def pad(text: str, columns: int) -> str:
    return text + " " * max(0, columns - width(text))


def wrap(text: str, columns: int) -> list[str]:
    """Wrap on spaces where there are some, anywhere in CJK text; never returns an empty list."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for token in _tokens(paragraph):
            if width(line + token) > columns and line.strip():
                lines.append(line.rstrip())
                line = token.lstrip()
            else:
                line += token
            while width(line) > columns:  # one token longer than the column
                cut = _cut(line, columns)
                lines.append(line[:cut])
                line = line[cut:]
        lines.append(line.rstrip())
    return lines or [""]


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    for char in text:
        if tokens and not (width(char) == 2 or char == " " or width(tokens[-1][-1:]) == 2):
            tokens[-1] += char
        else:
            tokens.append(char)
    return tokens


def _cut(text: str, columns: int) -> int:
    used = 0
    for index, char in enumerate(text):
        used += width(char)
        if used > columns:
            return max(1, index)
    return len(text)


def side_by_side(blocks: Sequence[tuple[str, list[str]]], total: int = 120, gap: int = 3) -> list[str]:
    """Columns with a title each; every entry of a block is wrapped in its column."""
    if not blocks:
        return []
    column = max(16, (total - gap * (len(blocks) - 1)) // len(blocks))
    wrapped = []
    for title, entries in blocks:
        lines = [*wrap(title, column), "-" * min(column, max(width(title), 3))]
        for entry in entries or ["(nothing)"]:
            lines += wrap(entry, column)
        wrapped.append(lines)
    height = max(len(lines) for lines in wrapped)
    out = []
    for row in range(height):
        cells = [pad(lines[row] if row < len(lines) else "", column) for lines in wrapped]
        out.append((" " * gap).join(cells).rstrip())
    return out


def vote_counts(votes: Sequence[dict[str, Any]]) -> str:
    valid = sum(1 for v in votes if v.get("verdict") == "valid")
    invalid = sum(1 for v in votes if v.get("verdict") == "invalid")
    errors = sum(1 for v in votes if v.get("error"))
    return f"{valid}/{invalid}/{errors}"


def list_rows(records: Sequence[tuple[dict[str, Any], str | None]]) -> list[dict[str, Any]]:
    rows = []
    for record, current in records:
        votes = [v for v in record.get("votes") or [] if isinstance(v, dict)]
        rows.append(
            {
                "id": record.get("id"),
                "status": record.get("status"),
                "votes": vote_counts(votes),
                "reviews": len(record.get("reviews") or []),
                "next": next_step(record, current),
                "path": record.get("path"),
            }
        )
    return rows


def render_list(rows: Sequence[dict[str, Any]]) -> str:
    if not rows:
        return "nothing to review\n"
    headers = {"id": "ID", "status": "STATUS", "votes": "VALID/INVALID/ERROR", "reviews": "REVIEWS", "next": "NEXT"}
    widths = {key: max(width(title), *(width(str(row[key])) for row in rows)) for key, title in headers.items()}
    lines = ["  ".join(pad(title, widths[key]) for key, title in headers.items()).rstrip()]
    for row in rows:
        lines.append("  ".join(pad(str(row[key]), widths[key]) for key in headers).rstrip())
    return "\n".join(lines) + "\n"


def _vote_title(vote: dict[str, Any]) -> str:
    outcome = "ERROR" if vote.get("error") else str(vote.get("verdict", "?")).upper()
    return f"{vote.get('judge')}: {outcome} ({vote.get('model')}, {vote.get('prompt_version')}.{vote.get('lang')})"


def _vote_entries(vote: dict[str, Any]) -> list[str]:
    if vote.get("error"):
        return [f"judge error: {vote['error']}"]
    entries = [f"why: {vote.get('rationale') or '(no rationale given)'}"]
    entries += [f"- {problem}" for problem in vote.get("problems") or []]
    if vote.get("suggested_fix"):
        entries.append(f"fix: {vote['suggested_fix']}")
    return entries


def _case_lines(item: Item) -> list[str]:
    if item.kind == "case":
        head = [f"category {item.data.get('category')} · apis {', '.join(map(str, item.data.get('apis') or []))}"]
        return head + render_dialogue(item.data).split("\n")
    user = item.data.get("user") or {}
    lines = [f"mode {item.data.get('mode')} · sandboxes {', '.join(map(str, item.data.get('sandboxes') or []))}"]
    for lang in LANGS:
        lines.append(f"{lang.upper()} goal: {(user.get(lang) or {}).get('goal', '(missing)')}")
    lines.append("reference calls:")
    lines += [f"  {i + 1}. {dumps(call)}" for i, call in enumerate(item.data.get("reference_calls") or [])]
    return lines


def render_show(record: dict[str, Any], item: Item | None, reveal: bool = False, total: int = 120) -> str:
    current = item.content_hash if item is not None else None
    lines = [
        f"{record.get('id')} · {record.get('status')} · {record.get('path')}",
        f"content  {record.get('content_hash')}" + ("" if current is None else " (the case now: same)" if current == record.get("content_hash") else f" (the case now: CHANGED, {current})"),
        f"next     {next_step(record, current)}",
        "",
        "== case ==",
    ]
    lines += _case_lines(item) if item is not None else ["(the case no longer exists)"]
    votes = [v for v in record.get("votes") or [] if isinstance(v, dict)]
    lines += ["", f"== votes ({vote_counts(votes)} valid/invalid/error) =="]
    lines += side_by_side([(_vote_title(v), _vote_entries(v)) for v in votes], total=total)
    reviews = [r for r in record.get("reviews") or [] if isinstance(r, dict)]
    lines += ["", f"== reviews ({len(reviews)}) =="]
    hidden = len(reviews) == 1 and record.get("status") == "pending" and not reveal
    for index, review in enumerate(reviews, 1):
        if hidden:
            lines.append(f"{index}. {review.get('reviewer')} ({review.get('role')}) at {review.get('at')}: decision hidden until the second independent review is in (--reveal shows it)")
        else:
            lines.append(f"{index}. {review.get('reviewer')} ({review.get('role')}) {review.get('decision')} at {review.get('at')}: {review.get('note')}")
    if not reviews:
        lines.append("(none yet)")
    for number, round_ in enumerate(record.get("history") or [], 1):
        if number == 1:
            lines += ["", "== earlier rounds (other content) =="]
        round_votes = [v for v in round_.get("votes") or [] if isinstance(v, dict)]
        decisions = ", ".join(f"{r.get('reviewer')}: {r.get('decision')}" for r in round_.get("reviews") or []) or "no reviews"
        lines.append(f"{number}. {round_.get('content_hash')} · {round_.get('status')} · votes {vote_counts(round_votes)} · {decisions}")
    return "\n".join(lines) + "\n"
