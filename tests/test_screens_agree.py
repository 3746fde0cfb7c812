"""Every screen tells the same story (issue 29, Deliver 10): for every Overview row of the demo run and of a fresh
small audit (real components: spaCy perturbations, lead-3 and sexist-female, every measure), the Metrics chart point,
the CSV row and the HTML report row agree with the row on the effect, its direction and the verdict."""

from __future__ import annotations

import csv
import html
import io

import pytest

from bias_core.verdicts.findings import run_findings
from bias_core.verdicts.sentences import verdict_words
from bias_core.views.charts import chart_data
from bias_core.views.export import html_report, measures_csv
from tests.conftest import demo_or_audited_run


@pytest.fixture(params=["fresh audit", "demo"], scope="module")
def shown(request, tmp_path_factory):
    """The run's Overview rows, its results, its CSV rows keyed by (measure, perturbation, summarizer, ci kind) and
    its report, from one store."""
    store, run_id = demo_or_audited_run(request, tmp_path_factory.mktemp("agree"))
    results = store.measures(run_id)
    table = list(csv.DictReader(io.StringIO(measures_csv(results))))
    return run_findings(store, run_id), results, table, html_report(store, run_id)


def _reported(found, results):
    """Each Overview row that states a value, with the one result it reports."""
    for finding in found:
        result = _row_of(finding, results)
        if result is not None and finding.estimate is not None:
            yield finding, result


def _row_of(finding, results):
    """The result an Overview row reports: its measure, perturbation, summarizer and interval kind."""
    matches = [r for r in results if r.measure == finding.measure and r.perturbation == finding.perturbation
               and r.summarizer == finding.summarizer and (finding.ci_kind is None or r.ci_kind == finding.ci_kind)
               and (not finding.variant or r.details.get("variant", finding.variant) == finding.variant)]
    return matches[0] if len(matches) == 1 else None


def test_the_chart_point_states_the_overviews_effect_verdict_and_favoured_group(shown):
    found, results, _, _ = shown
    checked = 0
    for finding, result in _reported(found, results):
        chart = chart_data(results, result.measure, ci_kind=result.ci_kind)
        points = [row for row in chart.rows if row.result is result]
        if not points:  # the chart leaves out what the text states no value for
            assert finding.verdict.status in ("not enough data", "undefined"), finding.sentence
            continue
        point = points[0]
        checked += 1
        assert point.verdict.status == finding.verdict.status, finding.sentence
        assert point.verdict.significant == finding.verdict.significant
        assert point.effect == finding.effect, (point.effect, finding.effect)
        if finding.verdict.significant and finding.verdict.favoured and point.favours:
            assert point.favours == finding.verdict.favoured or point.favours in finding.sentence, finding.sentence
    assert checked, "no Overview row has a chart point"


def test_the_csv_row_holds_the_overviews_estimate_and_verdict(shown):
    found, results, table, _ = shown
    checked = 0
    for finding, result in _reported(found, results):
        rows = [row for row in table if (row["measure"], row["perturbation"], row["summarizer"]) ==
                (result.measure, result.perturbation, result.summarizer) and row["ci_kind"] == (result.ci_kind or "")]
        assert rows, finding.sentence
        row = rows[0]
        checked += 1
        assert row["verdict"] == finding.verdict.status, finding.sentence
        assert float(row["estimate"]) == pytest.approx(finding.estimate, rel=1e-9, abs=1e-12)
        assert (row["favoured"] or None) == finding.verdict.favoured
    assert checked


def test_the_report_row_states_the_overviews_sentence_effect_and_verdict(shown):
    found, _, _, report = shown
    for finding in found:
        row = f"data-summarizer='{html.escape(finding.summarizer)}' data-measure='{html.escape(finding.measure)}'"
        assert row in report, finding.sentence
        cells = [part for part in report.split("<tr ")[1:] if part.startswith(row)]
        assert any(html.escape(finding.sentence) in cell and html.escape(finding.effect) in cell
                   and html.escape(verdict_words(finding.verdict.status)) in cell for cell in cells), finding.sentence
