"""Honest progress in the browser: the Audit estimate as a range with its basis, a smollm2 run whose progress moves
summary by summary with elapsed and remaining time, the next estimate based on that run, and the "in progress: n of N"
notice on Compare, Fightin' Words and Metrics. Screenshots: artifacts/screenshots/workbench-progress-*.png."""

from __future__ import annotations

import gzip
import json
import os
import re
import time

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from bias_core.reference.demo import DEMO_NEWS, DEMO_RUN
from bias_core.runs.store import RunStore
from tests.browser.conftest import open_page, running_app, wait_for_app


def add_running_run(store_path) -> str:
    """A copy of the demo run that a live worker (this test process) is still summarizing: 412 of 876 done."""
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    bundle["run"] |= {"id": "20990101-000000-live00", "name": "live audit", "created": time.time() + 3600}
    store = RunStore(store_path)
    run_id = store.import_run(bundle)
    store.update_run(run_id, status="running", stage="summarize", done=412, total=876, worker_pid=os.getpid())
    store.close()
    return run_id


def choose(page, label: str, option: str) -> None:
    """Add ``option`` to the multiselect labelled ``label``; retried while a rerun has the widgets disabled."""
    box = page.get_by_test_id("stMultiSelect").filter(has_text=label)
    for _ in range(4):
        wait_for_app(page)
        box.locator("input").click()
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=10_000)
        except PlaywrightTimeoutError:
            page.keyboard.press("Escape")
            continue
        page.keyboard.press("Escape")
        wait_for_app(page)
        try:  # a rerun that was under way when the option was clicked can drop the choice: choose it again
            expect(box).to_contain_text(option, timeout=5_000)
            break
        except AssertionError:
            continue
    page.keyboard.press("Escape")
    wait_for_app(page)
    expect(box).to_contain_text(option)


def clear(page, label: str) -> None:
    """Remove every chosen option of the multiselect labelled ``label`` (nothing to do when none is chosen)."""
    box = page.get_by_test_id("stMultiSelect").filter(has_text=label)
    expect(box).to_be_visible(timeout=60_000)
    wait_for_app(page)
    clear_all = box.get_by_role("button", name=re.compile("^Clear all"))
    if clear_all.count():
        clear_all.click()
        wait_for_app(page)


def select_only(page, label: str, options: list[str]) -> None:
    clear(page, label)
    for option in options:
        choose(page, label, option)


NEWS_WORDS = 120


def short_news() -> list[str]:
    """The first six demo articles cut to ``NEWS_WORDS`` words: six smollm2 summaries of about a second each, so the
    run shows a count between 0 and 6 for several seconds (two-sentence articles took 0.1 s each, and all six
    finished between two polls of the progress bar)."""
    with DEMO_NEWS.open(encoding="utf-8") as stream:
        documents = [json.loads(line) for line in stream][:6]
    return [" ".join(document["text"].split()[:NEWS_WORDS]) for document in documents]


def upload_short_news(page, url: str, folder) -> None:
    """Open the app and upload six short articles (six smollm2 summaries: quick even on a loaded machine)."""
    path = folder / "short_news.jsonl"
    path.write_text("".join(json.dumps({"id": f"n{k}", "text": text}) + "\n" for k, text in enumerate(short_news())))
    page.goto(url)
    wait_for_app(page)
    open_page(page, "Corpus")
    page.get_by_text("Upload a file", exact=True).click()
    wait_for_app(page)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(page.get_by_text("6 documents ready: 6 articles")).to_be_visible(timeout=30_000)


def test_estimate_progress_per_summary_history_and_in_progress_notices(page, tmp_path, screenshot):
    state = tmp_path / "state"
    state.mkdir()
    with running_app(state) as url:
        upload_short_news(page, url, tmp_path)
        open_page(page, "Audit")
        select_only(page, "Perturbations", [])
        select_only(page, "Summarizers", ["smollm2"])
        estimate = page.get_by_test_id("stAlert").filter(has_text="Estimate:")
        expect(estimate).to_contain_text("6 inputs × 1 summarizer = 6 summaries", timeout=60_000)
        estimate.scroll_into_view_if_needed()
        expect(page.get_by_text(re.compile("smollm2: no measurement on this machine yet, default guess"))) \
            .to_be_visible()
        screenshot("workbench-progress-estimate-default")

        page.get_by_role("button", name="Run audit").click()
        bar = page.get_by_test_id("stProgress")
        expect(bar).to_contain_text(re.compile(r"[1-5] of 6 summaries · summarize"), timeout=240_000)
        times = page.get_by_text(re.compile(r"elapsed .*, remaining .* \(smollm2: from \d+ summar"))
        expect(times).to_be_visible()
        times.scroll_into_view_if_needed()  # the page scrolls inside Streamlit's main container, not the window
        screenshot("workbench-progress-running")
        done = page.get_by_text("Done. Inspect the results:")
        expect(done).to_be_visible(timeout=400_000)
        done.scroll_into_view_if_needed()
        screenshot("workbench-progress-done")

        open_page(page, "Audit")  # smollm2 again, with gender-glob: now estimated from the run just made
        select_only(page, "Perturbations", ["gender-glob"])
        select_only(page, "Summarizers", ["smollm2"])
        expect(page.get_by_text(re.compile("smollm2: from 1 earlier run on this machine"))).to_be_visible(timeout=60_000)
        expect(page.get_by_test_id("stAlert").filter(has_text="Estimate:")).to_contain_text("6 already cached")
        page.get_by_test_id("stAlert").filter(has_text="Estimate:").scroll_into_view_if_needed()
        screenshot("workbench-progress-estimate-history")

        add_running_run(state / "runs.sqlite")
        for name, shot in (("Compare", "compare"), ("Fightin' Words", "fightin-words"), ("Metrics", "metrics")):
            page.goto(url)
            wait_for_app(page)
            open_page(page, name)
            notice = page.get_by_test_id("stAlert").filter(has_text="In progress: 412 of 876 summaries")
            expect(notice).to_be_visible()
            screenshot(f"workbench-progress-notice-{shot}")
        # The run ends while Metrics is open: the notice goes away by itself, without a reload (issue 22).
        store = RunStore(state / "runs.sqlite")
        store.update_run("20990101-000000-live00", status="completed", done=876)
        store.close()
        expect(page.get_by_test_id("stAlert").filter(has_text="In progress")).to_have_count(0, timeout=20_000)
