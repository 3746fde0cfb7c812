"""A browser tab's working state kept on the server under a token in the URL (``?ws=…``), so that a refresh — which
starts a new Streamlit session with an empty ``st.session_state`` — gets back the uploaded corpus, the Audit page's
settings and the run launched from it (issue 14).

Streamlit keeps nothing across a refresh except the URL, and an uploaded file's bytes are gone with the old
session; this module is the smallest store that bridges the two: an in-memory map from an unguessable token to the
tab's state, bounded in number (the oldest is forgotten first) and lost when the server stops.

A workspace belongs to the browser that made it (issue 23). The token in the URL travels with every copied link, so
it alone restores nothing: each workspace is bound to a random value kept in that browser's cookie
(``summbias_browser``, SameSite=Strict, set by a line of JavaScript the first time the browser opens the app, since
Streamlit sets no cookies of its own for an app), and a new session gets the workspace only when its browser sends
the same value. A link opened in another browser, or in a private window, shows no upload.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

PARAM = "ws"
TOKEN = "workspace_token"
# The cookie that tells this browser's sessions apart from others', and the session key of a value made for a browser
# that has not sent one yet.
COOKIE = "summbias_browser"
BROWSER = "workspace_browser"
# At most this many tabs are remembered, the least recently used forgotten first. Each holds at most one upload of up
# to 20 MB; a refresh adds a copy that shares the documents with its source rather than duplicating them.
MAX_WORKSPACES = 32
_TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]{20,64}$")
# The session-state keys that are the Audit page's settings (widget keys; the Run button is not a setting, nor is the
# review's cached corpus hash, which is derived from the documents).
SETTING_PREFIXES = ("audit_", "review_", "politician_", "sent_", "gender-loc_", "gender-glob_", "race_",
                    "race-intersectional_", "sentiment_")
NOT_SETTINGS = ("audit_run", "review_corpus_digest")
# Plain session keys that are part of a tab's context, restored with the settings.
CONTEXT_KEYS = ("documents", "corpus_name", "corpus_choice", "launched_run")


@dataclass
class Workspace:
    """What one tab keeps across a refresh."""

    browser: str = ""  # a hash of the value in the cookie of the browser that made it
    context: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    touched: float = field(default_factory=time.time)


@st.cache_resource
def _workspaces() -> tuple[OrderedDict[str, Workspace], threading.Lock]:
    return OrderedDict(), threading.Lock()


def browser_cookie() -> str | None:
    """The value of this browser's ``summbias_browser`` cookie as sent when the session started, if it has one of
    our shape (the cookie is untrusted)."""
    value = st.context.cookies.get(COOKIE)
    return value if isinstance(value, str) and _TOKEN_SHAPE.match(value) else None


def _browser() -> str:
    """A hash of this browser's value: its cookie's, else one made for this session (which ``bind_browser`` writes
    into the cookie)."""
    value = browser_cookie() or st.session_state.setdefault(BROWSER, secrets.token_urlsafe(32))
    return hashlib.sha256(value.encode()).hexdigest()


def bind_browser() -> None:
    """Give a browser that sent no cookie this session's value, so its next session (a refresh) is recognised. The
    value is made here (URL-safe characters only); the script only sets the cookie when the browser has none."""
    if browser_cookie():
        return
    value = st.session_state.setdefault(BROWSER, secrets.token_urlsafe(32))
    with st.sidebar:
        st.html(f"<script>if (!document.cookie.split('; ').some(c => c.startsWith('{COOKIE}='))) "
                f"document.cookie = '{COOKIE}={value}; path=/; SameSite=Strict';</script>",
                unsafe_allow_javascript=True)


def _lookup(token: str | None) -> Workspace | None:
    """The workspace ``token`` names, if this browser made it."""
    if not token or not _TOKEN_SHAPE.match(token):  # the URL is untrusted: only a token of our shape is looked up
        return None
    browser = _browser()
    spaces, lock = _workspaces()
    with lock:
        space = spaces.get(token)
        if space is None or not secrets.compare_digest(space.browser, browser):
            return None
        spaces.move_to_end(token)
        space.touched = time.time()
        return space


def _own() -> Workspace:
    """This tab's workspace, created (with a new token in the URL, bound to this browser) on first use."""
    browser = _browser()
    spaces, lock = _workspaces()
    token = st.session_state.get(TOKEN)
    with lock:
        if token not in spaces:
            token = secrets.token_urlsafe(24)
            spaces[token] = Workspace(browser=browser)
            while len(spaces) > MAX_WORKSPACES:
                spaces.popitem(last=False)
            st.session_state[TOKEN] = token
        spaces.move_to_end(token)
        space = spaces[token]
    if st.query_params.get(PARAM) != token:
        st.query_params[PARAM] = token
    return space


def restore() -> bool:
    """At the start of every script run: a new session whose URL names a workspace this browser made takes its
    state back (corpus, Audit settings, launched run); a session that has one keeps its token in the URL, which a
    page switch clears. True when something was restored."""
    token = st.session_state.get(TOKEN)
    if token is not None:
        if st.query_params.get(PARAM) != token and _lookup(token) is not None:
            st.query_params[PARAM] = token
        return False
    linked = st.query_params.get(PARAM)
    space = _lookup(linked)
    if space is None:
        if linked is not None:  # another browser's workspace, or one forgotten: the link restores nothing
            del st.query_params[PARAM]
        return False
    for key, value in {**space.context, **space.settings}.items():
        st.session_state.setdefault(key, value)
    # The new session continues on its own copy under a new token: a link opened in another tab of this browser
    # gives that tab the same starting point, but two tabs never write into one workspace.
    copy = _own()
    copy.context, copy.settings = dict(space.context), dict(space.settings)
    return bool(space.context or space.settings)


def remember_context() -> None:
    """Keep the tab's corpus and launched run (call after they change)."""
    context = {key: st.session_state[key] for key in CONTEXT_KEYS if key in st.session_state}
    if context or st.session_state.get(TOKEN):
        _own().context = context


def remember_settings() -> None:
    """Keep the Audit page's settings as they are now (call at the end of each run of that page)."""
    settings = {key: value for key, value in st.session_state.items()
                if isinstance(key, str) and key.startswith(SETTING_PREFIXES) and key not in NOT_SETTINGS}
    if settings:
        _own().settings = settings

