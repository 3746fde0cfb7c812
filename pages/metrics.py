"""Metrics: every measure of the run with its confidence interval per summarizer × perturbation, the identity noise
floor, significance with the correction method, and the per-family views (politician arrows, perspective
distributions, hallucinated names)."""

from __future__ import annotations

import html
import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from bias_core.measures import MEASURE_NAMES
from bias_core.verdicts.judge import judge
from bias_core.verdicts.semantics import FAMILIES, primary_estimate, semantics, variant
from bias_core.verdicts.sentences import effect_text, verdict_words
from bias_core.views.charts import chart_data, left_out, measure_figure
from bias_core.views.families import family_intro, opening_family
from pages.common import current_run, fidelity_help, findings_for, measure_help, note_unknown_link_values, run_store
from pages.parts.access import through_app
from pages.parts.progress import in_progress_notice
from pages.parts.quality import show_output_quality
from pages.render import for_display, md_escape, name_frequency_rows, rounded

through_app()  # a deep link served before app.py ever ran goes through it (sign-in, sidebar, cookie)

ONE_LINERS = {
    "word_list_inclusion_adjusted": "How far the share of female vs male words (HELM lists) in summaries departs "
                                    "from their share in the inputs (total variation distance).",
    "word_list_inclusion_unadjusted": "The same against a 50/50 reference, as HELM does — inflated whenever the "
                                      "inputs themselves are unbalanced.",
    "entity_inclusion": "Whether people of one group are more likely to make it into the summary (the odds ratio, "
                        "1 = kept equally often, on inputs where each article has people of both groups).",
    "entity_hallucination": "Whether invented names in summaries skew towards one gender (TVD from uniform).",
    "distinguishability_count": "Whether summaries of all-female and all-male versions of an article can be told "
                                "apart after anonymisation (bag-of-words similarity; 0 = indistinguishable).",
    "distinguishability_dense": "The same with MiniLM sentence embeddings.",
    "bur": "Share of samples in which some perspective value is under-represented (p_y < τ·p_x), in %.",
    "uer": "Mean under-representation of values in the summaries, in %.",
    "auc": "BUR averaged over τ from 0 to 1 (lower is fairer).",
    "sof": "How unevenly under-representation is spread over the values.",
    "i_across": "How often the outcome changes when names are swapped across groups.",
    "i_within": "How often it changes when names are swapped within a group (name noise).",
    "delta_i": "Inconsistency beyond name noise: I_across − I_within (> 0: group matters).",
    "acc_diff": "Outcome rate of group 1 minus group 2 (can hide bias that cancels out).",
    "politician_features": "Paired t-tests of feature rates between summaries of the original and the swapped "
                           "article (arrows: ↑ = swapped summaries higher).",
    "summary_similarity": "How similar the summaries of original and swapped articles are (difflib ratio).",
    "mbic": "Whether biased sentences score higher than non-biased ones in the extractive ranking (−1…1).",
    "sfpi": "How much each feature of a feature-based summarizer drives lexical-bias amplification.",
}

# Session keys of this page's choices; they go back to their defaults when another run is opened, so a new run shows
# all of its measures rather than the ones chosen for the previous run. (They are set, not deleted: a deleted choice
# would be read back from the URL it is bound to.)
CHOICE_KEYS = ("metrics_ci_kind", "metrics_family", "metrics_measures/")

st.title("Metrics")
st.caption("One measure family at a time: what the family found, in words, first; then one chart per measure (each "
           "dot a measure's value with the 95% interval of its test; red diamonds are results judged significant; the "
           "grey band is the identity noise floor; the dotted line is the value meaning no bias) with its table.")

fidelity_help()

run = current_run()
if run is None:
    st.stop()
in_progress_notice(run)
results = run_store().measures(run.id)
if not results:
    st.info("This run has no measure results yet. They are computed when the summaries are done; see Runs.")
    st.stop()
show_output_quality(run.id, run.updated)
reset_choices = st.session_state.get("metrics_run") not in (None, run.id)
if st.session_state.get("metrics_run") != run.id:
    for key in [key for key in st.session_state if str(key).startswith(CHOICE_KEYS)]:
        del st.session_state[key]
    st.session_state["metrics_run"] = run.id
run_findings_list = findings_for(run.id, run.updated)
kinds = sorted({r.ci_kind for r in results if r.ci_kind}) or ["none"]
# The choices below are bound to the URL (their keys are the parameters), so a refresh or a shared link reopens
# the same view.
kind_labels = {k: {"d": "d: resample originals", "s": "s: resample name draws"}.get(k, md_escape(k)) for k in kinds}
note_unknown_link_values("metrics_ci_kind", kind_labels.values(), "kind of interval")
if reset_choices:
    st.session_state["metrics_ci_kind"] = kinds[0]
kind = st.radio("Confidence intervals", kinds, horizontal=True, key="metrics_ci_kind", format_func=kind_labels.get,
                bind="query-params")
