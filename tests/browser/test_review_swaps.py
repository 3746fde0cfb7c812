"""Review the swaps in the browser, before any model runs: the checklist over every input with its examples, a sample
with each swap highlighted, excluding a flagged original (the estimate drops), the content-word switch, and race
settings without gender options. Screenshots: artifacts/screenshots/workbench-review-*.png."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.conftest import open_page, running_app, set_number, wait_for_app

RIVERMOUTH = "news-16-sports-rivermouth-late-goal"


def top(locator) -> None:
    """Scroll ``locator`` to the top of the view, for the screenshot that follows."""
    locator.evaluate("element => element.scrollIntoView({block: 'start'})")
    locator.page.wait_for_timeout(300)


def test_review_the_swaps_before_running(page, tmp_path, screenshot):
    state = tmp_path / "state"
    state.mkdir()
    with running_app(state) as url:
        page.goto(url)
        wait_for_app(page)
        open_page(page, "Corpus")
        invented = page.get_by_role("radio", name="Invented news articles")  # the 16 invented test articles
        invented.check(force=True)
        expect(invented).to_be_checked()
        wait_for_app(page)
        open_page(page, "Audit")
        page.get_by_text("gender-glob settings").click()
        draws = page.get_by_label("Name draws per original (each gives one input per arm)")
        estimate = page.get_by_test_id("stAlert").filter(has_text="Estimate:")
        set_number(page, draws, "1", estimate.filter(has_text="46 inputs × 1 summarizer"))

        review = page.get_by_role("heading", name="Review the swaps")
        expect(review).to_be_visible()
        # Coherent text by default (issue 27); switched off, Steen & Markert's strict scope leaves gendered words.
        expect(page.get_by_text("30 inputs from 15 originals; gendered nouns agree with the swapped people.")
               ).to_be_visible()
        page.get_by_text(re.compile("^gender-glob: make gendered nouns agree")).click()
        wait_for_app(page)
        expect(page.get_by_text("30 inputs from 15 originals; gendered nouns kept.")).to_be_visible(timeout=60_000)
        leftover = page.get_by_text(re.compile("Leftover gendered words next to a person of the other gender .*: "
                                               r"\d+ in \d+ inputs"))
        expect(leftover).to_be_visible()
        # The sample: the first input is open, its swaps highlighted with what they replaced on hover.
        swaps = page.locator("span[title^='first_name: was']")
        expect(swaps.first).to_be_visible()
        page.set_viewport_size({"width": 1280, "height": 2400})
        top(review)
        screenshot("workbench-review-checklist")

        examples = page.get_by_test_id("stExpander").filter(
            has=page.get_by_text(re.compile(r"^gender-glob: Leftover gendered words .* distinct$")))
        examples.get_by_text(re.compile(r"^gender-glob: Leftover gendered words")).click()
        expect(examples.get_by_test_id("stDataFrame")).to_be_visible(timeout=15_000)
        # The grid draws on a canvas; its cells are in the DOM for screen readers.
        examples.locator("[role=gridcell]").first.wait_for(state="attached", timeout=15_000)
        cells = examples.locator("[role=gridcell]").all_text_contents()
        assert "chairman" in cells, cells
        top(examples)
        screenshot("workbench-review-examples")

        exclude = page.get_by_test_id("stMultiSelect").filter(has_text="Exclude originals")
        exclude.locator("input").click()
        exclude.locator("input").fill("rivermouth")  # the list is long: type to filter it
        option = page.get_by_role("option", name=re.compile("^" + RIVERMOUTH + " — .*gender-glob: leftover gendered"))
        expect(option).to_be_visible()
        option.click()
        page.keyboard.press("Escape")
        wait_for_app(page)
        expect(estimate).to_contain_text("43 inputs × 1 summarizer", timeout=60_000)
        expect(page.get_by_text("28 inputs from 14 originals; gendered nouns kept.")).to_be_visible()
        expect(page.get_by_text("Excluded: " + RIVERMOUTH)).to_be_visible()
        top(review)
        screenshot("workbench-review-excluded")
        page.set_viewport_size({"width": 1280, "height": 1500})
        top(exclude)
        screenshot("workbench-review-exclude-choice")
        page.set_viewport_size({"width": 1280, "height": 2400})

        page.get_by_text(re.compile("^gender-glob: make gendered nouns agree")).click()
        wait_for_app(page)
        expect(page.get_by_text("28 inputs from 14 originals; gendered nouns agree with the swapped people.")
               ).to_be_visible(timeout=60_000)
        top(review)
        screenshot("workbench-review-content-words")

        perturbations = page.get_by_test_id("stMultiSelect").filter(has_text="Perturbations")
        perturbations.locator("input").click()
        perturbations.locator("input").fill("race")
        page.get_by_role("option", name="race", exact=True).click()
        page.keyboard.press("Escape")
        wait_for_app(page)
        page.get_by_text("race settings", exact=True).click()
        settings = page.get_by_test_id("stExpander").filter(has_text="race settings")
        expect(settings.get_by_text("Name source")).to_be_visible()
        expect(settings.get_by_text(re.compile("content words", re.IGNORECASE))).to_have_count(0)
        # Race draws genders too, so it takes the same agreement switch as the gender swaps (issue 27).
        expect(page.get_by_text(re.compile("^race: make gendered nouns agree"))).to_have_count(1, timeout=60_000)
        expect(page.get_by_role("tab", name="race")).to_be_visible(timeout=60_000)
        top(page.get_by_role("heading", name="Perturbations"))
        screenshot("workbench-review-race-settings")
