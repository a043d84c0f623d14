"""Models under test: the ``Model`` protocol (``validator.models.base``) and the built-in ones.

``MODELS`` maps a built-in ``--model`` name to a factory ``create(context: ModelContext) -> Model``;
modules are imported only when their model is chosen. Any other name is a model served at an
OpenAI-compatible endpoint (``--base-url``): ``validator.models.endpoint.EndpointModel``, which
implements the same protocol, so every model runs through the same runner.
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
