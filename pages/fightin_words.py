"""Fightin' Words: which words one set of texts uses more than another, with z-scores and corrected significance
(Monroe et al. 2008; METHODS §4.6). Pick a word to read the summaries that contain it."""

from __future__ import annotations

import html
import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from bias_core.common.words import counted, plural
from bias_core.measures import fightin_words as fw
from bias_core.views import fightin_words_view as fwv
from bias_core.views.labels import arm_labels
from bias_core.views.precomputed import fightin_words_view, stored_piece, table_of
from pages.common import (
    current_run,
    findings_for,
    kept_or_computed,
    measure_help,
    note_unknown_link_values,
    run_records,
    run_store,
)
from pages.parts.access import through_app
from pages.parts.progress import in_progress_notice
from pages.parts.quality import degenerate_summaries
from pages.render import marked_spans, md_escape

through_app()  # a deep link served before app.py ever ran goes through it (sign-in, sidebar, cookie)

st.title("Fightin' Words")
st.caption("Log-odds ratios with a Dirichlet prior, turned into z-scores: |z| > 1.96 is marked, and the "
           "Benjamini–Hochberg column controls the false discovery rate over the whole vocabulary. The perturbation's "
           "own words (swapped names, pronouns, titles) are masked, and paired identifiers such as father/mother are "
           "merged, so they do not top the lists.")
measure_help("fightin_words")

run = current_run()
if run is None:
    st.stop()
in_progress_notice(run)
store = run_store()
# The page reads the records of the chosen perturbation and summarizer only (a 200-article run holds thousands).
arms_by_perturbation = store.arms(run.id)
summarizer_names = store.summarizer_names(run.id)

@st.cache_data(show_spinner="Finding a view with words to show…", max_entries=8)
def richest_view(run_id: str, updated: float) -> tuple[str, str] | None:
    """The (perturbation, summarizer) with the most significant content words, else one the Overview has an answer
    for (``fightin_words_view.best_view``)."""
    def compute() -> tuple[str, str] | None:
        view = fightin_words_view(*run_records(run_id, updated), run_store().measures(run_id))
        return None if view is None else tuple(view)

    # Kept with the run when it ended; [] when there is no view to open on.
    return kept_or_computed(run_id, "fightin_words_view", compute, encode=lambda view: list(view or []),
                            decode=lambda kept: tuple(kept) if kept else None)


COMPARISONS = ["Summaries: one arm against the other", "Originals: more female vs more male identifiers",
               "Politician swap: HIGHSIM vs LOWSIM originals"]
# Every choice on this page is bound to the URL (its key is the parameter), so a refresh or a shared link reopens
# the same view; a value the run does not have gets a line and the default.
# The politician-swap view only where the run has a politician perturbation (issue 29).
shown_comparisons = COMPARISONS if "politician" in arms_by_perturbation else COMPARISONS[:2]
if st.session_state.get("fw_comparison", COMPARISONS[0]) not in shown_comparisons:
    del st.session_state["fw_comparison"]
note_unknown_link_values("fw_comparison", shown_comparisons, "comparison")
comparison = st.radio("Compare", shown_comparisons, key="fw_comparison", bind="query-params")
note_unknown_link_values("fw_prior", ["uninformative", "informative"], "prior")
prior = st.radio("Prior", ["uninformative", "informative"], horizontal=True, key="fw_prior", bind="query-params",
                 help="Uninformative: α = 0.01 for every word. Informative: a prior from the inputs as background "
                      "corpus, which shrinks rare words more.")

