"""State and cached resources shared by the pages (not a page itself)."""

from __future__ import annotations

import streamlit as st

from bias_core.demo import DEMO_NEWS, DEMO_REVIEWS
from bias_core.errors import BiasCoreError
from bias_core.io import load_documents, load_documents_from_bytes
from bias_core.records import Document
from bias_core.store import RunStore
from bias_core.summarize import Summarizer, SummaryCache, get_summarizer

DEMO_CORPORA = {"Demo news articles": DEMO_NEWS, "Demo product reviews": DEMO_REVIEWS}


@st.cache_data(show_spinner=False)
def demo_documents(name: str) -> list[Document]:
    return load_documents(DEMO_CORPORA[name])


@st.cache_resource(show_spinner="Loading the summarizer…")
def summarizer(name: str, params: tuple[tuple[str, object], ...] = ()) -> Summarizer:
    return get_summarizer(name, **dict(params))


@st.cache_resource
def summary_cache() -> SummaryCache:
    return SummaryCache()


@st.cache_resource
def run_store() -> RunStore:
    return RunStore()


def corpus_picker() -> list[Document] | None:
    """Let the analyst choose a demo corpus or upload one; keep the choice in the session across pages."""
    options = [*DEMO_CORPORA, "Upload a file"]
    choice = st.radio("Corpus", options, horizontal=True, key="corpus_choice")
    if choice != "Upload a file":
        st.session_state["documents"] = demo_documents(choice)
        return st.session_state["documents"]
    upload = st.file_uploader("A .txt, .zip of .txt files, .jsonl or .csv", type=["txt", "zip", "jsonl", "csv"])
    if upload is not None:
        try:
            st.session_state["documents"] = load_documents_from_bytes(upload.name, upload.getvalue())
        except BiasCoreError as error:
            st.error(f"Could not load the file. {error}")
            return None
    documents = st.session_state.get("documents")
    if not documents:
        st.info("Upload a file to start, or pick a demo corpus.")
    return documents


def document_label(document: Document) -> str:
    title = document.meta.get("title")
    return f"{document.id} — {title}" if title else document.id
