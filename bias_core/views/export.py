"""Export a stored run: everything as JSON, tables as CSV, and one self-contained HTML report for stakeholders.

The HTML report says what the Overview says, from the same functions: the controls line (``verdicts.controls``), one
answer per summarizer (``verdicts.findings.summarizer_answers``), the caveat on how the outputs came out
(``measures.quality.output_quality_caveat``) and the findings table with each row's evidence pair, labelled by its
article's title and its two sides (``views.sides``); then the evidence pairs with their diffs (each summary as written,
punctuation kept), the charts (static SVG, no script) and the results table; configuration and sample summaries are an
appendix. It opens offline and stays small (under 1 MB for the demo run). Every piece of text that came
from a document, a model or a user (article text, summaries, names, config values) is escaped before it becomes HTML,
and every CSV cell a spreadsheet would evaluate as a formula is neutralised (``spreadsheet_safe``). The Runs page and
``python -m bias_core export`` produce the same bytes through ``EXPORT_FORMATS``.
"""

from __future__ import annotations

import csv
import datetime
import html
import io
import json
import math
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bias_core.common.records import MeasureResult
from bias_core.compare.diff import DiffToken, expected_words, side_by_side_diff
from bias_core.compare.units import is_unit_composition
from bias_core.documents.record_files import json_safe
from bias_core.measures.quality import output_quality_caveat
from bias_core.runs.store import RunStore
from bias_core.runs.usage import token_usage, usage_line
from bias_core.safety.errors import InputError
from bias_core.safety.validation import output_file
from bias_core.verdicts.controls import CALIBRATION_DOC, controls
from bias_core.verdicts.findings import Finding, findings, summarizer_answers
from bias_core.verdicts.judge import judge
from bias_core.verdicts.semantics import (
    PERTURBATION_NOTES,
    SUMMARIZER_NOTES,
    UNKNOWN_PERTURBATION_NOTE,
    UNKNOWN_SUMMARIZER_NOTE,
    primary_estimate,
    result_groups,
    semantics,
    variant,
)
from bias_core.verdicts.sentences import how_to_read, verdict_words
from bias_core.views.attribution import attribution_lines
from bias_core.views.charts import measure_svg
from bias_core.views.scales import side_words
from bias_core.views.sides import original_title, pair_label, side_label

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
    """One row per result: the record (measure, perturbation, summarizer, value, CI, n, reason), the primary estimate
    shown everywhere (the signed one where the score cannot be negative) and the verdict of ``judge.judge`` —
    verdict, favoured, survives_correction, Holm p, the correction in words and, on every row that is not a finding,
    the effect it could have detected and how (``judge``: "simulated" or "z-approximation") — then the details as JSON;
    formula-like cells neutralised."""
    rows = []
    for r in results:
        row = r.to_dict()
        verdict = judge(r, results)
        estimate, low, high = primary_estimate(r)
        survives = "" if verdict.p_holm is None else verdict.p_holm < 0.05
        rows.append([row["measure"], row["perturbation"], row["summarizer"], row["value"], row["ci_low"],
                     row["ci_high"], row["ci_kind"], row["n"], row["reason"], estimate, low, high, sign_meaning(r),
                     verdict.status, verdict.favoured or "", survives,
                     "" if verdict.p_value is None else verdict.p_value,
                     "" if verdict.p_holm is None else verdict.p_holm, verdict.correction,
                     "" if verdict.mde is None else verdict.mde, verdict.mde_method if verdict.mde is not None else "",
                     json.dumps(row["details"], ensure_ascii=False, default=str)])
    return _csv_text(["measure", "perturbation", "summarizer", "value", "ci_low", "ci_high", "ci_kind", "n", "reason",
                      "estimate", "estimate_ci_low", "estimate_ci_high", "estimate_sign", "verdict", "favoured",
                      "survives_correction", "p_raw", "p_holm", "correction", "detectable_effect",
                      "detectable_effect_method", "details"], rows)


def sign_meaning(result: MeasureResult) -> str:
    """What a positive estimate means, with the groups named (issue 28: one convention, "positive favours the first
    group named"); empty for a measure without a group direction."""
    if side_words(result) is None or result.measure == "mbic":
        return ""
    first, second = result_groups(result)[:2]
    return f"{first} vs {second}: positive favours {first}"


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
    return "—" if value is None or math.isnan(value) else f"{value:.4f}"


_STYLE = ("<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222;line-height:1.4}"
          "table{border-collapse:collapse;width:100%;font-size:13px}td,th{border:1px solid #ddd;padding:4px 6px;"
          "vertical-align:top;text-align:left}th{background:#f4f4f4}pre{white-space:pre-wrap}"
          ".finding{color:#b2182b;font-weight:600}.diff{display:grid;grid-template-columns:1fr 1fr;gap:1em;"
          "font-size:14px}.diff div{border:1px solid #ddd;padding:.5em}.diff .text{white-space:pre-wrap}"
          "ins{background:#d9f0d3;text-decoration:none}"
          "del{background:#f6d2d2}ins.swap,del.swap{background:#e8e8e8;text-decoration:none}"
          "svg.chart{display:block;margin:1em 0}</style>")


