"""Over every result of the demo run, recomputed with the current measures: the chart markers, the CSV verdict
column, the HTML report and ``findings`` agree with ``judge``, and no estimate lies outside its own interval."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import re

import pytest

from bias_core.common.records import Input
from bias_core.measures import compute_measures
from bias_core.reference.demo import DEMO_RUN
from bias_core.runs.store import RunStore
from bias_core.verdicts.findings import findings
from bias_core.verdicts.judge import judge
from bias_core.verdicts.semantics import primary_estimate, variant
from bias_core.views.charts import chart_data, measure_figure, measure_svg
from bias_core.views.export import html_report, measures_csv


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo run imported into a real SQLite store, its measures recomputed from its inputs and summaries with
    the current code (as scripts/build_demo_run.py would), so stale stored results cannot hide a regression."""
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    store = RunStore(tmp_path_factory.mktemp("demo") / "runs.sqlite")
    run_id = store.import_run(bundle)
    inputs, summaries = store.inputs(run_id), store.summaries(run_id)
    assert [i.id for i in inputs] == [Input.from_dict(i).id for i in bundle["inputs"]]
    store.replace_measures(run_id, compute_measures(inputs, summaries))
    return store, run_id


def key(measure, perturbation, summarizer, kind, which=""):
    return (measure, str(perturbation), str(summarizer), str(kind), which)


def test_no_estimate_or_record_value_lies_outside_its_own_interval(demo):
    store, run_id = demo
    results = store.measures(run_id)
    assert len(results) >= 90
    for r in results:
        value, low, high = primary_estimate(r)
        if value is not None and low is not None:
            assert low <= value <= high, (r.measure, r.summarizer, r.perturbation, r.ci_kind)
        if r.is_defined and r.ci_low is not None:
            # An unbounded side (an odds ratio's interval reaching infinity with a zero count) is stored as None.
            high = math.inf if r.ci_high is None else r.ci_high
            assert r.ci_low <= r.value <= high, (r.measure, r.summarizer, r.perturbation, r.ci_kind)
    rows = list(csv.DictReader(io.StringIO(measures_csv(results))))
    for row in rows:
        for value, low, high in ((row["estimate"], row["estimate_ci_low"], row["estimate_ci_high"]),
                                 (row["value"], row["ci_low"], row["ci_high"])):
            if value and low and high:
                assert float(low) <= float(value) <= float(high), row["measure"]


def test_chart_markers_csv_verdicts_report_and_findings_agree_with_judge(demo):
    store, run_id = demo
    results = store.measures(run_id)
    verdicts = {key(r.measure, r.perturbation, r.summarizer, r.ci_kind, variant(r)): judge(r, results) for r in results}
    assert len(verdicts) == len(results)
    assert any(v.significant for v in verdicts.values()) and any(not v.significant for v in verdicts.values())

    charted = 0
    report = html_report(store, run_id)
    for measure in dict.fromkeys(r.measure for r in results):
        data = chart_data(results, measure)
        figure = measure_figure(results, measure)
        symbols = list(figure.data[0].marker.symbol) if figure.data else []
        assert symbols == ["diamond" if row.verdict.significant else "circle" for row in data.rows]
        svg = measure_svg(results, measure)
        marks = re.findall(r"data-status='([^']*)' data-summarizer='([^']*)' data-perturbation='([^']*)' "
                           r"data-ci-kind='([^']*)' data-variant='([^']*)'", svg)
        assert len(marks) == len(data.rows)
        for status, summarizer, perturbation, kind, which in marks:
            assert verdicts[key(measure, perturbation, summarizer, kind, which)].status == status
            charted += 1
        if data.rows:
            assert svg in report
    assert charted > 50

    for row in csv.DictReader(io.StringIO(measures_csv(results))):
        details = json.loads(row["details"])
        which = str(details.get("direction") or details.get("feature") or "")
        verdict = verdicts[key(row["measure"], row["perturbation"] or "None", row["summarizer"], row["ci_kind"] or "None",
                               which)]
        assert row["verdict"] == verdict.status and row["favoured"] == (verdict.favoured or "")
        assert row["survives_correction"] == ("" if verdict.p_holm is None else str(verdict.p_holm < 0.05))
        assert row["correction"]  # never silently empty: a method, or why it does not apply
        if row["favoured"]:
            assert row["verdict"] == "finding"

    table = re.findall(r"<tr data-measure='([^']*)' data-summarizer='([^']*)' data-perturbation='([^']*)' "
                       r"data-ci-kind='([^']*)' data-variant='([^']*)' data-status='([^']*)'>", report)
    assert len(table) == len(results)
    for measure, summarizer, perturbation, kind, which, status in table:
        assert verdicts[key(measure, perturbation, summarizer, kind, which)].status == status

    rows = findings(results, store.inputs(run_id), store.summaries(run_id))
    reported = re.findall(r"<tr data-summarizer='([^']*)' data-measure='([^']*)' data-status='([^']*)'><td>([^<]*)",
                          report)
    assert [(r.summarizer, r.measure, r.verdict.status) for r in rows] == [t[:3] for t in reported]
    for row in rows:
        match = [r for r in results if r.measure == row.measure and (r.summarizer or "—") == row.summarizer
                 and (r.perturbation or "—") == row.perturbation and r.ci_kind == row.ci_kind
                 and variant(r) == row.variant]
        assert len(match) == 1
        assert judge(match[0], results) == row.verdict


