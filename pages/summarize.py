"""Summarize one document with one summarizer and show the result (extractive ones with sentence scores)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bias_core.common.records import Input, Summary
from bias_core.safety.errors import BiasCoreError
from bias_core.summarize import summarize_inputs
from pages.common import corpus_picker, document_label, summarizer, summary_cache
from pages.parts.access import through_app
from pages.parts.endpoints import endpoint_choice
from pages.parts.models import model_choice
from pages.render import md_escape

through_app()  # a deep link served before app.py ever ran goes through it (sign-in, sidebar, cookie)

BUILT_IN = ["lead-3", "random-3", "textrank", "lexrank", "topic", "sexist", "smollm2"]
CUSTOM = {"Hugging Face model (hf:)": "hf:", "OpenAI-compatible endpoint (openai:)": "openai:"}
# A summary is shown up to this many characters (a few pages of text); the rest is said, not rendered.
SHOWN_CHARACTERS = 20_000

st.title("Summarize a document")
st.caption("Pick a document and a summarizer. Extractive summarizers also show the score of every sentence.")

documents = corpus_picker()
if documents:
    document = st.selectbox("Document", documents, format_func=document_label, key="summarize_document")
    with st.expander("Document text", expanded=False):
        st.text_area("Text", document.full_text, height=260, disabled=True, label_visibility="collapsed")

    kind = st.selectbox("Summarizer", [*BUILT_IN, *CUSTOM], key="summarize_summarizer",
                        help="lead-k and random-k cannot amplify bias; topic never reads names (a neutral control "
                             "under a swap); sexist is the deliberately biased baseline; smollm2 is a small offline "
                             "language model.")
    params: dict[str, object] = {}
    name: str | None = kind
    if CUSTOM.get(kind) == "hf:":
        # Only a model the operator listed, loaded with its own token variable (pages.parts.models).
        chosen_model = model_choice("summarize_hf_model")
        name = None
        if chosen_model is not None:
            name, params = chosen_model
    elif CUSTOM.get(kind) == "openai:":
        # Only an endpoint the operator listed, with its own key variable (pages.parts.endpoints).
        chosen = endpoint_choice("summarize_openai")
        name = None
        if chosen is not None:
            name, params = chosen
            params["timeout"] = st.number_input("Timeout (s)", 1.0, 600.0, 60.0)

    if st.button("Summarize", type="primary", disabled=name is None) and name is not None:
        try:
            with st.spinner(f"Summarizing with {md_escape(name)}…"):
                report = summarize_inputs(summarizer(name, tuple(sorted(params.items()))),
                                          [Input.from_document(document)], cache=summary_cache())
        except BiasCoreError as error:
            st.error(md_escape(error))
        else:
            if report.failures:
                st.error(md_escape(report.failures[0].error))
            else:
                st.session_state["last_summary"] = report.summaries[0]
                st.session_state["last_summary_cached"] = bool(report.cache_hits)

    summary: Summary | None = st.session_state.get("last_summary")
    if summary is not None and summary.input_id == f"{document.id}/identity":
        st.subheader(f"Summary by {md_escape(summary.summarizer)}")
        text = summary.text or "(empty summary)"
        with st.container(border=True):
            st.text(text[:SHOWN_CHARACTERS])  # an endpoint may answer up to 1 MiB; a page that long freezes the tab
        if len(text) > SHOWN_CHARACTERS:
            st.caption(f"Showing the first {SHOWN_CHARACTERS:,} of {len(text):,} characters.")
        seconds = summary.meta.get("seconds")
        st.caption(("from the cache · " if st.session_state.get("last_summary_cached") else "")
                   + (f"{seconds:.2f} s per document" if isinstance(seconds, float) else ""))
        if summary.sentences is not None:
            selected = set(summary.meta.get("selected", []))
            st.dataframe(pd.DataFrame({
                "in summary": [i in selected for i in range(len(summary.sentences))],
                "score": summary.sentence_scores,
                "sentence": summary.sentences,
            }), width="stretch", hide_index=True)
