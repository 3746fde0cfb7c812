"""The exported HTML report opens offline in Chromium, draws its charts, and never runs script from the data."""

from __future__ import annotations

from bias_core.common.records import Document, MeasureResult, Summary
from bias_core.runs.store import RunStore
from bias_core.views.export import html_report

SCRIPT = "<script>window.__pwned = true; alert('xss')</script><img src=x onerror=\"window.__pwned=true\">"


def test_html_report_is_self_contained_escapes_untrusted_text_and_draws_charts(page, tmp_path, screenshot):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({"note": SCRIPT}, "h", {"seed": 0}, name=f"audit {SCRIPT}")
    store.add_documents(run_id, [Document(id="d", text=f"An article {SCRIPT} about a vote.")])
    store.add_summaries(run_id, [Summary("d/identity", "lead-3", f"Summary with {SCRIPT} inside.")])
    store.replace_measures(run_id, [
        MeasureResult("entity_inclusion", 0.21, 40, "gender-loc", "lead-3", 0.05, 0.38, "d"),
        MeasureResult("entity_inclusion", 0.02, 40, "identity", "lead-3", -0.03, 0.06, "d"),
        MeasureResult("entity_inclusion", float("nan"), 0, "gender-loc", "smollm2", reason=f"p = 1 {SCRIPT}"),
    ])
    path = tmp_path / "report.html"
    path.write_text(html_report(store, run_id), encoding="utf-8")
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.route("**/*", lambda route: route.abort() if not route.request.url.startswith("file:") else route.continue_())
    page.goto(path.as_uri())
    page.wait_for_selector("svg.chart .marker", timeout=30_000)  # static SVG charts: drawn without any script
    assert page.evaluate("document.scripts.length") == 0
    assert dialogs == [] and page.evaluate("window.__pwned === undefined")
    assert "Summary with <script>" in page.inner_text("body")
    screenshot("html-report")
