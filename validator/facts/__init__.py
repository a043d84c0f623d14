"""Output facts: what an agent must tell the user, and whether it did.

``outputs`` of a scenario is a list of short structured facts (``model``); what the agent said
is read once (``scan.analyse``) and each fact looked up in it (``match.told``); the oracle says
each fact in a sentence of its own (``render.sentence``). See docs/scoring.md.
"""

from __future__ import annotations

from validator.facts.match import told
from validator.facts.model import (
    AnyFact,
    CodeFact,
    DateFact,
    Fact,
    FactError,
    NumberFact,
    PhraseFact,
    TimeFact,
    fact_problems,
    has_words,
    phrases,
    read_fact,
    read_facts,
)
from validator.facts.render import sentence
from validator.facts.scan import Analysis, analyse

__all__ = [
    "Analysis", "AnyFact", "CodeFact", "DateFact", "Fact", "FactError", "NumberFact", "PhraseFact", "TimeFact",
    "analyse", "fact_problems", "has_words", "phrases", "read_fact", "read_facts", "sentence", "told",
]  # fmt: skip
