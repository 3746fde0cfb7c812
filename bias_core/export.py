"""Export a stored run: everything as JSON, tables as CSV, and one self-contained HTML report for stakeholders.

The HTML report embeds plotly.js, so it opens offline. Every piece of text that came from a document, a model or
a user (article text, summaries, names, config values) is escaped before it becomes HTML, and every CSV cell a
spreadsheet would evaluate as a formula is neutralised (``spreadsheet_safe``). The Runs page and
``python -m bias_core export`` produce the same bytes through ``EXPORT_FORMATS``.
"""

from __future__ import annotations

import csv
import datetime
import html
import io
import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bias_core.charts import measure_figure
from bias_core.errors import InputError
from bias_core.io import json_safe
from bias_core.records import MeasureResult
from bias_core.store import RunStore


# OWASP "CSV injection": a cell starting with one of these is evaluated by Excel, LibreOffice or Google Sheets.
_FORMULA_START = re.compile(r"[=+\-@\t\r]")
# A cell that is just a number (as "-0.5" or "-3e2") is not a formula; "-1+cmd|' /C calc'!A0" is one.
_PLAIN_NUMBER = re.compile(r"-(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_safe(value: Any) -> Any:
    """Return ``value`` with a leading ``'`` if it is a string a spreadsheet would evaluate as a formula.

    OWASP's rule: text starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return is prefixed with a single
    quote, which spreadsheets show as text and do not evaluate. A text that is only a negative number ("-0.5") is
    left as it is; so are numbers and None. Hand-written because no maintained library does this one check.
    """
    if isinstance(value, str) and _FORMULA_START.match(value) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def _csv_text(header: list[str], rows: list[list[Any]]) -> str:
    """CSV text of a header and rows, every cell passed through ``spreadsheet_safe``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows([spreadsheet_safe(cell) for cell in row] for row in rows)
    return buffer.getvalue()


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
    """One row per result: measure, perturbation, summarizer, value, CI, n, reason (details as JSON); formula-like
    cells neutralised."""
    rows = []
    for r in results:
        row = r.to_dict()
        rows.append([row["measure"], row["perturbation"], row["summarizer"], row["value"], row["ci_low"],
                     row["ci_high"], row["ci_kind"], row["n"], row["reason"],
                     json.dumps(row["details"], ensure_ascii=False, default=str)])
    return _csv_text(["measure", "perturbation", "summarizer", "value", "ci_low", "ci_high", "ci_kind", "n", "reason",
                      "details"], rows)


def summaries_csv(store: RunStore, run_id: str) -> str:
    """One row per summary with its input's original id and perturbation; formula-like cells neutralised."""
    inputs = {i.id: i for i in store.inputs(run_id)}
    rows = []
    for s in store.summaries(run_id):
        item = inputs.get(s.input_id)
        rows.append([s.input_id, item.original_id if item else "", item.perturbation if item else "",
                     item.arm if item else "", s.summarizer, s.text])
    return _csv_text(["input_id", "original_id", "perturbation", "arm", "summarizer", "summary"], rows)


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


@dataclass(frozen=True)
class ExportFormat:
    """One way to export a run: what makes its text, its file name and its MIME type (for downloads)."""

    label: str
    render: Callable[[RunStore, str], str]
    suffix: str
    mime: str

    def file_name(self, run_id: str) -> str:
        return f"summbias-{run_id}{self.suffix}"


EXPORT_FORMATS: dict[str, ExportFormat] = {
    "json": ExportFormat("Everything (JSON)", run_json, ".json", "application/json"),
    "csv": ExportFormat("Measures (CSV)", lambda store, run_id: measures_csv(store.measures(run_id)),
                        "-measures.csv", "text/csv"),
    "summaries-csv": ExportFormat("Summaries (CSV)", summaries_csv, "-summaries.csv", "text/csv"),
    "html": ExportFormat("Report (HTML)", html_report, ".html", "text/html"),
}


def write_export(store: RunStore, run_id: str, export_format: str, out: str | os.PathLike) -> Path:
    """Write one export of a run to ``out`` (UTF-8, the bytes a download from the Runs page has) and return the path.

    The text goes to a temporary file in the same folder, renamed into place, so a failure leaves no half-written
    file. A folder as ``out``, a missing folder or one that cannot be written raises one InputError line.
    """
    out, chosen = Path(out), EXPORT_FORMATS[export_format]
    if out.is_dir():
        raise InputError(str(out), "is a folder", hint=f"give a file name, e.g. {out / chosen.file_name(run_id)}")
    folder = out.parent
    if not folder.is_dir():
        raise InputError(str(out), f"the folder {folder} does not exist",
                         hint="create it first or choose another --out")
    content = chosen.render(store, run_id).encode("utf-8")
    try:
        handle, temp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=folder)
    except OSError as error:
        raise InputError(str(out), f"cannot write into the folder {folder} ({error.strerror})",
                         hint="choose a folder you can write to") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
        os.replace(temp_name, out)
    except OSError as error:
        Path(temp_name).unlink(missing_ok=True)
        raise InputError(str(out), f"cannot be written ({error.strerror or error})",
                         hint="check the free space and permissions, or choose another --out") from None
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return out
