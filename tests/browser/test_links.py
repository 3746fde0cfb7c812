"""Links that survive (issue 14) in a real browser: the choices on Compare, Fightin' Words and Metrics are written
to the URL, a reload reopens the same view and coming back to a page shows it as it was left; a link opens Compare on a
sentiment split, compared by units; an
upload, the Audit settings and the launched run survive a refresh of the Audit page. Screenshots:
artifacts/screenshots/workbench-links-*.png."""

from __future__ import annotations

import contextlib
import gzip
import json
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from bias_core.reference.demo import DEMO_RUN
from tests.browser.conftest import open_page, running_app, upload_article, wait_for_app
from tests.browser.test_progress import add_running_run


def enter(page, field, value: str) -> None:
    """Type ``value`` into ``field`` and press Enter; wait for the rerun it starts to begin and to end (the page
    looks the same before and after, so waiting only for the end could return before the rerun began)."""
    field.fill(value)
    field.press("Enter")
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_selector("[data-testid=stApp][data-test-script-state=running]", timeout=5_000)
    wait_for_app(page)


def demo_run_id() -> str:
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        return json.load(stream)["run"]["id"]


def url_params(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def pick(page, label: str, option: str) -> None:
    """Choose ``option`` in the main area's selectbox labelled ``label``."""
    box = page.get_by_test_id("stMain").get_by_test_id("stSelectbox").filter(has_text=label)
    box.click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_for_app(page)
    assert option in box.aria_snapshot()


def selectbox_value(page, label: str) -> str:
    """The accessibility tree of the selectbox labelled ``label``: its label and the value it shows."""
    return page.get_by_test_id("stMain").get_by_test_id("stSelectbox").filter(has_text=label).aria_snapshot()


def test_a_link_opens_compare_on_a_sentiment_split_and_a_reload_keeps_every_choice(page, app_url, screenshot):
    run_id = demo_run_id()
    page.goto(f"{app_url}/compare?run={run_id}&compare_perturbation=sentiment")
    wait_for_app(page)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("These inputs differ in which units they hold", exact=False)).to_be_visible(
        timeout=60_000)
    assert "sentiment" in selectbox_value(page, "Perturbation")
    original = selectbox_value(page, "Original (most different first)")
    assert "reviews-" in original
    expect(main.get_by_text("Difference in how the two summaries re-weight", exact=False).first).to_be_visible()
    screenshot("workbench-links-compare-sentiment")

    pick(page, "Variant A", "sentiment · 20% of the reviews rated 1 star, sample 1")
    assert url_params(page)["compare_a"] == ["sentiment · 20% of the reviews rated 1 star, sample 1"]
    page.reload()
    wait_for_app(page)
    expect(main.get_by_text("These inputs differ in which units they hold", exact=False)).to_be_visible(
        timeout=60_000)
    assert "sentiment" in selectbox_value(page, "Perturbation")
    assert selectbox_value(page, "Original (most different first)") == original
    assert "20% of the reviews rated 1 star, sample 1" in selectbox_value(page, "Variant A")

    open_page(page, "Fightin' Words")
    pick(page, "Summarizer", "textrank")
    pick(page, "Perturbation", "gender-loc")
    assert url_params(page)["fw_summarizer"] == ["textrank"]
    page.reload()
    wait_for_app(page)
    expect(page.get_by_text("More frequent in A").first).to_be_visible(timeout=60_000)
    assert "textrank" in selectbox_value(page, "Summarizer")
    assert "gender-loc" in selectbox_value(page, "Perturbation")
    assert url_params(page)["run"] == [run_id]

    open_page(page, "Metrics")
    page.get_by_test_id("stMain").get_by_text("Perspective fairness", exact=True).click()
    wait_for_app(page)
    # The frontend writes the URL at once; wait for the rerun to show the family before leaving the page.
    expect(page.get_by_role("heading", name="bur")).to_be_visible(timeout=60_000)
    page.get_by_role("heading", name="sof").wait_for(timeout=60_000)  # the family's last chart: the rerun is done
    wait_for_app(page)
    assert url_params(page)["metrics_family"] == ["Perspective fairness"]
    open_page(page, "Fightin' Words")  # as it was left: the sidebar's link carries no choices
    expect(page.get_by_text("More frequent in A").first).to_be_visible(timeout=60_000)
    assert "textrank" in selectbox_value(page, "Summarizer")
    assert "gender-loc" in selectbox_value(page, "Perturbation")
    open_page(page, "Metrics")
    expect(page.get_by_role("heading", name="bur")).to_be_visible(timeout=60_000)  # the family chosen before
    page.reload()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="bur")).to_be_visible(timeout=60_000)
    screenshot("workbench-links-metrics-after-reload")


def test_a_refresh_of_the_audit_page_keeps_the_upload_the_settings_and_the_runs_progress(page, tmp_path,
                                                                                        screenshot):
    article = tmp_path / "council.txt"
    article.write_text("Mayor Robert Moore said on Monday that he will resign. His wife, Mary Moore, agreed.")
    running = add_running_run(tmp_path / "runs.sqlite")
    with running_app(tmp_path) as url:
        upload_article(page, url, article)
        assert url_params(page)["ws"]
        open_page(page, "Audit")
        main = page.get_by_test_id("stMain")
        expect(main.get_by_text("Corpus: council.txt", exact=False)).to_be_visible(timeout=30_000)
        enter(page, main.get_by_label("Seed (every random choice derives from it)"), "7")
        enter(page, main.get_by_label("Name of this run"), "council check")

        page.reload()  # a new Streamlit session: the tab's workspace is found by ?ws= in the URL
        wait_for_app(page)
        expect(main.get_by_text("Corpus: council.txt", exact=False)).to_be_visible(timeout=30_000)
        expect(main.get_by_label("Seed (every random choice derives from it)")).to_have_value("7")
        expect(main.get_by_label("Name of this run")).to_have_value("council check")
        screenshot("workbench-links-audit-after-reload")

        # The URL a refresh reloads while a launched run is still going: its progress comes first.
        token = url_params(page)["ws"][0]
        page.goto(f"{url}/audit?ws={token}&following={running}")
        wait_for_app(page)
        expect(main.get_by_text("Following the run", exact=False)).to_be_visible(timeout=30_000)
        expect(main.get_by_text("412 of 876 summaries", exact=False)).to_be_visible(timeout=30_000)
        expect(main.get_by_text("Corpus: council.txt", exact=False)).to_be_visible()
        screenshot("workbench-links-audit-following")

        open_page(page, "Corpus")
        expect(main.get_by_text("kept for this browser tab", exact=False)).to_be_visible(timeout=30_000)
