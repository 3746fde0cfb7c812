"""The first page in real headless Chromium: open the app, pick a demo article, see its summary."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import pick_option, wait_for_app


def test_open_app_pick_a_demo_article_and_see_its_lead_3_summary(page, app_url, screenshot):
    page.goto(app_url)
    wait_for_app(page)
    page.get_by_role("link", name="Summarize one document").click()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Summarize a document")).to_be_visible()
    document = page.get_by_role("combobox", name="Document")
    picked = pick_option(page, document, 2)
    expect(document).to_have_value(picked.strip())
    page.get_by_role("button", name="Summarize", exact=True).click()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Summary by lead-3")).to_be_visible(timeout=60_000)
    summary = page.get_by_test_id("stText").first.inner_text()
    assert len(summary.split()) > 20
    screenshot("summarize-page")
