"""The app's page logic through Streamlit's AppTest (the browser journey is in tests/browser)."""

from __future__ import annotations

import pytest

from tests.conftest import open_app


@pytest.fixture
def app():
    return open_app("pages/summarize.py")


def test_app_opens_on_the_real_news_demo_corpus_with_a_document_selected(app):
    assert app.title[0].value == "Summarize a document"
    assert app.radio(key="corpus_choice").value == "Real news (Wikinews)"
    document = app.selectbox(key="summarize_document")
    assert len(document.options) == 42


def test_summarizing_a_demo_document_with_lead_3_shows_its_first_sentences(app):
    app.selectbox(key="summarize_document").set_value(app.selectbox(key="summarize_document").options[1])
    app.selectbox(key="summarize_summarizer").set_value("lead-3")
    app.button[0].click().run()
    assert not app.exception
    assert app.subheader[0].value == "Summary by lead-3"
    document = app.selectbox(key="summarize_document").value
    assert app.text[0].value == " ".join(app.dataframe[0].value.query("`in summary`")["sentence"])
    assert document.full_text.startswith(app.text[0].value.split(".")[0])
    table = app.dataframe[0].value
    assert list(table.columns) == ["in summary", "score", "sentence"] and table["in summary"].sum() == 3


def test_switching_to_the_review_corpus_lists_its_documents(app):
    app.radio(key="corpus_choice").set_value("Demo product reviews").run()
    assert len(app.selectbox(key="summarize_document").options) == 3


def test_an_endpoint_that_is_down_shows_a_message_not_a_traceback(app, tmp_path, monkeypatch):
    (tmp_path / "endpoints.toml").write_text('[[endpoints]]\nname = "down"\nbase_url = "http://127.0.0.1:9/v1"\n')
    monkeypatch.setenv("SUMMBIAS_ENDPOINTS", str(tmp_path / "endpoints.toml"))
    app.selectbox(key="summarize_summarizer").set_value("OpenAI-compatible endpoint (openai:)").run()
    app.text_input(key="summarize_openai_model").set_value("llama3").run()
    app.number_input[0].set_value(1.0).run()
    app.button[0].click().run()
    assert not app.exception
    assert "could not connect" in app.error[0].value


def stored_run(name: str = "stored run", value: float = 0.2) -> str:
    from bias_core.common.records import MeasureResult, Summary
    from bias_core.runs.store import RunStore

    store = RunStore()
    run_id = store.create_run({"summarizers": [{"name": "lead-3", "params": {}}],
                               "perturbations": [{"name": "identity", "params": {}}]}, name, {"seed": 0}, name=name)
    store.add_summaries(run_id, [Summary("d/identity", "lead-3", "<script>alert(1)</script> A summary.")])
    store.replace_measures(run_id, [MeasureResult("entity_inclusion", value, 12, "gender-loc", "lead-3", 0.05,
                                                  0.4, "d")])
    store.update_run(run_id, status="completed", done=1, total=1)
    return run_id


def test_runs_page_says_what_to_do_when_the_store_is_empty(app):
    app.switch_page("pages/runs.py").run()
    assert "No runs yet" in app.info[0].value


def test_runs_page_lists_runs_exports_them_and_compares_two(app):
    first = stored_run("first", 0.2)
    second = stored_run("second", 0.5)
    app.switch_page("pages/runs.py").run()
    assert not app.exception
    listed = app.dataframe[0].value
    assert set(listed["run"]) == {first, second}
    app.selectbox(key="runs_selected").set_value(first).run()
    assert app.session_state["run_id"] == first
    # each export is made on its click, and the click must not rerun the page: a rerun replaces the clicked export's
    # id, and on a loaded machine the download was then lost
    exports = app.get("download_button")
    assert [(b.proto.label, b.proto.ignore_rerun, bool(b.proto.deferred_file_id)) for b in exports] == [
        (label, True, True) for label in ("Report (HTML)", "Everything (JSON)", "Measures (CSV)", "Summaries (CSV)")]
    board = app.dataframe[1].value
    assert list(board.columns) == ["measure", "run", "summarizer", "estimate", "95% interval", "n", "verdict",
                                   "favoured", "distance from no bias"]
    assert list(zip(board["run"], board["estimate"], board["95% interval"], board["n"])) == [
        ("first", "0.200", "[0.050, 0.400]", 12), ("second", "0.500", "[0.050, 0.400]", 12)]  # closest to no bias first


def test_deleting_a_run_needs_confirmation(app):
    stored_run()
    app.switch_page("pages/runs.py").run()
    delete = app.button(key="runs_delete")
    assert delete.disabled
    app.checkbox(key="runs_confirm_delete").check().run()
    app.button(key="runs_delete").click().run()
    from bias_core.runs.store import RunStore

    assert RunStore().list_runs() == [] and "run_id" not in app.session_state
    assert "No runs yet" in app.info[0].value
