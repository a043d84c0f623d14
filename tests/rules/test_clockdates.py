"""DLG052: dates the user gave relative to the clock follow the clock; everything else stays put.

Each test writes one case into a copy of the `clock` fixture repository (a diner sandbox with
`book_table(time)` and `add_reminder(date)`) and reads what :func:`stale_relative_dates` says.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fixture_repos import REPOS
from validator.corpus.index import Corpus
from validator.rules.clockdates import StaleDate, stale_relative_dates

CASE = "dialogues/normal/single_turn/single/single-0001.yaml"
HEADER = """# yaml-language-server: $schema=../../../../schemas/case.schema.json
id: single-0001
category: normal/single_turn/single
apis: [book_table, add_reminder]
time: "{time}"
"""


def _side(lang: str, user: str, calls: list[str]) -> str:
    lines = [f"{lang}:", "  turns:", f"    - user: {user}", "    - expect:", "        calls:"]
    return "\n".join(lines + [f"          - {call}" for call in calls]) + "\n"


def _stale(tmp_path: Path, time: str, en: tuple[str, list[str]], zh: tuple[str, list[str]]) -> list[StaleDate]:
    root = tmp_path / "repo"
    shutil.copytree(REPOS / "clock", root)
    (root / CASE).parent.mkdir(parents=True, exist_ok=True)
    (root / CASE).write_text(HEADER.format(time=time) + _side("en", *en) + _side("zh", *zh), encoding="utf-8")
    corpus = Corpus.load(root)
    return stale_relative_dates(corpus.cases["single-0001"])


def _book(day_time: str, restaurant: str = "Lakeside Kitchen") -> str:
    return f'{{api: book_table, args: {{restaurant: {restaurant}, party_size: 2, time: "{day_time}"}}}}'


def _remind(day: str, title: str) -> str:
    return f'{{api: add_reminder, args: {{title: {title}, date: "{day}"}}}}'


def _values(found: list[StaleDate]) -> list[tuple[str, str, str, str]]:
    return [(s.lang, s.words, s.old, s.new) for s in found]


MONDAY = "2024-07-22T10:00:00+08:00"  # the clock after the move; the keys below were written on Wednesday 17 July


@pytest.mark.parametrize(
    ("en_words", "zh_words", "old", "new"),
    [
        ("tomorrow at 7 pm", "明晚7点", "2024-07-18T19:00", "2024-07-23T19:00"),
        ("the day after tomorrow at 7 pm", "后天晚上7点", "2024-07-19T19:00", "2024-07-24T19:00"),
        ("in 3 days at 7 pm", "三天后晚上7点", "2024-07-20T19:00", "2024-07-25T19:00"),
    ],
)
def test_a_moved_clock_moves_each_relative_date(tmp_path: Path, en_words: str, zh_words: str, old: str, new: str) -> None:
    en = (f"Book Lakeside Kitchen for two {en_words}.", [_book(old)])
    zh = (f"{zh_words}订湖畔小厨，两个人。", [_book(old, "湖畔小厨")])
    assert _stale(tmp_path, "2024-07-17T16:00:00+08:00", en, zh) == []  # the clock the key was written against
    found = _stale(tmp_path / "moved", MONDAY, en, zh)
    assert [(s.lang, s.old, s.new, s.gives) for s in found] == [("en", old, new, new[:10]), ("zh", old, new, new[:10])]
    assert [s.pointer for s in found] == ["/en/turns/1/expect/calls/0/args/time", "/zh/turns/1/expect/calls/0/args/time"]


def test_weekdays_in_a_week_named_and_an_offset_kept(tmp_path: Path) -> None:
    # written on Wednesday 17 July: this Friday is the 19th, 下周三 the 24th; moved to Monday 22 July
    en = ("Remind me this Friday to call the bank.", [_remind("2024-07-19", "call the bank")])
    zh = ("下周三提醒我给银行打电话。", [_remind("2024-07-24", "给银行打电话")])
    found = _stale(tmp_path, MONDAY, en, zh)
    # the sides share the place but not the value, so each side is judged by its own words
    assert _values(found) == [("en", "this friday", "2024-07-19", "2024-07-26"), ("zh", "下周三", "2024-07-24", "2024-07-31")]
    moved = _stale(tmp_path / "tz", "2024-07-22T10:00:00+01:00", (en[0], ['{api: book_table, args: {restaurant: Lakeside Kitchen, party_size: 2, time: "2024-07-19T19:00:00+08:00"}}']), zh)
    assert [s.new for s in moved if s.lang == "en"] == ["2024-07-26T19:00:00+08:00"]  # time of day and offset kept


def test_dates_written_out_never_move(tmp_path: Path) -> None:
    en = ("Remind me on 14 March to renew the passport, and on 2024-07-19 to pay rent.", [_remind("2025-03-14", "renew the passport"), _remind("2024-07-19", "pay rent")])
    zh = ("3月14日提醒我续护照，2024-07-19提醒我交房租。", [_remind("2025-03-14", "续护照"), _remind("2024-07-19", "交房租")])
    assert _stale(tmp_path, "2025-01-02T09:00:00+08:00", en, zh) == []
    assert _stale(tmp_path / "later", "2026-02-01T09:00:00+08:00", en, zh) == []


@pytest.mark.parametrize(
    ("en_user", "zh_user", "day"),
    [
        # worked out from the words, not read from them: a sum of days
        ("I'm off for a ten-day break starting today; remind me the day after it ends to restart the pills.", "我从今天开始停药十天，停药结束后的第二天提醒我恢复吃药。", "2024-07-28"),
        # a date the reader does not understand, next to one it does
        ("I'm busy tomorrow, so remind me next Friday to restart the pills.", "我明天没空，下下周五提醒我恢复吃药。", "2024-07-26"),
        # a bare weekday in the past tense: the last one, which the clock also explains
        ("I restarted the pills on Monday; note it down.", "我周一开始恢复吃药了，记一下。", "2024-07-15"),
    ],
)
def test_unsure_readings_stay_silent(tmp_path: Path, en_user: str, zh_user: str, day: str) -> None:
    assert _stale(tmp_path, "2024-07-17T16:00:00+08:00", (en_user, [_remind(day, "restart the pills")]), (zh_user, [_remind(day, "恢复吃药")])) == []


def test_two_readings_of_one_value_are_not_guessed(tmp_path: Path) -> None:
    # written on Thursday 18 July: "tomorrow" and "Friday" both gave the 19th; on Tuesday 30 July they part
    later = "2024-07-30T10:00:00+08:00"
    en = ("Tomorrow is Friday, so remind me Friday to call the bank.", [_remind("2024-07-19", "call the bank")])
    zh = ("明天就是周五了，周五提醒我给银行打电话。", [_remind("2024-07-19", "给银行打电话")])
    assert _stale(tmp_path, later, en, zh) == []
    one = ("Remind me tomorrow to call the bank.", en[1]), ("明天提醒我给银行打电话。", zh[1])
    assert [s.new for s in _stale(tmp_path / "one", later, *one)] == ["2024-07-31", "2024-07-31"]


def test_the_corpus_has_no_stale_relative_dates() -> None:
    corpus = Corpus.load(Path(__file__).resolve().parents[2])
    assert len(corpus.cases) > 1000
    assert [s for case in corpus.cases.values() for s in stale_relative_dates(case)] == []
