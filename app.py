"""summbias: the Streamlit entry point — the list of pages and the shared sidebar, nothing else."""

from pathlib import Path

import streamlit as st

from bias_core.safety.errors import BiasCoreError
from pages.common import load_secrets, run_store
from pages.parts import access, choices, workspace
from pages.parts.warming import warm_imports
from pages.render import md_escape

# The page icon is a file served by this server (a pair of scales drawn with Pillow): a ":material/…:" icon makes
# every browser fetch it from fonts.gstatic.com on every page load (issue 23).
st.set_page_config(page_title="summbias", page_icon=Path(__file__).parent / "assets" / "page_icon.png", layout="wide")
load_secrets()
# Sign-in when the operator configured it, and no page at all from a server open to the network without it (issue 30).
access.gate()
# A refresh starts a new session: take back this tab's corpus, Audit settings and launched run from the server
# (pages.parts.workspace, keyed by ?ws= in the URL and bound to this browser's cookie).
workspace.restore()

# Once a run exists (the demo run is imported on the first start) the app opens on what it found.
try:
    has_runs = bool(run_store().list_runs())
except BiasCoreError as error:  # a damaged or foreign store, or a folder: say so; the Corpus page still works
    st.sidebar.error(f"The run store could not be opened. {md_escape(error)}")
    has_runs = True  # the app opens where it always does; the Overview says what is wrong and how to fix it
# .streamlit/config.toml turns the sidebar navigation off so the pages/ folder's file names never show on the first
# page after a server start (issue 14); the navigation of this app's own pages is drawn.
st.set_option("client.showSidebarNavigation", True)
overview = st.Page("pages/overview.py", title="Overview", icon=":material/summarize:", default=has_runs)
navigation = st.navigation([
    *([overview] if has_runs else []),
    st.Page("pages/corpus.py", title="Corpus", icon=":material/library_books:", default=not has_runs),
    st.Page("pages/audit.py", title="Audit", icon=":material/tune:"),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare:"),
    st.Page("pages/fightin_words.py", title="Fightin' Words", icon=":material/sports_mma:"),
    st.Page("pages/metrics.py", title="Metrics", icon=":material/bar_chart:"),
    st.Page("pages/runs.py", title="Runs", icon=":material/history:"),
    st.Page("pages/summarize.py", title="Summarize one document", icon=":material/description:"),
    *([] if has_runs else [overview]),
])
st.sidebar.caption("summbias — audit text summarizers for bias. Everything shown here can be recomputed with "
                   "`python -m bias_core`.")
workspace.bind_browser()  # the cookie that keeps this browser's workspaces its own
choices.recall(navigation.url_path)
try:
    navigation.run()
finally:  # also when the page stops early (st.stop): the settings and choices made so far are kept
    if navigation.url_path == "audit":
        workspace.remember_settings()
    choices.remember(navigation.url_path)
    # Once the first page is drawn: the result pages' libraries, in the background while it is read.
    warm_imports()
