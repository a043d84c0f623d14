"""Bad input never crashes the checker: every hostile file gives its finding, exit 1, no traceback.

Each hostile file is put into a copy of the minimal repository and checked by `callbank check`
in a subprocess (as a contributor or CI runs it), so a crash anywhere — loader, rules, engine,
reporter, even a C-level stack overflow in libyaml — shows as a wrong exit code or a traceback.
The loader itself is also exercised in-process (every prefix of a real file, positions).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixture_repos import REPOS
from validator.loading import MAX_DEPTH, MAX_FILE_BYTES, load_file, load_text

ROOT = Path(__file__).resolve().parents[1]
CASE = "dialogues/normal/single_turn/single/single-0001.yaml"
STATE = "sandboxes/mini/state.yaml"
CASE_TEXT = (REPOS / "minimal" / CASE).read_text(encoding="utf-8")
STATE_TEXT = (REPOS / "minimal" / STATE).read_text(encoding="utf-8")


def _repo(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REPOS / "minimal", root)
    for path, content in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


def _check(root: Path, *args: str) -> tuple[int, list[dict], str]:
    """Run `callbank check --format json` on root: (exit code, findings, stderr)."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-m", "validator", "check", "--repo", str(root), "--format", "json", *args],
        cwd=ROOT,
        capture_output=True,
        env=env,
        timeout=120,
    )
    stdout = done.stdout.decode("utf-8")
    stderr = done.stderr.decode("utf-8", errors="replace")
    findings = json.loads(stdout) if stdout.strip() else []
    return done.returncode, findings, stderr


def _assert_rejected(root: Path, code: str, *, only: bool = True) -> list[dict]:
    status, findings, stderr = _check(root)
    assert "Traceback" not in stderr, stderr
    assert status == 1, (status, findings, stderr)
    codes = {f["code"] for f in findings}
    assert code in codes, findings
    if only:
        assert codes == {code}, findings
    return [f for f in findings if f["code"] == code]


def test_the_minimal_repository_is_clean(tmp_path: Path) -> None:
    status, findings, stderr = _check(_repo(tmp_path, {}))
    assert (status, findings, stderr) == (0, [], "")


# ----------------------------------------------------------------------------- syntax


def test_truncated_yaml(tmp_path: Path) -> None:
    cut = CASE_TEXT[: CASE_TEXT.index("days: 3}}")]  # inside a flow mapping
    [finding] = _assert_rejected(_repo(tmp_path, {CASE: cut}), "SCH001")
    assert finding["path"] == CASE
    assert finding["message"].startswith("YAML syntax error")


def test_every_prefix_of_a_real_file_loads_without_crashing() -> None:
    raw = (REPOS / "minimal" / CASE).read_bytes()
    for end in range(len(raw) + 1):
        try:
            text = raw[:end].decode("utf-8")
        except UnicodeDecodeError:
            continue  # cut inside a character: the SCH007 path, tested below
        document, problems = load_text(text, CASE, "case")
        assert document is not None or problems, end
        assert all(p.code.startswith("SCH") for p in problems), (end, problems)


def test_binary_garbage(tmp_path: Path) -> None:
    garbage = bytes(range(256)) * 8  # NUL and bytes that are not UTF-8
    [finding] = _assert_rejected(_repo(tmp_path, {CASE: garbage}), "SCH007")
    assert finding["path"] == CASE


def test_nul_bytes_in_valid_utf8(tmp_path: Path) -> None:
    text = CASE_TEXT.replace("days: 3}}\nzh", "days: 3}}\x00\nzh", 1)
    [finding] = _assert_rejected(_repo(tmp_path, {CASE: text}), "SCH007")
    assert "NUL" in finding["message"]
    assert finding["line"] == 11


def test_invalid_utf8_points_at_the_first_bad_byte(tmp_path: Path) -> None:
    raw = CASE_TEXT.encode("gbk")  # Chinese saved by an editor in GBK
    [finding] = _assert_rejected(_repo(tmp_path, {CASE: raw}), "SCH007")
    assert (finding["line"], finding["column"]) == (14, 13)  # `- user: 杭州…` — the first Chinese byte
    assert "0x" in finding["message"]


def test_multiple_documents(tmp_path: Path) -> None:
    text = CASE_TEXT + "---\n" + CASE_TEXT
    [finding] = _assert_rejected(_repo(tmp_path, {CASE: text}), "SCH008")
    assert finding["line"] == CASE_TEXT.count("\n") + 1  # the second '---'


def test_an_explicit_single_document_is_fine(tmp_path: Path) -> None:
    first, rest = CASE_TEXT.split("\n", 1)
    status, findings, _ = _check(_repo(tmp_path, {CASE: first + "\n---\n" + rest + "...\n"}))
    assert (status, findings) == (0, [])


