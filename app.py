"""summbias: the Streamlit entry point — the list of pages and the shared sidebar, nothing else."""

import streamlit as st

from pages.common import load_secrets

st.set_page_config(page_title="summbias", page_icon=":material/balance:", layout="wide")
load_secrets()

navigation = st.navigation([
    st.Page("pages/corpus.py", title="Corpus", icon=":material/library_books:", default=True),
    st.Page("pages/audit.py", title="Audit", icon=":material/tune:"),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare:"),
    st.Page("pages/fightin_words.py", title="Fightin' Words", icon=":material/sports_mma:"),
    st.Page("pages/metrics.py", title="Metrics", icon=":material/bar_chart:"),
    st.Page("pages/runs.py", title="Runs", icon=":material/history:"),
    st.Page("pages/summarize.py", title="Summarize one document", icon=":material/description:"),
])
st.sidebar.caption("summbias — audit text summarizers for bias. Everything shown here can be recomputed with "
                   "`python -m bias_core`.")
navigation.run()
