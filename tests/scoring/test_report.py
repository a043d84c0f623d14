"""Reporters: text and Markdown show the headline figures, JSON is the report itself."""

from __future__ import annotations

import json

from validator.corpus.index import Corpus
from validator.scoring.report import REPORTERS, render_json, render_markdown, render_text

from .conftest import score_records


def sample(repo: Corpus) -> dict:
    records = [
        {"id": "single-0001", "lang": "en", "output": "[get_weather(city='Hangzhou')]"},
        {"id": "single-0001", "lang": "zh", "output": "[get_weather(city='Beijing')]"},
        {"id": "oops", "lang": "en", "output": "[]"},
    ]
    return score_records(repo, records, categories=["normal/single_turn"])


def test_text_report(repo: Corpus) -> None:
    text = render_text(sample(repo))
    assert text.startswith("callbank score\n")
    assert "overall  0.167" in text
    assert "normal/single_turn/single" in text
    assert "single-0001 (zh, step 0)  wrong_value: get_weather: city='Beijing', expected" in text
    assert "missing predictions (4, counted wrong)" in text
    assert "line 3: no case or scenario has the id 'oops'" in text


def test_markdown_report(repo: Corpus) -> None:
    markdown = render_markdown(sample(repo))
    assert markdown.startswith("# callbank score")
    assert "| normal/single_turn/single | 4 | 0.250 |" in markdown
    assert "| wrong value (`wrong_value`) | 1 |" in markdown


def test_json_report_round_trips(repo: Corpus) -> None:
    report = sample(repo)
    assert json.loads(render_json(report)) == report
    assert set(REPORTERS) == {"text", "json", "markdown"}
