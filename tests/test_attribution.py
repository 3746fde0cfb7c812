"""Openly licensed articles are credited where they are shown: the demo run (real Wikinews news, CC BY 2.5) names
its authors and license on the Overview and in the HTML report, from the documents' own ``meta``."""

from __future__ import annotations

import html

from bias_core.common.records import Document
from bias_core.reference.demo import ensure_demo_run
from bias_core.runs.store import RunStore
from bias_core.views.attribution import attribution_lines
from bias_core.views.export import html_report
from pages.render import md_escape
from tests.test_app_compare import open_page

WIKINEWS = {"license": "CC BY 2.5 (https://creativecommons.org/licenses/by/2.5/)",
            "attribution": "Wikinews contributors"}


def test_each_author_and_license_is_one_line_most_documents_first_and_unlicensed_documents_add_none():
    documents = [Document("a", "x", meta=dict(WIKINEWS)), Document("b", "y", meta=dict(WIKINEWS)),
                 Document("c", "z", meta={"license": "CC BY-SA 3.0", "attribution": "Wikipedia contributors"}),
                 Document("d", "w")]
    assert attribution_lines(documents) == [
        "2 documents by Wikinews contributors, CC BY 2.5 (https://creativecommons.org/licenses/by/2.5/); their "
        "perturbed versions and summaries are shown under the same license",
        "1 document by Wikipedia contributors, CC BY-SA 3.0; their perturbed versions and summaries are shown under "
        "the same license"]
    assert attribution_lines([Document("d", "w")]) == []


def test_the_demo_run_is_real_news_credited_on_the_overview_and_in_the_report(tmp_path, monkeypatch):
    store = RunStore(tmp_path / "demo.sqlite")
    run_id = ensure_demo_run(store)
    documents = store.documents(run_id)
    news = [d for d in documents if d.text is not None]
    assert news and all(d.id.startswith("wikinews-") for d in news)  # the invented articles are a test corpus
    lines = attribution_lines(documents)
    assert lines[0].startswith(f"{len(news)} documents by Wikinews contributors, CC BY 2.5")
    report = html_report(store, run_id)
    store.close()
    assert html.escape(lines[0]) in report

    (tmp_path / "copy").mkdir()
    overview = open_page("pages/overview.py", tmp_path / "demo.sqlite", tmp_path / "copy", monkeypatch)
    assert md_escape(f"Articles: {lines[0]}.") in [caption.value for caption in overview.caption]
