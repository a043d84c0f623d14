"""How two strings are compared when exact equality is too strict: free text and ``$text``.

Two normalisations, both linear in the length of the text (no backtracking regular
expression; the one pattern below matches a single character):

* ``fold_free_text`` — what a careful grader ignores in a free-text argument: Unicode
  compatibility forms (NFKC: full-width letters, ligatures), letter case (case folding), the
  typographic variants of quotes, apostrophes and dashes (``’`` = ``'``, ``—`` = ``-``) and the
  amount of white space (collapsed, trimmed). Everything else is kept: punctuation, signs,
  digits, word order.
* ``normalize_text`` — the looser ``$text`` comparison: the free-text folding, then punctuation
  that only shapes prose (quotes, commas, full stops, brackets, hyphens inside words) becomes a
  space, while what carries meaning survives: letters and digits, signs and operators
  (``+ - * = < > % ^ ~ | &``, mathematical and currency symbols), and the decimal point,
  thousands separator or colon between two digits (``3.5``, ``20,000``, ``17:00``). A dash is
  a minus when a digit follows it (``-3``, ``x - 1``, ``2024-06-12``), otherwise a hyphen or a
  dash between words (``follow-up`` = ``follow up``); a slash is a division when a digit is
  next to it (``1/2``, ``x / 2``), otherwise a separator (``pass/fail`` = ``pass fail``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# typographic variants → their plain ASCII form (NFKC already maps full-width forms)
_TYPOGRAPHIC = str.maketrans(
    {
        "\u2018": "'",  # ‘
        "\u2019": "'",  # ’
        "\u201a": "'",  # ‚
        "\u201b": "'",  # ‛
        "\u2032": "'",  # ′
        "\u00b4": "'",  # ´
        "\u201c": '"',  # “
        "\u201d": '"',  # ”
        "\u201e": '"',  # „
        "\u201f": '"',  # ‟
        "\u2033": '"',  # ″
        "\u00ab": '"',  # «
        "\u00bb": '"',  # »
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",  # figure dash
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u2015": "-",  # horizontal bar
        "\u2212": "-",  # minus sign
        "\u2043": "-",  # hyphen bullet
        "\ufe58": "-",  # small em dash
    }
)

# kept by $text as tokens of their own: arithmetic and comparison operators, and the ASCII
# symbols that change what a text says (50% is not 50, R&D is not R D)
_OPERATORS = frozenset("+*=<>%^~|&")
_DIGITS = frozenset("0123456789")
# every character that is neither a word character nor white space, and the underscore
_NOT_WORD = re.compile(r"[^\w\s]|_")


def fold_free_text(text: str) -> str:
    """NFKC, case folding, typographic quotes/apostrophes/dashes unified, white space collapsed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    if not folded.isascii():
        folded = folded.translate(_TYPOGRAPHIC)
    return " ".join(folded.split())


@lru_cache(maxsize=65536)
def folded_free_text(text: str) -> str:
    """``fold_free_text`` of an answer's own strings, which are compared again and again."""
    return fold_free_text(text)


def normalize_text(text: str) -> str:
    """The ``$text`` form of text: prose punctuation dropped, signs, operators and numbers kept."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    if not folded.isascii():
        folded = folded.translate(_TYPOGRAPHIC)
    if _NOT_WORD.search(folded) is not None:
        folded = _NOT_WORD.sub(lambda match: _symbol(folded, match.start()), folded)
    return " ".join(folded.split())


@lru_cache(maxsize=65536)
def normalized_text(text: str) -> str:
    """``normalize_text`` of an answer's own strings, cached."""
    return normalize_text(text)


def _symbol(text: str, index: int) -> str:
    """What one non-word character of folded text becomes in the ``$text`` form."""
    char = text[index]
    if char == "-":
        return " - " if _digit_follows(text, index + 1) else " "
    if char == "/":  # a fraction or a division (1/2, x / 2), not "pass/fail" or "km/h"
        return " / " if _digit_precedes(text, index - 1) or _digit_follows(text, index + 1) else " "
    if char in ".,:":
        before = text[index - 1] if index else ""
        after = text[index + 1] if index + 1 < len(text) else ""
        return char if before in _DIGITS and after in _DIGITS else " "
    if char in _OPERATORS:
        return f" {char} "
    if char.isascii():
        return " "
    category = unicodedata.category(char)
    if category in ("Sm", "Sc"):
        return f" {char} "
    if category[0] == "M":
        return char  # a combining mark belongs to the letter before it
    return " "


def _digit_follows(text: str, start: int) -> bool:
    """Whether the next character after start that is not a space is a digit.

    Each dash scans only the run of spaces right after it, and runs after different dashes do
    not overlap, so a text full of dashes and spaces still costs linear time.
    """
    end = len(text)
    while start < end and text[start] == " ":
        start += 1
    return start < end and text[start] in _DIGITS


def _digit_precedes(text: str, end: int) -> bool:
    """Whether the last character at or before end that is not a space is a digit (linear as above:
    a run of spaces is scanned at most once forwards and once backwards)."""
    while end >= 0 and text[end] == " ":
        end -= 1
    return end >= 0 and text[end] in _DIGITS


def contains_phrase(text: str, phrase: str) -> bool:
    """Whether normalised text contains phrase, not as part of a longer Latin word or number.

    ``n 2`` is in "note n 2 saved" but not in "note n 20"; Chinese has no spaces, so only ASCII
    letters and digits bound a match.
    """
    if not phrase:
        return True
    start = text.find(phrase)
    while start != -1:
        end = start + len(phrase)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (_word(before) and _word(phrase[0])) and not (_word(after) and _word(phrase[-1])):
            return True
        start = text.find(phrase, start + 1)
    return False


def _word(char: str) -> bool:
    return char.isascii() and char.isalnum()
