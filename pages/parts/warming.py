"""The result pages' libraries, imported in the background once the first page is drawn, and only while no page is
being drawn (issue 31, Deliver 6).

Importing holds the interpreter lock for most of its time, so an import running beside a page halves that page's
speed: a reader who clicked Fightin' Words in the first second after the start waited 2.4 s on a 200-article run,
against 1.0 s once the imports were done. The warming thread therefore imports one small piece at a time and, before
each, waits until no page is being drawn; a page that needs a piece meanwhile imports it itself.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable

import streamlit as st


def draw_a_figure() -> None:
    """Plotly builds the page's template and its validators on the first figure of a process (0.2 s)."""
    import plotly.graph_objects as go

    go.Figure(go.Scatter(x=[0], y=[0])).update_layout(template="plotly_white")


# In the order the pages need them, cut where a step takes more than about 0.1 s on its own (scipy.stats alone
# takes 0.9 s, most of it in the submodules listed before it), so a page that starts meanwhile waits for at most one
# piece: a module's name, or a function. (The measures package is not among them: the first render imports it.)
WARM_STEPS = (
    "pandas", "pyarrow", "plotly.graph_objects", draw_a_figure, "scipy.special", "scipy.linalg", "scipy.sparse",
    "scipy.spatial",
    "scipy.optimize", "scipy.integrate", "scipy.interpolate", "scipy.ndimage", "scipy.stats._distn_infrastructure",
    "scipy.stats.distributions", "scipy.stats", "statsmodels.stats.multitest",
)
# The longest the warming waits for the pages to be idle before it imports the next piece anyway (a page that polls
# an audit's progress every second must not leave every other page cold).
PATIENCE_S = 5.0
POLL_S = 0.02
# Streamlit draws every page run (and fragment rerun) of every session on a thread of this name, which ends when the
# run does; no public API says whether a run is in progress. Should the name change, no page looks busy and the
# warming imports straight on, as it did before it waited.
SCRIPT_THREAD = "ScriptRunner.scriptThread"


def page_being_drawn() -> bool:
    """Whether any session's page is being drawn now (on a thread other than the caller's)."""
    me = threading.current_thread()
    return any(thread.name == SCRIPT_THREAD and thread is not me and thread.is_alive()
               for thread in threading.enumerate())


def pages_idle(patience: float, busy: Callable[[], bool] = page_being_drawn) -> bool:
    """Wait until no page is being drawn; False when ``patience`` seconds passed first."""
    deadline = time.monotonic() + patience
    while busy():
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)
    return True


def warm(steps: tuple[str | Callable[[], None], ...] = WARM_STEPS, patience: float = PATIENCE_S,
         busy: Callable[[], bool] = page_being_drawn) -> None:
    """Take ``steps`` one by one (import a module, or call a function), each once no page is being drawn (or after
    ``patience`` seconds)."""
    for step in steps:
        pages_idle(patience, busy)
        try:
            importlib.import_module(step) if isinstance(step, str) else step()
        except Exception:  # a missing optional piece only costs the page that needs it its import
            logging.getLogger(__name__).debug("warming %s failed", step, exc_info=True)


@st.cache_resource(show_spinner=False)
def warm_imports() -> threading.Thread:
    """Start ``warm`` on a daemon thread, once per server process."""
    thread = threading.Thread(target=warm, name="summbias-warm-imports", daemon=True)
    thread.start()
    return thread