def test_the_demo_report_leads_with_the_findings_and_weighs_under_one_megabyte(demo):
    store, run_id = demo
    report = html_report(store, run_id)
    assert len(report.encode("utf-8")) < 1_000_000
    order = [report.index(f"id='{section}'") for section in ("overview", "findings", "evidence", "glossary",
                                                             "details", "appendix")]
    assert order == sorted(order)
    assert "<script" not in report
    for summarizer in ("lead-3", "textrank", "smollm2", "sexist", "SFPI model (trained here)"):
        assert f"<li><b>{summarizer}</b>: " in report


def test_each_rows_floor_band_is_its_own_summarizers_and_is_labelled_once(demo):
    store, run_id = demo
    results = store.measures(run_id)
    measure = next(r.measure for r in results if r.perturbation == "identity" and r.value is not None)
    data = chart_data(results, measure)
    figure = measure_figure(results, measure)
    labels = list(dict.fromkeys(figure.data[0].y))
    bands = [shape for shape in figure.layout.shapes if shape.type == "rect"]
    assert len(bands) == sum((row.result.summarizer or "—") in data.floors for row in data.rows) > 0
    for row in data.rows:
        floor = data.floors.get(row.result.summarizer or "—")
        if floor is None:
            continue
        index = next(i for i, label in enumerate(labels) if row.result.summarizer in label
                     and row.result.perturbation in label)
        assert any((band.x0, band.x1) == floor and band.y0 < index < band.y1 for band in bands)
    texts = [a.text for a in figure.layout.annotations]
    assert texts.count("grey band: the summarizer's identity noise floor") == 1


def test_a_measure_with_only_identity_results_charts_them_as_rows(demo):
    store, run_id = demo
    results = [r for r in store.measures(run_id) if r.perturbation == "identity" and r.value is not None]
    measure = results[0].measure
    data = chart_data(results, measure)
    assert data.rows and not data.floors
    assert {row.result.perturbation for row in data.rows} == {"identity"}
    assert measure_figure(results, measure).data


def test_odds_ratios_are_charted_as_ratios_on_a_log_scale_centred_on_one(demo):
    from bias_core.verdicts.semantics import primary_estimate
    from bias_core.verdicts.sentences import odds_ratio as _odds_ratio

    store, run_id = demo
    demo_rows = [r for r in store.measures(run_id) if r.measure == "entity_inclusion" and r.ci_kind == "d"]
    data = chart_data(demo_rows, "entity_inclusion", ci_kind="d")
    assert data.log and data.null == 1.0 and data.rows
    for row in data.rows:
        value, low, high = primary_estimate(row.result)
        assert (row.value, row.low, row.high) == (_odds_ratio(value), _odds_ratio(low), _odds_ratio(high))
        assert row.low <= row.value <= row.high and row.low > 0
    figure = measure_figure(demo_rows, "entity_inclusion", ci_kind="d")
    assert figure.layout.xaxis.type == "log" and "log scale" in figure.layout.xaxis.title.text