side_a: list[str] = []
side_b: list[str] = []
label_a = label_b = ""
mask: dict[str, str] = {}
background: list[str] = []
if comparison == COMPARISONS[0]:
    options = sorted(p for p, arms in arms_by_perturbation.items() if len(arms) >= 2)
    if not options:
        st.info("This run has no perturbation with two arms. Run gender-glob or gender-loc on the Audit page.")
        st.stop()
    unchosen = [key for key in ("fw_perturbation", "fw_summarizer")
                if key not in st.session_state and key not in st.query_params]
    if unchosen:
        # Open on the view with the most significant content words, so a first look shows what the page is for; a
        # choice not made yet keeps that view's value (after a reload too, when only the other is in the URL).
        view = richest_view(run.id, run.updated)
        if view and view[0] in options and view[1] in summarizer_names:
            for key in unchosen:
                st.session_state[key] = view[0] if key == "fw_perturbation" else view[1]
    columns = st.columns(4)
    with columns[0]:
        note_unknown_link_values("fw_perturbation", options, "perturbation")
        perturbation = st.selectbox("Perturbation", options, key="fw_perturbation", bind="query-params")
    with columns[1]:
        note_unknown_link_values("fw_summarizer", summarizer_names, "summarizer")
        summarizer = st.selectbox("Summarizer", summarizer_names, key="fw_summarizer", bind="query-params")
    arms = sorted(arms_by_perturbation[perturbation])
    inputs = store.inputs(run.id, perturbation=perturbation)
    by_id = {item.id: item for item in inputs}
    value_kind = next((meta.get("value_kind") for item in inputs
                       if isinstance(meta := item.extra.get("meta"), dict) and meta.get("value_kind")), None)
    words_for = arm_labels(perturbation, arms, value_kind)
    # In the URL a side is its label in words, which Streamlit uses for a bound selectbox with format_func.
    with columns[2]:
        note_unknown_link_values("fw_arm_a", words_for.values(), "side")
        arm_a = st.selectbox("Side A", arms, index=0, key="fw_arm_a", format_func=words_for.get, bind="query-params")
    with columns[3]:
        note_unknown_link_values("fw_arm_b", words_for.values(), "side")
        arm_b = st.selectbox("Side B", arms, index=1, key="fw_arm_b", format_func=words_for.get, bind="query-params")
    label_a, label_b = words_for[arm_a], words_for[arm_b]
    chosen = [(s, by_id[s.input_id]) for s in store.summaries_of(run.id, by_id, summarizer=summarizer)]
    left_out = degenerate_summaries(run.id, run.updated)
    degenerate = [s for s, _ in chosen if (s.input_id, s.summarizer) in left_out]
    chosen = [(s, item) for s, item in chosen if (s.input_id, s.summarizer) not in left_out]
    if degenerate:
        st.caption(f"{len(degenerate)} degenerate summaries (empty, separator runs, repetition loops or prompt "
                   "echoes) are left out, as in every measure.")
    side_a = [s.text for s, item in chosen if item.arm == arm_a]
    side_b = [s.text for s, item in chosen if item.arm == arm_b]
    mask = fw.substitution_mask(item for _, item in chosen)
elif comparison == COMPARISONS[1]:
    originals = [d.full_text for d in run_store().documents(run.id) if not d.is_perspective]
    groups = fw.split_by_majority_identifiers(originals)
    label_a, label_b = "originals mentioning women more", "originals mentioning men more"
    side_a, side_b = groups["female"], groups["male"]
    background = originals
    st.caption(f"{counted(len(side_a), 'original')} {plural(len(side_a), 'mentions')} female identifiers more, "
               f"{len(side_b)} male ones more ({counted(len(originals) - len(side_a) - len(side_b), 'tie')} left "
               "out; Steen & Markert §4, Table 1).")
else:
    results = [r for r in run_store().measures(run.id) if r.measure == "summary_similarity"
               and isinstance(r.details.get("fightin_words"), dict)]
    if not results:
        st.info("This run has no politician-swap similarity results. Run the politician perturbation with the "
                "summary_similarity measure on the Audit page.")
        st.stop()
    describe = {id(r): f"{r.summarizer} · {r.details.get('direction')}" for r in results}
    note_unknown_link_values("fw_similarity", describe.values(), "result")
    result = st.selectbox("Result", results, key="fw_similarity", format_func=lambda r: describe[id(r)],
                          bind="query-params")
    table = result.details["fightin_words"]
    threshold = table.get("highsim_threshold", result.details.get("highsim_threshold"))
    shown_threshold = f"{threshold:.3f}" if isinstance(threshold, (int, float)) else threshold
    st.caption(f"Originals whose summaries stayed most similar after the swap (HIGHSIM, similarity ≥ "
               f"{md_escape(shown_threshold)}) against the least similar (LOWSIM); computed when the run was measured "
               "(Zhou & Tan §6).")
    for side in (table["side_a"], table["side_b"]):
        st.markdown(f"**Words typical of {md_escape(side)}**")
        st.markdown(md_escape(fwv.stored_side_sentence(table, side)))
        rows = [row for row in table[f"top_{side}"] if not fw.is_placeholder(str(row.get("term")))]
        if rows:
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(md_escape(f"Prior: {table['prior']} · minimum count {table['min_count']} · {table['correction']}"))
    st.stop()

if not side_a or not side_b:
    st.warning("One side has no texts, so there is nothing to compare.")
    st.stop()


@st.cache_data(show_spinner="Counting words…", max_entries=16)
def term_table(texts_a: tuple[str, ...], texts_b: tuple[str, ...], label_a: str, label_b: str, prior: str,
               background: tuple[str, ...]) -> fw.FightinWordsResult:
    """Token-level Fightin' Words between two sets of texts (the originals split by their identifiers)."""
    return fw.fightin_words(list(texts_a), list(texts_b), label_a=label_a, label_b=label_b, prior=prior,
                            background=list(background) if prior == "informative" else None)


