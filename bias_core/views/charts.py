"""Charts of measure results, shared by the app's pages (plotly) and the HTML report (static SVG).

Charts show every result's primary estimate (``semantics.primary_estimate``: the signed one where the score cannot be
negative) with its 95% interval and n. A result is drawn as a red diamond only when ``judge.judge`` calls it a
finding — the same rule as the Overview, the report and the CSV export; every other defined result is a grey circle.
Each result is drawn in the unit and direction its sentence states it (``bias_core.views.scales``, issue 29):
percentage points as percentage points; odds ratios on a log scale centred on 1 with ticks read as the text reads
("1.5×" on either side of 1, the group whose odds are higher named under the axis), so "odds 1.24× for men against
women" is the point at 1.24× on the men's side. The axis title names the groups on either side, and the dotted line
sits where the family intro says no bias sits (``scales.NO_BIAS``). Where the identity perturbation has a value for
the same measure and summarizer, it is drawn as a grey band, the noise floor (METHODS §1.7). Results that cannot be
computed, or have too little data to state a value (the text states none), are listed in the chart's note with
their reason, never plotted.
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
from bias_core.verdicts.sentences import (  # the signed score → the odds ratio the findings state, and the effect
    effect_text,
    hallucination_counts,
    odds_ratio,
    verdict_words,
)
from bias_core.views.scales import axis_title, chart_scale, no_bias, side_words

FINDING_COLOUR = "#b2182b"
OTHER_COLOUR = "#4d4d4d"


def _label(result: MeasureResult) -> str:
    # Plotly renders a subset of HTML in labels and annotations, so user-controlled names are escaped.
    kind = f" ({result.ci_kind})" if result.ci_kind else ""
    which = f" · {variant(result)}" if variant(result) else ""
    return html.escape(f"{result.summarizer or '—'} · {result.perturbation or '—'}{which}{kind}")


def _text(text: str) -> str:
    """Text for plotly's HTML subset: the characters that could start a tag or an entity escaped, an apostrophe kept
    as it is (plotly shows "&#x27;" literally in some places)."""
    return html.escape(text, quote=False)


@dataclass(frozen=True)
class ChartRow:
    """One plotted result: its primary estimate and interval in the unit its sentence states (``chart_scale``; odds
    ratios as ratios), its verdict, whom the value favours (the side of the dotted line, in the sentences' words:
    "men"; None at no bias or for a measure without a group direction) and the effect as the text states it."""

    result: MeasureResult
    value: float
    low: float
    high: float
    verdict: Verdict
    favours: str | None = None
    effect: str = ""

    @property
    def marker(self) -> str:
        return "diamond" if self.verdict.significant else "circle"


@dataclass(frozen=True)
class ChartData:
    rows: list[ChartRow]
    undefined: list[MeasureResult]  # not plotted: cannot be computed, or too little data to state a value
    floors: dict[str, tuple[float, float]]  # summarizer → identity floor interval
    null: float  # where no bias sits, in the plotted unit (``scales.no_bias``)
    log: bool = False  # odds ratios: values are ratios, drawn on a log scale around 1
    axis: str = ""  # the x-axis title: what is plotted, the groups on either side, where no bias sits


def _estimate(r: MeasureResult, log: bool) -> tuple[float | None, float | None, float | None]:
    """``r``'s primary estimate and interval in the unit its sentence states it in."""
    value, low, high = primary_estimate(r)
    if log:
        return tuple(None if x is None else odds_ratio(x) for x in (value, low, high))  # type: ignore[return-value]
    scale = chart_scale(r)
    return tuple(None if x is None else x * scale for x in (value, low, high))  # type: ignore[return-value]


def _favours(r: MeasureResult, value: float, null: float) -> str | None:
    words = side_words(r)
    if words is None or value == null:
        return None
    return words[0] if value < null else words[1]


def chart_data(results: Sequence[MeasureResult], measure: str, *, ci_kind: str | None = None) -> ChartData:
    """What a chart of ``measure`` draws: defined results with their verdict (``judge`` over all ``results``), in
    the unit and direction their sentences state; the results it leaves out (cannot be computed, or too little data
    to state a value: the text states none either); identity floors; the no-bias line (``scales.no_bias``) and the
    axis title naming the groups."""
    rows = [r for r in results if r.measure == measure and (ci_kind is None or r.ci_kind in (ci_kind, None))]
    log = semantics(measure).unit == "odds ratio"
    null = no_bias(measure).value

    floors: dict[str, tuple[float, float]] = {}
    for r in rows:
        if r.perturbation == "identity":
            value, low, high = _estimate(r, log)
            if value is not None and (r.summarizer or "—") not in floors:
                low, high = (value if low is None else low), (value if high is None else high)
                floors[r.summarizer or "—"] = (min(low, value), max(high, value))
    shown = [r for r in rows if r.perturbation != "identity" or not floors]
    if not shown:  # only the unchanged originals were measured: their results are the chart, not a floor behind it
        shown, floors = rows, {}
    plotted, undefined = [], []
    for r in shown:
        value, low, high = _estimate(r, log)
        verdict = judge(r, results)
        if value is None or verdict.status == "not enough data":
            undefined.append(r)
            continue
        plotted.append(ChartRow(r, value, value if low is None else low, value if high is None else high,
                                verdict, _favours(r, value, null), effect_text(r, verdict)))
    return ChartData(plotted, undefined, floors, null, log, axis_title(measure, shown))


