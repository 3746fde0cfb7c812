"""State and cached resources shared by the pages (not a page itself)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import streamlit as st

from bias_core.common.paths import REAL_NEWS
from bias_core.common.records import Document, Input, Summary
from bias_core.documents.corpus import CsvColumns, csv_header, load_documents, load_documents_from_bytes
from bias_core.reference.demo import DEMO_NEWS, DEMO_REVIEWS, ensure_demo_run
from bias_core.runs.run_info import RunInfo
from bias_core.runs.store import RunStore
from bias_core.safety.errors import BiasCoreError
from bias_core.views.precomputed import keep_piece, kept_for_older_code, precompute, stored_piece
from pages.parts import access, workspace
from pages.render import md_escape

if TYPE_CHECKING:  # imported where used: the summarizers' registry loads scikit-learn and networkx (issue 13)
    from bias_core.summarize import Summarizer, SummaryCache
    from bias_core.verdicts.findings import Finding

T = TypeVar("T")
# Real news first: the demo run audits these articles; the invented ones are kept for tests and as a small example.
DEMO_CORPORA = {"Real news (Wikinews)": REAL_NEWS, "Invented news articles": DEMO_NEWS,
                "Demo product reviews": DEMO_REVIEWS}
# Shown on Audit and Compare next to race perturbations: the changed pronouns are by design, not a bug (METHODS §1.4).
RACE_GENDER_NOTE = ("Pronouns may change: a race swap draws a gender for each person whose gender the text "
                    "does not show (Steen & Markert §10 draw every person's; see docs/fidelity.md).")
INTERSECTIONAL_GENDER_NOTE = ("Pronouns change: in each race-intersectional setting every person of one race gets "
                              "that setting's gender (Steen & Markert App. K).")


def load_secrets() -> None:
    """Read .streamlit/secrets.toml if there is one. Streamlit turns its root-level entries into environment
    variables, which is where summarizers (and audit workers, which inherit the environment) look for API keys; the
    keys themselves are never stored, exported or logged."""
    st.secrets.load_if_toml_exists()


@st.cache_data(show_spinner=False)
def run_attribution(run_id: str, updated: float) -> list[str]:
    """Who wrote the run's documents, under which license (``bias_core.views.attribution``); cached per run version."""
    from bias_core.views.attribution import attribution_lines

    return attribution_lines(run_store().documents(run_id))


@st.cache_data(show_spinner=False)
def demo_documents(name: str) -> list[Document]:
    return load_documents(DEMO_CORPORA[name])


@st.cache_resource(show_spinner="Loading the summarizer…")
def summarizer(name: str, params: tuple[tuple[str, object], ...] = ()) -> Summarizer:
    from bias_core.summarize import get_summarizer

    return get_summarizer(name, **dict(params))


def where_the_path_comes_from(error: Exception, option: str, variable: str, default: str) -> Exception:
    """The app's version of a file's error: the command line's advice ("choose a file with --store") becomes the
    environment variable the app took the path from, or, without one, says the path is the default and how to
    choose another."""
    if os.environ.get(variable):
        fix = f"set the environment variable {variable}, where this path comes from, to a file"
    else:
        fix = f"this is the default path ({default}); set the environment variable {variable} to another file"
    text = str(error)
    for advice in (f"choose a file with {option}", f"choose another with {option}", f"choose another {option}"):
        text = text.replace(advice, fix)
    if fix not in text:
        text += f" ({fix})"
    return type(error)(text)


@st.cache_resource
def summary_cache() -> SummaryCache:
    from bias_core.summarize import SummaryCache

    try:
        return SummaryCache()
    except BiasCoreError as error:
        raise where_the_path_comes_from(error, "--cache", "SUMMBIAS_CACHE",
                                        "summaries.sqlite in the user's cache folder") from None


@st.cache_resource
def run_store() -> RunStore:
    try:
        store = RunStore()
    except BiasCoreError as error:
        raise where_the_path_comes_from(error, "--store", "SUMMBIAS_STORE",
                                        "runs.sqlite in the user's data folder") from None
    if os.environ.get("SUMMBIAS_NO_DEMO") != "1":
        ensure_demo_run(store)  # the precomputed demo run, so a first start shows results at once
    return store