@st.cache_data(show_spinner="Counting words…", max_entries=16)
def arm_table(run_id: str, updated: float, perturbation: str, summarizer: str, arm_a: str, arm_b: str,
              label_a: str, label_b: str, prior: str) -> fw.FightinWordsResult:
    """The two arms' table as the Overview's test computes it (``fightin_words_view.arm_comparison``), with the
    run's own paired identifiers and seed."""
    opening = prior == "uninformative"
    if opening:  # the table the page opens on, kept with the run when it ended
        kept = stored_piece(run_store(), run_id, "fightin_words_table")
        if kept and kept.get("view") == [perturbation, summarizer, arm_a, arm_b]:
            return table_of(kept, label_a, label_b)
    records = run_records(run_id, updated)
    config = run_store().get_run(run_id).config
    return fwv.arm_comparison(fwv.arm_texts(*records, perturbation, summarizer), arm_a, arm_b, label_a=label_a,
                              label_b=label_b, prior=prior, seed=int(config.get("seed", 0)),
                              paired_identifiers=str(config.get("paired_identifiers",
                                                                fw.DEFAULT_PAIRED_IDENTIFIERS)))


if comparison == COMPARISONS[0]:
    result = arm_table(run.id, run.updated, perturbation, summarizer, arm_a, arm_b, label_a, label_b, prior)
    st.caption(f"n = {result.n_texts_a} vs {result.n_texts_b} summaries of "
               f"{counted(int(result.settings.get('n_originals', 0)), 'original')} ({result.n_tokens_a:,} vs "
               f"{result.n_tokens_b:,} tokens) · each word counted as its mean over an original's summaries in the "
               f"arm, as the Overview's test counts it · words kept: {len(result.terms):,} (minimum count "
               f"{result.min_count}) · prior: {md_escape(result.prior)}")
    answer = fwv.overview_answer(findings_for(run.id, run.updated), perturbation, summarizer)
    if answer is not None:
        # The page's table is the Overview's test's table, so the two say the same (issue 29).
        st.markdown(md_escape(f"The Overview's answer for this view: {answer}."
                              + (" It uses the uninformative prior." if prior == "informative" else "")))
else:
    result = term_table(tuple(side_a), tuple(side_b), label_a, label_b, prior, tuple(background))
    st.caption(f"n = {result.n_texts_a} vs {result.n_texts_b} texts ({result.n_tokens_a:,} vs "
               f"{result.n_tokens_b:,} tokens) · words kept: {len(result.terms):,} (minimum count "
               f"{result.min_count}) · prior: {md_escape(result.prior)}")
filters = st.columns(2)
content_only = filters[0].toggle("Content words only", value=True, key="fw_content_only", bind="query-params",
                                help="Hides stop words (spaCy's English list), punctuation and numbers from the "
                                     "tables and the plot. Display only: the z-scores are computed over every word, "
                                     "as in the papers.")
only_bh = filters[1].checkbox("Only words significant after Benjamini–Hochberg correction", key="fw_only_bh",
                              bind="query-params")
top_k = st.slider("Words per side", 5, 50, 15, key="fw_top_k", bind="query-params")
# The markers that stand in for swapped names, pronouns and titles are counted (so they do not inflate other words'
# shares) but never shown as words.
top_a, top_b = ([t for t in fwv.side_terms(result, side, content_only=content_only) if t.significant_bh or not only_bh]
                [:top_k] for side in ("a", "b"))


def frame(terms: list[fw.TermScore]) -> pd.DataFrame:
    return pd.DataFrame([{"word": t.term, "z": round(t.z, 2), "count A": t.count_a, "count B": t.count_b,
                          "|z|>1.96": t.significant, "BH": t.significant_bh} for t in terms])


columns = st.columns(2)
st.caption(md_escape(f"A = {label_a}; B = {label_b}."))
# Each side says in a sentence how many words survive the correction, so an empty or unsignificant table is never
# left to speak for itself (issue 29).
for column, side, label, terms in ((columns[0], "a", label_a, top_a), (columns[1], "b", label_b, top_b)):
    column.markdown(f"**More frequent in {side.upper()}: {md_escape(label)}**")
    column.markdown(md_escape(fwv.side_sentence(result, side, label, content_only=content_only)))
    if terms:
        column.dataframe(frame(terms), hide_index=True, width="stretch")

# Plotly renders a subset of HTML in hover labels and titles, so words and labels are escaped there (and the
# selected word is unescaped again below).
plot_a, plot_b = html.escape(label_a), html.escape(label_b)
plotted = [t for t in result.terms if not fw.is_placeholder(t.term)
           and (not content_only or fw.is_content_word(t.term))]
