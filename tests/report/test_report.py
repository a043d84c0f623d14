"""`callbank report`: one self-contained HTML file that opens in headless Chromium without a
console error, shows its charts and a case browser whose filters work; `--format png`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.support.browser import FLAGS, chromium, png_size
from validator.cli import cli
from validator.models.resume import manifest_path

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "scoring"
HOSTILE = "</script><script>window.hacked = 1</script><img src=x onerror='window.hacked=2'>"
VIEWPORT = {"width": 1280, "height": 900}


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, [*args, "--repo", str(FIXTURE)], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A: the oracle with a few answers spoiled (one of them hostile HTML); B: the null model."""
    folder = tmp_path_factory.mktemp("report")
    a, b = folder / "spoiled.jsonl", folder / "null.jsonl"
    assert invoke("run", "--model", "oracle", "--out", str(a)).exit_code == 0
    assert invoke("run", "--model", "null", "--out", str(b)).exit_code == 0
    records = [json.loads(line) for line in a.read_text(encoding="utf-8").splitlines()]
    spoiled: list[dict[str, Any]] = []
    for record in records:
        if record["id"] in ("single-0001", "enum-0001") and "output" in record:
            spoiled.append({**record, "output": HOSTILE if record["lang"] == "en" and record["id"] == "single-0001" else "[]"})
        elif record["id"] == "office-0001" and record["lang"] == "zh":
            spoiled.append({**record, "calls": record["calls"][:-1]})
        else:
            spoiled.append(record)
    a.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in spoiled), encoding="utf-8")
    manifest = json.loads(manifest_path(a).read_text())
    manifest_path(a).write_text(json.dumps({**manifest, "model": "spoiled-oracle"}))
    return a, b


@pytest.fixture(scope="module")
def report(runs: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html") / "report.html"
    result = invoke("report", *map(str, runs), "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def embedded(report: Path) -> dict[str, Any]:
    text = report.read_text(encoding="utf-8")
    block = re.search(r'<script type="application/json" id="callbank-data">(.*?)</script>', text, re.S)
    assert block is not None
    return json.loads(block.group(1))


def test_the_page_is_self_contained(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    assert not re.search(r"""<(script|link|img|iframe)[^>]+(src|href)=["']?(https?:)?//""", text)  # nothing to fetch
    assert text.count("\n<script") == 3 and "Plotly" in text  # the data, plotly.js inlined, the page's script
    assert HOSTILE not in text  # the hostile output is escaped inside the JSON block
    data = embedded(report)
    assert [run["label"] for run in data["runs"]] == ["spoiled-oracle", "null"]
    assert set(data["figures"]) == {f"run-{i}-{name}" for i in (0, 1) for name in ("overall", "categories", "languages", "errors", "f1")} | {"runs-categories"}
    rows = {(row[0], row[1]): row for row in data["runs"][0]["rows"]}
    assert rows[("single-0001", "en")][3] == "wrong" and rows[("single-0002", "en")][3] == "right"
    detail = data["runs"][0]["details"]["single-0001|en"]["checkpoints"][0]
    assert detail["raw"]["output"] == HOSTILE and detail["verdict"]["error"] == "format"
    agent = data["runs"][0]["details"]["office-0001|zh"]
    assert agent["verdict"]["error"] == "agent_end_state" and agent["differences"] and len(agent["reached"]) < agent["process"]["total"]
    assert data["cases"]["single-0001"]["dialogue"]["zh"][0]["role"] == "user" and "milestones" in data["scenarios"]["office-0001"]


def test_the_report_opens_in_chromium_and_its_filters_work(report: Path, tmp_path: Path) -> None:
    browser_path = chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the test extra) drives the browser")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_path, args=[flag for flag in FLAGS if flag != "--headless"], headless=True)
        try:
            page = browser.new_page(viewport=VIEWPORT)
            problems: list[str] = []
            page.on("console", lambda message: problems.append(f"console {message.type}: {message.text}") if message.type in ("error", "warning") else None)
            page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
            requests: list[str] = []
            page.on("request", lambda request: requests.append(request.url))
            page.goto(report.as_uri())
            page.wait_for_selector(".js-plotly-plot")
            assert page.locator(".js-plotly-plot").count() == 11  # 5 charts per run + all runs together
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot))
            assert png_size(shot) == (VIEWPORT["width"], VIEWPORT["height"]) and shot.stat().st_size > 20_000  # a drawn page, not a blank one

            count = page.locator("#browser-count")
            rows = page.locator("#browser-rows tr.unit")
            everything = rows.count()
            assert everything == int(count.get_attribute("data-matching") or 0) == 84  # 42 units × 2 runs
            page.click("#filter-status button[data-value=wrong]")
            wrong = rows.count()
            assert 42 < wrong < everything and count.get_attribute("data-shown") == str(wrong)  # every null unit, and the spoiled ones
            page.select_option("#filter-run", "0")
            assert rows.count() == 5  # single-0001 en+zh, enum-0001 en+zh, office-0001 zh
            page.click("#filter-lang button[data-value=zh]")
            assert rows.count() == 3
            page.click("#filter-lang button[data-value=en]")
            page.fill("#filter-search", "single-0001")
            assert rows.count() == 1
            rows.first.click()
            detail = page.locator("tr.unit-detail")
            assert detail.count() == 1
            assert "checkpoint 0: wrong" in detail.inner_text() and "expected" in detail.inner_text()
            assert HOSTILE in detail.inner_text()  # shown as text …
            assert page.evaluate("window.hacked") is None  # … never run
            page.fill("#filter-search", "")
            page.select_option("#filter-run", "all")
            page.select_option("#filter-category", "agent")
            page.click("#filter-status button[data-value=all]")
            page.click("#filter-lang button[data-value=all]")
            assert rows.count() == 12
            page.fill("#filter-search", "office-0001")
            assert rows.count() == 4
            assert problems == []
            assert all(url.startswith(("file:", "data:")) for url in requests), requests
        finally:
            browser.close()


