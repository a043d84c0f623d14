"""Models under test: the ``Model`` protocol (``validator.models.base``) and the built-in ones.

``MODELS`` maps a ``--model`` name to a factory ``create(context: ModelContext) -> Model``;
endpoint clients register here too. Modules are imported only when their model is chosen.
"""

from __future__ import annotations

import importlib
from typing import Any

from validator.models.base import ModelContext

MODELS: dict[str, str] = {
    "oracle": "validator.models.oracle:create",
    "null": "validator.models.null:create",
}


def create_model(name: str, context: ModelContext) -> Any:
    """The model registered as name (KeyError when there is none)."""
    module_name, attribute = MODELS[name].split(":")
    return getattr(importlib.import_module(module_name), attribute)(context)
