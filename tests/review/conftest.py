from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.review.helpers import MODELS, VALID
from tests.support.local_llm import local_llm  # noqa: F401  (pytest fixture)
from tests.support.openai_server import OpenAIServer


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    """A scripted judge server answering `valid` to everything until a test scripts it."""
    with OpenAIServer(lambda request: VALID, models=MODELS) as running:
        yield running
