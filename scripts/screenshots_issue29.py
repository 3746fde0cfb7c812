"""Screenshots of what issue 29 ("One story on every screen") changed, in artifacts/screenshots/issue29-*.png.

Starts the app on a fresh store with the demo run imported (as a first start does), drives Debian's Chromium with
Playwright (never `playwright install`) and saves, for each item of the issue's Why: the Overview's controls line,
answers and attribution (1, 3), Compare opened from an evidence link with both sides labelled (2, 7), Fightin' Words
as it opens (4), Metrics as it opens with its chart (5), the HTML report's answers and evidence (6), the Runs
leaderboard (7), the Audit page's politician picker on an uploaded corpus that names only George W. Bush (8), and
the Audit measures in words (9).

Run: .venv/bin/python scripts/screenshots_issue29.py ["overview" "metrics" …]   (2–5 minutes on 2 cores)
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from playwright.sync_api import sync_playwright

from scripts import screenshots_issue22
from scripts.screenshots_issue22 import main_area, open_report
from tests.browser.conftest import CHROMIUM, open_page, running_app, wait_for_app

OUT = REPO / "artifacts" / "screenshots"
BUSH_ARTICLES = [
    {"id": f"bush-{n}", "text": text} for n, text in enumerate([
        ("President George W. Bush signed the education bill on Tuesday. Bush said the law would hold schools "
        "accountable, and he thanked the senators who had worked on it."),
        ("George W. Bush met the prime minister at the ranch in Crawford. Bush told reporters that he expected the "
        "talks on trade to go on next month."),
        ("Former president George W. Bush opened an exhibition of his paintings in Dallas on Saturday. Bush said he "
        "had started painting after leaving office."),
    ])]


def save(png: bytes, name: str) -> Path:
    return screenshots_issue22.save(png, name, prefix="issue29")


def shot(page, name: str, locator=None, height: int = 1000, above: int = 80) -> None:
    """The viewport from ``locator``'s top (the page's top when it is absent), ``height`` pixels tall."""
    found = locator if locator is not None and locator.count() else None
    screenshots_issue22.shot(page, name, found, height, above, prefix="issue29")


def overview(page) -> None:
    page.locator(".st-key-overview_findings [data-testid=stPageLink]").first.wait_for(timeout=180_000)
    wait_for_app(page, timeout=180_000)
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "1-3-overview-controls-answers-attribution", None, height=1200)
    links = page.locator(".st-key-overview_findings [data-testid=stPageLink]")
    links.first.click()
    wait_for_app(page, timeout=120_000)
    shot(page, "2-7-compare-from-evidence-link-one-draw", None, height=1200)


def fightin_words(page) -> None:
    open_page(page, "Fightin' Words")
    wait_for_app(page, timeout=120_000)
    shot(page, "4-fightin-words-as-it-opens", None, height=1300)


def metrics(page) -> None:
    open_page(page, "Metrics")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
    wait_for_app(page, timeout=120_000)
    shot(page, "5-metrics-as-it-opens", None, height=1300)


def report(page, folder: Path) -> None:
    open_page(page, "Runs")
    wait_for_app(page, timeout=120_000)
    shot(page, "7-runs-leaderboard", None, height=1100)
    viewer = open_report(page, folder / "demo-report.html")
    shot(viewer, "5-6-report-top-answers", None, height=1300)
    if viewer.locator("#evidence").count():
        shot(viewer, "6-report-evidence", viewer.locator("#evidence"), height=1300)
    viewer.close()


def politician_picker(page, folder: Path) -> None:
    corpus = folder / "bush.jsonl"
    corpus.write_text("".join(json.dumps(article) + "\n" for article in BUSH_ARTICLES))
    open_page(page, "Corpus")
    page.get_by_text("Upload a file", exact=True).click()
    wait_for_app(page)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(corpus))
    page.get_by_text("3 documents ready").first.wait_for(timeout=60_000)
    open_page(page, "Audit")
    box = page.get_by_test_id("stMultiSelect").filter(has_text="Perturbations").get_by_role("combobox")
    box.click()
    page.get_by_role("option", name="politician", exact=True).click()
    page.keyboard.press("Escape")
    wait_for_app(page)
    page.get_by_text("politician settings", exact=True).click()
    wait_for_app(page)
    shot(page, "8-audit-politician-pairs-from-the-corpus", page.get_by_text("politician settings", exact=True),
         height=900)
    shot(page, "9-audit-measures-in-words", page.get_by_role("heading", name="Measures"), height=700)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="screenshots-issue29-"))
    with running_app(folder, SUMMBIAS_NO_DEMO="0") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
        page = browser.new_context(viewport={"width": 1280, "height": 1300}, accept_downloads=True).new_page()
        page.set_default_timeout(60_000)
        page.goto(url)
        wait_for_app(page, timeout=180_000)
        steps = [("overview", lambda: overview(page)), ("fightin words", lambda: fightin_words(page)),
                 ("metrics", lambda: metrics(page)), ("report", lambda: report(page, folder)),
                 ("politician", lambda: politician_picker(page, folder))]
        only = sys.argv[1:]
        for name, step in steps:
            if only and name not in only:
                continue
            try:
                step()
            except Exception as error:  # noqa: BLE001 - one failed view must not cost the others
                print(f"{name}: failed: {str(error).splitlines()[0]}")
                save(page.screenshot(), f"failed-{name.replace(' ', '-')}")
            if main_area(page).count() == 0:
                page.goto(url)
                wait_for_app(page, timeout=120_000)
        browser.close()


if __name__ == "__main__":
    main()
