"""Sign-in and who may do what, for every page (issue 30): the policy of ``bias_core.runs.access`` read from the
secrets, the signed-in visitor from Streamlit's OpenID Connect (``st.login``, ``st.user``), and the gate app.py runs
before any page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from bias_core.runs.access import SETTINGS_TABLE, AccessPolicy, listening_problem
from bias_core.runs.run_info import Owner, RunInfo
from bias_core.runs.store import RunStore
from bias_core.safety.errors import BiasCoreError
from pages.render import md_escape

# The keys of [auth] (or of a provider's own table under it) that make a provider usable by st.login.
_PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")


def _auth_section() -> Mapping[str, Any]:
    try:
        section = st.secrets.get("auth")
    except (FileNotFoundError, BiasCoreError):  # no secrets file: sign-in is off
        return {}
    return section if isinstance(section, Mapping) else {}


def providers() -> list[str | None]:
    """The sign-in providers the secrets configure: None for the default one (its keys directly in ``[auth]``), a
    name for each ``[auth.<name>]`` table; empty when sign-in is off."""
    auth = _auth_section()
    if not auth.get("redirect_uri") or not auth.get("cookie_secret"):
        return []
    found: list[str | None] = [None] if all(auth.get(key) for key in _PROVIDER_KEYS) else []
    found += [name for name, value in auth.items()
              if isinstance(value, Mapping) and all(value.get(key) for key in _PROVIDER_KEYS)]
    return found


def policy() -> AccessPolicy:
    """The operator's policy (``[summbias]`` of the secrets); ``InputError`` for a setting that does not read."""
    try:
        settings = st.secrets.get(SETTINGS_TABLE)
    except FileNotFoundError:
        settings = None
    return AccessPolicy.from_settings(settings if isinstance(settings, Mapping) else None,
                                      sign_in=bool(providers()))


def visitor() -> Owner | None:
    """The signed-in visitor, or None. The subject is the provider's ``sub``, prefixed by the provider's name for a
    named provider, so two providers' users can never share a subject (nor take an admin's)."""
    if not providers() or not st.user.is_logged_in:
        return None
    subject = str(st.user.get("sub") or "")
    if not subject:
        return None
    provider = st.user.get("provider")
    if provider and provider != "default":
        subject = f"{provider}:{subject}"
    label = st.user.get("email") or st.user.get("name") or subject
    return Owner(subject, str(label))


def through_app() -> None:
    """First line of every page: a page Streamlit ran without app.py is run again through it.

    Until a script has called ``st.navigation`` once in this server process, Streamlit treats ``pages/`` as an
    old-style multipage folder and serves a deep link (``/runs?run=…``) by running that page alone: without app.py,
    so without sign-in, the sidebar and the cookie that binds workspaces (issue 30). The flag it keeps for that
    (``PagesManager.uses_pages_directory``, which ``st.navigation`` itself clears) is cleared here and the run starts
    again, now through app.py, on the same URL. A page run through app.py finds it cleared and goes on."""
    from streamlit.runtime.pages_manager import PagesManager  # the flag st.navigation clears; no public API has it

    # A session in which app.py has run (the gate keeps its finding) goes on: a rerun now would drop a widget's press
    # (Streamlit's AppTest sets the flag again before every run of a page).
    if PagesManager.uses_pages_directory and "_access" not in st.session_state:
        PagesManager.uses_pages_directory = False
        st.rerun()


def gate() -> tuple[AccessPolicy, Owner | None]:
    """Run before any page: stop with one line when the server must not serve (listening beyond this machine with
    sign-in off, or a setting that does not read), ask a visitor to sign in when sign-in is on, and put who is
    signed in in the sidebar. Returns the policy and the visitor for the pages."""
    try:
        rules = policy()
    except BiasCoreError as error:
        st.error(md_escape(f"The server's access settings do not read: {error}"))
        st.stop()
    problem = listening_problem(st.get_option("server.address"), rules)
    if problem:
        st.error(md_escape(problem))
        st.stop()
    if not rules.sign_in:
        st.session_state["_access"] = (rules, None)
        return rules, None
    person = visitor()
    if person is None:
        st.title("summbias")
        st.write("This server is shared by a team: sign in to see and start audits.")
        # Streamlit answers a provider it cannot reach with a bare page of its own; its log holds the cause.
        st.caption("A page that says only \"Authentication error\" means this server could not reach the sign-in "
                   "provider: the server's log says why; tell its operator.")
        for provider in providers():
            label = "Sign in" if provider is None else f"Sign in with {provider}"
            if st.button(label, key=f"sign_in_{provider or 'default'}", type="primary"):
                st.login() if provider is None else st.login(provider)
        st.stop()
    st.sidebar.text(f"Signed in as {person.label}")  # text: a name from the provider is never Markdown
    if rules.is_admin(person):
        st.sidebar.caption("You are an admin: you may resume, rename and delete every run.")
    if st.sidebar.button("Sign out", key="sign_out"):
        st.logout()
    st.session_state["_access"] = (rules, person)
    return rules, person


def current() -> tuple[AccessPolicy, Owner | None]:
    """The policy and visitor ``gate`` found for this script run (the defaults in a page run without app.py)."""
    return st.session_state.get("_access", (AccessPolicy(), None))


def visible(runs: list[RunInfo]) -> list[RunInfo]:
    """The runs this visitor may open."""
    rules, person = current()
    return rules.visible(person, runs)


def may_see_id(store: RunStore, run_id: str) -> bool:
    """Whether this visitor may see the stored run ``run_id`` (False when it cannot be read)."""
    rules, person = current()
    try:
        return rules.may_see(person, store.get_run(run_id))
    except BiasCoreError:
        return False


def refusal(run: RunInfo, action: str) -> str | None:
    """One line when this visitor may not ``action`` the run, else None."""
    rules, person = current()
    return rules.refusal(person, run, action)
