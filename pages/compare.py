"""Compare: pick an original, see its input variants with their swaps, and the summaries side by side with a
word-level diff that tells the perturbation's swaps apart from what the model changed."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd
import streamlit as st

from bias_core.common.words import counted
from bias_core.compare.diff import (
    OriginalDifference,
    change_counts,
    expected_words,
    model_difference,
    rank_originals,
    word_diff,
)
from bias_core.compare.units import MIN_OVERLAP, composition_difference, focus_value, is_unit_composition, unit_coverage
from bias_core.measures.alignment import align_summaries
from bias_core.measures.quality import summary_flags
from bias_core.runs.run_info import StoreError
from bias_core.views.precomputed import stored_piece, text_key
from bias_core.views.sides import side_labels
from pages.common import (
    INTERSECTIONAL_GENDER_NOTE,
    RACE_GENDER_NOTE,
    current_run,
    kept_or_computed,
    note_unknown_link_values,
    run_records,
    run_store,
)
from pages.parts.access import through_app
from pages.parts.progress import in_progress_notice
from pages.parts.quality import flagged_summaries
from pages.render import (
    LEGEND,
    SUBSTITUTION_COLUMNS,
    diff_html,
    for_display,
    highlighted_input,
    marked_names,
    md_escape,
    substitution_rows,
)

through_app()  # a deep link served before app.py ever ran goes through it (sign-in, sidebar, cookie)

st.title("Compare summaries")
st.caption("Originals are ranked by how much their summaries change under the perturbation, ignoring the swapped "
           "words themselves (1 − difflib ratio over words). Pick one to read its variants and summaries.")


def follow_evidence_link(index: dict[str, tuple[str, str]], summarizer_names: list[str]) -> None:
    """The Overview's "see the evidence" links name their pair by input id (``evidence_a``/``evidence_b``): choose
    them once and drop the ids from the URL, where the bound selectboxes then keep the pair by its labels. The link's
    original, perturbation and summarizer replace what this session chose on an earlier visit (a bound widget's
    remembered value would otherwise win over the link, and a second link opened the first link's original)."""
    if "evidence_a" in st.query_params or "evidence_b" in st.query_params:
        # Only values this run has: an unknown one is left to the page's own note on the link.
        known = {"compare_original": {original for original, _ in index.values()},
                 "compare_perturbation": {perturbation for _, perturbation in index.values()} | {"all"}}
        for key, values in known.items():
            if st.query_params.get(key) in values:
                st.session_state[key] = st.query_params[key]
        linked = st.query_params.get_all("compare_summarizers")
        if linked and all(name in summarizer_names for name in linked):
            st.session_state["compare_summarizers"] = linked
    for param, key in (("evidence_a", "compare_a"), ("evidence_b", "compare_b")):
        input_id = st.query_params.get(param)
        if input_id is None:
            continue
        del st.query_params[param]
        if input_id in index:
            st.session_state[key] = input_id
        else:
            st.caption(md_escape(f"The link's input {input_id} is not in this run."))


run = current_run()
if run is None:
    st.stop()
in_progress_notice(run)
store = run_store()
# The page lists the run's inputs and summarizers without reading their records; it reads the records of the chosen
# original only (a 200-article run holds thousands).
try:
    index = {input_id: (original, perturbation) for input_id, original, perturbation in store.input_index(run.id)}
    summarizer_names = store.summarizer_names(run.id)
except StoreError as error:  # a store that cannot be read: one line; the other runs still open
    st.error(md_escape(error))
    st.stop()
if not summarizer_names:
    st.info("This run has no summaries yet. Wait for it to finish on the Runs page, or start one on the Audit page.")
    st.stop()

follow_evidence_link(index, summarizer_names)
perturbations = sorted({perturbation for _, perturbation in index.values() if perturbation != "identity"})
left, right = st.columns(2)
# Every choice on this page is bound to the URL (its key is the parameter), so a refresh or a shared link reopens
# the same view; the Overview's "see the evidence" links set them.
with left:
    note_unknown_link_values("compare_summarizers", summarizer_names, "summarizer")
    # A widget's first value comes from the session state or from its default, never both (Streamlit logs a warning
    # for a widget given a default whose state was also set, as coming back to this page does).
    if "compare_summarizers" not in st.session_state and "compare_summarizers" not in st.query_params:
        st.session_state["compare_summarizers"] = summarizer_names
    chosen_summarizers = st.multiselect("Summarizers", summarizer_names, key="compare_summarizers",
                                        bind="query-params")
with right:
    note_unknown_link_values("compare_perturbation", ["all", *perturbations], "perturbation")
    chosen_perturbation = st.selectbox("Perturbation", ["all", *perturbations], key="compare_perturbation",
                                       bind="query-params")

flagged = flagged_summaries(run.id, run.updated)
clean_only = False
if flagged:
    clean_only = st.toggle(f"Leave out the {counted(len(flagged), 'summary')} cut at the token limit, degenerate "
                           "or with a glitch", key="compare_clean", bind="query-params",
                           help="A summary cut at the token limit ends where the model was stopped; a degenerate "
                                "one (empty, looping, echoing its prompt) is left out of every measure; a glitch (a "
                                "doubled word or a phrase said twice that its input does not hold) is only shown.")


@st.cache_data(show_spinner="Ranking originals…", max_entries=32)
def ranking_for(run_id: str, updated: float, summarizers: tuple[str, ...], perturbation: str, clean: bool = False):
    if sorted(summarizers) == run_store().summarizer_names(run_id) and perturbation == "all" and not clean:
        # The ranking the page opens on: kept with the run when it ended.
        return kept_or_computed(run_id, "ranking", lambda: rank_originals(*run_records(run_id, updated)),
                                encode=lambda ranking: [asdict(row) for row in ranking],
                                decode=lambda kept: [OriginalDifference(**row) for row in kept])
    inputs, summaries = run_records(run_id, updated)
    if clean:
        left_out = flagged_summaries(run_id, updated)
        summaries = [s for s in summaries if (s.input_id, s.summarizer) not in left_out]
    return rank_originals(inputs, summaries, summarizers=summarizers,
                          perturbation=None if perturbation == "all" else perturbation)


ranking = ranking_for(run.id, run.updated, tuple(chosen_summarizers), chosen_perturbation, clean_only)
if any(r.perturbation == "sentiment" for r in ranking):
    st.caption("Sentiment rows are ranked by how much more or less often a summary reports the value the split "
               "controls than its input holds it (the size of the mean focus-value shift, 0–1): their inputs differ "
               "in which reviews they hold, so a word diff would blame the model for the perturbation. Name swaps "
               "are ranked by the word difference with the swapped words masked.")
if ranking:
    st.dataframe(pd.DataFrame([{
        "original": r.original_id, "perturbation": r.perturbation, "summarizer": r.summarizer,
        "mean difference": round(r.mean_difference, 3), "max difference": round(r.max_difference, 3),
        "inputs": r.n_inputs,
    } for r in ranking]), hide_index=True, width="stretch", height=220)
originals = list(dict.fromkeys([r.original_id for r in ranking] + [original for original, _ in index.values()]))
if not originals:
    st.info("This run has summaries but no stored inputs to compare them on. Open another run in the sidebar.")
    st.stop()
ranked_originals = {r.original_id for r in ranking}
note_unknown_link_values("compare_original", originals, "original")
wanted = st.session_state.get("compare_original", st.query_params.get("compare_original"))
if ranked_originals and wanted not in ranked_originals:
    # An original the chosen perturbation did not touch (a news article under sentiment) shows nothing to compare.
    st.session_state["compare_original"] = ranking[0].original_id
original = st.selectbox("Original (most different first)", originals, key="compare_original", bind="query-params")

try:
    of_original = store.inputs(run.id, original_id=original)
    summaries = store.summaries_of(run.id, [item.id for item in of_original])
except StoreError as error:  # a record of this original that cannot be read: one line
    st.error(md_escape(error))
    st.stop()
by_id = {item.id: item for item in of_original}
variants = [item for item in of_original
            if chosen_perturbation == "all" or item.perturbation in (chosen_perturbation, "identity")]


variant_ids = [item.id for item in variants]
# Each side by what it is: "original" for the unchanged article, else the arm in words and the sample.
labels = side_labels(of_original)
default_b = next((r.most_different_input for r in ranking if r.original_id == original), None)
default_b = default_b if default_b in variant_ids else (variant_ids[min(1, len(variant_ids) - 1)] if variant_ids else None)
a_col, b_col = st.columns(2)
# In the URL a variant is its label ("gender-glob · all people women, sample 2"), which Streamlit uses for a bound
# selectbox; when another original is chosen, a variant of the last one is not among the options and the default
# is shown.
with a_col:
    note_unknown_link_values("compare_a", labels.values(), "variant")
    variant_a = st.selectbox("Variant A", variant_ids, format_func=labels.get, key="compare_a", bind="query-params")
with b_col:
    note_unknown_link_values("compare_b", labels.values(), "variant")
    linked_b = st.query_params.get("compare_b")
    if st.session_state.get("compare_b") not in variant_ids and (
            "compare_b" in st.session_state or linked_b not in {labels[i] for i in variant_ids}):
        # Side B starts at the variant that differs most, through the state alone (an index as well makes Streamlit
        # warn once an evidence link has set the state); a side of another original is replaced the same way.
        st.session_state["compare_b"] = default_b
    variant_b = st.selectbox("Variant B", variant_ids, format_func=labels.get, key="compare_b", bind="query-params")
item_a, item_b = by_id[variant_a], by_id[variant_b]
shown = {item_a.perturbation, item_b.perturbation}
if "race" in shown:
    st.caption(RACE_GENDER_NOTE)
if "race-intersectional" in shown:
    st.caption(INTERSECTIONAL_GENDER_NOTE)

with st.expander("Input texts with the perturbation's swaps highlighted (hover a swap to see the original)"):
    a_col, b_col = st.columns(2)
    a_col.markdown(highlighted_input(item_a), unsafe_allow_html=True)
    b_col.markdown(highlighted_input(item_b), unsafe_allow_html=True)
    entities = [{"variant": label, **entity.to_dict()} for label, item in (("A", item_a), ("B", item_b))
                for entity in item.entities]
    if entities:
        st.dataframe(for_display(pd.DataFrame(entities)), hide_index=True, width="stretch")

# One expander per variant (Streamlit does not nest expanders): every swap with the evidence that made it a person.
for column, label, item in zip(st.columns(2), ("A", "B"), (item_a, item_b)):
    rows = substitution_rows(item)
    with column.expander(f"Substitutions ({len(rows)}) in {label}"):
        if rows:
            st.dataframe(for_display(pd.DataFrame(rows, columns=list(SUBSTITUTION_COLUMNS))),
                         hide_index=True, width="stretch")
        else:
            st.caption("None: this variant is the unchanged original." if item.perturbation == "identity"
                       else "None.")

summary_of = {(s.input_id, s.summarizer): s for s in summaries}


@st.cache_data(show_spinner=False, max_entries=4)
def kept_person_spans(run_id: str, updated: float) -> dict[str, list] | None:
    """The PERSON spans of the run's summaries, kept with the run when it ended (None for a run without them)."""
    return stored_piece(run_store(), run_id, "person_spans")


def kept_spans(run_id: str, updated: float, *texts: str) -> list | None:
    """The kept spans of ``texts`` (so the alignment needs no spaCy on the page), or None when any is missing."""
    kept = kept_person_spans(run_id, updated) or {}
    found = [kept.get(text_key(text)) for text in texts]
    return None if any(spans is None for spans in found) else [[tuple(span) for span in spans] for spans in found]


def summary_pairs():
    """Each chosen summarizer's summaries of variants A and B, each pair under the summarizer's heading; a
    summarizer missing one of them gets a line instead."""
    for name in chosen_summarizers:
        summary_a, summary_b = summary_of.get((variant_a, name)), summary_of.get((variant_b, name))
        st.subheader(md_escape(name))
        if summary_a is None or summary_b is None:
            st.caption("No summary of one of these variants by this summarizer.")
            continue
        flags = {label: summary_flags(summary, item.text)
                 for label, summary, item in (("A", summary_a, item_a), ("B", summary_b, item_b))}
        if any(flags.values()):
            st.caption(md_escape(" · ".join(f"{label}: {', '.join(found)}" for label, found in flags.items()
                                            if found)))
            if clean_only:
                st.caption("Left out by the filter above.")
                continue
        yield summary_a, summary_b


if is_unit_composition(item_a) and is_unit_composition(item_b):
    # Unit-composition inputs: which units each summary draws from, by value, against what its input holds.
    st.caption("These inputs differ in which units they hold, not in swapped words, so each summary is compared "
               "with its own input: every sentence is attributed to the unit it overlaps most (word overlap ≥ "
               f"{MIN_OVERLAP:.0%}), and the value shares of those units are set against the input's shares.")
    for summary_a, summary_b in summary_pairs():
        coverages = [unit_coverage(item_a, summary_a.text), unit_coverage(item_b, summary_b.text)]
        for column, label, item, coverage in zip(st.columns(2), ("A", "B"), (item_a, item_b), coverages):
            column.markdown(f"**{label}** · {md_escape(labels[item.id])}")
            column.dataframe(pd.DataFrame([{
                "summary sentence": match.sentence, "from unit": "—" if match.unit_index is None
                else f"#{match.unit_index + 1}", "value": match.value or "—", "overlap": round(match.overlap, 2),
            } for match in coverage.matches]), hide_index=True, width="stretch")
            values = sorted(coverage.input_shares.keys() | coverage.summary_shares.keys())
            column.dataframe(pd.DataFrame([{
                "value": value, "share in input": f"{coverage.input_shares.get(value, 0.0):.0%}",
                "share in summary": f"{coverage.summary_shares.get(value, 0.0):.0%}",
                "shift": f"{coverage.shift.get(value, 0.0):+.0%}"} for value in values]),
                hide_index=True, width="stretch")
            with column.expander(f"Units of {label} ({len(item.units)}; those the summary draws from first)"):
                order = sorted(range(len(item.units)), key=lambda i: (i not in coverage.covered, i))
                st.dataframe(pd.DataFrame([{"unit": f"#{i + 1}", "value": str(item.units[i].value),
                                            "in summary": i in coverage.covered, "text": item.units[i].text}
                                           for i in order]), hide_index=True, width="stretch")
        focus = focus_value(item_b) or focus_value(item_a)
        st.caption(md_escape(
            f"Difference in how the two summaries re-weight their inputs' values: "
            f"{composition_difference(*coverages):.2f} (½ Σ |shift A − shift B|, 0–2)"
            + (f"; focus value {focus}: shift {coverages[0].shift.get(focus, 0.0):+.0%} in A, "
               f"{coverages[1].shift.get(focus, 0.0):+.0%} in B." if focus else ".")))
    st.stop()

st.markdown(LEGEND, unsafe_allow_html=True)
expected = expected_words(item_a, item_b)
for summary_a, summary_b in summary_pairs():
    alignments = align_summaries([item_a, item_b], [summary_a.text, summary_b.text],
                                 spans=kept_spans(run.id, run.updated, summary_a.text, summary_b.text))
    a_col, b_col = st.columns(2)
    for column, summary, alignment, label in ((a_col, summary_a, alignments[0], "A"),
                                              (b_col, summary_b, alignments[1], "B")):
        column.markdown(f"**{label}** · {md_escape(labels[summary.input_id])}")
        column.markdown(marked_names(summary.text, [h.name for h in alignment.hallucinated]), unsafe_allow_html=True)
        if alignment.hallucinated:
            column.caption("Hallucinated: " + md_escape(", ".join(f"{h.name} ({h.gender})"
                                                                   for h in alignment.hallucinated)))
    tokens = word_diff(summary_a.text, summary_b.text, expected)
    counts = change_counts(tokens)
    difference = model_difference(summary_a.text, summary_b.text, expected)
    st.markdown(diff_html(tokens), unsafe_allow_html=True)
    st.caption(f"Model-made difference {difference:.2f} (similarity {1 - difference:.2f}) · "
               f"{counts['model_inserted']} words inserted and {counts['model_deleted']} deleted by the model · "
               f"{counts['swapped']} swapped by the perturbation")
