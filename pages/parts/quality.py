"""How each summarizer's outputs came out (cut at the token limit, degenerate), one line per summarizer, from
``bias_core.measures.quality.output_quality``; shown on the Overview and Metrics beside the results."""

from __future__ import annotations

import streamlit as st

from bias_core.measures.quality import output_quality_caveat
from bias_core.runs.usage import usage_line
from bias_core.views.precomputed import degenerate_pairs, flagged_pairs
from pages.common import kept_or_computed, run_records, run_store
from pages.render import md_escape


@st.cache_data(show_spinner=False, max_entries=8)
def output_quality_caveat_of(run_id: str, updated: float) -> str | None:
    """``output_quality_caveat`` of the run's summaries (the sentence the HTML report shows too), as kept when the
    run ended, else computed and kept."""
    return kept_or_computed(run_id, "quality_caveat", lambda: output_quality_caveat(run_records(run_id, updated)[1]),
                            encode=lambda caveat: caveat or "", decode=lambda kept: kept or None)


@st.cache_data(show_spinner=False, max_entries=8)
def usage_line_of(run_id: str, updated: float) -> str | None:
    """``usage.usage_line`` of the run's summaries (the sentence the HTML report shows too), summed in SQLite."""
    return usage_line(run_store().token_usage(run_id))


def show_output_quality(run_id: str, updated: float) -> None:
    """The caveat as a caption (model names are untrusted text: escaped), or nothing when every output ended on its
    own; then the tokens the endpoints reported, where any did."""
    caveat = output_quality_caveat_of(run_id, updated)
    if caveat:
        with st.container(key="output_quality"):
            st.caption(md_escape(caveat) + " Compare shows each summary with its flags.")
    tokens = usage_line_of(run_id, updated)
    if tokens:
        with st.container(key="token_usage"):
            st.caption(md_escape(tokens))


def pairs(kept: list) -> frozenset[tuple[str, str]]:
    """Kept (input id, summarizer) pairs (JSON lists) as the set the pages look summaries up in."""
    return frozenset((input_id, summarizer) for input_id, summarizer in kept)


@st.cache_data(show_spinner=False, max_entries=8)
def degenerate_summaries(run_id: str, updated: float) -> frozenset[tuple[str, str]]:
    """(input id, summarizer) of every degenerate summary (``precomputed.degenerate_pairs``), as kept when the run
    ended, else computed and kept."""
    return kept_or_computed(run_id, "degenerate", lambda: degenerate_pairs(run_records(run_id, updated)[1]),
                            encode=sorted, decode=pairs)


@st.cache_data(show_spinner=False, max_entries=8)
def flagged_summaries(run_id: str, updated: float) -> frozenset[tuple[str, str]]:
    """(input id, summarizer) of every summary cut at the token limit, degenerate or with a glitch
    (``precomputed.flagged_pairs``), once per run version: kept with the run when it ended, else computed (about two
    seconds on the demo run) and kept."""
    return kept_or_computed(run_id, "flagged", lambda: flagged_pairs(*run_records(run_id, updated)),
                            encode=sorted, decode=pairs)
