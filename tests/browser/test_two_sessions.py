"""Two analysts in two browser sessions run different audits at the same time and each keeps their own state."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import open_page, upload_article, wait_for_app

ARTICLES = {
    "first": "Mayor Robert Moore said on Monday that he will resign. His deputy, Linda Chen, thanked him.",
    "second": "Coach Karen Diaz said her team won the league game. Her assistant, Tom Reed, praised her.",
}


def start_audit(page, app_url: str, name: str, path) -> None:
    upload_article(page, app_url, path)
    open_page(page, "Audit")
    run_name = page.get_by_label("Name of this run")
    run_name.fill(f"{name} analyst")
    run_name.press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Run audit").click()


def test_two_sessions_run_different_audits_at_once_and_keep_their_state(browser, app_url, tmp_path):
    pages = {}
    for name, text in ARTICLES.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        pages[name] = browser.new_context(viewport={"width": 1280, "height": 1200}).new_page()
        start_audit(pages[name], app_url, name, path)
    for name, page in pages.items():
        expect(page.get_by_text("Done. Inspect the results:")).to_be_visible(timeout=240_000)
        expect(page.get_by_text(f"{name} analyst:")).to_be_visible()
        open_page(page, "Compare")
        expect(page.get_by_role("heading", name="lead-3")).to_be_visible(timeout=60_000)
        main = page.locator("[data-testid=stMain]")
        expect(main).to_contain_text(ARTICLES[name].split(",")[0].split(" said")[0], timeout=30_000)
        wait_for_app(page)
        other = next(n for n in ARTICLES if n != name)
        assert ARTICLES[other].split(" said")[0] not in main.inner_text()
