"""The app cases of issue 23's limits in Chromium: no page load fetches anything from another host (the page icon is
served by the app), a link too long for Streamlit to read gets one line instead of silently opening the defaults, and
a file over the upload limit is refused by the upload box at the limit the Corpus page and the command line state."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import open_page, wait_for_app

PAGES = ("Corpus", "Audit", "Compare", "Fightin' Words", "Metrics", "Runs", "Summarize one document", "Overview")


def test_no_page_load_fetches_from_an_outside_host_and_the_icon_is_the_apps_own(page, app_url):
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(app_url)
    wait_for_app(page)
    for name in PAGES:
        open_page(page, name)
    page.reload()
    wait_for_app(page)
    outside = [url for url in requested if not url.startswith((app_url, "data:", "blob:"))]
    assert outside == []
    icon = page.eval_on_selector("link[rel='shortcut icon']", "link => link.href")
    assert icon.startswith(f"{app_url}/media/") and icon.endswith(".png")


def test_a_link_with_3000_parameters_gets_one_line_that_they_were_ignored(page, app_url):
    query = "&".join(f"p{index}=v{index}" for index in range(3000))
    page.goto(f"{app_url}/compare?compare_perturbation=sentiment&{query}")
    wait_for_app(page)
    alert = page.get_by_test_id("stAlert").filter(has_text="This link's parameters were ignored")
    expect(alert).to_have_count(1, timeout=30_000)
    expect(alert).to_contain_text("it has 3,001 of them, more than the 1,000")


def test_a_file_over_the_limit_is_refused_by_the_upload_box_at_the_limit_the_page_states(page, app_url, tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"She said hello. " * 1_250_000 + b"!")  # 20,000,001 bytes
    page.goto(app_url)
    wait_for_app(page)
    open_page(page, "Corpus")
    expect(page.get_by_text("An upload may hold up to 20 MB (20,000,000 bytes), the limit of the command line too"))\
        .to_be_visible()
    page.get_by_text("Upload a file", exact=True).click()
    wait_for_app(page)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(big))
    expect(page.get_by_text("File must be 20.0MB or smaller.")).to_have_count(1, timeout=30_000)
    wait_for_app(page)
    expect(page.get_by_text("Upload a file to start, or pick a demo corpus.")).to_be_visible()
