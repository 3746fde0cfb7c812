"""The corpus choice is one piece of state (issue 22): Corpus → upload → Audit → Corpus (sidebar) → Audit keeps the
upload, and the run launched then audits it, not the demo articles. Screenshot: artifacts/screenshots/."""

from __future__ import annotations

from playwright.sync_api import expect

from bias_core.runs.store import RunStore
from tests.browser.conftest import open_page, running_app, upload_article, wait_for_app

ARTICLE = "Mayor Robert Moore said on Monday that he will not run again. His deputy, Linda Chen, thanked him."


def test_an_upload_stays_the_corpus_after_going_back_to_corpus_and_is_what_the_audit_audits(page, tmp_path,
                                                                                            screenshot):
    article = tmp_path / "council-kept.txt"
    article.write_text(ARTICLE)
    state = tmp_path / "state"
    state.mkdir()
    with running_app(state) as url:
        upload_article(page, url, article)
        open_page(page, "Audit")
        expect(page.get_by_text("council-kept.txt")).to_be_visible(timeout=30_000)
        open_page(page, "Corpus")
        expect(page.get_by_text("1 document ready: 1 article")).to_be_visible(timeout=30_000)
        expect(page.get_by_role("radio", name="Upload a file")).to_be_checked()
        screenshot("workbench-corpus-kept")
        open_page(page, "Audit")
        expect(page.get_by_text("council-kept.txt")).to_be_visible(timeout=30_000)
        # identity plus gender-glob's 3 draws × 2 arms of the one uploaded article (16 demo articles would give 112)
        expect(page.get_by_text("7 inputs × 1 summarizer = 7 summaries")).to_be_visible(timeout=60_000)
        page.get_by_role("button", name="Run audit").click()
        expect(page.get_by_text("Done. Inspect the results:")).to_be_visible(timeout=300_000)
        wait_for_app(page)
    store = RunStore(state / "runs.sqlite")
    audited = [run for run in store.list_runs() if "council-kept" in (run.name or "")]
    assert audited, [run.name for run in store.list_runs()]
    assert {item.original_id for item in store.inputs(audited[0].id)} == {"council-kept"}
    store.close()
