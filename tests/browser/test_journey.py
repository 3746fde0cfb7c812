"""The analyst's journey in headless Chromium: upload an article, run gender C_glob with lead-3 and smollm2, read the
highlighted diff on Compare, open Fightin' Words and Metrics, export the HTML report and open it. Screenshots of each
page go to artifacts/screenshots/."""

from __future__ import annotations

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from tests.browser.conftest import download_export, open_page, upload_article, wait_for_app

ARTICLE = """Mayor Robert Moore announced on Monday that he will not seek a third term.

Moore, 58, said his family had asked him to step back after a difficult year. "It is time," he told reporters. \
His deputy, Linda Chen, is expected to announce her own campaign next week. Ms. Chen has served on the council \
for six years and chairs its budget committee. She thanked Mr. Moore for his support.

The council will vote on the budget <script>window.__pwned = true</script> on Thursday. Chen said she would \
protect library funding. Moore said the decision was his alone."""


def test_upload_audit_compare_fightin_words_metrics_and_report(page, app_url, tmp_path, screenshot):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    article = tmp_path / "council-vote.txt"
    article.write_text(ARTICLE)
    upload_article(page, app_url, article)
    screenshot("journey-1-corpus")

    open_page(page, "Audit")
    page.get_by_text("gender-glob settings").click()
    draws = page.get_by_label("Name draws per original (each gives one input per arm)")
    draws.fill("2")
    draws.press("Enter")
    expect(page.get_by_text("5 inputs × 1 summarizer = 5 summaries")).to_be_visible(timeout=30_000)
    wait_for_app(page)
    summarizers = page.get_by_test_id("stMultiSelect").filter(has_text="Summarizers").get_by_role("combobox")
    summarizers.click()
    option = page.get_by_role("option", name="smollm2")
    try:  # the list sometimes opens empty on the first click after a rerun; a second click fills it
        option.wait_for(timeout=5_000)
    except PlaywrightTimeoutError:
        summarizers.click()
    option.click()
    page.keyboard.press("Escape")
    wait_for_app(page)
    expect(page.get_by_text("5 inputs × 2 summarizers = 10 summaries")).to_be_visible(timeout=30_000)
    page.get_by_role("button", name="Run audit").click()
    expect(page.get_by_text("Done. Inspect the results:")).to_be_visible(timeout=420_000)
    screenshot("journey-2-audit")

    open_page(page, "Compare")
    expect(page.get_by_role("heading", name="smollm2")).to_be_visible(timeout=60_000)
    swapped = page.locator("span[title='insert (perturbation)'], span[title='delete (perturbation)']")
    expect(swapped.first).to_be_visible()
    assert page.locator("span[title^='first_name: was']").count() > 0
    screenshot("journey-3-compare")

    open_page(page, "Fightin' Words")
    expect(page.get_by_role("heading", name="Fightin' Words")).to_be_visible()
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    screenshot("journey-4-fightin-words")

    open_page(page, "Metrics")
    expect(page.get_by_role("heading", name="distinguishability count")).to_be_visible(timeout=60_000)
    # one original is too little data for a test: the page says so per summarizer instead of drawing empty axes
    expect(page.get_by_text("Nothing to chart for any summarizer").first).to_be_visible(timeout=60_000)
    expect(page.get_by_text("too little data to judge").first).to_be_visible()
    screenshot("journey-5-metrics")

    open_page(page, "Runs")
    report = download_export(page, "Report (HTML)", tmp_path / "report.html")
    screenshot("journey-6-runs")
    viewer = page.context.new_page()
    viewer.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    viewer.goto(report.as_uri())
    expect(viewer.get_by_role("heading", name="Findings", exact=True)).to_be_visible(timeout=30_000)
    assert viewer.locator("svg.chart").count() > 0  # the report draws its charts as inline SVG
    assert "smollm2" in viewer.inner_text("body")
    screenshot("journey-7-report", viewer)
    assert dialogs == [] and page.evaluate("window.__pwned === undefined")
