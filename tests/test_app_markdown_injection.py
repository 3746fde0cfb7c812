"""No page renders Markdown or HTML from users or models: a run whose names, ids, titles, texts, summaries, values and
messages are full of Markdown, HTML and Streamlit directives is opened on every page with AppTest, and no element that
Streamlit renders as Markdown holds any of that syntax unescaped. The browser test (tests/browser) checks what
Chromium shows and fetches."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bias_core.common.records import Document, MeasureResult, Summary
from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
from bias_core.runs.pipeline import build_inputs
from bias_core.runs.store import RunStore
from bias_core.summarize import get_summarizer, summarize_inputs
from pages.render import md_escape
from tests.conftest import open_app

PAGES = ["pages/corpus.py", "pages/audit.py", "pages/compare.py", "pages/fightin_words.py", "pages/metrics.py",
         "pages/runs.py", "pages/summarize.py", "pages/overview.py"]


def payload(host: str, tag: str) -> str:
    """An image, a link, raw HTML, a colour directive, an icon, an emoji and LaTeX, all naming ``tag``."""
    return (f"![{tag}](http://{host}/{tag}.png) [{tag} link](http://{host}/{tag}) <img src=http://{host}/{tag}-img> "
            f":red[{tag} red] :material/home: :smile: $x_{tag}$ www.{tag}.example {tag}@example.org")


def hostile_names(host: str) -> dict[str, str]:
    return {
        "run": "run " + payload(host, "run"),
        "failed_run": "failed " + payload(host, "failed"),
        "failure": "summarizer crashed on " + payload(host, "message"),
        "summarizer": "sum " + payload(host, "summarizer"),
        "doc_id": "doc " + payload(host, "doc"),
        "title": "title " + payload(host, "title"),
        "summary": "The mayor resigned. " + payload(host, "summary"),
        "value": "value " + payload(host, "value"),
        "reason": "undefined because " + payload(host, "reason"),
    }


ARTICLE = ("Mayor Robert Moore said on Monday that he will resign. His deputy, Linda Chen, thanked him for his "
           "work. {payload} Chen said she would protect library funding.")


def build_hostile_store(path: Path, host: str) -> dict[str, str]:
    """A store with a completed run and a failed run whose every user- or model-supplied string carries Markdown:
    real inputs (identity, gender-glob and race swaps) of an article with a hostile id, title and text; real lead-3
    summaries, the same summaries with a hostile text by a summarizer with a hostile name, and measure results that
    quote both. Returns the hostile strings."""
    names = hostile_names(host)
    store = RunStore(path)
    failed = store.create_run({"summarizers": [{"name": names["summarizer"], "params": {}}], "perturbations": []},
                              "failed-hash", {"seed": 0}, name=names["failed_run"])
    store.update_run(failed, status="failed", message=names["failure"])
    document = Document(id=names["doc_id"], text=ARTICLE.format(payload=payload(host, "text")),
                        meta={"title": names["title"]})
    config = AuditConfig(corpus=CorpusSpec("uploaded"), summarizers=[StageSpec("lead-3")],
                         perturbations=[StageSpec("identity"), StageSpec("gender-glob", {"samples": 1}),
                                        StageSpec("race", {"samples": 1})], name=names["run"])
    inputs, _ = build_inputs([document], config)
    assert {item.perturbation for item in inputs} == {"identity", "gender-glob", "race"}
    lead = summarize_inputs(get_summarizer("lead-3"), inputs).summaries
    hostile = [Summary(s.input_id, names["summarizer"], f"{s.text} {names['summary']}") for s in lead]
    run_id = store.create_run(config.to_dict(), "hostile-hash", {"seed": 0}, name=names["run"])
    store.add_documents(run_id, [document])
    store.add_inputs(run_id, inputs)
    store.add_summaries(run_id, lead + hostile)
    store.replace_measures(run_id, [
        MeasureResult("distinguishability_count", 0.2, 4, "gender-glob", names["summarizer"], 0.1, 0.3, "d",
                      details={"correction": "Holm " + payload(host, "correction")}),
        MeasureResult("entity_inclusion", float("nan"), 0, "gender-glob", names["summarizer"],
                      reason=names["reason"]),
        MeasureResult("bur", 0.5, 2, "sentiment", names["summarizer"], 0.1, 0.9, "d", details={
            "distributions": {names["value"]: {"p_x": 0.5, "p_y": 0.25, "ratio": 0.5},
                              "plain value": {"p_x": 0.5, "p_y": 0.75, "ratio": 1.5}}}),
    ])
    store.update_run(run_id, status="completed", done=len(lead + hostile), total=len(lead + hostile))
    store.close()
    return names


# The payload's syntax, which must never reach a Markdown-rendering element unescaped (the app's own Markdown, such as
# docs/measures.md, has links of its own).
UNESCAPED = re.compile(r"!\[\w+\]\(|\[\w+ link\]\(|(?<!\\)<img src=|:red\[\w+ red\]|:material/home:|:smile:|\$x_\w+\$|"
                       r"http://127\.0\.0\.1:9|www\.\w+\.example|\w@example")


def markdown_texts(at) -> list[tuple[str, str]]:
    """Every string of the rendered page that Streamlit shows as Markdown: bodies, headings, captions, alerts,
    expander and widget labels, radio options, progress texts and spinner texts."""
    texts: list[tuple[str, str]] = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "error", "warning", "info", "success"):
        texts += [(kind, element.value) for element in at.get(kind)]
    texts += [("expander", element.label) for element in at.expander]
    for kind in ("selectbox", "multiselect", "radio", "text_input", "text_area", "number_input", "checkbox",
                 "button", "select_slider", "slider"):
        texts += [(f"{kind} label", element.label) for element in at.get(kind)]
    texts += [("radio option", option) for element in at.radio for option in element.options]
    texts += [("progress", element.proto.text) for element in at.get("progress")]
    return texts


def unescaped(at) -> list[tuple[str, str]]:
    """Markdown elements holding user syntax unescaped; the app's own HTML fragments hold it only as entities."""
    return [(kind, text) for kind, text in markdown_texts(at) if UNESCAPED.search(text)]


