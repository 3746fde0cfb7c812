"""Screenshots of the views issue 22 fixed, in artifacts/screenshots/issue22-*.png (each under 400 KB).

Starts the app on a fresh store with the demo run imported (as a first start does), drives Debian's Chromium with
Playwright (never `playwright install`) and saves: the Overview's and Metrics' output-quality lines, Metrics' entity
inclusion chart on its log odds-ratio axis, Compare's quality flags with the filter toggle off and on, the Audit page
for the demo news (politician pair picker with article counts and suggested pairs, the measure list in words, the
estimate of every stage) and for the demo reviews (sentiment focus value choice, the checklist), a short review audit
(the Run button disabled while it runs, the remaining time, the Done links with the Overview) and its HTML report
(the inline evidence with the units view for reviews) beside the demo run's report.

Run: .venv/bin/python scripts/screenshots_issue22.py ["audit news" "audit reviews" …]   (3–10 minutes on 2 cores)
"""

from __future__ import annotations

import io
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from playwright.sync_api import expect, sync_playwright

from tests.browser.conftest import CHROMIUM, open_page, running_app, wait_for_app

OUT = REPO / "artifacts" / "screenshots"
LIMIT = 400 * 1024


def save(png: bytes, name: str, prefix: str = "issue22") -> Path:
    """Write ``png`` as ``prefix``-``name``.png; one over ``LIMIT`` is re-encoded with a 256-colour palette (text
    stays sharp)."""
    path = OUT / f"{prefix}-{name}.png"
    if len(png) > LIMIT:
        from PIL import Image

        image = Image.open(io.BytesIO(png)).convert("RGB").quantize(256)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=True)
        png = buffer.getvalue()
    path.write_bytes(png)
    print(f"{path.relative_to(REPO)}: {len(png) // 1024} KB")
    return path


def scroll_to(page, locator, above: int = 80) -> None:
    """Scroll ``locator``'s top to ``above`` pixels below the top of the view (Streamlit scrolls its main section)."""
    locator.first.scroll_into_view_if_needed()
    locator.first.evaluate("(element, above) => { element.scrollIntoView({block: 'start'}); "
                           "let box = element.parentElement; "
                           "while (box && box.scrollHeight <= box.clientHeight) box = box.parentElement; "
                           "if (box) box.scrollTop -= above; }", above)
    page.wait_for_timeout(400)


def shot(page, name: str, locator=None, height: int = 900, above: int = 80, prefix: str = "issue22") -> None:
    """The viewport from ``locator``'s top (scrolled there, with ``above`` pixels of room), ``height`` pixels tall."""
    viewport = page.viewport_size
    top = 0.0
    if locator is not None:
        scroll_to(page, locator, above)
        box = locator.first.bounding_box()  # near the page's end the view cannot scroll it up to the top
        if box is not None:
            top = max(0.0, min(box["y"] - above, viewport["height"] - height))
    save(page.screenshot(clip={"x": 0, "y": top, "width": viewport["width"], "height": height}), name, prefix)


def main_area(page):
    return page.get_by_test_id("stMain")


def choose(page, label: str, option: str) -> None:
    """Add ``option`` to the multiselect labelled ``label``."""
    box = page.get_by_test_id("stMultiSelect").filter(has_text=label).get_by_role("combobox")
    box.click()
    item = page.get_by_role("option", name=option, exact=True)
    try:
        item.wait_for(timeout=5_000)
    except Exception:  # noqa: BLE001 - the list sometimes opens empty on the first click after a rerun
        box.click()
    item.click()
    page.keyboard.press("Escape")
    wait_for_app(page)


def result_pages(page) -> None:
    page.locator(".st-key-overview_findings [data-testid=stPageLink]").first.wait_for(timeout=180_000)
    wait_for_app(page, timeout=180_000)
    shot(page, "overview-output-quality", page.locator(".st-key-output_quality"), height=700)

    open_page(page, "Metrics")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
    wait_for_app(page, timeout=120_000)
    shot(page, "metrics-output-quality", page.locator(".st-key-output_quality"), height=700)
    chart = main_area(page).get_by_text(re.compile(r"entity inclusion", re.IGNORECASE))
    if chart.count():
        shot(page, "metrics-odds-ratio-log-axis", chart.last, height=1300)
    else:
        print("Metrics: no entity inclusion section found")

    open_page(page, "Compare")
    toggle = main_area(page).get_by_text(re.compile("^Leave out the .* summar"))
    toggle.first.wait_for(timeout=120_000)
    wait_for_app(page, timeout=120_000)
    flags = main_area(page).get_by_text(re.compile(r"token limit|degenerate|prompt echo|glitch", re.IGNORECASE))
    shot(page, "compare-quality-flags", None, height=1200)
    if flags.count() > 1:
        shot(page, "compare-quality-flags-on-a-summary", main_area(page).get_by_role("heading", name="smollm2"),
             height=900)
    toggle.first.click()
    wait_for_app(page, timeout=120_000)
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "compare-quality-filter-on", None, height=1200)


