"""JSON text of nested data: canonical (sorted keys) for content hashes, in the data's own key
order for the dataset's columns."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    """Sorted keys, real UTF-8 characters, no spaces: equal data gives equal text."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def data_json(value: Any) -> str:
    """The data's own key order, real UTF-8 characters, no spaces: what the dataset stores. Key
    order is data too — a sandbox lists a product's variants in the order its state gives them —
    and the source's order is as fixed as a sorted one, so builds stay byte-identical."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def sha256_of(value: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of value (UTF-8)."""
    return "sha256:" + hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def content_hash(data: Any) -> str:
    """The content hash of a case or scenario (its document's data): what review records pin.

    The review queue records it when judges vote and when a human accepts an item; the review
    gate compares it with the hash of the item as it is now.
    """
    return sha256_of(data)
