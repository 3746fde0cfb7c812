"""The app's page logic through Streamlit's AppTest (the browser journey is in tests/browser)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.fixture
def app():
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


def test_app_opens_on_the_demo_corpus_with_a_document_selected(app):
    assert app.title[0].value == "Summarize a document"
    assert app.radio(key="corpus_choice").value == "Demo news articles"
    document = app.selectbox(key="summarize_document")
    assert len(document.options) == 16


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


def test_an_endpoint_that_is_down_shows_a_message_not_a_traceback(app):
    app.selectbox(key="summarize_summarizer").set_value("OpenAI-compatible endpoint (openai:)").run()
    app.text_input[0].set_value("llama3")
    app.text_input[1].set_value("http://127.0.0.1:9/v1")
    app.number_input[0].set_value(1.0).run()
    app.button[0].click().run()
    assert not app.exception
    assert "could not connect" in app.error[0].value
