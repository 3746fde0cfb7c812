"""Metrics on the demo run reads as the Overview does (issue 29, Why 5): it opens on the family of the Overview's
most significant finding, and no text it shows — captions, intros, chart axes, notes and hovers, table cells — has
a "None", "nan", "undefined", nested parentheses or a phrase said twice in one line."""

from __future__ import annotations

import html
import json

from bias_core.reference.demo import ensure_demo_run
from bias_core.runs.store import RunStore
from bias_core.verdicts.findings import run_findings
from bias_core.views.families import opening_family
from bias_core.views.text_checks import reading_defects
from tests.conftest import open_app

# The docs shown in expanders (the formulas of docs/measures.md, docs/fidelity.md) are the project's own reference
# text, not the page's findings; the answers are the Overview's own lines (bias_core.verdicts.findings).
DOCS = ("**Formula", "# Fidelity", "**Inputs.**")


def shown_texts(at) -> list[str]:
    texts = [element.value for kind in ("markdown", "caption", "info", "warning", "error", "subheader")
             for element in getattr(at, kind) if not any(mark in element.value for mark in DOCS)]
    texts += [expander.label for expander in at.expander]
    for frame in (table.value for table in at.dataframe):
        texts += [str(column) for column in frame.columns]
        texts += [str(cell) for column in frame.columns for cell in frame[column]]
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        texts.append(str(((spec["layout"].get("xaxis") or {}).get("title") or {}).get("text") or ""))
        texts += [annotation.get("text", "") for annotation in spec["layout"].get("annotations", [])]
        texts += [str(cell) for trace in spec["data"] for point in trace.get("customdata") or [] for cell in point]
    return [html.unescape(text) for text in texts]


def test_metrics_opens_on_the_finding_and_every_family_reads_without_defects(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    run_id = ensure_demo_run(store)
    found = run_findings(store, run_id)
    store.close()
    monkeypatch.setenv("SUMMBIAS_STORE", str(path))
    at = open_app("pages/metrics.py")
    families = list(at.radio(key="metrics_family").options)
    assert at.radio(key="metrics_family").value == opening_family(found, [f.lower() for f in families])
    defects = {}
    for family in families:
        at.radio(key="metrics_family").set_value(family.lower()).run()
        assert not at.exception
        assert any("Where no bias sits" in block.value for block in at.markdown), family
        for text in shown_texts(at):
            found = reading_defects(text)
            if found:
                defects[text[:200]] = found
    assert defects == {}
