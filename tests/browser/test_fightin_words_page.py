"""Fightin' Words in headless Chromium on the demo run (issues 14 and 29): the page opens on a view with terms, each
side says in a sentence what survives the correction, sides are described in words, and a click on a point of the
plot selects its word and shows the two arms of one draw that use it, with whole words highlighted. Screenshots:
artifacts/screenshots/workbench-fw-*.png."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_page, running_app, wait_for_app


@pytest.fixture(scope="module")
def demo_app(tmp_path_factory):
    with running_app(tmp_path_factory.mktemp("fw-app"), SUMMBIAS_NO_DEMO="0") as url:
        yield url


def test_clicking_a_point_selects_its_word_and_shows_its_texts(page, demo_app, screenshot):
    page.goto(demo_app)
    wait_for_app(page, timeout=120_000)
    open_page(page, "Fightin' Words")
    main = page.get_by_test_id("stMain")
    # The first view is computed behind "Finding a view with words to show…" (cached); under a loaded machine that
    # takes longer than expect's 5 s default (it did once in a full xdist run).
    expect(main.get_by_text(re.compile(r"^A = .+; B = .+\.$"))).to_be_visible(timeout=60_000)
    expect(main.get_by_text("More frequent in A:", exact=False)).to_be_visible()
    # each side says in a sentence what survives the correction
    corrected = main.get_by_text("after correcting for multiple comparisons", exact=False)
    expect(corrected).to_have_count(2)
    screenshot("workbench-fw-1-first-view")

    counts = main.get_by_text(re.compile(r"^A \(.+\): \d+ of \d+ texts contain “"))
    expanders = main.get_by_test_id("stExpander").filter(has_text=" in A, ")

    def selected_word() -> str:
        return re.search(r"contain “(.+?)”", counts.first.inner_text()).group(1)

    before = selected_word()
    points = main.locator(".js-plotly-plot .scatterlayer .trace path.point")
    expect(points.first).to_be_attached(timeout=60_000)
    count = points.count()
    assert count > 5
    after = before
    for index in range(count - 1, max(count - 6, -1), -1):
        points.nth(index).click(force=True)
        deadline = time.time() + 15  # the click starts a rerun a moment later; wait for it to show
        while time.time() < deadline and after == before:
            page.wait_for_timeout(300)
            wait_for_app(page)
            after = selected_word()
        if after != before:
            break
    screenshot("workbench-fw-2-clicked-word")
    assert after != before, "a click on a point selects its word"
    word = after
    expect(expanders.first).to_contain_text(word)
    # an example is one draw: its two sides are the two arms of the same original and sample
    expect(expanders.first.get_by_text(re.compile(r"^A \("))).to_be_visible()
    expect(expanders.first.get_by_text(re.compile(r"^B \("))).to_be_visible()
    marks = expanders.first.locator("mark")
    expect(marks.first).to_be_visible()
    for text in marks.all_inner_texts()[:20]:
        assert text.lower() == word.lower() or "/" in word  # whole tokens of the word, never part of another