def corpus_picker() -> list[Document] | None:
    """Let the analyst choose a demo corpus or upload one (with CSV column mapping); the choice is kept in the
    session, so every page works on the same documents."""
    options = [*DEMO_CORPORA, "Upload a file"]
    if "corpus_choice" not in st.session_state and st.session_state.get("corpus_name"):
        # Streamlit forgets a widget's state when its page is left; the corpus itself is kept in the session, so
        # coming back shows the corpus in use instead of the first option (which would replace an upload with the
        # demo articles, and the next audit would audit the demo).
        name = st.session_state["corpus_name"]
        st.session_state["corpus_choice"] = name if name in DEMO_CORPORA else "Upload a file"
    choice = st.radio("Corpus", options, horizontal=True, key="corpus_choice")
    if choice != "Upload a file":
        if st.session_state.get("corpus_name") != choice:
            st.session_state["documents"] = demo_documents(choice)
            st.session_state["corpus_name"] = choice
            workspace.remember_context()
        return st.session_state["documents"]
    # No ``type=`` filter: bias_core checks the type and says what to upload instead, in the same words as the CLI.
    upload = st.file_uploader("A .txt, a .zip of .txt files, .jsonl or .csv (up to 20 MB)", key="corpus_upload")
    if upload is not None:
        data = upload.getvalue()
        columns = None
        try:
            if upload.name.lower().endswith(".csv"):
                columns = csv_column_picker(upload.name, data)
            documents = load_documents_from_bytes(upload.name, data, columns=columns)
        except BiasCoreError as error:
            st.error(f"Could not load the file. {md_escape(error)}")
            return None
        if st.session_state.get("corpus_name") != upload.name or st.session_state.get("documents") != documents:
            st.session_state["documents"] = documents
            st.session_state["corpus_name"] = upload.name
            workspace.remember_context(upload=(upload.name, data, columns))  # its bytes kept on disk
    elif st.session_state.get("corpus_name") in DEMO_CORPORA:
        st.session_state.pop("documents", None)
        st.session_state.pop("corpus_name", None)
        workspace.remember_context()
    elif st.session_state.get("documents"):
        # The file's bytes went with the page (a refresh or a page switch); its documents are kept for this tab.
        st.caption(md_escape(f"Using {st.session_state.get('corpus_name', 'the uploaded file')} "
                             f"({len(st.session_state['documents'])} documents), kept for this browser tab. Upload "
                             "another file to replace it."))
    documents = st.session_state.get("documents")
    if not documents:
        st.info("Upload a file to start, or pick a demo corpus.")
    return documents


def csv_column_picker(name: str, data: bytes) -> CsvColumns:
    """Ask which CSV columns hold the text, the id and (for reviews and other units) the group and value."""
    header = csv_header(name, data)
    none = "(none)"

    def pick(label: str, guess: str | None, key: str, optional: bool = True) -> str | None:
        choices = ([none] if optional else []) + header
        index = choices.index(guess) if guess in choices else 0
        value = st.selectbox(label, choices, index=index, key=key)
        return None if value == none else value

    columns = st.columns(4)
    with columns[0]:
        text = pick("Text column", "text" if "text" in header else None, "csv_text", optional=False)
    with columns[1]:
        doc_id = pick("Id column", "id" if "id" in header else None, "csv_id")
    with columns[2]:
        group = pick("Group rows into documents by", "doc_id" if "doc_id" in header else None, "csv_group")
    with columns[3]:
        guess = next((c for c in ("value", "label", "stars", "rating") if c in header), None)
        value = pick("Value (label, stars, speaker)", guess, "csv_value")
    return CsvColumns(text=text or "text", id=doc_id, value=value, group=group, detect=False)


def document_label(document: Document) -> str:
    title = document.meta.get("title")
    return f"{document.id} — {title}" if title else document.id


def _same(value: T) -> T:
    return value


def kept_or_computed(run_id: str, piece: str, compute: Callable[[], T], *,
                     encode: Callable[[T], Any] = _same, decode: Callable[[Any], T] = _same) -> T:
    """A piece of ``views.precomputed``: as kept with the run (``decode`` turns the JSON back into what ``compute``
    returns), else computed now and, for a completed run, kept (``encode``: its JSON; a running run changes before
    anyone reads it again). A store that refuses the write (read-only, full) costs only the next visit's time."""
    store = run_store()
    stored = stored_piece(store, run_id, piece)
    if stored is not None:
        return decode(stored)
    value = compute()
    try:
        if store.get_run(run_id).status == "completed":
            keep_piece(store, run_id, piece, encode(value))
    except BiasCoreError:
        logging.getLogger(__name__).warning("could not keep the %s of run %s", piece, run_id, exc_info=True)
    return value


@st.cache_resource(show_spinner=False, max_entries=64)
def views_recomputed(run_id: str, updated: float) -> threading.Thread | None:
    """A completed run whose kept views belong to an older version of the code (summbias was upgraded since it
    ended) has them computed again on a background thread, once per process: until then its pages compute what they
    show (Compare loads spaCy: 4–8 s on a 200-article run), and only until then. None when nothing is to be done."""
    try:
        store = run_store()
        if store.read_only or store.get_run(run_id).status != "completed" or not kept_for_older_code(store, run_id):
            return None
    except BiasCoreError:
        return None

    def recompute() -> None:
        try:
            precompute(run_store(), run_id)
        except Exception:  # the pages compute what they need, as before; a log line says why it was not kept
            logging.getLogger(__name__).warning("could not compute the views of run %s again", run_id, exc_info=True)

    thread = threading.Thread(target=recompute, name=f"summbias-views-{run_id}", daemon=True)
    thread.start()
    return thread


@st.cache_data(show_spinner="Loading the run…", max_entries=4)
def run_records(run_id: str, updated: float) -> tuple[list[Input], list[Summary]]:
    """A run's inputs and summaries; ``updated`` is part of the cache key so a growing run is re-read."""
    store = run_store()
    return store.inputs(run_id), store.summaries(run_id)


