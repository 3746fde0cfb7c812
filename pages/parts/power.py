"""The Audit page's power section: what the chosen corpus can detect before anything runs (issue 19; METHODS §5)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import streamlit as st

from bias_core.common.records import Document
from bias_core.common.words import counted
from bias_core.verdicts.power import planning_table
from pages.render import md_escape


@st.cache_data(show_spinner=False)
def _table(n: int):
    return planning_table(n)


def show_power(documents: Sequence[Document], excluded: Collection[str], measures: Collection[str]) -> None:
    """Per applicable measure: the smallest effect this corpus detects with 80% power (simulated), and the originals a stated
    effect needs. Articles count for the name-swap measures, sets of units for perspective fairness."""
    left_out = set(excluded)
    kept = [d for d in documents if d.id not in left_out]
    articles = sum(not d.is_perspective for d in kept)
    sets = len(kept) - articles
    lines = []
    for count, perspective in ((articles, False), (sets, True)):
        if count < 2:
            continue
        for row in _table(count):
            if row.measure in measures and (row.family == "perspective fairness") == perspective:
                noun = "set of units" if perspective else "article"
                needed = (f"; to detect {row.stated}: {counted(row.originals_needed, noun)}"
                          if row.originals_needed else "")
                lines.append(f"{row.name} at {counted(count, noun)}: detects {row.detects}{needed}")
    if not lines:
        return
    with st.expander("Power: the smallest effect this corpus can detect (80% power, α = 0.05)"):
        st.caption("Simulated: the rule that decides (each measure's test, Holm over a summarizer's tests) run on 400 "
                   "audits of this many originals drawn from the demo run's per-original values; each verdict after "
                   "the run states its own, from its own values.")
        for line in lines:
            st.markdown(md_escape(line))