@pytest.fixture
def hostile_app(tmp_path, monkeypatch):
    path = tmp_path / "hostile.sqlite"
    names = build_hostile_store(path, "127.0.0.1:9")
    monkeypatch.setenv("SUMMBIAS_STORE", str(path))
    return open_app(), names


def hostile_upload(at, names: dict[str, str]) -> None:
    """Upload a CSV whose column name, ids, titles and texts carry Markdown, on the Corpus page."""
    column = "body " + payload("127.0.0.1:9", "column")
    data = (f'"{column}",id,title\n"{ARTICLE.format(payload=names["summary"])}","{names["doc_id"]}",'
            f'"{names["title"]}"\n').encode()
    at.switch_page("pages/corpus.py").run()
    at.radio(key="corpus_choice").set_value("Upload a file").run()
    at.file_uploader(key="corpus_upload").upload("hostile :red[file] [f](x).csv", data, "text/csv").run()
    assert at.selectbox(key="csv_text").value == column


def test_no_page_renders_markdown_from_a_hostile_run_or_upload(hostile_app):
    at, names = hostile_app
    hostile_upload(at, names)
    assert not at.exception and at.session_state["documents"][0].id == names["doc_id"]
    found = {}
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        if page == "pages/audit.py":
            at.multiselect(key="audit_perturbations").set_value(["race"]).run()
        if page == "pages/compare.py":
            at.selectbox(key="compare_original").set_value(names["doc_id"]).run()
        if page == "pages/summarize.py":
            at.button[0].click().run()
        if page == "pages/metrics.py":  # opened on the run's finding (issue 29); the hostile reason is inclusion's
            at.radio(key="metrics_family").set_value("inclusion").run()
        if page == "pages/overview.py":  # the completed run, the one with findings
            completed = next(run.id for run in RunStore().list_runs() if run.status == "completed")
            at.selectbox(key="sidebar_run").set_value(completed).run()
        if page == "pages/runs.py":
            for run in [run.id for run in RunStore().list_runs()]:
                at.selectbox(key="runs_selected").set_value(run).run()
                assert unescaped(at) == [], page
                found.setdefault(page, []).extend(markdown_texts(at))
        assert unescaped(at) == [], page
        found.setdefault(page, []).extend(markdown_texts(at))
    shown = {page: " ".join(text for _, text in texts) for page, texts in found.items()}
    # The hostile strings are there, escaped: as headings, captions, labels and alerts.
    assert md_escape(names["run"]) in shown["pages/runs.py"]
    assert md_escape(names["failure"]) in shown["pages/runs.py"]
    assert md_escape(names["summarizer"]) in shown["pages/compare.py"]
    assert md_escape(names["run"]) in shown["pages/overview.py"]
    assert md_escape(names["summarizer"]) in shown["pages/overview.py"]
    assert md_escape(names["reason"]) in shown["pages/metrics.py"]
    assert md_escape("hostile :red[file] [f](x).csv") in shown["pages/audit.py"]
    assert "Summary by lead-3" in shown["pages/summarize.py"]


def test_compare_html_blocks_hold_hostile_text_only_as_entities(hostile_app):
    at, names = hostile_app
    at.switch_page("pages/compare.py").run()
    at.selectbox(key="compare_original").set_value(names["doc_id"]).run()
    blocks = [block.value for block in at.markdown if block.value.startswith(("<div", "<p"))]
    assert blocks and all("\n" not in block and "](" not in block and "<img" not in block for block in blocks)
    assert any("&#60;img src&#61;http&#58;&#47;&#47;127&#46;0&#46;0&#46;1&#58;9&#47;summary&#45;img&#62;" in block
               for block in blocks)


def test_metrics_plotly_titles_and_ticks_escape_hostile_values(hostile_app):
    at, names = hostile_app
    at.switch_page("pages/metrics.py").run()
    at.radio(key="metrics_family").set_value("perspective fairness").run()
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    bars = next(spec for spec in specs if spec["data"][0].get("type") == "bar")
    assert "<img" not in json.dumps(bars) and "&lt;img src=http://127.0.0.1:9/value-img&gt;" in bars["data"][0]["x"][0]


def test_race_swaps_say_that_pronouns_may_change_on_audit_and_compare(hostile_app):
    at, names = hostile_app
    at.switch_page("pages/compare.py").run()
    note = ("Pronouns may change: a race swap draws a gender for each person whose gender the text does not show "
            "(Steen & Markert §10 draw every person's; see docs/fidelity.md).")
    at.selectbox(key="compare_original").set_value(names["doc_id"]).run()
    at.selectbox(key="compare_perturbation").set_value("gender-glob").run()
    assert note not in [caption.value for caption in at.caption]
    at.selectbox(key="compare_perturbation").set_value("race").run()
    store = RunStore()
    race_input = next(item.id for item in store.inputs(store.list_runs()[0].id) if item.perturbation == "race")
    at.selectbox(key="compare_b").set_value(race_input).run()
    assert note in [caption.value for caption in at.caption]
    at.switch_page("pages/corpus.py").run()
    at.switch_page("pages/audit.py").run()
    at.multiselect(key="audit_perturbations").set_value(["race"]).run()
    assert note in [caption.value for caption in at.caption]