def audit_news(page) -> None:
    open_page(page, "Corpus")
    page.get_by_text("Demo news articles", exact=True).click()
    wait_for_app(page)
    open_page(page, "Audit")
    choose(page, "Perturbations", "politician")
    page.get_by_text("politician settings", exact=True).click()
    wait_for_app(page)
    shot(page, "audit-politician-pairs", page.get_by_text("politician settings", exact=True), height=800)
    computes = main_area(page).get_by_text(re.compile("^This audit computes:"))
    shot(page, "audit-measures-in-words", page.get_by_role("heading", name="Measures"), height=700)
    estimate = page.get_by_test_id("stAlert").filter(has_text="Estimate: ")
    estimate.first.wait_for()
    shot(page, "audit-estimate-every-stage", estimate, height=500)
    assert computes.count() == 1


def audit_reviews(page, folder: Path) -> None:
    open_page(page, "Corpus")
    page.get_by_text("Demo product reviews", exact=True).click()
    wait_for_app(page)
    open_page(page, "Audit")
    page.get_by_text("sentiment settings", exact=True).click()
    wait_for_app(page)
    focus = page.get_by_test_id("stSelectbox").filter(has_text="Focus value")
    scroll_to(page, page.get_by_text("sentiment settings", exact=True))
    focus.first.click()
    page.wait_for_timeout(800)
    shot(page, "audit-sentiment-focus-value", None, height=800)
    page.keyboard.press("Escape")
    wait_for_app(page)
    checklist = main_area(page).get_by_text(re.compile("Originals skipped"))
    if checklist.count():
        shot(page, "audit-reviews-checklist", checklist.first, height=800)
    else:
        print("Audit (reviews): no checklist line 'Originals skipped' found")

    shot(page, "audit-reviews-estimate", page.get_by_test_id("stAlert").filter(has_text="Estimate: "), height=500)
    run = page.get_by_role("button", name="Run audit")
    run.click()
    expect(run).to_be_disabled(timeout=30_000)
    run.evaluate("element => element.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(300)
    box = run.bounding_box()
    save(page.screenshot(clip={"x": 0, "y": max(0.0, box["y"] - 300), "width": page.viewport_size["width"],
                               "height": 420}), "audit-run-disabled-during-run")
    shot(page, "audit-run-following-progress", page.get_by_role("heading", name="Audit", exact=True), height=600)
    expect(page.get_by_text("Done. Inspect the results:")).to_be_visible(timeout=600_000)
    wait_for_app(page)
    shot(page, "audit-done-links", page.get_by_text("Done. Inspect the results:"), height=500)

    open_page(page, "Runs")
    viewer = open_report(page, folder / "reviews-report.html")
    evidence = viewer.locator("#evidence")
    if evidence.count():
        shot(viewer, "report-reviews-evidence-units", evidence, height=1200)
    else:
        shot(viewer, "report-reviews-top", None, height=1200)
        print("report (reviews): no evidence section")
    viewer.close()


def open_report(page, report: Path):
    """Download the Runs page's HTML report of the selected run to ``report`` and open it in a new tab."""
    with page.expect_download(timeout=300_000) as download:
        page.get_by_role("button", name="Report (HTML)").click()
    download.value.save_as(report)
    viewer = page.context.new_page()
    viewer.goto(report.as_uri())
    return viewer


def demo_report(page, folder: Path) -> None:
    open_page(page, "Runs")
    table = main_area(page).get_by_text("demo: news and reviews (precomputed)")
    if table.count():
        print("Runs lists the demo run; the report of the selected run is exported")
    viewer = open_report(page, folder / "demo-report.html")
    shot(viewer, "report-demo-findings-links", viewer.locator("#findings"), height=1000)
    if viewer.locator("#evidence").count():
        shot(viewer, "report-demo-evidence-inline", viewer.locator("#evidence"), height=1300)
    viewer.close()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="screenshots-issue22-"))
    with running_app(folder, SUMMBIAS_NO_DEMO="0") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
        page = browser.new_context(viewport={"width": 1280, "height": 1300}, accept_downloads=True).new_page()
        page.set_default_timeout(60_000)
        page.goto(url)
        wait_for_app(page, timeout=180_000)
        steps = [("result pages", lambda: result_pages(page)), ("demo report", lambda: demo_report(page, folder)),
                 ("audit news", lambda: audit_news(page)), ("audit reviews", lambda: audit_reviews(page, folder))]
        only = sys.argv[1:]  # step names to run (default: all), e.g. "audit reviews"
        for name, step in steps:
            if only and name not in only:
                continue
            try:
                step()
            except Exception as error:  # noqa: BLE001 - one failed view must not cost the others
                print(f"{name}: failed: {str(error).splitlines()[0]}")
                save(page.screenshot(), f"failed-{name.replace(' ', '-')}")
        browser.close()


if __name__ == "__main__":
    main()
