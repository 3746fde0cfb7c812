"""The choices made on a results page, remembered for the session per page and run, so that coming back to the page
(the browser's Back button, or the sidebar) shows them again.

The choices are widgets bound to the URL (``bind="query-params"``), which covers a reload and a shared link. It does
not cover Back: Streamlit rewrites the URL in place as choices change and clears the page's parameters when another
page is opened, so the history entry Back returns to has none of them; and a widget's state is dropped when its page
is left. Both go through ``app.py`` (``recall`` before the page runs, ``remember`` after).
"""

from __future__ import annotations

import streamlit as st

# The pages whose choices are remembered, by URL path, with the prefix of their widget keys.
PAGES = {"compare": "compare_", "fightin_words": "fw_", "metrics": "metrics_"}
MEMORY = "remembered_choices"
LAST_PAGE = "last_page"
# Keys under those prefixes that are not choices to bring back.
NOT_CHOICES = ("fw_plot", "fw_clicked", "metrics_run")
# Streamlit drops a link's whole query string when it holds more than 1,000 parameters or 512 Ki characters
# (streamlit.runtime.state.query_params.sanitize_query_string), and says so only in the server's log. The wrapper
# below hands the page this parameter instead, holding the number of parameters dropped, so the page can say so.
IGNORED_LINK = "ignored_link_parameters"


def _note_ignored_links() -> None:
    """Wrap the check Streamlit applies to each rerun's query string (once per server process): a query string it
    drops becomes ``ignored_link_parameters=<count>``."""
    from streamlit.runtime import app_session

    check = app_session.sanitize_query_string
    if getattr(check, "notes_ignored_links", False):
        return

    def sanitize(query_string: str) -> str:
        kept = check(query_string)
        return f"{IGNORED_LINK}={query_string.count('&') + 1}" if query_string and not kept else kept

    sanitize.notes_ignored_links = True  # type: ignore[attr-defined]
    app_session.sanitize_query_string = sanitize


def report_ignored_link() -> None:
    """One line when the link that opened this page was too long for Streamlit to read (issue 23): its parameters
    were ignored, so the page shows its defaults, not the view the link named."""
    _note_ignored_links()
    count = st.query_params.get(IGNORED_LINK)
    if count is None:
        return
    del st.query_params[IGNORED_LINK]
    if count.isdigit():
        st.warning(f"This link's parameters were ignored: it has {int(count):,} of them, more than the 1,000 (or "
                   "512 Ki characters) this server reads, so the page opens with its defaults.")


def _run() -> str | None:
    return st.query_params.get("run") or st.session_state.get("run_id")


def recall(page: str) -> None:
    """Before ``page`` runs, when the analyst arrives on it from another page: the choices last made on it for this
    run come back, except those the URL names, which take the URL's value. (Reruns on the page keep what was just
    chosen.)"""
    report_ignored_link()
    arrived = st.session_state.get(LAST_PAGE) != page
    st.session_state[LAST_PAGE] = page
    if not arrived:
        return
    remembered = st.session_state.get(MEMORY, {}).get((page, _run()), {})
    prefix = PAGES.get(page)
    if prefix is not None:
        # A link that names a choice defines the view: a value this session still holds for it from the last visit
        # (Streamlit keeps a bound widget's state while its page is away) would otherwise win over the URL, and an
        # evidence link would open the previous pair's original.
        for key in [key for key in st.query_params if key.startswith(prefix)]:
            st.session_state.pop(key, None)
    for key, value in remembered.items():
        if key not in st.query_params:
            st.session_state[key] = value


def remember(page: str) -> None:
    """After ``page`` ran (also when it stopped early): keep its choices for this run."""
    prefix = PAGES.get(page)
    if prefix is None:
        return
    choices = {key: value for key, value in st.session_state.items()
               if isinstance(key, str) and key.startswith(prefix) and key not in NOT_CHOICES}
    st.session_state.setdefault(MEMORY, {})[(page, _run())] = choices