def _finding_class(finding: Finding) -> str:
    return " class='finding'" if finding.verdict.significant else ""


def _tick(flag: bool | None) -> str:
    return "n/a" if flag is None else ("yes" if flag else "no")


def _diff_html(tokens: list[DiffToken]) -> str:
    """One side of ``side_by_side_diff`` as HTML, the summary as written (its punctuation, spacing and line breaks):
    model-made changes highlighted, the perturbation's swaps greyed."""
    e = html.escape
    out = []
    for token in tokens:
        if token.op == "equal":
            out.append(e(token.text))
        else:
            tag = "del" if token.op == "delete" else "ins"
            out.append(f"<{tag}{' class=swap' if token.expected else ''}>{e(token.text)}</{tag}>")
        out.append(e(token.space))
    return f"<span class='text'>{''.join(out)}</span>"


def evidence_label(finding: Finding, inputs: dict, titles: dict[str, str]) -> str:
    """A finding's evidence pair in words: its article's title and its two sides ("Harbor City Comets clinch … —
    gender-glob · all people women, sample 0 against all people men, sample 0"), never the raw input ids; "—" when
    the finding has no pair."""
    pair = finding.evidence
    if pair is None:
        return "—"
    title = titles.get(pair.original_id, pair.original_id)
    items = [inputs.get(pair.input_a), inputs.get(pair.input_b)]
    return f"{title} — {pair_label(*items)}" if all(items) else title


def _units_html(item, summary_text: str) -> str:
    """A unit-composition summary as the Compare page shows it: each summary sentence with the unit (and value) it
    comes from, then the value shares of the input and of the summary. A word diff between summaries of inputs that
    hold different units would mostly show the units' own differences, which is why Compare does not use one."""
    from bias_core.compare.units import unit_coverage

    e = html.escape
    coverage = unit_coverage(item, summary_text)
    lines = [f"<li>{e(match.sentence)} <small>— "
             + (f"unit {match.unit_index + 1}, value {e(str(match.value))}" if match.unit_index is not None
                else "from no single unit") + "</small></li>" for match in coverage.matches]
    shares = ", ".join(f"{e(str(value))}: input {coverage.input_shares.get(value, 0.0):.0%}, summary "
                       f"{coverage.summary_shares.get(value, 0.0):.0%}"
                       for value in sorted(coverage.input_shares.keys() | coverage.summary_shares.keys()))
    return f"<ol>{''.join(lines)}</ol><small>Value shares: {shares}</small>"


def evidence_anchors(rows: list[Finding], limit: int = 12) -> dict[tuple[str, str, str], str]:
    """The evidence pairs the report shows (the significant findings' pairs, else the first four), each with its
    anchor id, keyed by (summarizer, input a, input b): the findings table links each row to its pair."""
    shown = [f for f in rows if f.evidence is not None and f.verdict.significant] or \
        [f for f in rows if f.evidence is not None][:4]
    anchors: dict[tuple[str, str, str], str] = {}
    for finding in shown:
        key = (finding.summarizer, finding.evidence.input_a, finding.evidence.input_b)
        if key not in anchors and len(anchors) < limit:
            anchors[key] = f"evidence-{len(anchors) + 1}"
    return anchors


def _evidence_html(rows: list[Finding], inputs: dict, summaries: dict, anchors: dict,
                   titles: dict[str, str] | None = None) -> list[str]:
    """The inline evidence of the anchored pairs: the finding, the article's title, why this pair, then the two
    summaries side by side, each headed by what its input is (``side_label``)."""
    e = html.escape
    titles = titles or {}
    parts = []
    done = set()
    for finding in rows:
        pair = finding.evidence
        key = None if pair is None else (finding.summarizer, pair.input_a, pair.input_b)
        if key not in anchors or key in done:
            continue
        done.add(key)
        text_a = summaries.get((pair.input_a, finding.summarizer), "")
        text_b = summaries.get((pair.input_b, finding.summarizer), "")
        items = [inputs[i] for i in (pair.input_a, pair.input_b) if i in inputs]
        if len(items) != 2:
            continue
        label_a, label_b = (e(side_label(item)) for item in items)
        title = titles.get(pair.original_id, pair.original_id)
        head = f"<h3 id='{anchors[key]}'>{e(finding.sentence)}</h3><p>{e(title)}: {e(pair.why)}."
        if all(is_unit_composition(item) for item in items):
            parts.append(f"{head} The two inputs hold different units, so each summary is shown with the unit "
                         f"every sentence comes from, as on Compare.</p><div class='diff'><div><b>{label_a}"
                         f"</b><br>{_units_html(items[0], text_a)}</div><div><b>{label_b}</b><br>"
                         f"{_units_html(items[1], text_b)}</div></div>")
            continue
        side_a, side_b = side_by_side_diff(text_a, text_b, expected_words(*items))
        parts.append(f"{head} Highlighted words are changes the model made; grey ones are the perturbation's own "
                     f"swaps.</p><div class='diff'><div><b>{label_a}</b><br>{_diff_html(side_a)}</div>"
                     f"<div><b>{label_b}</b><br>{_diff_html(side_b)}</div></div>")
    return parts


