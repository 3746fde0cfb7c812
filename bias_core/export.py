"""Export a stored run: everything as JSON, tables as CSV, and one self-contained HTML report for stakeholders.

The HTML report embeds plotly.js, so it opens offline. Every piece of text that came from a document, a model or
a user (article text, summaries, names, config values) is escaped before it becomes HTML.
"""

from __future__ import annotations

import csv
import datetime
import html
import io
import json
from typing import Any

from bias_core.charts import measure_figure
from bias_core.io import json_safe
from bias_core.records import MeasureResult
from bias_core.store import RunStore


def run_bundle(store: RunStore, run_id: str) -> dict[str, Any]:
    """The whole run as one JSON-ready dict: run info (config, seeds, versions, revisions) and all records."""
    info = store.get_run(run_id)
    return {
        "run": {key: value for key, value in vars(info).items() if key != "worker_pid"},
        "documents": [d.to_dict() for d in store.documents(run_id)],
        "inputs": [i.to_dict() for i in store.inputs(run_id)],
        "summaries": [s.to_dict() for s in store.summaries(run_id)],
        "failures": [{"input_id": i, "summarizer": s, "error": e} for i, s, e in store.failures(run_id)],
        "measures": [m.to_dict() for m in store.measures(run_id)],
    }


def run_json(store: RunStore, run_id: str) -> str:
    return json.dumps(json_safe(run_bundle(store, run_id)), ensure_ascii=False, indent=1, allow_nan=False)


def measures_csv(results: list[MeasureResult]) -> str:
    """One row per result: measure, perturbation, summarizer, value, CI, n, reason (details as JSON)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["measure", "perturbation", "summarizer", "value", "ci_low", "ci_high", "ci_kind", "n", "reason",
                     "details"])
    for r in results:
        row = r.to_dict()
        writer.writerow([row["measure"], row["perturbation"], row["summarizer"], row["value"], row["ci_low"],
                         row["ci_high"], row["ci_kind"], row["n"], row["reason"],
                         json.dumps(row["details"], ensure_ascii=False, default=str)])
    return buffer.getvalue()


def summaries_csv(store: RunStore, run_id: str) -> str:
    """One row per summary with its input's original id and perturbation."""
    inputs = {i.id: i for i in store.inputs(run_id)}
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["input_id", "original_id", "perturbation", "arm", "summarizer", "summary"])
    for s in store.summaries(run_id):
        item = inputs.get(s.input_id)
        writer.writerow([s.input_id, item.original_id if item else "", item.perturbation if item else "",
                         item.arm if item else "", s.summarizer, s.text])
    return buffer.getvalue()


def _fmt(value: float | None) -> str:
    return "—" if value is None or value != value else f"{value:.4f}"


def html_report(store: RunStore, run_id: str, *, max_summaries: int = 200) -> str:
    """A self-contained HTML page: run facts, measure charts with CIs, the results table and sample summaries."""
    info = store.get_run(run_id)
    results = store.measures(run_id)
    e = html.escape
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>summbias report — {e(info.name or info.id)}</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;width:100%;font-size:13px}td,th{border:1px solid #ddd;padding:4px 6px;"
        "vertical-align:top;text-align:left}th{background:#f4f4f4}pre{white-space:pre-wrap}</style></head><body>",
        f"<h1>summbias audit report: {e(info.name or info.id)}</h1>",
        f"<p>Run <code>{e(info.id)}</code>, status <b>{e(info.status)}</b>, created "
        f"{e(datetime.datetime.fromtimestamp(info.created).isoformat(timespec='seconds'))}. "
        f"{e(info.message or '')}</p>",
        "<h2>Configuration, seeds and versions</h2>",
        f"<pre>{e(json.dumps({'config': info.config, 'environment': info.environment, 'model_revisions': info.model_revisions}, indent=1, default=str))}</pre>",
    ]
    measures = list(dict.fromkeys(r.measure for r in results))
    if measures:
        parts.append("<h2>Measures</h2><p>Dots are point estimates with 95% bootstrap intervals; red diamonds mark "
                     "results whose interval (the signed one, where the score itself cannot be negative) excludes "
                     "0; the grey band is the identity noise floor. A value of 0 means no evidence of bias.</p>")
        charted = [m for m in measures if any(r.measure == m and r.is_defined for r in results)]
        for index, measure in enumerate(charted):
            figure = measure_figure(results, measure)
            parts.append(figure.to_html(include_plotlyjs=index == 0, full_html=False,
                                        config={"displaylogo": False}))
        undefined = [m for m in measures if m not in charted]
        if undefined:
            parts.append(f"<p>Undefined for every summarizer (reasons in the table): {e(', '.join(undefined))}.</p>")
        parts.append("<h2>All results</h2><table><tr><th>measure</th><th>perturbation</th><th>summarizer</th>"
                     "<th>value</th><th>95% CI</th><th>CI kind</th><th>n</th><th>note</th></tr>")
        for r in results:
            parts.append(f"<tr><td>{e(r.measure)}</td><td>{e(str(r.perturbation))}</td><td>{e(str(r.summarizer))}</td>"
                         f"<td>{_fmt(r.value)}</td><td>[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]</td>"
                         f"<td>{e(str(r.ci_kind or ''))}</td><td>{r.n}</td><td>{e(r.reason or '')}</td></tr>")
        parts.append("</table>")
    else:
        parts.append("<p>This run has no measure results.</p>")
    summaries = store.summaries(run_id)
    parts.append(f"<h2>Summaries ({len(summaries)}{', first ' + str(max_summaries) if len(summaries) > max_summaries else ''})</h2>"
                 "<table><tr><th>input</th><th>summarizer</th><th>summary</th></tr>")
    for s in summaries[:max_summaries]:
        parts.append(f"<tr><td>{e(s.input_id)}</td><td>{e(s.summarizer)}</td><td>{e(s.text)}</td></tr>")
    parts.append("</table><p><small>Generated by summbias; every number can be recomputed with "
                 "<code>python -m bias_core</code>.</small></p></body></html>")
    return "".join(parts)
