"""Charts of measure results, shared by the app's pages (plotly) and the HTML report (static SVG).

Charts show every result's primary estimate (``semantics.primary_estimate``: the signed one where the score cannot be
negative) with its 95% interval and n. A result is drawn as a red diamond only when ``judge.judge`` calls it a
finding — the same rule as the Overview, the report and the CSV export; every other defined result is a grey circle.
The dotted line is the measure's null (0, or 1 for similarities). Odds ratios (entity inclusion) are drawn as odds
ratios on a log scale centred on 1, so 1.13× and 1/1.13× sit at equal distances from it, as the text states them. Where the identity perturbation has a value for
the same measure and summarizer, it is drawn as a grey band, the noise floor (METHODS §1.7). Undefined values are
listed in the chart's note with their reason, never plotted as 0.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from bias_core.common.records import MeasureResult
from bias_core.verdicts.judge import Verdict, judge
from bias_core.verdicts.semantics import primary_estimate, semantics, variant
from bias_core.verdicts.sentences import odds_ratio  # the signed score → the odds ratio the findings state

FINDING_COLOUR = "#b2182b"
OTHER_COLOUR = "#4d4d4d"


def _label(result: MeasureResult) -> str:
    # Plotly renders a subset of HTML in labels and annotations, so user-controlled names are escaped.
    kind = f" ({result.ci_kind})" if result.ci_kind else ""
    which = f" · {variant(result)}" if variant(result) else ""
    return html.escape(f"{result.summarizer or '—'} · {result.perturbation or '—'}{which}{kind}")


@dataclass(frozen=True)
class ChartRow:
    """One plotted result: its primary estimate, interval and verdict."""

    result: MeasureResult
    value: float
    low: float
    high: float
    verdict: Verdict

    @property
    def marker(self) -> str:
        return "diamond" if self.verdict.significant else "circle"


@dataclass(frozen=True)
class ChartData:
    rows: list[ChartRow]
    undefined: list[MeasureResult]
    floors: dict[str, tuple[float, float]]  # summarizer → identity floor interval
    null: float
    log: bool = False  # odds ratios: values are ratios, drawn on a log scale around 1


def chart_data(results: Sequence[MeasureResult], measure: str, *, ci_kind: str | None = None) -> ChartData:
    """What a chart of ``measure`` draws: defined results with their verdict (``judge`` over all ``results``),
    undefined ones, identity floors and the null line."""
    rows = [r for r in results if r.measure == measure and (ci_kind is None or r.ci_kind in (ci_kind, None))]
    log = semantics(measure).unit == "odds ratio"

    def estimate(r: MeasureResult) -> tuple[float | None, float | None, float | None]:
        value, low, high = primary_estimate(r)
        if not log:
            return value, low, high
        return tuple(None if x is None else odds_ratio(x) for x in (value, low, high))

    floors: dict[str, tuple[float, float]] = {}
    for r in rows:
        if r.perturbation == "identity":
            value, low, high = estimate(r)
            if value is not None and (r.summarizer or "—") not in floors:
                low, high = (value if low is None else low), (value if high is None else high)
                floors[r.summarizer or "—"] = (min(low, value), max(high, value))
    shown = [r for r in rows if r.perturbation != "identity" or not floors]
    if not shown:  # only the unchanged originals were measured: their results are the chart, not a floor behind it
        shown, floors = rows, {}
    plotted, undefined = [], []
    for r in shown:
        value, low, high = estimate(r)
        if value is None:
            undefined.append(r)
            continue
        plotted.append(ChartRow(r, value, value if low is None else low, value if high is None else high,
                                judge(r, results)))
    return ChartData(plotted, undefined, floors, 1.0 if log else semantics(measure).null, log)


def _title(measure: str) -> str:
    sem = semantics(measure)
    return sem.name or measure.replace("_", " ")


def measure_figure(results: Sequence[MeasureResult], measure: str, *, ci_kind: str | None = None,
                   title: bool = True) -> go.Figure:
    """A horizontal dot-and-whisker plotly chart of one measure across summarizers × perturbations (the app).
    ``title=False`` leaves the title to the page (Metrics heads each chart itself); the mode bar stands upright at
    the right edge either way, so it never covers a title."""
    data = chart_data(results, measure, ci_kind=ci_kind)
    figure = go.Figure()
    if data.rows:
        figure.add_trace(go.Scatter(
            x=[row.value for row in data.rows], y=[_label(row.result) for row in data.rows], mode="markers",
            marker={"size": 11, "symbol": [row.marker for row in data.rows],
                    "color": [FINDING_COLOUR if row.verdict.significant else OTHER_COLOUR for row in data.rows]},
            error_x={"type": "data", "symmetric": False, "array": [row.high - row.value for row in data.rows],
                     "arrayminus": [row.value - row.low for row in data.rows], "thickness": 1.5},
            customdata=[[row.result.n, row.low, row.high, row.result.ci_kind or "none", row.verdict.status]
                        for row in data.rows],
            hovertemplate="%{y}<br>estimate %{x:.4f}<br>95% CI [%{customdata[1]:.4f}, %{customdata[2]:.4f}] "
                          "(%{customdata[3]})<br>n = %{customdata[0]}<br>%{customdata[4]}<extra></extra>",
            name=measure, showlegend=False,
        ))
    # Each row's band is its own summarizer's floor, drawn behind that row only: full-height bands with one label per
    # summarizer stacked their labels on top of each other. Categories sit at 0, 1, … in order of first appearance.
    labels = list(dict.fromkeys(_label(row.result) for row in data.rows))
    for row in data.rows:
        floor = data.floors.get(row.result.summarizer or "—")
        if floor is not None:
            index = labels.index(_label(row.result))
            figure.add_shape(type="rect", xref="x", yref="y", x0=floor[0], x1=floor[1], y0=index - 0.4,
                             y1=index + 0.4, fillcolor="#bbbbbb", opacity=0.35, line_width=0, layer="below")
    if data.floors and data.rows:
        figure.add_annotation(text="grey band: the summarizer's identity noise floor", xref="paper", yref="paper",
                              x=1, y=1, xanchor="right", yanchor="bottom", showarrow=False,
                              font={"size": 11, "color": "#666666"})
    figure.add_vline(x=data.null, line_dash="dot", line_color="#888888")
    note = "<br>".join(f"{_label(r)}: cannot be computed — {html.escape(r.reason or '')}" for r in data.undefined)
    figure.update_layout(
        title={"text": html.escape(_title(measure))} if title else None,
        height=max(220, 60 + 42 * len(data.rows)) + 18 * len(data.undefined),
        margin={"l": 10, "r": 40, "t": 50 if title else 30, "b": 50 + 18 * len(data.undefined)},
        modebar={"orientation": "v"},
        xaxis_title=f"{_axis_label(measure)} (95% CI)", template="plotly_white",
    )
    if data.log:
        figure.update_xaxes(type="log")
    if note:
        figure.add_annotation(text=note, xref="paper", yref="paper", x=0, y=0, yshift=-45, yanchor="top",
                              showarrow=False, align="left", font={"size": 11, "color": "#666666"})
    return figure


def _tick_text(value: float) -> str:
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def _axis_label(measure: str) -> str:
    unit = semantics(measure).unit
    if unit == "odds ratio":
        return "odds ratio, first group against second (1 = kept equally often; log scale)"
    if unit == "percentage points" and measure != "uer":  # uer is stored in % already
        return "difference in shares (0.10 = 10 percentage points)"
    return unit


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    step = (high - low) / (count - 1)
    return [low + i * step for i in range(count)]


def measure_svg(results: Sequence[MeasureResult], measure: str, *, ci_kind: str | None = None,
                width: int = 860) -> str:
    """The same dot-and-whisker chart as static SVG, for the HTML report.

    Hand-written because the report must open offline and stay under 1 MB: inlining plotly.js costs ~3.5 MB (plotly's
    smallest official partial bundle, "basic", is still ~1 MB), while these charts are a few kB each and need no
    script at all. Every label is escaped. Each marker carries ``data-status`` (the verdict) for tests.
    """
    e = html.escape
    data = chart_data(results, measure, ci_kind=ci_kind)
    left, right, top, row_height = 260, 30, 34, 28
    height = top + row_height * max(len(data.rows), 1) + 40 + 16 * len(data.undefined)
    xs = [data.null] + [x for row in data.rows for x in (row.low, row.high, row.value)]
    xs += [x for band in data.floors.values() for x in band]
    scale = (lambda v: math.log10(max(v, 1e-9))) if data.log else (lambda v: v)
    xs = [scale(x) for x in xs]
    lo, hi = min(xs), max(xs)
    if hi - lo < 1e-12:
        lo, hi = lo - 1.0, hi + 1.0
    pad = (hi - lo) * 0.05
    lo, hi = lo - pad, hi + pad
    plot_width = width - left - right

    def x_of(value: float) -> float:
        return left + (scale(value) - lo) / (hi - lo) * plot_width

    bottom = top + row_height * max(len(data.rows), 1)
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' role='img' width='{width}' height='{height}' "
             f"viewBox='0 0 {width} {height}' font-family='system-ui,sans-serif' font-size='12'>",
             f"<title>{e(_title(measure))}</title>",
             f"<text x='0' y='16' font-size='14' font-weight='bold'>{e(_title(measure))}</text>"]
    for index, row in enumerate(data.rows):  # each row's band is its own summarizer's floor, as in the app's chart
        summarizer = row.result.summarizer or "—"
        if summarizer in data.floors:
            f_low, f_high = data.floors[summarizer]
            parts.append(f"<rect x='{x_of(f_low):.1f}' y='{top + row_height * index + 3}' "
                         f"width='{max(x_of(f_high) - x_of(f_low), 1):.1f}' height='{row_height - 6}' fill='#bbbbbb' "
                         f"opacity='0.35'><title>identity floor ({e(summarizer)})</title></rect>")
    for tick in (10 ** t for t in _ticks(lo, hi)) if data.log else _ticks(lo, hi):
        parts.append(f"<line x1='{x_of(tick):.1f}' x2='{x_of(tick):.1f}' y1='{top - 6}' y2='{bottom}' "
                     f"stroke='#eeeeee'/><text x='{x_of(tick):.1f}' y='{bottom + 14}' text-anchor='middle' "
                     f"fill='#666'>{_tick_text(tick)}</text>")
    parts.append(f"<line x1='{x_of(data.null):.1f}' x2='{x_of(data.null):.1f}' y1='{top - 6}' y2='{bottom}' "
                 f"stroke='#888' stroke-dasharray='3,3'/>")
    for index, row in enumerate(data.rows):
        y = top + row_height * index + row_height / 2
        colour = FINDING_COLOUR if row.verdict.significant else OTHER_COLOUR
        tip = (f"{row.result.summarizer or '—'} · {row.result.perturbation or '—'}: {row.value:.4f} "
               f"[{row.low:.4f}, {row.high:.4f}], n = {row.result.n}, {row.verdict.status}")
        parts.append(f"<text x='{left - 8}' y='{y + 4:.1f}' text-anchor='end'>{_label(row.result)}</text>"
                     f"<line x1='{x_of(row.low):.1f}' x2='{x_of(row.high):.1f}' y1='{y:.1f}' y2='{y:.1f}' "
                     f"stroke='{colour}' stroke-width='1.5'/>")
        cx, cy = x_of(row.value), y
        if row.verdict.significant:
            shape = (f"<polygon points='{cx:.1f},{cy - 7:.1f} {cx + 7:.1f},{cy:.1f} {cx:.1f},{cy + 7:.1f} "
                     f"{cx - 7:.1f},{cy:.1f}'")
        else:
            shape = f"<circle cx='{cx:.1f}' cy='{cy:.1f}' r='5'"
        parts.append(f"{shape} fill='{colour}' class='marker' data-status='{e(row.verdict.status)}' "
                     f"data-summarizer='{e(str(row.result.summarizer))}' "
                     f"data-perturbation='{e(str(row.result.perturbation))}' "
                     f"data-ci-kind='{e(str(row.result.ci_kind))}' data-variant='{e(variant(row.result))}'><title>{e(tip)}</title>"
                     f"{'</polygon>' if row.verdict.significant else '</circle>'}")
    parts.append(f"<text x='{left}' y='{bottom + 30}' fill='#444'>{e(_axis_label(measure))} (95% interval); "
                 f"dotted line: no bias</text>")
    for index, r in enumerate(data.undefined):
        parts.append(f"<text x='0' y='{bottom + 46 + 16 * index}' fill='#666'>{_label(r)}: cannot be computed — "
                     f"{e(r.reason or '')}</text>")
    parts.append("</svg>")
    return "".join(parts)