# ----------------------------------------------------------------------------- size and depth


def test_5_mb_file(tmp_path: Path) -> None:
    huge = CASE_TEXT + "".join(f"# padding line {i:07d} " + "x" * 60 + "\n" for i in range(5_000_000 // 84))
    assert len(huge.encode()) > 5_000_000
    [finding] = _assert_rejected(_repo(tmp_path, {CASE: huge}), "SCH006")
    assert f"{MAX_FILE_BYTES:,}" in finding["message"]


def test_a_file_just_under_the_limit_is_read(tmp_path: Path) -> None:
    padded = CASE_TEXT + "#" * (MAX_FILE_BYTES - len(CASE_TEXT.encode()) - 1) + "\n"
    assert len(padded.encode()) == MAX_FILE_BYTES
    status, findings, _ = _check(_repo(tmp_path, {CASE: padded}))
    assert (status, findings) == (0, [])


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 2_000, 200_000])
def test_deep_nesting(tmp_path: Path, depth: int) -> None:
    """Past the limit, deep nesting is refused before libyaml's recursive composer (200 000
    levels, a 400 KB file, overflow its C stack) and before Python's recursion limit."""
    text = STATE_TEXT.replace("notes: []", "notes: " + "[" * depth + "]" * depth)
    [finding] = _assert_rejected(_repo(tmp_path, {STATE: text}), "SCH001")
    assert "nested more than" in finding["message"]
    assert finding["line"] == 9


def test_nesting_up_to_the_limit_is_fine(tmp_path: Path) -> None:
    depth = MAX_DEPTH - 3  # data sits three levels down: root, data, notes' own list
    text = STATE_TEXT.replace("notes: []", "notes: " + "[" * depth + "]" * depth)
    status, findings, stderr = _check(_repo(tmp_path, {STATE: text}))
    assert (status, findings, stderr) == (0, [], "")


# ----------------------------------------------------------------------------- YAML features


def test_one_level_alias_bomb(tmp_path: Path) -> None:
    lol = "  lol: &lol [" + ", ".join(['"lol"'] * 10) + "]\n"
    bomb = "  laughs: [" + ", ".join(["*lol"] * 10) + "]\n"
    [finding] = _assert_rejected(_repo(tmp_path, {STATE: STATE_TEXT + lol + bomb}), "SCH003")
    assert (finding["line"], finding["column"]) == (10, 8)  # the anchor


