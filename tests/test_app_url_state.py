"""Links that survive a refresh (issue 14): the run lives in the URL, a reload keeps it rather than jumping to the
newest run (another tab's), an unknown run id in a link gets one line, the Audit page follows the run it launched
after a refresh, and a run is named after its corpus and perturbations until the analyst names it."""

from __future__ import annotations

import time

import streamlit as st
from streamlit.testing.v1 import AppTest

from bias_core.audit import default_run_name
from bias_core.store import RunStore
from pages.render import md_escape
from tests.conftest import REPO


def make_runs(path, names):
    store = RunStore(path)
    ids = []
    for index, name in enumerate(names):
        ids.append(store.create_run({"seed": index, "perturbations": [], "summarizers": []}, f"h{index}", {},
                                    name=name))
        time.sleep(1.1)  # run ids and order come from the creation time
    store.close()
    return ids


def reopen(page: str, **params: str) -> AppTest:
    """A new session (what a browser refresh starts) on ``page`` with the URL's query parameters."""
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(REPO / page), default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_reload_keeps_the_run_in_the_url_even_when_another_tab_made_a_newer_one(tmp_path, monkeypatch):
    monkeypatch.setenv("SUMMBIAS_STORE", str(tmp_path / "runs.sqlite"))
    older, newer = make_runs(tmp_path / "runs.sqlite", ["mine", "another tab's"])
    at = reopen("pages/runs.py", run=older)
    assert at.selectbox(key="runs_selected").value == older
    at = reopen("pages/metrics.py", run=older)
    assert at.selectbox(key="sidebar_run").value == older
    assert at.query_params["run"] == [older] or at.query_params["run"] == older
    at = reopen("pages/metrics.py")
    assert at.selectbox(key="sidebar_run").value == newer  # no link: the newest run, as before


def test_choosing_a_run_in_the_sidebar_writes_it_to_the_url(tmp_path, monkeypatch):
    monkeypatch.setenv("SUMMBIAS_STORE", str(tmp_path / "runs.sqlite"))
    older, newer = make_runs(tmp_path / "runs.sqlite", ["first", "second"])
    at = reopen("pages/metrics.py", run=newer)
    at.selectbox(key="sidebar_run").set_value(older).run()
    assert at.selectbox(key="sidebar_run").value == older
    assert older in str(at.query_params["run"])


def test_an_unknown_run_in_a_link_gets_one_line_and_the_newest_run(tmp_path, monkeypatch):
    monkeypatch.setenv("SUMMBIAS_STORE", str(tmp_path / "runs.sqlite"))
    _, newer = make_runs(tmp_path / "runs.sqlite", ["first", "second"])
    at = reopen("pages/metrics.py", run="*nope*](http://x)")
    assert at.selectbox(key="sidebar_run").value == newer
    warnings = [w.value for w in at.warning]
    assert any("not in the run store" in w for w in warnings)
    assert any(md_escape("*nope*](http://x)") in w for w in warnings)  # shown as text, never as a link


def test_after_a_refresh_the_audit_page_shows_the_run_it_launched(tmp_path, monkeypatch):
    monkeypatch.setenv("SUMMBIAS_STORE", str(tmp_path / "runs.sqlite"))
    (run_id,) = make_runs(tmp_path / "runs.sqlite", ["news.jsonl · gender-glob"])
    at = reopen("app.py")
    at.switch_page("pages/audit.py")
    at.query_params["following"] = run_id  # the URL a refresh of the Audit page reloads
    at.run()
    assert not at.exception, at.exception
    assert any(run_id in info.value for info in at.info)
    assert not any("Pick a corpus first" in info.value for info in at.info)


def test_a_run_is_named_after_its_corpus_and_perturbations_until_the_analyst_names_it():
    assert default_run_name("articles.jsonl", ["identity", "gender-glob", "race"]) == \
        "articles.jsonl · gender-glob, race"
    assert default_run_name("", ["identity"]) == "uploaded corpus · originals only"
    from tests.conftest import open_app

    at = open_app("pages/corpus.py")
    at.radio(key="corpus_choice").set_value("Demo news articles").run()
    at.switch_page("pages/audit.py").run()
    assert at.text_input(key="audit_name").value == "Demo news articles · gender-glob"
    at.multiselect(key="audit_perturbations").set_value(["gender-glob", "race"]).run()
    assert at.text_input(key="audit_name").value == "Demo news articles · gender-glob, race"
    at.text_input(key="audit_name").input("my audit").run()
    at.multiselect(key="audit_perturbations").set_value(["race"]).run()
    assert at.text_input(key="audit_name").value == "my audit"
