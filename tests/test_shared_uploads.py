"""Uploads on a shared server (issue 30, Deliver 4): an upload belongs to the person signed in when it was made, and
its file goes with its run — before this, it stayed in the server's temporary folder until the server stopped."""

from __future__ import annotations

import streamlit as st
from streamlit.testing.v1 import AppTest

from bias_core.runs.store import RunStore
from tests.conftest import REPO, launch_small_audit

AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "x" * 40, "client_id": "summbias",
        "client_secret": "s", "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}
ARTICLE = b"Mayor Robert Moore said he will resign. Moore thanked his staff and his wife."


def session(user: str | None = None, token: str | None = None) -> AppTest:
    """A new session of the same browser (so the same cookie), signed in as ``user`` when given."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    if user:
        at.secrets["auth"] = AUTH
        at.user = {"is_logged_in": True, "sub": user, "email": f"{user}@example.org"}
    if token:
        at.query_params["ws"] = token
    at.run()
    assert not at.exception, at.exception
    return at


def upload(at: AppTest) -> str:
    at.switch_page("pages/corpus.py").run()
    at.radio(key="corpus_choice").set_value("Upload a file").run()
    at.file_uploader(key="corpus_upload").upload("council.txt", ARTICLE, "text/plain").run()
    token = at.query_params["ws"]
    return token[0] if isinstance(token, list) else token


def test_an_upload_is_restored_to_the_person_who_made_it_not_to_another_in_the_same_browser(monkeypatch):
    from pages.parts import workspace

    st.cache_data.clear()
    st.cache_resource.clear()
    monkeypatch.setattr(workspace, "browser_cookie", lambda: "one-shared-browser-" + "b" * 24)
    token = upload(session("alice"))
    assert session("alice", token).session_state["corpus_name"] == "council.txt"  # her refresh
    bob = session("bob", token)  # the same computer, the link in its history, another person signed in
    assert bob.session_state["corpus_name"] != "council.txt"
    assert all(document.id != "council" for document in bob.session_state["documents"])


def audited_upload(monkeypatch, browser: str):
    """An upload audited from the app in one browser (the identity arm only: seconds); its app, store, finished run
    and the server's upload folder, which holds the upload's bytes for a refresh."""
    from pages.parts import workspace

    st.cache_data.clear()
    st.cache_resource.clear()
    monkeypatch.setattr(workspace, "browser_cookie", lambda: "one-browser-" + browser * 24)
    at = session()
    upload(at)
    at.switch_page("pages/audit.py").run()
    at.multiselect(key="audit_perturbations").set_value([]).run()
    store, run = launch_small_audit(at)
    assert run.status == "completed", run.message
    folder = workspace._upload_folder()
    assert list(folder.iterdir())
    return at, store, run, folder


def test_an_uploads_file_is_deleted_with_its_run(tmp_path, monkeypatch):
    at, _store, run, folder = audited_upload(monkeypatch, "d")
    at.switch_page("pages/runs.py").run()
    at.selectbox(key="runs_selected").set_value(run.id).run()
    at.checkbox(key="runs_confirm_delete").check().run()
    at.button(key="runs_delete").click().run()
    assert not at.exception and not RunStore().has_run(run.id)
    assert list(folder.iterdir()) == []


def test_an_uploads_file_goes_when_its_run_is_deleted_from_the_command_line(tmp_path, monkeypatch):
    from bias_core.runs.launch import delete_run

    _at, store, run, folder = audited_upload(monkeypatch, "e")
    delete_run(store, run.id)  # what `python -m bias_core runs --delete` does, in another process
    session().switch_page("pages/runs.py").run()  # anyone's next look at the runs
    assert list(folder.iterdir()) == []
