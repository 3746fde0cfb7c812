"""How each summarizer's outputs came out (cut at the token limit, degenerate), one line per summarizer, from
``bias_core.measures.quality.output_quality``; shown on the Overview and Metrics beside the results."""

from __future__ import annotations

import streamlit as st

from bias_core.measures.quality import output_quality, summary_flags
from pages.common import run_records
from pages.render import md_escape


@st.cache_data(show_spinner=False, max_entries=8)
def output_quality_lines(run_id: str, updated: float) -> list[str]:
    """One plain sentence per summarizer whose outputs were cut or degenerate, in summarizer order."""
    _, summaries = run_records(run_id, updated)
    return [line for _, quality in sorted(output_quality(summaries).items()) if (line := quality.line())]


def show_output_quality(run_id: str, updated: float) -> None:
    """The lines as a caption block (model names are untrusted text: escaped), or nothing when every output ended on
    its own."""
    lines = output_quality_lines(run_id, updated)
    if lines:
        with st.container(key="output_quality"):
            st.caption("How the outputs came out: " + " ".join(md_escape(line) for line in lines)
                       + " Compare shows each summary with its flags.")


@st.cache_data(show_spinner=False, max_entries=8)
def flagged_summaries(run_id: str, updated: float) -> frozenset[tuple[str, str]]:
    """(input id, summarizer) of every summary cut at the token limit, degenerate or with a glitch (``summary_flags``
    against its input), once per run version: checking every summary takes about a second on the demo run."""
    inputs, summaries = run_records(run_id, updated)
    source = {item.id: item.text for item in inputs}
    return frozenset((s.input_id, s.summarizer) for s in summaries if summary_flags(s, source.get(s.input_id)))
