"""The first page after a server start never shows the pages/ folder's file names in the sidebar (issue 14).

Streamlit reads a pages/ folder beside app.py as an old-style multipage app and, until a script first calls
st.navigation, draws its file names ("app", "audit", "common", "render" …) as the sidebar navigation of the first page
after each server start. .streamlit/config.toml keeps that list hidden and app.py shows its own navigation. The test
starts a fresh server (the case that showed them), records every label and link the sidebar navigation ever shows
from the moment the page starts loading (a MutationObserver installed before Streamlit's scripts run), and saves
artifacts/screenshots/workbench-first-paint.png when the navigation first appears."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS, REPO, running_app, wait_for_app

# Installed before any script of the page: every sidebar navigation link's label and address, each time the DOM
# changes, into window.__navSeen.
RECORD_NAV = """
window.__navSeen = [];
const record = () => {
  for (const link of document.querySelectorAll('[data-testid=stSidebarNavLink]')) {
    const label = link.querySelector('span[label]');
    const entry = (label ? label.getAttribute('label') : link.innerText.trim()) + ' -> '
      + new URL(link.href, location.href).pathname;
    if (!window.__navSeen.includes(entry)) window.__navSeen.push(entry);
  }
};
new MutationObserver(record).observe(document, {subtree: true, childList: true, characterData: true,
                                                attributes: true});
"""

APP_PAGES = {"Overview", "Corpus", "Audit", "Compare", "Fightin' Words", "Metrics", "Runs", "Summarize one document"}
MODULE_NAMES = {path.stem for path in (REPO / "pages").glob("*.py")} | {"app"}


@pytest.fixture
def fresh_app(tmp_path):
    """A server started for this test alone, on a fresh store into which it imports the demo run."""
    with running_app(tmp_path, SUMMBIAS_NO_DEMO="0") as url:
        yield url


def test_the_first_page_after_a_server_start_never_lists_module_file_names(page, fresh_app):
    assert {"common", "render", "overview"} <= MODULE_NAMES
    page.add_init_script(RECORD_NAV)
    page.goto(fresh_app, wait_until="commit")
    nav = page.get_by_test_id("stSidebarNav")
    deadline = time.time() + 120
    while not nav.is_visible() and time.time() < deadline:
        time.sleep(0.02)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "workbench-first-paint.png"))
    wait_for_app(page, timeout=120_000)
    seen = page.evaluate("window.__navSeen")
    labels = {entry.split(" -> ")[0] for entry in seen}
    paths = {entry.split(" -> ")[1].strip("/") for entry in seen}
    assert labels == APP_PAGES, seen
    assert not labels & MODULE_NAMES and not {"common", "render", "app"} & paths, seen
    assert page.get_by_role("heading", name="Overview").is_visible()


def test_a_shared_link_opened_first_after_a_server_start_never_lists_module_file_names(page, fresh_app):
    page.add_init_script(RECORD_NAV)
    page.goto(f"{fresh_app}/compare", wait_until="commit")
    wait_for_app(page, timeout=120_000)
    expect(page.get_by_role("heading", name="Compare summaries")).to_be_visible()
    seen = page.evaluate("window.__navSeen")
    assert not {entry.split(" -> ")[0] for entry in seen} & MODULE_NAMES, seen