def test_png_charts(runs: tuple[Path, Path], tmp_path: Path) -> None:
    chromium()  # kaleido drives the machine's Chromium
    pytest.importorskip("kaleido", reason="--format png needs the report-png extra")
    folder = tmp_path / "charts"
    result = invoke("report", str(runs[0]), "--format", "png", "--out", str(folder))
    assert result.exit_code == 0, result.output
    names = sorted(path.name for path in folder.iterdir())
    assert names == ["categories.png", "errors.png", "languages.png", "overall.png"]
    width, height = png_size(folder / "overall.png")
    assert (width, height) == (2200, 800)  # 1100 × 400 at scale 2


def test_report_refuses_what_it_cannot_do(runs: tuple[Path, Path], tmp_path: Path) -> None:
    result = invoke("report", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "r.html"))
    assert result.exit_code == 2 and "none.jsonl: no such predictions file" in result.output
    result = invoke("report", str(runs[0]), "--out", str(tmp_path / "no" / "r.html"))
    assert result.exit_code == 2 and "cannot write" in result.output and not (tmp_path / "no").exists()
    result = invoke("report", str(runs[0]), str(runs[0]), "--out", str(tmp_path / "r.html"))
    assert result.exit_code == 2 and "is given twice" in result.output


def test_shards_repeats_usage_and_cost_reach_the_page(tmp_path: Path) -> None:
    """A run in two shards with repeated scenarios is one run of the page, with pass^k; an endpoint
    run shows its usage and the cost from the price table; a shard given twice is refused."""
    from tests.support.openai_server import OpenAIServer, always

    shards = [tmp_path / f"oracle-{index}.jsonl" for index in (1, 2)]
    for index, shard in enumerate(shards, start=1):
        assert invoke("run", "--model", "oracle", "--out", str(shard), "--shard", f"{index}/2", "--repeats", "2").exit_code == 0
    chatty = tmp_path / "chatty.jsonl"
    with OpenAIServer(always("[IRRELEVANT]"), models=["chatty"]) as server:
        result = invoke("run", "--model", "chatty", "--base-url", server.base_url, "--out", str(chatty), "--mode", "prompt")
        assert result.exit_code == 0, result.output
    prices = tmp_path / "prices.yaml"
    prices.write_text("currency: EUR\nmodels:\n  chatty: {input: 2, output: 8}\n", encoding="utf-8")
    out = tmp_path / "report.html"
    result = invoke("report", *map(str, [*shards, chatty]), "--prices", str(prices), "--out", str(out))
    assert result.exit_code == 0, result.output
    data = embedded(out)
    oracle, endpoint = data["runs"]
    assert (oracle["label"], endpoint["label"]) == ("oracle", "chatty") and oracle["files"] == [str(s) for s in shards]
    repeats = oracle["report"]["repeats"]
    assert oracle["report"]["overall"]["score"] == 1.0 and repeats["trials"] == 2 and repeats["overall"]["units"] == 6  # 3 scenarios × en, zh
    assert repeats["overall"]["pass_hat"]["2"] == 1.0 and repeats["overall"]["units_with_k"]["2"] == 6
    usage = endpoint["usage"]
    assert usage["reported"] and usage["completions"] > 0 and usage["latency_s"]["p50"] is not None
    assert usage["cost"]["model"] == pytest.approx((usage["prompt_tokens"] * 2 + usage["completion_tokens"] * 8) / 1e6, abs=1e-6)
    text = out.read_text(encoding="utf-8")
    assert "Cost and latency" in text and "pass^2" in text and " EUR" in text
    copy = tmp_path / "again.jsonl"
    copy.write_text(shards[0].read_text(encoding="utf-8"), encoding="utf-8")
    manifest_path(copy).write_text(manifest_path(shards[0]).read_text(encoding="utf-8"), encoding="utf-8")
    result = invoke("report", str(shards[0]), str(copy), "--out", str(tmp_path / "twice.html"))
    assert result.exit_code == 2 and "are both shard 1/2 of one run" in result.output and not (tmp_path / "twice.html").exists()