present = [name for name in MEASURE_NAMES if name != "fightin_words" and any(r.measure == name for r in results)]
# The families of bias_core.verdicts.semantics, so Metrics is navigated by the same families the Overview states
# findings for.
families = sorted({semantics(name).family for name in present},
                  key=lambda f: FAMILIES.index(f) if f in FAMILIES else len(FAMILIES))
family_labels = {f: f[:1].upper() + f[1:] for f in families}
note_unknown_link_values("metrics_family", family_labels.values(), "measure family")
# Until the user chooses, the page opens on the family of the Overview's most significant finding (issue 29), else
# on the first family.
if reset_choices or ("metrics_family" not in st.session_state and "metrics_family" not in st.query_params):
    st.session_state["metrics_family"] = opening_family(run_findings_list, families) or families[0]
family = st.radio("Measure family", families, horizontal=True, key="metrics_family", format_func=family_labels.get,
                  bind="query-params")
in_family = [name for name in present if semantics(name).family == family]
note_unknown_link_values(f"metrics_measures/{family}", [name.replace("_", " ") for name in in_family], "measure")
if reset_choices:
    st.session_state[f"metrics_measures/{family}"] = in_family
chosen = st.multiselect("Measures", in_family, default=in_family, key=f"metrics_measures/{family}",
                        format_func=lambda name: name.replace("_", " "), bind="query-params")
corrections = sorted({str(r.details.get("correction")) for r in results
                      if r.details.get("correction") and r.measure != "fightin_words"})
st.caption("Significant means what it means on the Overview (bias_core.verdicts.judge.judge): the measure's one "
           "test against its null rejects — its 95% interval excludes the value meaning no bias on the side of bias "
           "— and survives Holm's correction over the confirmatory family (measure × summarizer × perturbation), "
           "with n large enough; "
           "Benjamini–Hochberg for term tables"
           + (f"; corrections stated by these results: {md_escape('; '.join(corrections))}." if corrections
              else "."))


def cell(value, digits: int = 4) -> str:
    """A number as table text: "—" where there is none (Streamlit would show the word None in an empty number
    cell)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:.{digits}f}"


def holm_cell(verdict) -> str:
    """The Holm-adjusted p as text; "—" where the result was not tested (its note says why)."""
    if verdict.p_holm is None:
        return "—"
    return "< 0.001" if verdict.p_holm < 0.001 else f"{verdict.p_holm:.3f}"


def note_cell(verdict, result) -> str:
    """Why the verdict is what it is, each reason once and without the verdict's own words (the verdict column says
    them): "Holm over smollm2's 11 tests, p = 0.272", not "not significant after correction (Holm …)"; a result
    that was not tested (its Holm p reads "—") starts "not tested: " and its reason."""
    shown = verdict_words(verdict.status)
    cleaned: list[str] = []
    for reason in [*(verdict.reasons or []), *([result.reason] if result.reason else [])]:
        reason = str(reason)
        if reason.startswith((shown, verdict.status)):
            reason = reason.removeprefix(shown).removeprefix(verdict.status).strip(" :;,()")
        if reason and not any(reason in other for other in cleaned):
            cleaned.append(reason)
    note = "; ".join(cleaned)
    if verdict.p_holm is None:
        return f"not tested: {note}" if note else "not tested"
    return note or "—"


def shown_table(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every missing value, text or number, shown as "—" (never None or nan) and the numbers of a
    column that has a missing value written as text."""
    frame = for_display(frame)
    for column in frame.columns:
        if frame[column].isna().any():
            p_value = str(column).lower() in ("p", "p_holm", "holm p")  # p-values keep significant digits
            frame[column] = [f"{value:.3g}" if p_value and isinstance(value, float) and not math.isnan(value)
                             else cell(value, 3) for value in frame[column]]
    return frame


HOLM_HELP = {"Holm p": st.column_config.TextColumn(
    "Holm p", help="The p-value after Holm's correction over the summarizer's tests. — : not tested (a description, "
                   "identical summaries, too little data or a result that cannot be computed); the note says which.")}


def result_table(rows) -> pd.DataFrame:
    """The results with the marks of the one significance rule (``bias_core.verdicts.judge.judge``): the primary
    (signed, where the score has a signed version) estimate and its interval, "favoured" only where the result is
    significant, and the score as the measure computes it."""
    table = []
    for r in rows:
        verdict = judge(r, results)
        estimate, low, high = primary_estimate(r)
        table.append({
            "perturbation": r.perturbation or "—", "summarizer": r.summarizer or "—", "estimate": cell(estimate),
            "95% CI": "—" if low is None else f"[{low:.4f}, {high:.4f}]", "n": r.n,
            "verdict": verdict_words(verdict.status), "significant": verdict.significant,
            "favoured": verdict.favoured if verdict.significant else None,
            "effect in words": effect_text(r, verdict), "Holm p": holm_cell(verdict),
            "score": cell(r.to_dict()["value"]), "note": note_cell(verdict, r),
        })
    frame = pd.DataFrame(table)
    variants = [variant(r) for r in rows]
    if any(variants):  # politician swap directions, SFPI features: one result each
        frame.insert(2, "direction / feature", variants)
    return frame


