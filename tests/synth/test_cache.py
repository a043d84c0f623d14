"""The answer cache: durable appends, a line cut short by a kill skipped, the first answer kept."""

from __future__ import annotations

from pathlib import Path

from validator.synth.cache import CACHE_FILE, AnswerCache, AnswerKey

KEY = AnswerKey("generator", "m", "generate.v1.en", "sha256:" + "1" * 64, "draft")


def test_answers_survive_a_new_process_and_a_cut_short_line_is_skipped(tmp_path: Path) -> None:
    AnswerCache(tmp_path).put(KEY, {"content": "first"})
    with (tmp_path / CACHE_FILE).open("ab") as handle:
        handle.write(b'{"key": ["simulator", "m", "run.v1", "x", "en/0"], "content": "cut sh')  # killed inside write
    cache = AnswerCache(tmp_path)
    assert cache.get(KEY) == {"key": list(KEY), "content": "first"} and len(cache) == 1
    other = KEY._replace(question="en/0")
    cache.put(other, {"content": "second"})  # starts on a fresh line after the broken one
    reread = AnswerCache(tmp_path)
    assert reread.get(other) is not None and reread.get(other)["content"] == "second"


def test_the_first_answer_to_a_key_wins(tmp_path: Path) -> None:
    AnswerCache(tmp_path).put(KEY, {"content": "first"})
    AnswerCache(tmp_path).put(KEY, {"content": "raced"})
    assert AnswerCache(tmp_path).get(KEY)["content"] == "first"  # type: ignore[index]
    assert AnswerCache(tmp_path).get(KEY._replace(model="other")) is None  # another model asks again
