from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.local_llm import local_llm  # noqa: F401  (pytest fixture)
from validator.corpus.index import Corpus

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"


@pytest.fixture(scope="session")
def repo() -> Corpus:
    return Corpus.load(FIXTURE)
