"""The README's screenshot of a report: the page opened in headless Chromium, as a small PNG.

    callbank run --model oracle --out oracle.jsonl
    python benchmarks/demo_runs.py oracle.jsonl demo
    callbank report demo/model-a.jsonl demo/model-b.jsonl --out report.html
    python benchmarks/screenshot.py report.html docs/report.png --section run-0
    python benchmarks/screenshot.py report.html docs/report-case.png --unit weather-0003 --run 0

Playwright (the test extra) drives the machine's Chromium (``/usr/bin/chromium``, Debian's
package; no browser is downloaded). The page is opened from the file, the charts are awaited,
the section is scrolled to the top and the viewport is captured at scale 1 — a PNG of a few
hundred kilobytes, which the README shows.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path, help="the HTML report to open")
    parser.add_argument("out", type=Path, help="the PNG to write")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=860)
    parser.add_argument("--section", default=None, help="the id of an element to scroll to the top (default: the page's top)")
    parser.add_argument("--unit", default=None, help="open this unit in the case browser (its id, as typed in the id filter) and show it")
    parser.add_argument("--run", default=None, help="with --unit: the run's position in the report (0, 1 …)")
    arguments = parser.parse_args()
    browser_path = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser_path is None:
        sys.exit("no chromium on PATH: apt-get install chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sys.exit("playwright is not installed: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_path, args=list(FLAGS), headless=True)
        try:
            page = browser.new_page(viewport={"width": arguments.width, "height": arguments.height}, device_scale_factor=1)
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(arguments.report.resolve().as_uri())
            page.wait_for_selector(".js-plotly-plot")
            page.wait_for_timeout(500)  # plotly's transitions end
            if arguments.unit:
                if arguments.run is not None:
                    page.select_option("#filter-run", arguments.run)
                page.fill("#filter-search", arguments.unit)
                page.locator("#browser-rows tr.unit").first.click()
                page.evaluate("document.getElementById('browser').scrollIntoView()")
            elif arguments.section:
                page.locator(f"#{arguments.section}").scroll_into_view_if_needed()
                page.evaluate(f"document.getElementById({arguments.section!r}).scrollIntoView()")
            page.screenshot(path=str(arguments.out))
            if errors:
                sys.exit(f"the page raised: {errors}")
        finally:
            browser.close()
    print(f"wrote {arguments.out} ({arguments.out.stat().st_size / 1000:.0f} kB)")


if __name__ == "__main__":
    main()
