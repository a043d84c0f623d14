"""Feature claims (DLG040): a case that declares a checked difficulty feature contains it.

``features:`` says what makes a case hard (docs/authoring.md §1, the feature vocabulary).
Thirteen of the features can be told from the case itself; :func:`shortfall` decides each of
them and says what is missing, and ``callbank stats`` counts the cases that contain them with
the same functions. ``colloquial``, ``typo``, ``english_locale`` and ``near_miss`` are
judgements about wording that no rule can make. ``doc_constraint`` is checked elsewhere or not
at all: in an ``error_param`` case DLG031 already requires a bad value that breaks the
parameter's schema, and in a normal case the limit the answer depends on is stated in prose as
often as in the schema ("the registered 11-digit mobile number", "the exact saved name"), which
no rule can read. These five are reported as declared.

What counts, in short (the vocabulary table holds the full wording):

- the calls looked at are every checkpoint's first alternative (the answer the oracle plays),
  with ``$optional`` values left out — a value the model may omit makes nothing hard;
- "written in the user's words" is per language side: a date in an absolute form (ISO,
  ``July 20``, ``20 July``, ``7/20``, ``7月20日``), a number in digits or as a plain number
  word (``three``, ``三``, ``十二``) — a number word with a magnitude (``3万``, ``两千``,
  ``80k``) is a conversion, not the number written;
- domains: ``cross_domain`` counts the top-level domains of the candidates (``bank``,
  ``travel``); a rival shares an answered API's full domain (``travel.flights``), the spec's
  own ``domain`` field, as DLG021 reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from validator import matchers
from validator.corpus.canonical import canonical_json
from validator.corpus.index import Corpus
from validator.corpus.records import Call, Case, Checkpoint, Dialogue, ToolTurn, UserTurn
from validator.diagnostics import Finding, join_pointer
from validator.facts.lexicon import EN_ONES, EN_TENS, ZH_BIG_UNITS, ZH_DIGITS, ZH_SMALL_UNITS
from validator.facts.numerals import chinese_value
from validator.rules.registry import rule
from validator.textnorm import normalize_text

MANY_CANDIDATES: Final = 8
CROSS_DOMAINS: Final = 3
MULTI_CALLS: Final = 3
LONG_EN_WORDS: Final = 40
LONG_ZH_TOKENS: Final = 60  # Chinese characters, each number or English word counting one
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_EN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’.,:/-]*")
# an English word inside Chinese text, not part of an identifier such as SKU-3002 or G14
_LATIN_WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z]{2,}(?![A-Za-z0-9_]|-\d)")
_DIGITS = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|(?<![\d.,])\d+(?:\.\d+)?")
_WORD = re.compile(r"[a-z]+")
_ZH_NUMERAL_RUN = re.compile("[" + "".join(sorted({*ZH_DIGITS, *ZH_SMALL_UNITS, *ZH_BIG_UNITS})) + "]+")
_ZH_MAGNITUDES = frozenset("百佰千仟万萬亿")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?(?:$|T)")  # a date, a date-time or a month
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december")


# ----------------------------------------------------------------------------- reading a case


def answered_apis(case: Case) -> set[str]:
    """APIs some checkpoint of the case calls (any alternative) or names in a special answer."""
    found: set[str] = set()
    for dialogue in case.dialogues.values():
        for checkpoint in dialogue.checkpoints:
            for alternative in checkpoint.alternatives:
                found.update(call.api for call in alternative.calls)
            if checkpoint.special is not None and checkpoint.special.api is not None:
                found.add(checkpoint.special.api)
    return found


def top_domain(domain: str) -> str:
    return domain.split(".", 1)[0]


def leaves(value: Any) -> Iterator[Any]:
    """The concrete values inside an argument value: every ``$any`` option, the ``$text`` and
    ``$regex`` example strings, list items and object values; ``$optional`` values are not
    required and a ``$range`` is a number the user left open, so both are left out."""
    if isinstance(value, list):
        for item in value:
            yield from leaves(item)
    elif isinstance(value, dict):
        if not matchers.is_matcher(value):
            for item in value.values():
                yield from leaves(item)
            return
        kind = matchers.matcher_kind(value)
        if kind in ("$optional", "$range") or kind is None:
            return
        if kind == "$regex":
            yield value.get("$example")
        elif kind == "$contains":
            for phrase in value[kind]:
                yield from leaves(phrase)
        else:
            yield from leaves(value[kind])
    elif value is not None and not isinstance(value, bool):
        yield value


def first_calls(dialogue: Dialogue) -> Iterator[tuple[Checkpoint, Call]]:
    for checkpoint in dialogue.checkpoints:
        for call in checkpoint.first:
            yield checkpoint, call


def user_turns(dialogue: Dialogue) -> list[str]:
    return [turn.text for turn in dialogue.turns if isinstance(turn, UserTurn)]


def en_words(text: str) -> int:
    """English words of a message (numbers, codes and contractions count as one word each)."""
    return len(_EN_WORD.findall(text))


def zh_characters(text: str) -> int:
    """Chinese characters of a message."""
    return len(_CJK.findall(text))


def message_tokens(text: str, lang: str) -> int:
    """Tokens of a user message as the stats count them: English words; Chinese characters plus
    each Latin word or number inside the Chinese text."""
    if lang == "zh":
        return zh_characters(text) + len(_EN_WORD.findall(_CJK.sub(" ", text)))
    return en_words(text)


def written_numbers(text: str) -> set[float]:
    """Numbers the text writes out: digits (``1,250``, ``3.5``) and plain number words
    (``three``, ``twenty``, ``三``, ``十二``, ``两``). A number word with a magnitude
    (``三万``, ``两千``) is not the number written: turning it into 30000 is a conversion."""
    found = {float(m.group().replace(",", "")) for m in _DIGITS.finditer(text)}
    found.update(float(EN_ONES.get(w, EN_TENS.get(w, -1))) for w in _WORD.findall(text.lower()) if w in EN_ONES or w in EN_TENS)
    for run in _ZH_NUMERAL_RUN.findall(text):
        if not _ZH_MAGNITUDES.intersection(run):
            value = chinese_value(run)
            if value is not None:
                found.add(float(value))
    return found


def date_written(year: int, month: int, day: int | None, text: str) -> bool:
    """Whether the text names this date (or, without a day, this month) in an absolute form,
    whatever the language: ``2024-07-20``, ``July 20``, ``20th of July``, ``7/20``, ``7月20日``;
    a month as ``July``, ``2024-07`` or ``7月``."""
    lowered = text.lower()
    name = _MONTHS[month - 1]
    months = f"(?:{name}|{name[:3]}\\.?{'|sept' if month == 9 else ''})"
    if day is None:
        patterns: tuple[str, ...] = (rf"\b{months}\b", rf"(?<!\d){year}\s*[-/.年]\s*0?{month}(?!\d)", rf"(?<![\d.])0?{month}\s*月(?![\d])")
        return any(re.search(p, lowered) for p in patterns)
    suffix = r"(?:st|nd|rd|th)?"
    patterns = (
        rf"(?<!\d){year}\s*[-/.年]\s*0?{month}\s*[-/.月]\s*0?{day}(?!\d)",
        rf"\b{months}\s+0?{day}{suffix}\b",
        rf"(?<!\d)0?{day}{suffix}\s+(?:of\s+)?{months}\b",
        rf"(?<![\d/.])0?{month}/0?{day}(?![\d/])",
        rf"(?<![\d/.])0?{day}/0?{month}(?![\d/])",
        rf"(?<!\d)0?{month}\s*月\s*0?{day}\s*[日号號]",
    )
    return any(re.search(p, lowered) for p in patterns)


def _normalized(value: str) -> str:
    return normalize_text(value)


def _contains_phrase(haystack: str, needle: str) -> bool:
    """needle (normalised) occurs in haystack (normalised) on token boundaries for Latin text."""
    if not needle:
        return False
    return re.search(r"(?<![0-9a-z])" + re.escape(needle) + r"(?![0-9a-z])", haystack) is not None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _tool_leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _tool_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _tool_leaves(item)
    elif value is not None and not isinstance(value, bool):
        yield value


# ----------------------------------------------------------------------------- one check per feature


@dataclass(frozen=True, slots=True)
class Context:
    case: Case
    corpus: Corpus


Check = Callable[[Context], "str | None"]  # None: the case contains the feature; else what is missing
CHECKS: dict[str, Check] = {}


def _check(name: str) -> Callable[[Check], Check]:
    def register(function: Check) -> Check:
        CHECKS[name] = function
        return function

    return register


@_check("many_candidates")
def _many_candidates(ctx: Context) -> str | None:
    n = len(ctx.case.apis)
    return None if n >= MANY_CANDIDATES else f"it offers {n} candidate API(s), fewer than {MANY_CANDIDATES}"


@_check("cross_domain")
def _cross_domain(ctx: Context) -> str | None:
    domains = sorted({top_domain(ctx.corpus.specs[api].domain) for api in ctx.case.apis if api in ctx.corpus.specs})
    if len(domains) >= CROSS_DOMAINS:
        return None
    return f"its candidates come from {len(domains)} domain(s) ({', '.join(domains) or 'none'}), fewer than {CROSS_DOMAINS}"


@_check("rival_api")
def _rival_api(ctx: Context) -> str | None:
    answered = answered_apis(ctx.case)
    domains = {ctx.corpus.specs[api].domain for api in answered if api in ctx.corpus.specs}
    rivals = [api for api in ctx.case.apis if api not in answered and api in ctx.corpus.specs and ctx.corpus.specs[api].domain in domains]
    if rivals:
        return None
    shown = ", ".join(sorted(domains)) or "no answered API"
    return f"no candidate that the answer does not call shares a domain with an answered API ({shown})"


def _per_side(ctx: Context, side_check: Callable[[Dialogue], str | None]) -> str | None:
    """The feature must hold on every language side; the first side it fails on says why."""
    for lang, dialogue in ctx.case.dialogues.items():
        missing = side_check(dialogue)
        if missing is not None:
            return f"on the {lang} side, {missing}"
    return None


@_check("relative_date")
def _relative_date(ctx: Context) -> str | None:
    def side(dialogue: Dialogue) -> str | None:
        said = "\n".join(user_turns(dialogue))
        dates = []
        for _, call in first_calls(dialogue):
            for value in call.args.values():
                dates += [leaf for leaf in leaves(value) if isinstance(leaf, str) and _ISO_DATE.match(leaf)]
        for checkpoint in dialogue.checkpoints:
            if checkpoint.special is not None:
                dates += [leaf for value in checkpoint.special.params.values() for leaf in leaves(value) if isinstance(leaf, str) and _ISO_DATE.match(leaf)]
        if not dates:
            return "no argument holds a date or a month"
        for value in dates:
            match = _ISO_DATE.match(value)
            assert match is not None
            if not date_written(int(match[1]), int(match[2]), int(match[3]) if match[3] else None, said):
                return None
        return f"every date (or month) argument is written in the user's words ({', '.join(sorted(set(dates)))})"

    return _per_side(ctx, side)


def _numbers_of(dialogue: Dialogue) -> list[float]:
    found = [float(leaf) for _, call in first_calls(dialogue) for value in call.args.values() for leaf in leaves(value) if _is_number(leaf)]
    for checkpoint in dialogue.checkpoints:
        if checkpoint.special is not None:
            found += [float(leaf) for value in checkpoint.special.params.values() for leaf in leaves(value) if _is_number(leaf)]
    return found


@_check("unit_conversion")
def _unit_conversion(ctx: Context) -> str | None:
    def side(dialogue: Dialogue) -> str | None:
        numbers = _numbers_of(dialogue)
        if not numbers:
            return "no argument is a number"
        written = written_numbers("\n".join(user_turns(dialogue)))
        if any(n not in written for n in numbers):
            return None
        return f"every number of the answer is written in the user's words ({', '.join(sorted({f'{n:g}' for n in numbers}))})"

    return _per_side(ctx, side)


@_check("from_tool_result")
def _from_tool_result(ctx: Context) -> str | None:
    def side(dialogue: Dialogue) -> str | None:
        said = _normalized("\n".join(user_turns(dialogue)))
        written = written_numbers("\n".join(user_turns(dialogue)))
        results: list[Any] = []
        for turn in dialogue.turns:
            if isinstance(turn, ToolTurn):
                results.extend(leaf for result in turn.results for leaf in _tool_leaves(result.result))
            elif isinstance(turn, Checkpoint) and results and any(_from_results(leaf, results, said, written) for call in turn.first for leaf in _call_leaves(call)):
                return None
        if not results:
            return "no tool result comes before a checkpoint"
        return "no argument takes a value that a tool returned and the user never said"

    return _per_side(ctx, side)


def _call_leaves(call: Call) -> Iterator[Any]:
    for value in call.args.values():
        yield from leaves(value)


def _from_results(leaf: Any, results: list[Any], said: str, written: set[float]) -> bool:
    if _is_number(leaf):
        return float(leaf) not in written and any(_is_number(r) and float(r) == float(leaf) for r in results)
    if not isinstance(leaf, str):
        return False
    wanted = _normalized(leaf)
    if len(wanted) < 2 or _contains_phrase(said, wanted):
        return False
    return any(isinstance(r, str) and _contains_phrase(_normalized(r), wanted) for r in results)


def _nested(value: Any) -> bool:
    """A literal object, or a list holding one (matchers looked through, ``$optional`` skipped)."""
    if isinstance(value, list):
        return any(_nested(item) for item in value)
    if isinstance(value, dict):
        if not matchers.is_matcher(value):
            return True
        kind = matchers.matcher_kind(value)
        if kind in ("$any", "$unordered", "$literal"):
            body = value[kind]
            return _nested(body) if kind != "$any" else any(_nested(option) for option in body)
    return False


def _object_schema(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    items = schema.get("items")
    return schema.get("type") == "object" or "properties" in schema or (schema.get("type") == "array" and isinstance(items, dict) and _object_schema(items))


@_check("nested_args")
def _nested_args(ctx: Context) -> str | None:
    for dialogue in ctx.case.dialogues.values():
        for checkpoint in dialogue.checkpoints:
            if any(_nested(value) for call in checkpoint.first for value in call.args.values()):
                return None
            # a special answer about an API whose request must be built as nested objects
            special = checkpoint.special
            spec = ctx.corpus.specs.get(special.api) if special is not None and special.api is not None else None
            if spec is not None and any(_object_schema(schema) for schema in spec.properties.values()):
                return None
    return "no argument is an object or a list of objects (nor does a special answer's API take one)"


def _sets_optional(value: Any, schema: Any, lang: str) -> bool:
    """Some optional key of an object argument (at any depth) is set to a non-default value."""
    if not isinstance(schema, dict):
        return False
    if isinstance(value, list):
        return any(_sets_optional(item, schema.get("items"), lang) for item in value)
    if not isinstance(value, dict) or matchers.is_matcher(value):
        return False
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    for name, item in value.items():
        child = properties.get(name)
        if name not in required and not matchers.is_omittable(item) and not _at_default(item, child, lang):
            return True
        if _sets_optional(item, child, lang):
            return True
    return False


def _at_default(value: Any, schema: Any, lang: str) -> bool:
    return isinstance(schema, dict) and "default" in schema and matchers.matches(value, schema["default"], lang, schema)


@_check("optional_set")
def _optional_set(ctx: Context) -> str | None:
    specs = ctx.corpus.specs
    for dialogue in ctx.case.dialogues.values():
        for _, call in first_calls(dialogue):
            spec = specs.get(call.api)
            if spec is not None and _sets_optional(dict(call.args), {"properties": spec.properties, "required": spec.required}, dialogue.lang):
                return None
        for checkpoint in dialogue.checkpoints:
            special = checkpoint.special
            spec = specs.get(special.api) if special is not None and special.api is not None else None
            if special is not None and spec is not None and any(name not in spec.required for name in special.params):
                return None
    return "no optional parameter (or optional key of an object argument) is set to a value other than its default"


@_check("multi_call")
def _multi_call(ctx: Context) -> str | None:
    most = 0
    for dialogue in ctx.case.dialogues.values():
        for checkpoint in dialogue.checkpoints:
            if checkpoint.alternatives:
                needed = min(len(alternative.calls) for alternative in checkpoint.alternatives)
                most = max(most, needed)
    return None if most >= MULTI_CALLS else f"no checkpoint needs {MULTI_CALLS} or more calls (at most {most}, counting its shortest alternative)"


def repeats_api(checkpoint: Checkpoint) -> bool:
    """Every alternative calls one API at least twice with different arguments."""
    if not checkpoint.alternatives:
        return False
    for alternative in checkpoint.alternatives:
        by_api: dict[str, set[str]] = {}
        for call in alternative.calls:
            by_api.setdefault(call.api, set()).add(canonical_json(call.args))
        if not any(len(args) >= 2 for args in by_api.values()):
            return False
    return True


@_check("repeated_api")
def _repeated_api(ctx: Context) -> str | None:
    if any(repeats_api(c) for d in ctx.case.dialogues.values() for c in d.checkpoints):
        return None
    return "no checkpoint calls one API twice with different arguments (in every alternative)"


@_check("revision")
def _revision(ctx: Context) -> str | None:
    for dialogue in ctx.case.dialogues.values():
        checkpoints = dialogue.checkpoints
        later_user = len(checkpoints) >= 2 and any(isinstance(t, UserTurn) and t.index > checkpoints[0].index for t in dialogue.turns)
        if not later_user:
            return "it has no user turn after its first checkpoint followed by a second checkpoint"
    return None


@_check("long_message")
def _long_message(ctx: Context) -> str | None:
    def side(dialogue: Dialogue) -> str | None:
        texts = user_turns(dialogue)
        if dialogue.lang == "zh":
            longest = max((message_tokens(t, "zh") for t in texts), default=0)
            return None if longest >= LONG_ZH_TOKENS else f"the longest user message has {longest} Chinese characters (a number or an English word counting one), fewer than {LONG_ZH_TOKENS}"
        longest = max((en_words(t) for t in texts), default=0)
        return None if longest >= LONG_EN_WORDS else f"the longest user message has {longest} words, fewer than {LONG_EN_WORDS}"

    return _per_side(ctx, side)


@_check("code_switch")
def _code_switch(ctx: Context) -> str | None:
    dialogue = ctx.case.dialogues.get("zh")
    if dialogue is not None and any(_LATIN_WORD.search(text) for text in user_turns(dialogue)):
        return None
    return "no Chinese user message holds an English word (an identifier such as SKU-3002 does not count)"


CHECKED: Final = tuple(CHECKS)


def shortfall(case: Case, corpus: Corpus, feature: str) -> str | None:
    """Why the case does not contain a feature a rule can check, or None when it does."""
    return CHECKS[feature](Context(case, corpus))


def contains(case: Case, corpus: Corpus, feature: str) -> bool:
    return shortfall(case, corpus, feature) is None


# ----------------------------------------------------------------------------- the rule

_ADVICE: Final = {
    "many_candidates": "offer 8+ candidates (rivals and distractors)",
    "cross_domain": "add candidates from other domains",
    "rival_api": "offer an unanswered look-alike of the answered API's domain",
    "relative_date": "let the user say the date relative to the clock ('this Saturday', '后天')",
    "unit_conversion": "let the user give the value in another unit or magnitude",
    "from_tool_result": "make an argument come from an earlier tool result",
    "nested_args": "the case needs an object argument or a list of objects",
    "optional_set": "the request must require an optional parameter at a non-default value",
    "multi_call": "a checkpoint must need 3 or more calls",
    "repeated_api": "a checkpoint must call one API twice with different arguments",
    "revision": "a later user turn must revise or build on the first request",
    "long_message": "a user message must run to 40+ English words and 60+ Chinese characters",
    "code_switch": "the Chinese request must name a product, app or brand in English",
}


@rule("DLG040", "unfounded-feature-claim", "A case claims a difficulty feature that it does not contain.", on=Case)
def unfounded_feature_claim(case: Case, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Checks every feature in a case's `features:` that the vocabulary of docs/authoring.md marks
    as checked: `many_candidates` (8+ candidates), `cross_domain` (candidates from 3+ domains),
    `rival_api` (an unanswered candidate of an answered API's domain), `relative_date` (a date
    argument the user did not write as a date), `unit_conversion` (a number the user did not
    write), `from_tool_result` (a value a tool returned and the user never said), `nested_args`,
    `optional_set`, `multi_call` (3+ calls in one checkpoint), `repeated_api`,
    `revision`, `long_message` (40+ English words / 60+ Chinese characters in one message) and
    `code_switch` (an English word in a Chinese request). Language-dependent features must hold
    on both sides.
    ## Why is this bad?
    `callbank stats` reports how hard the corpus is from these claims, and readers choose cases
    by them. A claim the case does not back inflates the difficulty figures the benchmark is
    judged by.
    ## Example
    ```yaml
    features: [relative_date]
    en:
      turns:
        - user: Book a table for two on 2024-07-20 at 7 pm.
        - expect: {calls: [{api: book_table, args: {date: "2024-07-20", time: "19:00", party_size: 2}}]}
    ```
    ## Use instead
    Drop the claim, or make the case what it claims to be:
    ```yaml
    features: [relative_date]
    en:
      turns:
        - user: Book a table for two this Saturday at 7 pm.
    ```
    """
    for index, feature in enumerate(case.features):
        if feature not in CHECKS:
            continue
        missing = shortfall(case, corpus, feature)
        if missing is not None:
            yield Finding(f"claims {feature}, but {missing}; drop the claim or fix the case ({_ADVICE[feature]})", join_pointer("features", index))
