"""Corpus and Audit pages with AppTest: uploads, CSV mapping, validation messages, estimates, launching a run."""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO, launch_small_audit, open_app


@pytest.fixture
def app():
    """The app on its Corpus page with the 16 invented test articles chosen (real news is the default)."""
    at = open_app()
    at.radio(key="corpus_choice").set_value("Invented news articles").run()
    return at


def test_app_opens_on_the_corpus_page_with_the_real_news_articles():
    app = open_app()
    assert app.title[0].value == "Corpus"
    assert "42 documents ready: 42 articles." in app.success[0].value
    assert len(app.dataframe[0].value) == 42


def test_the_review_corpus_shows_units_and_their_values(app):
    app.radio(key="corpus_choice").set_value("Demo product reviews").run()
    table = app.dataframe[0].value
    assert len(table) == 3 and set(table["units"]) == {12}
    assert list(app.dataframe[1].value.columns) == ["value", "text"]


def test_the_chosen_corpus_is_kept_when_moving_to_the_audit_page(app):
    app.radio(key="corpus_choice").set_value("Demo product reviews").run()
    app.switch_page("pages/audit.py").run()
    assert not app.exception
    assert "— 3 sets of units." in app.markdown[0].value and "0 articles" not in app.markdown[0].value


def test_audit_page_without_a_corpus_says_where_to_pick_one():
    import streamlit as st

    st.cache_data.clear()
    at = AppTest.from_file(str(REPO / "pages" / "audit.py"), default_timeout=60)
    at.run()
    assert "Pick a corpus first." in at.info[0].value


def test_audit_page_estimates_the_work_from_the_real_inputs(app):
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value(["gender-glob"]).run()
    app.number_input(key="gender-glob_samples").set_value(2).run()
    app.multiselect(key="audit_summarizers").set_value(["lead-3", "textrank"]).run()
    assert not app.exception
    estimate = app.info[0].value
    # 16 identity inputs + 15 articles with gendered people × 2 draws × 2 arms (one article has no person).
    assert estimate.startswith("Estimate: 76 inputs × 2 summarizers = **152 summaries**")
    assert any("no gendered entity" in caption.value for caption in app.caption)


def test_running_an_audit_from_the_page_completes_in_the_background(app):
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value(["gender-glob"]).run()
    app.number_input(key="gender-glob_samples").set_value(1).run()
    store, info = launch_small_audit(app)
    assert info.status == "completed", info.message
    assert [m.measure for m in store.measures(info.id)] == ["distinguishability_count"]
    assert info.config["perturbations"][1]["params"]["samples"] == 1


def test_upload_page_says_what_to_do_before_a_file_is_chosen(app):
    app.radio(key="corpus_choice").set_value("Upload a file").run()
    assert "Upload a file to start" in app.info[0].value


def test_an_uploaded_article_becomes_the_corpus(app):
    app.radio(key="corpus_choice").set_value("Upload a file").run()
    app.file_uploader(key="corpus_upload").upload("council.txt", b"Mayor Robert Moore said he will resign.",
                                                  "text/plain").run()
    assert not app.exception
    assert "1 document ready: 1 article" in app.success[0].value
    assert app.session_state["documents"][0].id == "council"


def test_a_binary_upload_is_refused_with_a_plain_message(app):
    app.radio(key="corpus_choice").set_value("Upload a file").run()
    app.file_uploader(key="corpus_upload").upload("photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
                                                  "text/plain").run()
    assert not app.exception
    assert app.error[0].value.startswith("Could not load the file. photo.txt: looks like a binary file")


def test_a_csv_upload_asks_which_columns_hold_text_and_values(app):
    data = (b"hotel,review,score\nh1,Lovely stay,5\nh1,Dirty room,1\nh2,Fine,3\n")
    app.radio(key="corpus_choice").set_value("Upload a file").run()
    app.file_uploader(key="corpus_upload").upload("reviews.csv", data, "text/csv").run()
    assert app.selectbox(key="csv_text").value == "hotel"  # no 'text' column: the first one is offered
    app.selectbox(key="csv_text").set_value("review").run()
    app.selectbox(key="csv_group").set_value("hotel").run()
    app.selectbox(key="csv_value").set_value("score").run()
    assert not app.error
    documents = app.session_state["documents"]
    assert [(d.id, [u.value for u in d.units]) for d in documents] == [("h1", ["5", "1"]), ("h2", ["3"])]


def test_a_non_english_upload_loads_with_a_warning(app):
    from tests.test_language import GERMAN

    app.radio(key="corpus_choice").set_value("Upload a file").run()
    app.file_uploader(key="corpus_upload").upload("artikel.txt", GERMAN.encode(), "text/plain").run()
    assert not app.exception
    assert "1 document does not look like English: artikel" in app.warning[0].value


def test_race_name_source_defaults_to_bbq_with_its_attribution_and_no_threshold_sliders(app):
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value(["race"]).run()
    assert not app.exception
    assert app.radio(key="race_name_source").value == "bbq"
    assert not [slider for slider in app.slider if slider.key in ("race_first", "race_last")]
    assert any("CC-BY-4.0" in caption.value and "Parrish" in caption.value for caption in app.caption)
    app.radio(key="race_name_source").set_value("rosenman").run()
    assert not app.exception
    assert app.slider(key="race_first").value == 0.8 and app.slider(key="race_last").value == 0.8
    app.multiselect(key="audit_perturbations").set_value(["race", "race-intersectional"]).run()
    assert not app.exception and not app.error
    assert app.radio(key="race-intersectional_name_source").value == "bbq"
    assert not [slider for slider in app.slider if slider.key.startswith("race-intersectional")]


