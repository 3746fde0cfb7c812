"""State and cached resources shared by the pages (not a page itself)."""

from __future__ import annotations

import streamlit as st

from bias_core.demo import DEMO_NEWS, DEMO_REVIEWS
from bias_core.errors import BiasCoreError
from bias_core.io import load_documents, load_documents_from_bytes
from bias_core.records import Document, Input, Summary
from bias_core.store import RunInfo, RunStore
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


@st.cache_data(show_spinner="Loading the run…", max_entries=4)
def run_records(run_id: str, updated: float) -> tuple[list[Input], list[Summary]]:
    """A run's inputs and summaries; ``updated`` is part of the cache key so a growing run is re-read."""
    store = run_store()
    return store.inputs(run_id), store.summaries(run_id)


def current_run() -> RunInfo | None:
    """The run opened on the Runs page (or the newest one); says what to do when there is none."""
    store = run_store()
    run_id = st.session_state.get("run_id")
    runs = store.list_runs()
    if not runs:
        st.info("No runs yet. Start an audit on the Audit page, then come back here.")
        return None
    ids = [run.id for run in runs]
    if run_id not in ids:
        run_id = ids[0]
    st.session_state["run_id"] = st.session_state["sidebar_run"] = run_id
    st.sidebar.selectbox("Run", ids, key="sidebar_run",
                         format_func=lambda rid: f"{store.get_run(rid).name or 'unnamed'} · {rid}",
                         on_change=lambda: st.session_state.update(run_id=st.session_state["sidebar_run"]))
    return store.get_run(run_id)
