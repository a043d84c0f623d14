"""The price table a user passes (``--prices``): what a million tokens cost, per model.

callbank ships no prices — published prices change and a built-in table would go stale
silently — so a cost is only ever computed from a table the user wrote::

    # prices.yaml — USD per million tokens
    currency: USD
    per_tokens: 1000000          # optional, the default
    models:
      gpt-4.1-mini: {input: 0.40, output: 1.60}
      qwen2.5:7b: {input: 0, output: 0}   # a local server

``input`` prices prompt tokens, ``output`` completion tokens. YAML or JSON; a mistake is
reported with the file, line and what to change.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from validator.errors import UserError
from validator.loading import Document, load_text

DEFAULT_PER_TOKENS = 1_000_000


class Price(NamedTuple):
    input: float  # per `per_tokens` prompt tokens
    output: float  # per `per_tokens` completion tokens


class PriceTable(NamedTuple):
    currency: str
    per_tokens: int
    models: Mapping[str, Price]
    source: str  # the file, for messages

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """The cost of these tokens for model, or None when the table has no price for it."""
        price = self.models.get(model)
        if price is None:
            return None
        return (prompt_tokens * price.input + completion_tokens * price.output) / self.per_tokens


def read_prices(path: Path) -> PriceTable:
    """The table in path (UserError naming the file, line and fix when it is not one)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such price table") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"cannot read price table {path}: {getattr(error, 'strerror', None) or error}") from None
    document, problems = load_text(text, str(path), "prices")
    if problems or document is None:
        where = f":{problems[0].line}" if problems and problems[0].line else ""
        raise UserError(f"{path}{where}: {problems[0].message if problems else 'not a YAML or JSON document'}")
    return _table(document, str(path))


def _fail(document: Document, pointer: str, message: str) -> UserError:
    line, _ = document.locate(pointer)
    return UserError(f"{document.path}:{line}: {message}")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def _table(document: Document, source: str) -> PriceTable:
    data = document.data
    if not isinstance(data, dict):
        raise _fail(document, "", "a price table is a mapping with `currency` and `models: {MODEL: {input: PRICE, output: PRICE}}`")
    unknown = sorted(set(data) - {"currency", "per_tokens", "models"})
    if unknown:
        raise _fail(document, f"/{unknown[0]}", f"unknown key {unknown[0]!r}; a price table has currency, per_tokens and models")
    currency = data.get("currency")
    if not isinstance(currency, str) or not currency.strip():
        raise _fail(document, "/currency" if "currency" in data else "", "give the prices' `currency` (for example USD)")
    per_tokens = data.get("per_tokens", DEFAULT_PER_TOKENS)
    if not isinstance(per_tokens, int) or isinstance(per_tokens, bool) or per_tokens < 1:
        raise _fail(document, "/per_tokens", f"per_tokens must be a positive whole number of tokens, not {per_tokens!r}")
    models = data.get("models")
    if not isinstance(models, dict) or not models:
        raise _fail(document, "/models" if "models" in data else "", "give `models:` with one entry per model name: {input: PRICE, output: PRICE}")
    table: dict[str, Price] = {}
    for name, entry in models.items():
        pointer = f"/models/{name.replace('~', '~0').replace('/', '~1')}"
        if not isinstance(entry, dict) or set(entry) != {"input", "output"}:
            raise _fail(document, pointer, f"model {name!r}: give exactly {{input: PRICE, output: PRICE}} (per {per_tokens:,} prompt / completion tokens)")
        for side in ("input", "output"):
            if not _number(entry[side]):
                raise _fail(document, f"{pointer}/{side}", f"model {name!r}: {side} must be a price ≥ 0, not {entry[side]!r}")
        table[name] = Price(float(entry["input"]), float(entry["output"]))
    return PriceTable(currency.strip(), per_tokens, table, source)