@st.cache_data(show_spinner="Reading the findings…", max_entries=8)
def findings_for(run_id: str, updated: float) -> list[Finding]:
    """The run's findings from ``bias_core.verdicts.findings`` (the one significance rule); ``updated`` is part of the
    cache key so a growing run is judged again. The demo run's are read as shipped with it (equal to what
    ``run_findings`` returns), so the first page computes nothing (issue 13); another run's as kept when it ended
    (``views.precomputed``, issue 31)."""
    from bias_core.reference.demo import demo_findings
    from bias_core.verdicts.findings import finding_as_dict, finding_from_dict, run_findings

    stored = demo_findings(run_id, updated)
    if stored is not None:
        return stored
    return kept_or_computed(run_id, "findings", lambda: run_findings(run_store(), run_id),
                            encode=lambda found: [finding_as_dict(finding) for finding in found],
                            decode=lambda kept: [finding_from_dict(item) for item in kept])


def select_run(run_id: str) -> None:
    """Make ``run_id`` the run the results pages show, in this session and in the URL (``?run=…``), so a refresh,
    back/forward or a shared link reopens the same run instead of the newest one."""
    st.session_state["run_id"] = run_id
    if st.query_params.get("run") != run_id:
        st.query_params["run"] = run_id


def note_unknown_link_values(key: str, options: Iterable[str], what: str) -> None:
    """Before a widget bound to the URL (``bind="query-params"``): one line when a link names a ``what`` this run
    does not have. Streamlit drops such a value silently and shows the default; the analyst should know the link
    did not open what it named. Only on the widget's first render in this session, when the URL is a link."""
    if key in st.session_state:
        return
    allowed = set(options)
    unknown = [value for value in st.query_params.get_all(key) if value not in allowed]
    if unknown:
        st.caption(md_escape(f"The link names the {what} {', '.join(unknown)}, which this run does not have; "
                             "showing the default instead."))


def current_run() -> RunInfo | None:
    """The run named in the URL, else the one chosen in this session, else the newest; says what to do when there
    is none. A run id in the URL is untrusted: one the store does not hold gets a one-line notice; a store that
    cannot be opened gets its one line (where its path came from and what to do)."""
    try:
        store = run_store()
        runs = access.visible(store.list_runs())  # sign-in on: what this visitor may see (pages.parts.access)
    except BiasCoreError as error:
        st.error(md_escape(f"The run store could not be opened. {error}"))
        return None
    by_id = {run.id: run for run in runs}
    linked = st.query_params.get("run")
    if linked and linked not in by_id:  # (sign-in on) another's private run reads the same as a missing one
        st.warning(f"The run {md_escape(linked)} named in the link is not in the run store"
                   + ("; showing another run." if runs else "."))
        linked = None
    if not runs:
        st.info("No runs yet. Start an audit on the Audit page, then come back here.")
        return None
    run_id = linked or st.session_state.get("run_id")
    if run_id not in by_id:  # the newest run that can be read
        run_id = next((run.id for run in runs if not run.damaged), runs[0].id)
    select_run(run_id)
    st.session_state["sidebar_run"] = run_id
    st.sidebar.selectbox("Run", list(by_id), key="sidebar_run", format_func=lambda rid: run_label(by_id[rid]),
                         on_change=lambda: select_run(st.session_state["sidebar_run"]))
    chosen = by_id[run_id]
    if chosen.damaged:  # one damaged run is named and skipped; every other run still opens
        st.error(md_escape(chosen.message))
        return None
    views_recomputed(chosen.id, chosen.updated)
    return chosen


def run_label(run: RunInfo) -> str:
    """A run as run pickers show it: its name and id, and "damaged" for a run whose stored row cannot be read."""
    return f"{run.name or 'unnamed'} · {run.id}" + (" · damaged" if run.damaged else "")


MEASURES_DOC = Path(__file__).resolve().parent.parent / "docs" / "measures.md"


@st.cache_data
def measure_sections() -> dict[str, str]:
    """The sections of docs/measures.md by their heading (the measure name)."""
    sections: dict[str, str] = {}
    current = None
    for line in MEASURES_DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = ""
        elif current:
            sections[current] += line + "\n"
    return sections


def measure_help(name: str) -> None:
    """An expander with the measure's documentation from docs/measures.md (formula, paper, how to read it)."""
    from bias_core.measures.applicable import in_words  # the pages calling this have loaded bias_core.measures

    text = measure_sections().get(name)
    if text:
        with st.expander(f"How to read {in_words(name)}: its formula and paper"):
            st.markdown(text)


FIDELITY_DOC = Path(__file__).resolve().parent.parent / "docs" / "fidelity.md"


def fidelity_help() -> None:
    """An expander with docs/fidelity.md (our own Markdown from the repository, so rendered as Markdown): where
    summbias follows or departs from each paper and its authors' code, and why."""
    with st.expander("How to read these results against the papers: where summbias departs from them"):
        try:
            st.markdown(FIDELITY_DOC.read_text(encoding="utf-8"))
        except OSError:
            st.caption(f"docs/fidelity.md could not be read from {md_escape(FIDELITY_DOC.parent)}; it is in the "
                       "repository's docs folder.")