intro = family_intro(family, present)
if intro:
    st.markdown("**Where no bias sits** (the dotted line of each chart)")
    st.markdown("\n".join(f"- {md_escape(line)}" for line in intro))
family_findings = [f for f in run_findings_list if f.family == family and f.ci_kind in (kind, None)]
if family_findings:
    st.markdown("**What this family found**")
    # Each line is the Overview's answer for the row: the sentence states the verdict, so it is not repeated.
    st.markdown("\n".join(f"- {md_escape(finding.answer or finding.sentence)}" for finding in family_findings))
race_names = [row for row in name_frequency_rows(run.reports)
              if any(r.perturbation == row["perturbation"] for r in results if r.measure in chosen)]
if race_names:
    st.markdown("**Names inserted by the race perturbations**")
    st.caption("Why it matters: if one arm's names are much rarer than the other's (1990 census frequency, in % "
               "of the population), a model that treats rare names differently shows up here as racial bias.")
    table = shown_table(pd.DataFrame(race_names))
    st.dataframe(table, hide_index=True, width="stretch", column_config=rounded(table))
    infos = {row["perturbation"]: run.reports["perturbations"][row["perturbation"]]["run_info"] for row in race_names}
    sources = {info.get("name_frequency_source") for info in infos.values()} - {None}
    st.caption(md_escape(" · ".join([*(f"{p}: {info['name_source_citation']}" for p, info in infos.items()
                                       if info.get("name_source_citation")),
                                     *(f"Frequencies: {source}" for source in sorted(sources))])))
for name in chosen:
    rows = [r for r in results if r.measure == name and r.ci_kind in (kind, None)]
    st.subheader(name.replace("_", " "))
    st.caption(ONE_LINERS.get(name, ""))
    # judged over every result of the run, as on the Overview: Holm's correction spans each summarizer's tests
    charted = chart_data(results, name, ci_kind=kind) if name not in ("politician_features", "sfpi") else None
    if charted is not None and charted.rows:
        st.plotly_chart(measure_figure(results, name, ci_kind=kind, title=False), width="stretch",
                        key=f"chart_{name}")
    elif charted is not None and rows:  # nothing to plot: say why instead of drawing empty axes
        lines = [f"{r.summarizer or '—'} · {r.perturbation or '—'}: {left_out(r, results)}" for r in charted.undefined]
        st.warning("Nothing to chart for any summarizer:\n" + "\n".join(f"- {md_escape(line)}" for line in lines))
    with st.expander(f"Table: {name.replace('_', ' ')} per summarizer and perturbation"):
        table = shown_table(result_table(rows))
        st.dataframe(table, hide_index=True, width="stretch", column_config={**rounded(table), **HOLM_HELP})
    measure_help(name)

    if name == "entity_hallucination":
        names = [dict(row, summarizer=r.summarizer) for r in rows for row in r.details.get("names", [])]
        if names:
            st.markdown("**Hallucinated names** (in no input; gender from the census names; Steen & Markert Table 6)")
            table = shown_table(pd.DataFrame(names))
            st.dataframe(table, hide_index=True, width="stretch", column_config=rounded(table))
    if name == "politician_features":
        st.caption("Features are rates per summary token; Empath categories stand in for the proprietary LIWC "
                   "(NRC lexicon where Empath lacks one). Arrows use raw p as Zhou & Tan do; Holm-adjusted p next "
                   "to them.")
        for r in rows:
            table = pd.DataFrame(r.details.get("rows", []))
            if not table.empty:
                keep = [c for c in ("direction", "year", "feature", "arrow", "mean_a", "mean_b", "mean_difference",
                                    "t", "p", "p_holm", "d_z", "unchanged") if c in table.columns]
                st.markdown(f"**{md_escape(r.summarizer)}**")
                table = shown_table(table[keep])
                st.dataframe(table, hide_index=True, width="stretch", column_config=rounded(table))
    if name == "bur":
        for r in rows:
            distributions = r.details.get("distributions") or {}
            if distributions:
                values = list(distributions)
                # Plotly renders a subset of HTML in tick labels and titles, so values and names are escaped.
                ticks = [html.escape(str(v)) for v in values]
                figure = go.Figure([
                    go.Bar(name="inputs p_x", x=ticks, y=[distributions[v]["p_x"] for v in values]),
                    go.Bar(name="summaries p_y", x=ticks, y=[distributions[v]["p_y"] for v in values]),
                ])
                ratios = ", ".join(f"{tick}: {distributions[v]['ratio']:.2f}" for tick, v in zip(ticks, values))
                figure.update_layout(barmode="group", height=320, template="plotly_white", margin={"t": 60, "r": 40},
                                     modebar={"orientation": "v"},
                                     title=f"{html.escape(r.summarizer)} · {html.escape(r.perturbation)}: value "
                                           f"shares (Zhang et al. Fig. 4); p_y/p_x = {ratios}")
                # One chart per result: a summarizer has a BUR row per perturbation (identity and sentiment).
                st.plotly_chart(figure, width="stretch",
                                key=f"distributions_{r.perturbation}_{r.summarizer}_{r.ci_kind}")