def test_billion_laughs(tmp_path: Path) -> None:
    levels = ["  a0: &a0 [" + ", ".join(['"lol"'] * 10) + "]\n"]
    for i in range(1, 10):
        levels.append(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n")
    _assert_rejected(_repo(tmp_path, {STATE: STATE_TEXT + "".join(levels)}), "SCH003")


def test_shared_turns_through_an_alias_give_only_the_alias_finding(tmp_path: Path) -> None:
    text = CASE_TEXT.replace("en:\n  turns:", "en:\n  turns: &turns", 1)
    text = text[: text.index("zh:")] + "zh:\n  turns: *turns\n"
    _assert_rejected(_repo(tmp_path, {CASE: text}), "SCH003")


def test_duplicate_keys(tmp_path: Path) -> None:
    text = CASE_TEXT.replace("{city: Hangzhou, days: 3}", '{city: Hangzhou, days: 3, "city": Shanghai}', 1)
    [finding] = _assert_rejected(_repo(tmp_path, {CASE: text}), "SCH002")
    assert (finding["line"], finding["column"]) == (11, 64)
    assert "'city'" in finding["message"]


def test_duplicate_top_level_keys(tmp_path: Path) -> None:
    findings = _assert_rejected(_repo(tmp_path, {STATE: STATE_TEXT + "sandbox: mini\n"}), "SCH002")
    assert [f["line"] for f in findings] == [10]


def test_yaml11_booleans_unquoted(tmp_path: Path) -> None:
    words = ["yes", "no", "on", "off", "y", "n", "Yes", "NO", "On", "OFF", "Y", "N"]
    text = STATE_TEXT + "".join(f"  flag_{i}: {word}\n" for i, word in enumerate(words))
    findings = _assert_rejected(_repo(tmp_path, {STATE: text}), "SCH005")
    assert [(f["line"], f["column"]) for f in findings] == [(10 + i, 10 + len(str(i))) for i in range(len(words))]
    assert [f["message"].split("'")[1] for f in findings] == words


def test_quoted_yaml11_words_and_json_booleans_are_fine(tmp_path: Path) -> None:
    text = STATE_TEXT + '  flags: ["yes", \'no\', "on", "y", true, false, yes_please, "N"]\n'
    status, findings, _ = _check(_repo(tmp_path, {STATE: text}))
    assert (status, findings) == (0, [])


@pytest.mark.parametrize("scalar", ["1:30", "10:30:15", "010", "0x1F", "1_000", ".inf", "-.Inf", ".nan", "1:30.5"])
def test_yaml11_number_forms(tmp_path: Path, scalar: str) -> None:
    [finding] = _assert_rejected(_repo(tmp_path, {STATE: STATE_TEXT + f"  opens: {scalar}\n"}), "SCH009")
    assert (finding["line"], finding["column"]) == (10, 10)
    assert repr(scalar) in finding["message"]


def test_plain_numbers_and_quoted_times_are_fine(tmp_path: Path) -> None:
    text = STATE_TEXT + '  values: [0, 10, -3, +4, 1.5, -0.25, 1e3, 2.5E-2, "1:30", "010"]\n'
    status, findings, _ = _check(_repo(tmp_path, {STATE: text}))
    assert (status, findings) == (0, [])


@pytest.mark.parametrize(
    "value",
    [
        "!!python/object:os.system {}",
        "!!python/object/apply:os.system [echo pwned]",
        "!!python/name:os.system ''",
        "!!binary aGVsbG8=",
        "!!set {a, b}",
        "!local thing",
    ],
)
def test_explicit_tags(tmp_path: Path, value: str) -> None:
    [finding] = _assert_rejected(_repo(tmp_path, {STATE: STATE_TEXT + f"  thing: {value}\n"}), "SCH009")
    assert "tag" in finding["message"]
    assert finding["line"] == 10


@pytest.mark.parametrize("key", ["1", "3.5", "true", "yes", "~", "null", "2024-05-06"])
def test_non_string_keys(tmp_path: Path, key: str) -> None:
    findings = _assert_rejected(_repo(tmp_path, {STATE: STATE_TEXT + f"  {key}: value\n"}), "SCH004", only=False)
    assert [(f["line"], f["column"]) for f in findings] == [(10, 3)]
    status, rest, _ = _check(_repo(tmp_path / "quoted", {STATE: STATE_TEXT + f'  "{key}": value\n'}))
    assert (status, rest) == (0, [])


def test_collection_keys(tmp_path: Path) -> None:
    text = STATE_TEXT + "  ? [a, b]\n  : pair\n  ? {k: v}\n  : mapping\n"
    findings = _assert_rejected(_repo(tmp_path, {STATE: text}), "SCH004")
    assert [f["line"] for f in findings] == [10, 12]
    assert all("list or a mapping" in f["message"] for f in findings)


# ----------------------------------------------------------------------------- shapes


@pytest.mark.parametrize("text", ["", "# only a comment\n", "just a string\n", "- a\n- b\n", "42\n", "~\n"])
def test_documents_that_are_not_mappings(tmp_path: Path, text: str) -> None:
    status, findings, stderr = _check(_repo(tmp_path, {CASE: text, STATE: text, "specs/mini/get_weather.yaml": text}))
    assert "Traceback" not in stderr, stderr
    assert status == 1
    assert {f["path"] for f in findings} >= {CASE, STATE, "specs/mini/get_weather.yaml"}


def test_malformed_values_everywhere(tmp_path: Path) -> None:
    """Schema-violating values in every slot the rules read: findings, never a crash."""
    case = """\
# yaml-language-server: $schema=../../../../schemas/case.schema.json
id: single-0001
category: normal/single_turn/single
apis: [[get_weather], {a: b}, 3]
time: "2024-07-15T09:00:00+08:00"
profile: 5
state: [1]
en:
  turns:
    - 5
    - {user: hi, assistant: hello}
    - expect: hello
    - expect: {calls: [{api: 3, args: [1]}, 7, {api: get_weather, args: 2.5}]}
    - tool: 5
    - expect: {one_of: [1, {calls: 2}]}
    - expect: {special: incomplete, api: get_weather, missing: [3, {a: b}]}
    - expect: {special: error_param, api: get_weather, params: {days: [1], city: {$any: [a]}}}
zh:
  turns: {a: b}
"""
    scenario = """\
# yaml-language-server: $schema=../../../schemas/scenario.schema.json
id: mini-0001
mode: multi_turn
sandboxes: [{a: b}]
apis: [[1]]
user: {en: 5, zh: {script: 3, goal: [1]}}
milestones: [{id: [1], after: 5}, {id: m, after: [m, [1], {a: b}]}, 3]
minefields: {a: 1}
reference_calls: [{api: get_weather, args: {city: {$lang: 5}}}, {api: 5}]
outputs: {en: 5, zh: [1, 2]}
no_change: true
"""
    spec = """\
# yaml-language-server: $schema=../../schemas/api.schema.json
name: get_weather
domain: mini.weather
sandbox: mini
description: [en]
parameters:
  type: object
  properties:
    city: {type: [string, "null"], description: 5}
    days: {type: {a: b}, enum: 3, default: [1]}
    tags: {type: array, items: 5}
    Bad Name: 5
  required: [city, {a: b}, [1]]
  additionalProperties: false
returns: 5
errors: [1]
"""
    files = {CASE: case, "sandboxes/mini/scenarios/mini-0001.yaml": scenario, "specs/mini/get_weather.yaml": spec}
    status, findings, stderr = _check(_repo(tmp_path, files))
    assert "Traceback" not in stderr, stderr
    assert status == 1
    assert {f["path"] for f in findings} == set(files)


# ----------------------------------------------------------------------------- loading in-process


def test_load_file_reports_size_before_reading(tmp_path: Path) -> None:
    (tmp_path / "big.yaml").write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    document, [problem] = load_file(tmp_path, "big.yaml", "case")
    assert document is None
    assert (problem.code, problem.line) == ("SCH006", None)


def test_a_utf8_bom_is_accepted() -> None:
    document, problems = load_text("\ufeff" + CASE_TEXT, CASE, "case")
    assert problems == [] and document is not None  # load_text is given text without the BOM by load_file


def test_yaml_values_become_json_values() -> None:
    text = "a: 1\nb: 1.5\nc: true\nd: ~\ne: 2024-05-06\nf: '010'\ng: [x, {h: null}]\n"
    document, problems = load_text(text, "x.yaml", "unknown")
    assert problems == []
    assert document is not None
    assert document.data == {"a": 1, "b": 1.5, "c": True, "d": None, "e": "2024-05-06", "f": "010", "g": ["x", {"h": None}]}


# ----------------------------------------------------------------------------- Document.locate


LOCATE_TEXT = """\
# yaml-language-server: $schema=../../../../schemas/case.schema.json
id: single-0001
apis: [get_weather, send_note]
en:
  turns:
    - user: Hello
    - expect:
        calls:
          - {api: get_weather, args: {city: 杭州, days: 3}}
odd keys: {"a/b": 1, "t~n": 2, "0": zero}
zh:
  turns:
    - user: 你好，杭州的天气
    - expect: {calls: [{api: get_weather, args: {城市: 杭州, days: 3}}]}
"""


@pytest.fixture(scope="module")
def located():
    document, problems = load_text(LOCATE_TEXT, CASE, "case")
    assert problems == [] and document is not None
    return document.locate


@pytest.mark.parametrize(
    ("pointer", "place"),
    [
        ("", (1, 1)),  # the whole file: its first line
        ("/id", (2, 1)),
        ("/apis", (3, 1)),
        ("/apis/1", (3, 21)),  # a sequence item: the item itself
        ("/en/turns", (5, 3)),
        ("/en/turns/0", (6, 7)),
        ("/en/turns/0/user", (6, 7)),
        ("/en/turns/1/expect", (7, 7)),
        ("/en/turns/1/expect/calls/0", (9, 13)),
        ("/en/turns/1/expect/calls/0/api", (9, 14)),
        ("/en/turns/1/expect/calls/0/args/city", (9, 39)),
        ("/en/turns/1/expect/calls/0/args/days", (9, 49)),
        ("/odd keys/a~1b", (10, 12)),  # JSON-pointer escapes: ~1 is '/', ~0 is '~'
        ("/odd keys/t~0n", (10, 22)),
        ("/odd keys/0", (10, 32)),  # a digit token on a mapping is a key
        ("/zh/turns/1/expect/calls/0/args/days", (14, 58)),  # columns count characters, not bytes
        ("/zh/turns/1/expect/calls/0/args/城市", (14, 50)),
    ],
)
def test_locate(located, pointer: str, place: tuple[int, int]) -> None:
    assert located(pointer) == place


@pytest.mark.parametrize(
    ("pointer", "place"),
    [
        ("/missing", (2, 1)),  # nothing matched: the document's start
        ("/en/missing", (4, 1)),  # the deepest node reached: the `en` key
        ("/en/turns/9", (5, 3)),  # index out of range: the list's key
        ("/en/turns/x", (5, 3)),  # not an index
        ("/id/deeper", (2, 1)),  # through a scalar
        ("/apis/1/deeper", (3, 21)),
    ],
)
def test_locate_falls_back_to_the_deepest_node_reached(located, pointer: str, place: tuple[int, int]) -> None:
    assert located(pointer) == place


def test_locate_in_an_empty_document() -> None:
    document, _ = load_text("# nothing here\n", CASE, "case")
    assert document is not None and document.data is None
    assert document.locate("") == (1, 1)
    assert document.locate("/id") == (1, 1)
