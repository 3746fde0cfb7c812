"""A workspace belongs to the browser that made it (issue 23): a refresh in that browser gets the upload back, and
the same link (it carries ?ws=) opened in a fresh browser context shows no trace of it. Screenshot:
artifacts/screenshots/workspace-copied-link-in-another-browser.png."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import open_page, upload_article, wait_for_app

SECRET_TEXT = "TOP SECRET: Mayor Robert Moore said on Monday that he will resign."


def test_a_copied_link_restores_the_upload_in_its_own_browser_only(browser, app_url, tmp_path, screenshot):
    article = tmp_path / "secret-memo.txt"
    article.write_text(SECRET_TEXT)
    owner = browser.new_context(viewport={"width": 1280, "height": 1200}).new_page()
    upload_article(owner, app_url, article)
    links = {"Corpus": owner.url}
    open_page(owner, "Audit")
    main = owner.get_by_test_id("stMain")
    expect(main.get_by_text("Corpus: secret-memo.txt", exact=False)).to_be_visible(timeout=30_000)
    links["Audit"] = owner.url
    assert all("ws=" in link for link in links.values())

    owner.reload()  # a new session in the same browser: its cookie matches the workspace
    wait_for_app(owner)
    expect(main.get_by_text("Corpus: secret-memo.txt", exact=False)).to_be_visible(timeout=30_000)
    (cookie,) = [c for c in owner.context.cookies() if c["name"] == "summbias_browser"]
    assert cookie["sameSite"] == "Strict" and cookie["value"] not in owner.url

    for name, link in links.items():
        context = browser.new_context(viewport={"width": 1280, "height": 1200})
        stranger = context.new_page()
        stranger.goto(link)
        wait_for_app(stranger)
        if name == "Audit":
            expect(stranger.get_by_text("Pick a corpus first.")).to_be_visible(timeout=30_000)
        open_page(stranger, "Corpus")
        expect(stranger.get_by_text("Upload a file", exact=True)).to_be_visible(timeout=30_000)
        stranger.get_by_text("Upload a file", exact=True).click()
        wait_for_app(stranger)
        expect(stranger.get_by_text("Upload a file to start", exact=False)).to_be_visible(timeout=30_000)
        content = stranger.content()
        assert "TOP SECRET" not in content and "secret-memo.txt" not in content, f"the {name} link leaked the upload"
        screenshot("workspace-copied-link-in-another-browser", stranger)
        context.close()
