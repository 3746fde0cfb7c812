"""Corpus: the demo corpus one click away, or an upload (with CSV column mapping), previewed and validated."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bias_core.common.words import counted, counted_parts, plural
from bias_core.documents.decoding import DEFAULT_MAX_BYTES, describe_limit
from bias_core.documents.language import non_english_documents
from pages.common import corpus_picker, document_label
from pages.parts.access import through_app
from pages.render import md_escape

through_app()  # a deep link served before app.py ever ran goes through it (sign-in, sidebar, cookie)

st.title("Corpus")
st.caption("Choose the documents to audit. News articles are perturbed by swapping people's names and pronouns; "
           "review sets (units with a value such as a star rating) are split by value. An upload stays on this "
           "server unless you send it to one of the operator's endpoints; once audited, its run is visible to "
           "everyone who opens this app (Delete run on Runs removes it).")
st.caption(f"An upload may hold up to {describe_limit(DEFAULT_MAX_BYTES)}, the limit of the command line too. The "
           "upload box refuses a larger file itself: it marks the file red (hover the mark: \"File must be 20.0MB or "
           "smaller\") and nothing is loaded. Split a larger corpus, or audit it from the command line with a "
           "higher max_mb.")

documents = corpus_picker()
if documents:
    news = [d for d in documents if not d.is_perspective]
    perspective = [d for d in documents if d.is_perspective]
    st.success(f"{counted(len(documents), 'document')} ready: "
               f"{counted_parts((len(news), 'article'), (len(perspective), 'set of units'))}. "
               "Go to **Audit** to choose perturbations and summarizers.")
    foreign = non_english_documents(documents)
    if foreign:
        st.warning(f"{counted(len(foreign), 'document')} {plural(len(foreign), 'does')} not look like English: "
                   f"{md_escape(', '.join(foreign[:10]))}"
                   f"{' …' if len(foreign) > 10 else ''}. The language model, name lists and word lists are "
                   "English-only, so perturbations will find no people in them and skip them.")
    st.dataframe(pd.DataFrame([{
        "id": d.id, "title": d.meta.get("title", ""), "words": len(d.full_text.split()),
        "units": len(d.units) if d.units else None,
        "values": ", ".join(sorted({u.value or "—" for u in d.units})) if d.units else "",
    } for d in documents]), hide_index=True, width="stretch")
    document = st.selectbox("Preview", documents, format_func=document_label, key="corpus_preview")
    if document.units:
        st.dataframe(pd.DataFrame([{"value": u.value, "text": u.text} for u in document.units]),
                     hide_index=True, width="stretch")
    else:
        with st.container(border=True, height=320):
            st.text(document.full_text)