figure = go.Figure(go.Scatter(
    x=[math.log10(t.count_a + t.count_b) for t in plotted], y=[t.z for t in plotted], mode="markers",
    text=[html.escape(t.term) for t in plotted],
    customdata=[[t.count_a, t.count_b, "yes" if t.significant_bh else "no"] for t in plotted],
    marker={"size": 7, "color": ["#b2182b" if t.significant_bh else ("#ef8a62" if t.significant else "#999999")
                                 for t in plotted]},
    hovertemplate="<b>%{text}</b><br>z = %{y:.2f}<br>" + f"{plot_a}: " + "%{customdata[0]}<br>" + f"{plot_b}: "
                  + "%{customdata[1]}<br>BH significant: %{customdata[2]}<extra></extra>",
))
figure.add_hline(y=1.96, line_dash="dot", line_color="#888888")
figure.add_hline(y=-1.96, line_dash="dot", line_color="#888888")
figure.update_layout(xaxis_title="log10 total count", yaxis_title=f"z  (> 0: {plot_a}, < 0: {plot_b})",
                     template="plotly_white", height=420, margin={"t": 20})
st.caption("Click a point to read the texts that use its word.")
event = st.plotly_chart(figure, on_select="rerun", selection_mode="points", key="fw_plot", width="stretch")
points = event.selection.points if event else []
clicked = [plotted[point["point_index"]].term for point in points
           if isinstance(point.get("point_index"), int) and 0 <= point["point_index"] < len(plotted)]
# Where no word leans to either side (identical arms), the most frequent words stay readable in their texts.
words = [t.term for t in top_a + top_b] or [t.term for t in sorted(plotted, key=lambda t: -(t.count_a + t.count_b))
                                            [:top_k]]
if clicked and clicked[0] != st.session_state.get("fw_clicked"):
    # A new click selects its word, even one outside the top lists; the same selection on later reruns does not
    # undo a choice made in the box since.
    st.session_state["fw_clicked"] = st.session_state["fw_word"] = clicked[0]
# The word chosen in this session, else the one the link names: it stays selectable even outside the top lists.
chosen_word = st.session_state.get("fw_word") or st.query_params.get("fw_word")
if chosen_word and chosen_word not in words:
    if any(t.term == chosen_word for t in plotted):
        words.append(chosen_word)
    elif "fw_word" in st.session_state:
        del st.session_state["fw_word"]
    else:
        note_unknown_link_values("fw_word", words, "word")
word = (st.selectbox("Show the texts that contain", words, key="fw_word", bind="query-params") if words
        else None)


def times(count: int) -> str:
    return f"{count} {'time' if count == 1 else 'times'}"


if word:
    replacements = fw.build_replacements(mask)
    for side, label, texts in (("A", label_a, side_a), ("B", label_b, side_b)):
        found = [fw.term_occurrences(text, word, replacements) for text in texts]
        st.markdown(md_escape(f"{side} ({label}): {sum(bool(spans) for spans in found)} of {len(texts)} texts "
                              f"contain “{word}” ({times(sum(len(spans) for spans in found))})"))
    if comparison == COMPARISONS[0]:
        # The examples are the two arms of one draw (the same original and name draw), never arm A of one draw
        # beside arm B of another (issue 29).
        draws = fwv.example_draws(chosen, arm_a, arm_b, word, replacements)
        st.caption("Each example is one draw: the same original with the same names drawn, summarized in each arm.")
        for index, draw in enumerate(draws[:10]):
            sample = f", sample {draw.sample_id}" if draw.sample_id is not None else ""
            with st.expander(md_escape(f"{draw.original_id}{sample}: “{word}” {times(len(draw.spans_a))} in A, "
                                       f"{times(len(draw.spans_b))} in B"), expanded=index == 0):
                for column, side, label, text, spans in zip(st.columns(2), "AB", (label_a, label_b),
                                                             (draw.text_a, draw.text_b), (draw.spans_a, draw.spans_b),
                                                             strict=True):
                    column.caption(md_escape(f"{side} ({label})"))
                    if text is None:
                        column.markdown("No usable summary of this draw in this arm (degenerate or missing).")
                    else:
                        column.markdown(marked_spans(text, spans, title=word), unsafe_allow_html=True)
        if len(draws) > 10:
            st.caption(f"… and {counted(len(draws) - 10, 'more draw')}.")
    else:
        for side, label, texts in (("A", label_a, side_a), ("B", label_b, side_b)):
            hits = [(text, spans) for text in texts if (spans := fw.term_occurrences(text, word, replacements))]
            with st.expander(md_escape(f"{side} ({label}): texts that contain “{word}”"), expanded=bool(hits)):
                for text, spans in hits[:10]:
                    st.markdown(marked_spans(text, spans, title=word), unsafe_allow_html=True)
                if len(hits) > 10:
                    st.caption(f"… and {counted(len(hits) - 10, 'more text')}.")
