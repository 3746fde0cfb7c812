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

An upload is kept as its file's bytes on disk, in a private folder of this server that goes when it stops, and is
parsed again on a refresh; no workspace holds parsed documents in memory, so closing a tab frees them (issue 23). The
upload files of all workspaces take at most ``MAX_UPLOAD_BYTES``, the least recently used workspaces forgotten first.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import secrets
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from bias_core.common.records import Document
from bias_core.documents.corpus import CsvColumns, load_documents_from_bytes
from bias_core.safety.errors import BiasCoreError
from pages.parts import access

PARAM = "ws"
TOKEN = "workspace_token"
# The cookie that tells this browser's sessions apart from others', and the session key of a value made for a browser
# that has not sent one yet.
COOKIE = "summbias_browser"
BROWSER = "workspace_browser"
# At most this many tabs are remembered, and their upload files take at most MAX_UPLOAD_BYTES on disk (25 uploads of
# the 20 MB limit), the least recently used forgotten first. Without its upload a workspace is a few settings; tabs
# with the same upload (a refresh makes a copy) share one file.
MAX_WORKSPACES = 256
MAX_UPLOAD_BYTES = 512 * 2**20
# A workspace not used for this long is forgotten with its upload file (a tab left for a day starts afresh).
MAX_IDLE_SECONDS = 24 * 3600
# The session key of the upload the tab's documents came from: its file name, the name of its bytes on disk (their
# SHA-256), its size and the CSV column mapping it was read with.
UPLOAD = "workspace_upload"
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
    owner: str = ""  # sign-in on: the subject of the signed-in person who made it (issue 30); "" with sign-in off
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


def _owner() -> str:
    """Who is signed in in this session (their subject; "" with sign-in off): a workspace, and so an upload, is
    restored only to the person who made it."""
    person = access.current()[1]
    return person.subject if person is not None else ""


def forget_runs(kept: set[str]) -> None:
    """Forget the upload of every workspace whose launched run is not in ``kept`` (deleted, from this app or the
    command line), and delete upload files no workspace names any longer: an upload goes with its run."""
    spaces, lock = _workspaces()
    with lock:
        for space in spaces.values():
            launched = space.context.get("launched_run")
            if launched and launched not in kept and UPLOAD in space.context:
                for key in (UPLOAD, "corpus_name", "corpus_choice", "launched_run"):
                    space.context.pop(key, None)
        _forget_oldest(spaces)


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


@st.cache_resource
def _upload_folder() -> Path:
    """A folder only this server's user may read (``mkdtemp``), removed when the server stops."""
    folder = Path(tempfile.mkdtemp(prefix="summbias-uploads-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _upload_bytes(spaces: OrderedDict[str, Workspace]) -> int:
    files = {space.context[UPLOAD]["file"]: space.context[UPLOAD]["bytes"]
             for space in spaces.values() if UPLOAD in space.context}
    return sum(files.values())


def _forget_oldest(spaces: OrderedDict[str, Workspace]) -> None:
    """Forget the least recently used workspaces beyond the bounds (the newest is always kept), then every upload
    file no workspace names."""
    while len(spaces) > 1 and (len(spaces) > MAX_WORKSPACES or _upload_bytes(spaces) > MAX_UPLOAD_BYTES):
        spaces.popitem(last=False)
    idle = time.time() - MAX_IDLE_SECONDS
    while spaces and next(iter(spaces.values())).touched < idle:
        spaces.popitem(last=False)
    named = {space.context[UPLOAD]["file"] for space in spaces.values() if UPLOAD in space.context}
    for path in _upload_folder().iterdir():
        if path.name not in named:
            path.unlink(missing_ok=True)


def _read_upload(upload: dict[str, Any]) -> list[Document] | None:
    """The documents of a kept upload, parsed again from its bytes; None when its file was forgotten."""
    try:
        data = (_upload_folder() / upload["file"]).read_bytes()
        return load_documents_from_bytes(upload["name"], data, columns=upload["columns"])
    except (OSError, BiasCoreError):
        return None


def _lookup(token: str | None) -> Workspace | None:
    """The workspace ``token`` names, if this browser made it."""
    if not token or not _TOKEN_SHAPE.match(token):  # the URL is untrusted: only a token of our shape is looked up
        return None
    browser = _browser()
    spaces, lock = _workspaces()
    with lock:
        space = spaces.get(token)
        if space is None or not secrets.compare_digest(space.browser, browser) or space.owner != _owner():
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
            spaces[token] = Workspace(browser=browser, owner=_owner())
            _forget_oldest(spaces)
            st.session_state[TOKEN] = token
        spaces.move_to_end(token)
        space = spaces[token]
        space.touched = time.time()
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
    values = {**space.context, **space.settings}
    upload = values.pop(UPLOAD, None)
    if upload is not None:
        documents = _read_upload(upload)
        if documents is None:  # its file was forgotten: the tab starts without a corpus
            for key in ("corpus_name", "corpus_choice"):
                values.pop(key, None)
        else:
            values["documents"] = documents
            st.session_state[UPLOAD] = upload
    for key, value in values.items():
        st.session_state.setdefault(key, value)
    # The new session continues on its own copy under a new token: a link opened in another tab of this browser
    # gives that tab the same starting point, but two tabs never write into one workspace.
    copy = _own()
    copy.context, copy.settings = dict(space.context), dict(space.settings)
    return bool(space.context or space.settings)


def remember_context(upload: tuple[str, bytes, CsvColumns | None] | None = None) -> None:
    """Keep the tab's corpus and launched run (call after they change; with ``upload``, the file name, bytes and CSV
    column mapping the documents were just read from). An uploaded corpus is kept as its bytes on disk."""
    if upload is not None:
        name, data, columns = upload
        digest = hashlib.sha256(data).hexdigest()
        st.session_state[UPLOAD] = {"name": name, "file": digest, "bytes": len(data), "columns": columns}
    context = {key: st.session_state[key] for key in CONTEXT_KEYS if key in st.session_state}
    kept = st.session_state.get(UPLOAD)
    if kept is not None and kept["name"] == context.get("corpus_name") and "documents" in context:
        del context["documents"]  # the upload's documents: parsed again from its file on a refresh
        context[UPLOAD] = kept
    if context or st.session_state.get(TOKEN):
        space = _own()
        spaces, lock = _workspaces()
        with lock:  # the file is written and named before any other tab's forgetting can remove it
            if upload is not None:
                path = _upload_folder() / st.session_state[UPLOAD]["file"]
                if not path.exists():
                    partial = path.with_name(f"{path.name}.{secrets.token_hex(4)}.partial")
                    partial.write_bytes(upload[1])
                    os.replace(partial, path)
            space.context = context
            _forget_oldest(spaces)


def remember_settings() -> None:
    """Keep the Audit page's settings as they are now (call at the end of each run of that page)."""
    settings = {key: value for key, value in st.session_state.items()
                if isinstance(key, str) and key.startswith(SETTING_PREFIXES) and key not in NOT_SETTINGS}
    if settings:
        _own().settings = settings