def left_out(result: MeasureResult, results: Sequence[MeasureResult]) -> str:
    """Why a result is not plotted, in words: it cannot be computed, or there is too little data to state a value."""
    verdict = judge(result, results)
    reason = hallucination_counts(result) or (verdict.reasons[0] if verdict.reasons else result.reason or "")
    what = "too little data to judge" if verdict.status == "not enough data" else "cannot be computed"
    return f"{what} — {reason}" if reason else what


def ratio_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    """Ticks of a log-scale odds-ratio axis between ``low`` and ``high``, labelled as the sentences state ratios:
    "1.5×" on both sides of 1 (left of 1 it is the other group's odds that are 1.5 times higher), "1" at 1."""
    steps = [1.1, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0]
    reach = max(high, 1 / low if low > 0 else high, 1.1)
    ratios = [r for r in steps if r <= reach * 1.05] or [1.1]
    while len(ratios) > 4:
        ratios = ratios[1::2] if len(ratios) % 2 == 0 else ratios[::2]
    values = [1 / r for r in reversed(ratios)] + [1.0] + ratios
    return values, [f"{r:g}×" for r in reversed(ratios)] + ["1"] + [f"{r:g}×" for r in ratios]


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
            # the hover states the effect in the words of the findings (``effect_text``), so the point reads as the text
            customdata=[[row.result.n, _text(row.effect), _text(verdict_words(row.verdict.status))]
                        for row in data.rows],
            hovertemplate="%{y}<br>%{customdata[1]}<br>n = %{customdata[0]}<br>%{customdata[2]}<extra></extra>",
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
    note = "<br>".join(f"{_label(r)}: {_text(left_out(r, results))}" for r in data.undefined)
    # what is plotted on the first line; the groups on either side and where no bias sits on the second
    plotted, _, where = data.axis.partition(" · ")
    figure.update_layout(
        title={"text": html.escape(_title(measure))} if title else None,
        height=max(240, 80 + 42 * len(data.rows)) + 18 * len(data.undefined),
        margin={"l": 10, "r": 40, "t": 50 if title else 30, "b": 75 + 18 * len(data.undefined)},
        modebar={"orientation": "v"},
        xaxis_title=f"{_text(plotted)}, with 95% intervals<br>{_text(where)}", template="plotly_white",
    )
    if data.log:
        values = [x for row in data.rows for x in (row.low, row.high)] + [data.null]
        values += [x for band in data.floors.values() for x in band]
        ticks, labels = ratio_ticks(min(values), max(values))
        figure.update_xaxes(type="log", tickvals=ticks, ticktext=labels)
    if note:
        figure.add_annotation(text=note, xref="paper", yref="paper", x=0, y=0, yshift=-70, yanchor="top",
                              showarrow=False, align="left", font={"size": 11, "color": "#666666"})
    return figure


def _tick_text(value: float) -> str:
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


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
    height = top + row_height * max(len(data.rows), 1) + 56 + 16 * len(data.undefined)
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
    parts = [(f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' role='img' width='{width}' height='{height}' "
              f"viewBox='0 0 {width} {height}' font-family='system-ui,sans-serif' font-size='12'>"),
             f"<title>{e(_title(measure))}</title>",
             f"<text x='0' y='16' font-size='14' font-weight='bold'>{e(_title(measure))}</text>"]
    for index, row in enumerate(data.rows):  # each row's band is its own summarizer's floor, as in the app's chart
        summarizer = row.result.summarizer or "—"
        if summarizer in data.floors:
            f_low, f_high = data.floors[summarizer]
            parts.append(f"<rect x='{x_of(f_low):.1f}' y='{top + row_height * index + 3}' "
                         f"width='{max(x_of(f_high) - x_of(f_low), 1):.1f}' height='{row_height - 6}' fill='#bbbbbb' "
                         f"opacity='0.35'><title>identity floor ({e(summarizer)})</title></rect>")
    if data.log:
        ticks = [(t, label) for t, label in zip(*ratio_ticks(10 ** lo, 10 ** hi)) if lo <= scale(t) <= hi]
    else:
        ticks = [(t, _tick_text(t)) for t in _ticks(lo, hi)]
    for tick, label in ticks:
        parts.append(f"<line x1='{x_of(tick):.1f}' x2='{x_of(tick):.1f}' y1='{top - 6}' y2='{bottom}' "
                     f"stroke='#eeeeee'/><text x='{x_of(tick):.1f}' y='{bottom + 14}' text-anchor='middle' "
                     f"fill='#666'>{e(label)}</text>")
    parts.append(f"<line x1='{x_of(data.null):.1f}' x2='{x_of(data.null):.1f}' y1='{top - 6}' y2='{bottom}' "
                 f"stroke='#888' stroke-dasharray='3,3'/>")
    for index, row in enumerate(data.rows):
        y = top + row_height * index + row_height / 2
        colour = FINDING_COLOUR if row.verdict.significant else OTHER_COLOUR
        tip = (f"{row.result.summarizer or '—'} · {row.result.perturbation or '—'}: {row.effect}, "
               f"n = {row.result.n}, {verdict_words(row.verdict.status)}")
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
    plotted, _, where = data.axis.partition(" · ")
    parts.append(f"<text x='{left}' y='{bottom + 30}' fill='#444'>{e(plotted)}, with 95% intervals</text>"
                 f"<text x='{left}' y='{bottom + 46}' fill='#444'>{e(where)}</text>")
    for index, r in enumerate(data.undefined):
        parts.append(f"<text x='0' y='{bottom + 62 + 16 * index}' fill='#666'>{_label(r)}: "
                     f"{e(left_out(r, results))}</text>")
    parts.append("</svg>")
    return "".join(parts)
