"""The oracle's sentences: each fact of the corpus, said in its own sentence, is told by it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from validator.corpus.index import Corpus
from validator.facts import analyse, read_fact, sentence, told
from validator.facts.render import number_text, quantity

ROOT = Path(__file__).resolve().parents[2]


def corpus_facts() -> list[tuple[str, dict[str, Any], str]]:
    corpus = Corpus.load(ROOT, ("scenario",))
    found = []
    for scenario_id, scenario in sorted((k, s.data) for k, s in corpus.scenarios.items()):
        for fact in scenario.get("outputs") or []:
            found.append((scenario_id, fact, scenario["time"]))
        for milestone in scenario.get("milestones") or []:
            for fact in milestone.get("confirmed") if isinstance(milestone.get("confirmed"), list) else []:
                found.append((scenario_id, fact, scenario["time"]))
    return found


FACTS = corpus_facts()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_corpus_fact_is_told_by_its_sentence(lang: str) -> None:
    assert len(FACTS) > 300
    untold = []
    for scenario_id, data, clock in FACTS:
        fact = read_fact(data)
        said = sentence(fact, lang)
        if not told(fact, analyse(said, dt.datetime.fromisoformat(clock)), lang):
            untold.append((scenario_id, data, said))
    assert untold == []


def test_sentences_read_naturally() -> None:
    fact = read_fact({"number": 20560.8, "unit": "CNY", "about": {"en": ["balance"], "zh": ["余额"]}})
    assert sentence(fact, "en") == "Balance: 20,560.8 yuan."
    assert sentence(fact, "zh") == "余额：20560.8元。"
    assert sentence(read_fact({"number": 3.85, "unit": "percent"}), "en") == "The figure is 3.85%."
    assert sentence(read_fact({"code": "BK-2001"}), "zh") == "编号是BK-2001。"
    assert sentence(read_fact({"time": "07:45"}), "en") == "The time is 07:45."
    assert sentence(read_fact({"date": "2025-05-09"}), "en") == "The date is 9 May 2025."
    assert sentence(read_fact({"date": "2025-05-09"}), "zh") == "日期是2025年5月9日。"
    assert sentence(read_fact({"phrase": {"en": ["sold out"], "zh": ["售罄"]}}), "en") == "Sold out."
    assert quantity(read_fact({"number": 3, "unit": {"en": ["tickets"], "zh": ["张"]}}), "zh") == "3张"  # type: ignore[arg-type]


@pytest.mark.parametrize("value, en, zh", [("1260", "1,260", "1260"), ("-18", "-18", "-18"), ("4380.60", "4,380.6", "4380.6"), ("-1234.5", "-1,234.5", "-1234.5")])
def test_numbers_are_written_as_each_language_writes_them(value: str, en: str, zh: str) -> None:
    from decimal import Decimal

    assert number_text(Decimal(value), "en") == en and number_text(Decimal(value), "zh") == zh
