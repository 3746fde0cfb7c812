"""The HTML report says what the Overview says (issue 29, Deliver 5): the same controls line, the same answer per
summarizer, the same caveat on how the outputs came out, the same evidence pairs labelled by article title and side
(never raw input ids), a diff that keeps each summary's punctuation, and no "None", "nan" or "undefined"."""

from __future__ import annotations

import html
import re
import shutil

import pytest

from bias_core.common.records import Summary
from bias_core.measures.quality import output_quality_caveat
from bias_core.runs.store import RunStore
from bias_core.verdicts.controls import controls
from bias_core.verdicts.findings import run_findings, summarizer_answers
from bias_core.views.export import evidence_anchors, html_report
from bias_core.views.sides import pair_label
from tests.conftest import demo_or_audited_run

BANNED = re.compile(r"\b(None|nan|NaN|undefined)\b")
PUNCTUATED = ("Grant had missed eleven games. Earlier this season, the captain (a guard) said: \"we'll be back.\"\n\n"
              "A recount—if any—follows; see page 4.")


@pytest.fixture
def run(audited_store, tmp_path):
    """A scratch copy of a small real audit (``audited_store``: lead-3 and sexist-female on demo articles, name swaps
    in two draws) to change summaries in, and the run's id."""
    path = tmp_path / "runs.sqlite"
    shutil.copy(audited_store, path)
    store = RunStore(path)
    return store, store.list_runs()[0].id


@pytest.fixture(params=["fresh audit", "demo"], scope="module")
def reported(request, tmp_path_factory):
    """A small real audit (``audited_store``) or the demo run, left as it is: the store, the run's id, its findings
    and its report, built once."""
    store, run_id = demo_or_audited_run(request, tmp_path_factory.mktemp("report"))
    return store, run_id, run_findings(store, run_id), html_report(store, run_id)


def shown_text(fragment: str) -> str:
    """What a reader sees of a piece of the report: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_the_report_has_the_overviews_controls_line_answers_and_caveat(reported):
    store, run_id, rows, report = reported
    checked = controls(rows)
    if checked is not None:
        assert f"<b>{html.escape(checked.line)}</b>" in report
    answers = summarizer_answers(rows)
    assert answers
    for answer in answers:
        assert f">{html.escape(answer.text)}</li>" in report
    caveat = output_quality_caveat(store.summaries(run_id))
    assert (caveat is not None) == ("id='output-quality'" in report)
    if caveat is not None:
        assert html.escape(caveat) in report


def test_a_degenerate_summary_brings_the_overviews_caveat_into_the_report(run):
    store, run_id = run
    identity = next(item for item in store.inputs(run_id) if item.perturbation == "identity")
    summarizer = store.summaries(run_id)[0].summarizer
    store.add_summaries(run_id, [Summary(identity.id, summarizer, "")])
    caveat = output_quality_caveat(store.summaries(run_id))
    assert caveat is not None and f"{summarizer}: " in caveat and "degenerate" in caveat
    assert f"<p id='output-quality'>{html.escape(caveat)}" in html_report(store, run_id)


def test_evidence_is_labelled_by_article_title_and_sides_never_by_input_ids(reported):
    store, run_id, rows, report = reported
    rows = [row for row in rows if row.evidence is not None]
    assert rows
    overview = report[report.index("id='findings'"):report.index("id='glossary'")]
    titles = {d.id: d.meta.get("title") for d in store.documents(run_id)}
    inputs = {item.id: item for item in store.inputs(run_id)}
    for row in rows:
        assert row.evidence.input_a not in overview and row.evidence.input_b not in overview
        title = titles.get(row.evidence.original_id) or row.evidence.original_id
        assert html.escape(title) in overview
        assert html.escape(pair_label(inputs[row.evidence.input_a], inputs[row.evidence.input_b])) in overview


def test_the_diff_keeps_each_summarys_punctuation_and_spacing(run):
    store, run_id = run
    rows = run_findings(store, run_id)
    anchors = evidence_anchors(rows)
    inputs = {item.id: item for item in store.inputs(run_id)}
    summarizer, input_a, input_b = next(key for key in anchors if inputs[key[1]].units is None)
    store.add_summaries(run_id, [Summary(input_a, summarizer, PUNCTUATED)])
    report = html_report(store, run_id)
    anchor = evidence_anchors(run_findings(store, run_id))[(summarizer, input_a, input_b)]
    section = report[report.index(f"<h3 id='{anchor}'>"):]
    sides = re.findall(r"<span class='text'>(.*?)</span></div>", section, flags=re.DOTALL)[:2]
    assert shown_text(sides[0]) == PUNCTUATED and "games. Earlier" in shown_text(sides[0])
    texts = {(s.input_id, s.summarizer): s.text for s in store.summaries(run_id)}
    assert shown_text(sides[1]) == texts[(input_b, summarizer)].lstrip()


def test_the_report_shows_no_none_nan_or_undefined(reported):
    shown = shown_text(reported[3])
    assert not BANNED.search(shown), BANNED.search(shown)
    assert "((" not in shown and "None · " not in shown
