"""Overview: what the chosen run found, in words. One row per summarizer × perturbation × measure family with the
finding sentence, its effect, the 95% interval of its one test, whether it survives the multiple-comparison
correction, the verdict, and a link that opens Compare on the pair of inputs where it shows most. Every number and
mark comes from ``bias_core.verdicts.findings`` (the same code the HTML report uses); this page only lays it out."""

from __future__ import annotations

import streamlit as st

from bias_core.verdicts.controls import CALIBRATION_DOC, controls
from bias_core.verdicts.findings import summarizer_answers
from bias_core.verdicts.sentences import corrections_line, how_to_read, verdict_words
from pages.common import current_run, findings_for, run_attribution
from pages.parts.access import through_app
from pages.parts.quality import show_output_quality
from pages.render import FINDING_COLUMNS, FINDING_WIDTHS, effect_and_interval, mark, md_escape

through_app()  # a deep link served before app.py ever ran goes through it (sign-in, sidebar, cookie)


def evidence_link(run_id: str, finding) -> dict[str, str]:
    """The URL of Compare opened on the finding's pair: the run, original, summarizer and perturbation as Compare's
    bound choices, the pair by input id (Compare picks it once)."""
    evidence = finding.evidence
    link = {"run": run_id, "compare_original": evidence.original_id, "compare_summarizers": finding.summarizer,
            "evidence_a": evidence.input_a, "evidence_b": evidence.input_b}
    if finding.perturbation not in ("—", None):
        link["compare_perturbation"] = finding.perturbation
    return link


st.title("Overview")
run = current_run()
if run is None:
    st.stop()
st.caption(f"Run {md_escape(run.name or 'unnamed')} · {md_escape(run.id)} · {md_escape(run.status)}")
for line in run_attribution(run.id, run.updated):  # openly licensed articles are credited where they are shown
    st.caption(md_escape(f"Articles: {line}."))

found = sorted(findings_for(run.id, run.updated), key=lambda finding: finding.strength, reverse=True)
if not found:
    st.markdown(md_escape(how_to_read()))
    st.info("This run has no findings yet: its measures are computed when the summaries are done (see Runs).")
    st.stop()

checked = controls(found)
if checked is not None:
    with st.container(key="overview_controls"):
        (st.warning if checked.warning else st.success)(md_escape(checked.line))
        if checked.warning:
            st.markdown(md_escape(checked.warning))
with st.expander("How to read these findings"):
    st.markdown(md_escape(how_to_read()))
    st.caption(md_escape(f"How often the rule calls a neutral summarizer biased, and how often it catches a planted "
                         f"bias at each corpus size: {CALIBRATION_DOC} in the summbias repository."))

st.subheader("In short: one answer per summarizer")
answers = summarizer_answers(found)
# One line per summarizer from a perturbation test; what its summaries of the unchanged articles showed is a line of
# its own after them, never the summarizer's answer. The SFPI model, trained only to explain lexical bias, is no
# summarizer of the run: it stays in the table below.
st.markdown("\n".join(f"- {md_escape(answer.text)}" for answer in answers if not answer.unchanged))
unchanged = [answer for answer in answers if answer.unchanged]
if unchanged:
    with st.container(key="overview_unchanged"):
        st.caption("Measured on the unchanged articles, not a perturbation test:")
        st.markdown("\n".join(f"- {md_escape(answer.text)}" for answer in unchanged))
show_output_quality(run.id, run.updated)

st.subheader("Every finding, strongest evidence first")
corrections = sorted({finding.correction for finding in found
                      if finding.correction and not finding.correction.startswith("correction not applicable")})
if corrections:
    st.caption(md_escape(corrections_line(corrections)))
header = st.columns(FINDING_WIDTHS, vertical_alignment="bottom")
for column, label in zip(header, FINDING_COLUMNS):
    column.markdown(f"**{label}**")
with st.container(key="overview_findings"):
    for finding in found:
        st.divider()
        effect, interval = effect_and_interval(finding)
        row = st.columns(FINDING_WIDTHS, vertical_alignment="center")
        row[0].caption(md_escape(f"{finding.summarizer} · {finding.perturbation} · {finding.topic or finding.family}"),
                       help=md_escape(f"{finding.family}: {finding.measure_name}"))
        row[0].markdown(md_escape(finding.sentence))
        if finding.context:
            # One line per description: two variants of one measure on one line read as a phrase said twice.
            row[0].caption("  \n".join(md_escape(line) for line in ("Context, not a test:", *finding.context)))
        row[1].markdown(md_escape(effect))
        row[2].markdown(md_escape(interval))
        if finding.estimate is not None:  # too little data states neither a value nor its n (issue 29)
            row[2].caption(f"n = {finding.n}")
        row[3].markdown(mark(finding.survives_correction), help=md_escape(finding.correction) or None)
        row[4].markdown(md_escape(verdict_words(finding.verdict.status)))
        evidence = finding.evidence
        if evidence is not None:
            row[5].page_link("pages/compare.py", label="See the evidence",
                             query_params=evidence_link(run.id, finding),
                             help=md_escape(evidence.why))
        else:
            row[5].caption("no pair to show")