def test_the_chosen_race_name_source_and_thresholds_reach_the_launched_run(app):
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value(["race"]).run()
    app.radio(key="race_name_source").set_value("rosenman").run()
    app.slider(key="race_first").set_value(0.85).run()
    app.number_input(key="race_samples").set_value(1).run()
    app.multiselect(key="audit_measures").set_value(["entity_inclusion"]).run()
    app.select_slider(key="audit_bootstrap").set_value(200).run()
    assert not app.exception and not app.error
    app.button(key="audit_run").click().run()
    assert not app.exception
    from bias_core.runs.store import RunStore

    store = RunStore()
    run_id = app.session_state["run_id"]
    params = store.get_run(run_id).config["perturbations"][1]["params"]
    assert (params["name_source"], params["first_name_threshold"], params["last_name_threshold"]) == (
        "rosenman", 0.85, 0.8)
    deadline = time.time() + 180
    while time.time() < deadline and store.get_run(run_id).status in ("created", "running"):
        time.sleep(1)
    info = store.get_run(run_id)
    assert info.status == "completed", info.message
    assert info.reports["perturbations"]["race"]["run_info"]["name_source"] == "rosenman"


def test_the_audit_page_says_what_the_chosen_corpus_can_detect_before_anything_runs(app):
    """Power before a run (issue 19): per applicable measure, the smallest effect the corpus's articles detect with
    80% power and the articles a stated effect needs — the same figures ``bias_core.verdicts.power`` prints."""
    from bias_core.verdicts.power import planning_table

    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value(["gender-glob"]).run()
    app.multiselect(key="audit_summarizers").set_value(["lead-3"]).run()
    assert not app.exception
    (expander,) = [e for e in app.expander if e.label.startswith("Power: the smallest effect")]
    shown = [m.value.replace("\\", "") for m in expander.markdown]
    row = next(r for r in planning_table(16) if r.measure == "distinguishability_dense")
    assert any(line.startswith(f"{row.name} at 16 articles: detects {row.detects}") for line in shown), shown
    assert not any("entity inclusion" in line for line in shown)  # a gender-loc measure: not applicable here


def test_the_politician_picker_suggests_the_pairs_the_corpus_names_with_their_coverage(app):
    from bias_core.documents.corpus import load_documents
    from bias_core.perturb.politician_pairs import pair_coverage, suggest_pairs

    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value(["politician"]).run()
    assert not app.exception
    captions = [c.value for c in app.caption]
    assert any(c.startswith("Politicians this corpus names by full name (originals): Donald Trump 3") for c in captions)
    best = suggest_pairs(load_documents(REPO / "data" / "demo" / "news.jsonl"))[0]
    picker = app.multiselect(key="politician_pair_choice")
    assert picker.value == [best.label] and picker.options[0] == best.describe()
    covered = sum(pair_coverage(best.label, load_documents(REPO / "data" / "demo" / "news.jsonl")))
    assert any(f"covers {covered} originals" in c for c in captions)
    app.text_area(key="politician_pairs_free").set_value("Barack Obama=Mitt Romney").run()
    assert any("Barack Obama = Mitt Romney: covers 0 originals" in w.value and "no input" in w.value
               for w in app.warning)


def test_the_audit_page_lists_in_words_only_the_measures_the_setup_computes(app):
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value(["gender-glob"]).run()
    assert not app.exception
    picker = app.multiselect(key="audit_measures")
    assert "distinguishability, MiniLM embeddings" in picker.options
    assert not any("BUR" in option or "ΔI" in option or option == "bur" for option in picker.options)
    assert any(c.value.startswith("This audit computes: distinguishability, word counts") for c in app.caption)
    app.switch_page("pages/corpus.py").run()
    app.radio(key="corpus_choice").set_value("Demo product reviews").run()
    app.switch_page("pages/audit.py").run()
    options = app.multiselect(key="audit_measures").options
    assert "binary unfair rate" in options and not any("distinguishability" in o for o in options)  # code: tooltip


def test_going_back_to_corpus_keeps_the_upload_and_the_audit_audits_it(app):
    app.radio(key="corpus_choice").set_value("Upload a file").run()
    app.file_uploader(key="corpus_upload").upload("council.txt", b"Mayor Robert Moore said he will resign.",
                                                  "text/plain").run()
    app.switch_page("pages/audit.py").run()
    assert "council.txt" in app.markdown[0].value
    app.switch_page("pages/corpus.py").run()
    assert not app.exception
    assert app.radio(key="corpus_choice").value == "Upload a file"
    assert app.session_state["corpus_name"] == "council.txt"
    app.switch_page("pages/audit.py").run()
    assert "council.txt" in app.markdown[0].value and "1 article" in app.markdown[0].value
    assert [d.id for d in app.session_state["documents"]] == ["council"]


def test_the_sentiment_focus_value_is_a_stated_choice_from_the_corpus_values(app):
    from bias_core.documents.corpus import load_documents
    from bias_core.perturb.sentiment import SentimentConfig, corpus_values

    app.radio(key="corpus_choice").set_value("Demo product reviews").run()
    app.switch_page("pages/audit.py").run()
    assert not app.exception, app.exception
    values = corpus_values(load_documents(REPO / "data" / "demo" / "reviews.jsonl"), SentimentConfig())
    focus = app.selectbox(key="sent_focus")
    assert focus.options == [f"{value} ({count} units)" for value, count in values.items()]
    assert focus.value == next(iter(values))
    assert f"Default: {next(iter(values))}" in focus.help


def test_sentiment_on_articles_alone_offers_no_focus_value_and_no_error(app):
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value(["sentiment"]).run()
    assert not app.exception, app.exception
    assert not [box for box in app.selectbox if box.key == "sent_focus"]
