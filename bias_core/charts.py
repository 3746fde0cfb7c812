"""Plotly figures of measure results, shared by the app's pages and the HTML report.

Charts show every value with its confidence interval and n in the hover. Where the identity perturbation has a value
for the same measure and summarizer, it is drawn as a grey reference band, the noise floor (METHODS §1.7). Undefined
values are listed in the chart's note with their reason, never plotted as 0.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import plotly.graph_objects as go

from bias_core.records import MeasureResult


def _label(result: MeasureResult) -> str:
    # Plotly renders a subset of HTML in labels and annotations, so user-controlled names are escaped.
    return html.escape(f"{result.summarizer or '—'} · {result.perturbation or '—'}")


def excludes_zero(result: MeasureResult) -> bool:
    """Whether the result's 95% CI excludes 0: the signed interval when the measure has one (scores such as TVD or
    the odds-ratio score are never negative, so their own interval cannot contain 0), else the main interval.
    Never with fewer than two units of analysis."""
    if result.n < 2:  # one original: every resample is the same, so the interval says nothing
        return False
    signed = result.details.get("signed") if isinstance(result.details, dict) else None
    low, high = (signed.get("ci_low"), signed.get("ci_high")) if isinstance(signed, dict) else (result.ci_low,
                                                                                                  result.ci_high)
    return low is not None and high is not None and (low > 0 or high < 0)


def measure_figure(results: Sequence[MeasureResult], measure: str, *, ci_kind: str | None = None) -> go.Figure:
    """A horizontal dot-and-whisker chart of one measure across summarizers × perturbations."""
    rows = [r for r in results if r.measure == measure and (ci_kind is None or r.ci_kind in (ci_kind, None))]
    floor = {r.summarizer: r for r in rows if r.perturbation == "identity" and r.is_defined}
    shown = [r for r in rows if r.perturbation != "identity" or not floor]
    defined = [r for r in shown if r.is_defined]
    undefined = [r for r in shown if not r.is_defined]
    figure = go.Figure()
    if defined:
        lows = [r.value - r.ci_low if r.ci_low is not None else 0 for r in defined]
        highs = [r.ci_high - r.value if r.ci_high is not None else 0 for r in defined]
        significant = [excludes_zero(r) for r in defined]
        figure.add_trace(go.Scatter(
            x=[r.value for r in defined], y=[_label(r) for r in defined], mode="markers",
            marker={"size": 11, "symbol": ["diamond" if s else "circle" for s in significant],
                    "color": ["#b2182b" if s else "#4d4d4d" for s in significant]},
            error_x={"type": "data", "symmetric": False, "array": highs, "arrayminus": lows, "thickness": 1.5},
            customdata=[[r.n, r.ci_low, r.ci_high, r.ci_kind or "none"] for r in defined],
            hovertemplate="%{y}<br>value %{x:.4f}<br>95% CI [%{customdata[1]:.4f}, %{customdata[2]:.4f}] "
                          "(%{customdata[3]})<br>n = %{customdata[0]}<extra></extra>",
            name=measure, showlegend=False,
        ))
    for summarizer, result in floor.items():
        low = result.ci_low if result.ci_low is not None else result.value
        high = result.ci_high if result.ci_high is not None else result.value
        figure.add_vrect(x0=min(low, result.value), x1=max(high, result.value), fillcolor="#bbbbbb", opacity=0.35,
                         line_width=0, annotation_text=html.escape(f"identity floor ({summarizer})"),
                         annotation_position="top left")
    figure.add_vline(x=0, line_dash="dot", line_color="#888888")
    note = "<br>".join(f"{_label(r)}: undefined — {html.escape(r.reason or '')}" for r in undefined)
    figure.update_layout(
        title={"text": measure.replace("_", " ")}, height=max(220, 60 + 42 * len(defined)) + 18 * len(undefined),
        margin={"l": 10, "r": 10, "t": 50, "b": 50 + 18 * len(undefined)}, xaxis_title="value (95% CI)",
        template="plotly_white",
    )
    if note:
        figure.add_annotation(text=note, xref="paper", yref="paper", x=0, y=0, yshift=-45, yanchor="top",
                              showarrow=False, align="left", font={"size": 11, "color": "#666666"})
    return figure