def html_report(store: RunStore, run_id: str, *, max_summaries: int = 40) -> str:
    """A self-contained HTML page that leads with the findings.

    Order: run facts; the Overview (``how_to_read`` and the same ``findings`` lines and table as the app);
    the evidence pairs with their word diffs; what every summarizer, perturbation and measure named means; the
    charts (static SVG) and the table of every result with its verdict; an appendix with the configuration and the
    first ``max_summaries`` summaries (all of them are in the JSON export). Every text from a document, a model or a
    user is escaped.
    """
    info = store.get_run(run_id)
    results = store.measures(run_id)
    inputs = store.inputs(run_id)
    summaries = store.summaries(run_id)
    rows = findings(results, inputs, summaries)
    e = html.escape
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>summbias report — {e(info.name or info.id)}</title>", _STYLE, "</head><body>",
        f"<h1>summbias audit report: {e(info.name or info.id)}</h1>",
        (f"<p>Run <code>{e(info.id)}</code>, status <b>{e(info.status)}</b>, created "
         f"{e(datetime.datetime.fromtimestamp(info.created).isoformat(timespec='seconds'))}. "
         f"{e(info.message or '')}</p>"),
        *(f"<p class='attribution'>Articles: {e(line)}.</p>" for line in attribution_lines(store.documents(run_id))),
        "<h2 id='overview'>Findings</h2>",
    ]
    checked = controls(rows) if rows else None
    if checked is not None:
        parts.append(f"<p id='controls' class='controls'><b>{e(checked.line)}</b></p>")
        if checked.warning:
            parts.append(f"<p class='warning'>{e(checked.warning)}</p>")
    parts.append(f"<p>{e(how_to_read())} How often this rule calls a neutral summarizer biased, and how often it "
                 f"catches a planted bias at each corpus size: {e(CALIBRATION_DOC)} in the summbias repository.</p>")
    tokens = usage_line(token_usage(summaries))
    if tokens:
        parts.append(f"<p id='token-usage'>{e(tokens)}</p>")
    if rows:
        if not any(f.verdict.significant for f in rows):
            parts.append("<p>No result passes every check: no evidence of bias in this run.</p>")
        answers = summarizer_answers(rows)
        parts.append("<h3 id='answers'>In short: one answer per summarizer</h3><ul>"
                     + "".join(f"<li{_finding_class(a.finding)}>{e(a.text)}</li>" for a in answers if not a.unchanged)
                     + "</ul>")
        unchanged = [a for a in answers if a.unchanged]
        if unchanged:
            parts.append("<p>Measured on the unchanged articles, not a perturbation test:</p><ul>"
                         + "".join(f"<li{_finding_class(a.finding)}>{e(a.text)}</li>" for a in unchanged) + "</ul>")
        caveat = output_quality_caveat(summaries)
        if caveat:
            parts.append(f"<p id='output-quality'>{e(caveat)} The summaries are in the JSON export.</p>")
        parts.append("<table id='findings'><tr><th>finding</th><th>effect (95% interval)</th><th>measure</th>"
                     "<th>perturbation</th><th>n</th><th>survives correction</th>"
                     "<th>verdict</th><th>evidence</th></tr>")
        anchors = evidence_anchors(rows)
        by_id = {item.id: item for item in inputs}
        documents = store.documents(run_id)
        titles = {original: original_title(original, documents, inputs)
                  for original in {f.evidence.original_id for f in rows if f.evidence is not None}}
        for f in rows:
            key = None if f.evidence is None else (f.summarizer, f.evidence.input_a, f.evidence.input_b)
            evidence = e(evidence_label(f, by_id, titles))
            if key in anchors:
                evidence = f"<a href='#{anchors[key]}'>{evidence}</a>"
            parts.append(f"<tr data-summarizer='{e(f.summarizer)}' data-measure='{e(f.measure)}' "
                         f"data-status='{e(f.verdict.status)}'><td>{e(f.sentence)}"
                         + (f"<br><small>Context, not a test:<br>{'<br>'.join(e(line) for line in f.context)}</small>"
                            if f.context else "")
                         + f"</td><td>{e(f.effect)}</td>"
                         f"<td>{e(f.measure_name)}</td><td>{e(f.perturbation)}</td><td>{f.n}</td>"
                         f"<td>{_tick(f.survives_correction)} "
                         f"<small>({e(f.correction)})</small></td><td>{e(verdict_words(f.verdict.status))}</td>"
                         f"<td>{evidence}</td></tr>")
        parts.append("</table>")
        texts = {(s.input_id, s.summarizer): s.text for s in summaries}
        evidence_parts = _evidence_html(rows, by_id, texts, anchors, titles)
        if evidence_parts:
            parts.append("<h2 id='evidence'>Evidence: where the summaries differ most</h2>")
            parts += evidence_parts
    else:
        parts.append("<p>This run has no measure results.</p>")
    summarizers = sorted({str(r.summarizer) for r in results if r.summarizer} | {s.summarizer for s in summaries})
    perturbations = sorted({str(r.perturbation) for r in results if r.perturbation})
    measures = list(dict.fromkeys(r.measure for r in results))
    if summarizers or measures:
        parts.append("<h2 id='glossary'>What the names mean</h2><ul>")
        for name in summarizers:
            parts.append(f"<li><b>{e(name)}</b>: {e(SUMMARIZER_NOTES.get(name, UNKNOWN_SUMMARIZER_NOTE))}</li>")
        for name in perturbations:
            parts.append(f"<li><b>{e(name)}</b>: {e(PERTURBATION_NOTES.get(name, UNKNOWN_PERTURBATION_NOTE))}</li>")
        for name in measures:
            sem = semantics(name)
            parts.append(f"<li><b>{e(sem.name)}</b>: {e(sem.describe)}</li>")
        parts.append("</ul>")
    if measures:
        parts.append("<h2 id='details'>Details by measure</h2><p>Dots are the estimates with 95% intervals (the signed "
                     "estimate where the score itself cannot be negative); red diamonds are findings by the rule "
                     "above; the dotted line is the value meaning no bias; the grey band is the identity noise "
                     "floor.</p>")
        charted = [m for m in measures if any(r.measure == m and primary_estimate(r)[0] is not None for r in results)]
        for measure in charted:
            parts.append(measure_svg(results, measure))
        undefined = [m for m in measures if m not in charted]
        if undefined:
            parts.append("<p>Cannot be computed for any summarizer, reasons in the table: "
                         f"{e(', '.join(semantics(m).name for m in undefined))}.</p>")
        parts.append("<h3>All results</h3><table id='results'><tr><th>measure</th><th>perturbation</th>"
                     "<th>summarizer</th><th>estimate</th><th>95% CI</th><th>CI kind</th><th>n</th><th>verdict</th>"
                     "<th>favoured</th><th>Holm p</th><th>note</th></tr>")
        for r in results:
            verdict = judge(r, results)
            value, low, high = primary_estimate(r)
            holm = _fmt(verdict.p_holm) if verdict.p_holm is not None else e(verdict.correction)
            parts.append(f"<tr data-measure='{e(r.measure)}' data-summarizer='{e(str(r.summarizer))}' "
                         f"data-perturbation='{e(str(r.perturbation))}' data-ci-kind='{e(str(r.ci_kind))}' "
                         f"data-variant='{e(variant(r))}' data-status='{e(verdict.status)}'><td>{e(semantics(r.measure).name)}</td>"
                         f"<td>{e(r.perturbation or 'none')}{' · ' + e(variant(r)) if variant(r) else ''}</td>"
                         f"<td>{e(r.summarizer or '—')}</td><td>{_fmt(value)}</td><td>[{_fmt(low)}, {_fmt(high)}]</td>"
                         f"<td>{e(str(r.ci_kind or ''))}</td><td>{r.n}</td><td>{e(verdict_words(verdict.status))}</td>"
                         f"<td>{e(verdict.favoured or '')}</td><td>{holm}</td><td>{e(r.reason or '')}</td></tr>")
        parts.append("</table>")
    parts.append("<h2 id='appendix'>Appendix</h2><details><summary>Configuration, seeds and versions</summary>"
                 f"<pre>{e(json.dumps({'config': info.config, 'environment': info.environment, 'model_revisions': info.model_revisions}, indent=1, default=str))}</pre></details>")
    parts.append(f"<h3>Summaries ({len(summaries)}"
                 f"{', first ' + str(max_summaries) if len(summaries) > max_summaries else ''}; all are in the JSON "
                 "export)</h3><table><tr><th>input</th><th>summarizer</th><th>summary</th></tr>")
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
    given, chosen = Path(out), EXPORT_FORMATS[export_format]
    out = output_file(given)  # through a symbolic link: the link stays, its target is replaced
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
    return given
