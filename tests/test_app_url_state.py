"""Links that survive a refresh (issue 14): the run lives in the URL, a reload keeps it rather than jumping to the
newest run (another tab's), an unknown run id in a link gets one line, the Audit page follows the run it launched
after a refresh, and a run is named after its corpus and perturbations until the analyst names it."""

from __future__ import annotations

import time

import streamlit as st
from streamlit.testing.v1 import AppTest

from bias_core.runs.config import default_run_name
from bias_core.runs.store import RunStore
from bias_core.views.sides import side_labels
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
    at.radio(key="corpus_choice").set_value("Invented news articles").run()
    at.switch_page("pages/audit.py").run()
    assert at.text_input(key="audit_name").value == "Invented news articles · gender-glob"
    at.multiselect(key="audit_perturbations").set_value(["gender-glob", "race"]).run()
    assert at.text_input(key="audit_name").value == "Invented news articles · gender-glob, race"
    at.text_input(key="audit_name").input("my audit").run()
    at.multiselect(key="audit_perturbations").set_value(["race"]).run()
    assert at.text_input(key="audit_name").value == "my audit"


def demo_store_path(tmp_path, monkeypatch) -> str:
    from bias_core.reference.demo import ensure_demo_run

    monkeypatch.setenv("SUMMBIAS_STORE", str(tmp_path / "runs.sqlite"))
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = ensure_demo_run(store)
    store.close()
    return run_id


def test_a_link_with_compare_choices_reopens_that_view(tmp_path, monkeypatch):
    run_id = demo_store_path(tmp_path, monkeypatch)
    at = reopen("pages/compare.py", run=run_id, compare_perturbation="sentiment",
                compare_original="reviews-01-headphones", compare_a="sentiment · 20% of the reviews rated 1 star, sample 1",
                compare_summarizers="textrank")
    assert at.selectbox(key="compare_perturbation").value == "sentiment"
    assert at.selectbox(key="compare_original").value == "reviews-01-headphones"
    labels = side_labels(item for item in RunStore().inputs(run_id) if item.original_id == "reviews-01-headphones")
    assert labels[at.selectbox(key="compare_a").value] == "sentiment · 20% of the reviews rated 1 star, sample 1"
    assert at.multiselect(key="compare_summarizers").value == ["textrank"]
    assert [h.value for h in at.subheader] == ["textrank"]


def test_a_link_with_a_value_the_run_lacks_says_so_and_shows_the_default(tmp_path, monkeypatch):
    run_id = demo_store_path(tmp_path, monkeypatch)
    at = reopen("pages/fightin_words.py", run=run_id, fw_summarizer="[gpt](http://x)", fw_top_k="30")
    notes = [c.value for c in at.caption]
    assert any("The link names the summarizer" in note and md_escape("[gpt](http://x)") in note for note in notes)
    assert at.selectbox(key="fw_summarizer").value in {"lead-3", "sexist", "smollm2", "textrank"}
    assert at.slider(key="fw_top_k").value == 30


def test_a_link_with_fightin_words_and_metrics_choices_reopens_those_views(tmp_path, monkeypatch):
    run_id = demo_store_path(tmp_path, monkeypatch)
    at = reopen("pages/fightin_words.py", run=run_id, fw_perturbation="gender-loc", fw_summarizer="textrank",
                fw_content_only="false")
    assert (at.selectbox(key="fw_perturbation").value, at.selectbox(key="fw_summarizer").value) == \
        ("gender-loc", "textrank")
    assert at.toggle(key="fw_content_only").value is False
    at = reopen("pages/metrics.py", run=run_id, metrics_family="Perspective fairness")
    assert at.radio(key="metrics_family").value == "perspective fairness"
    assert [h.value for h in at.subheader] == ["bur", "uer", "auc", "sof"]


def test_a_new_session_with_the_tabs_token_gets_the_upload_back_in_the_same_browser_only(monkeypatch):
    """What a browser refresh does: the same URL, a new session, the same server (caches and workspaces kept), and
    the same browser cookie (AppTest sends none, so the cookie is set here). Another browser with the same link gets
    nothing (issue 23)."""
    from pages.parts import workspace
    from tests.conftest import open_app

    monkeypatch.setattr(workspace, "browser_cookie", lambda: "this-browser-" + "b" * 24)
    at = open_app("pages/corpus.py")
    at.radio(key="corpus_choice").set_value("Upload a file").run()
    at.file_uploader(key="corpus_upload").upload("council.txt", b"Mayor Robert Moore said he will resign.",
                                                 "text/plain").run()
    token = at.query_params["ws"]
    token = token[0] if isinstance(token, list) else token
    refreshed = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    refreshed.query_params["ws"] = token
    refreshed.run()
    assert not refreshed.exception, refreshed.exception
    assert [d.id for d in refreshed.session_state["documents"]] == ["council"]
    assert refreshed.session_state["corpus_name"] == "council.txt"
    assert refreshed.session_state["workspace_token"] != token  # its own copy: two tabs never share one
    stranger = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    stranger.query_params["ws"] = "x" * 32  # a token the server never gave out restores nothing
    stranger.run()
    assert stranger.session_state["workspace_token"] != "x" * 32
    assert stranger.session_state["corpus_name"] != "council.txt"
    monkeypatch.setattr(workspace, "browser_cookie", lambda: "another-browser-" + "c" * 24)
    other = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    other.query_params["ws"] = token  # the copied link, opened in another browser
    other.run()
    assert not other.exception, other.exception
    assert other.session_state["corpus_name"] != "council.txt"
    assert all(d.id != "council" for d in other.session_state["documents"])
    assert other.query_params.get("ws") != token  # the link's token gave way to the session's own


def test_compare_choices_in_the_url_do_not_follow_the_analyst_to_another_page(tmp_path, monkeypatch):
    run_id = demo_store_path(tmp_path, monkeypatch)
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    for key, value in {"run": run_id, "compare_perturbation": "sentiment", "compare_summarizers": "textrank",
                       "evidence_a": "x", "evidence_b": "y"}.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("pages/compare.py").run()
    at.switch_page("pages/summarize.py").run()
    assert not at.exception
    assert not [key for key in at.query_params if key.startswith(("compare_", "evidence_", "fw_", "metrics_"))]
    assert run_id in str(at.query_params.get("run"))
