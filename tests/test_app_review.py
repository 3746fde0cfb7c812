"""The Audit page's "Review the swaps" section with AppTest: the checklist and sample show before the summarizers,
excluding an original lowers the input count and reaches the launched run, the agreement switch (on by default)
rewrites "chairman" and off keeps Steen & Markert's strict scope, and the race settings offer only race-relevant
options."""

from __future__ import annotations

import re

import pytest

from tests.conftest import launch_small_audit, open_app

RIVERMOUTH = "news-16-sports-rivermouth-late-goal"


def invented_audit_page():
    """The Audit page on the 16 invented test articles (the default corpus is real news)."""
    app = open_app("pages/corpus.py")
    app.radio(key="corpus_choice").set_value("Invented news articles").run()
    app.switch_page("pages/audit.py").run()
    return app


def _gender_glob_audit():
    app = invented_audit_page()
    app.multiselect(key="audit_perturbations").set_value(["gender-glob"]).run()
    app.number_input(key="gender-glob_samples").set_value(1).run()
    assert not app.exception, app.exception
    return app


@pytest.fixture
def audit():
    """The Audit page on gender-glob in Steen & Markert's strict scope, so that gendered words are left for the
    checklist to show (the default, coherent text, rewrites the ones tied to a person: issue 27)."""
    app = _gender_glob_audit()
    app.toggle(key="gender-glob_agreement").set_value(False).run()
    assert not app.exception, app.exception
    return app


def _inputs_in_estimate(app) -> int:
    estimate = next(box.value for box in app.info if box.value.startswith("Estimate:"))
    return int(re.match(r"Estimate: (\d+) inputs", estimate).group(1))


def _check_line(app, title_start: str) -> str:
    return next(m.value for m in app.markdown if title_start in m.value)


def test_the_review_comes_after_perturbations_with_the_checklist_and_a_highlighted_sample(audit):
    headings = [heading.value for heading in audit.subheader]
    assert headings.index("Review the swaps") == headings.index("Perturbations") + 1
    assert headings.index("Summarizers") == headings.index("Review the swaps") + 1
    assert any(m.value == "30 inputs from 15 originals; gendered nouns kept." for m in audit.markdown)
    assert _check_line(audit, "Leftover gendered words").startswith(":orange[:material/warning:]")
    assert _check_line(audit, "Leftover pronouns").startswith(":green[:material/check_circle:]")
    assert "1 original skipped" in _check_line(audit, "Originals skipped")
    samples = [e for e in audit.expander if "/gender-glob/s0/" in e.label]
    assert len(samples) == 3
    highlighted = [m.value for m in audit.markdown if "background:#dbe9ff" in m.value]
    assert len(highlighted) == 3 and all("title=" in html for html in highlighted)
    substitution_tables = [df.value for df in audit.dataframe if "original → replacement" in df.value.columns]
    assert len(substitution_tables) == 3 and all(len(table) > 0 for table in substitution_tables)
    assert {"entity_label", "evidence"} <= set(substitution_tables[0].columns)
    examples = next(e for e in audit.expander if "Leftover gendered words" in e.label)
    table = examples.dataframe[0].value
    assert list(table.columns) == ["input", "span", "what", "context"]
    assert any(RIVERMOUTH in input_id and span == "chairman" for input_id, span in zip(table["input"], table["span"]))


def test_each_original_to_exclude_is_listed_with_what_the_checks_found(audit):
    options = audit.multiselect(key="review_exclude").options
    assert any(option.startswith(RIVERMOUTH + " — ") and "gender-glob: leftover gendered word" in option
               for option in options)
    assert "news-14-weather-plains-snowstorm — gender-glob: skipped (no gendered entity)" in options


def test_excluding_an_original_lowers_the_input_count_and_the_launched_run_records_it(audit):
    before = _inputs_in_estimate(audit)
    audit.multiselect(key="review_exclude").set_value([RIVERMOUTH]).run()
    assert not audit.exception
    assert _inputs_in_estimate(audit) == before - 3  # its identity input and one input per arm
    assert any(m.value == "28 inputs from 14 originals; gendered nouns kept." for m in audit.markdown)
    shown_sample = [e.label.split(" · ")[0].replace("\\", "") for e in audit.expander if "/gender-glob/s0/" in e.label]
    store, info = launch_small_audit(audit)
    run_id = info.id
    assert info.config["exclude_originals"] == [RIVERMOUTH]
    glob = next(spec for spec in info.config["perturbations"] if spec["name"] == "gender-glob")
    assert glob["params"]["agreement"] == "names-pronouns-titles"  # the switch reaches the run's config
    assert info.status == "completed", info.message
    review = info.reports["review"]
    assert review["excluded"] == [RIVERMOUTH]
    assert review["sample_ids"]["gender-glob"] == shown_sample
    assert RIVERMOUTH not in {item.original_id for item in store.inputs(run_id)}


def test_the_agreement_switch_is_on_by_default_and_rewrites_chairman(audit):
    coherent = _gender_glob_audit()
    assert coherent.toggle(key="gender-glob_agreement").value is True
    assert any(m.value == "30 inputs from 15 originals; gendered nouns agree with the swapped people."
               for m in coherent.markdown)
    leftover = [e for e in coherent.expander if "Leftover gendered words" in e.label]
    assert not leftover or "chairman" not in set(leftover[0].dataframe[0].value["span"])
    assert _check_line(coherent, "Leftover gendered words") != _check_line(audit, "Leftover gendered words")


def test_race_settings_offer_only_race_relevant_options(audit):
    audit.multiselect(key="audit_perturbations").set_value(["race", "race-intersectional", "gender-loc"]).run()
    assert not audit.exception
    labels = [widget.label for widget in [*audit.checkbox, *audit.toggle]]
    assert not any("content word" in label and label.startswith("race") for label in labels)
    # every name swap takes the agreement switch: race draws genders too (issue 27)
    assert sorted(toggle.key for toggle in audit.toggle) == ["gender-loc_agreement", "race-intersectional_agreement",
                                                              "race_agreement"]
    for kind in ("race", "race-intersectional"):
        expander = next(e for e in audit.expander if e.label == f"{kind} settings")
        widget_labels = [w.label for w in [*expander.checkbox, *expander.toggle, *expander.number_input,
                                           *expander.radio, *expander.slider]]
        assert sorted(widget_labels) == ["Name draws per original (each gives one input per arm)", "Name source",
                                         "Within-group controls (a second name draw from the same group, to tell a "
                                         "swap's effect from chance)"]


def test_doubtful_swaps_come_first_open_with_their_sentences_and_a_name_left_unswapped_reaches_the_run(audit):
    # The coherence check leads the review (issue 27); doubtful swaps come right after it.
    checks = [m.value for m in audit.markdown if m.value.startswith((":green", ":orange", ":blue"))]
    assert "contradicts itself" in checks[0] and "carry a coherence flag" in checks[0]
    first = checks[1]
    assert "Swaps of names the perturbation is not sure are people" in first
    assert re.search(r": \d+ low and \d+ medium confidence names, \d+ swaps in \d+ inputs", first)
    table = next(e for e in audit.expander if "not sure are people" in e.label).dataframe[0].value
    assert list(table.columns) == ["original", "name", "confidence", "why", "sentence"]
    assert list(table["confidence"]) == sorted(table["confidence"], key=["low", "medium"].index)  # low first
    jada = ("news-02-sports-comets-overtime", "Jada Simmons")
    assert ("news-02-sports-comets-overtime · Jada Simmons — low: a rare first name ('Jada')"
            in audit.multiselect(key="review_exclude_names").options)
    audit.multiselect(key="review_exclude_names").set_value([jada]).run()
    assert not audit.exception
    assert any(c.value == "Left unswapped: news-02-sports-comets-overtime: Jada Simmons" for c in audit.caption)
    table = next(e for e in audit.expander if "not sure are people" in e.label).dataframe[0].value
    assert "Jada Simmons" not in set(table["name"])
    store, info = launch_small_audit(audit)
    assert info.status == "completed", info.message
    assert info.config["exclude_entities"] == {"news-02-sports-comets-overtime": ["Jada Simmons"]}
    assert info.reports["review"]["excluded_entities"] == {"news-02-sports-comets-overtime": ["Jada Simmons"]}
    kept = [item for item in store.inputs(info.id) if item.original_id == jada[0] and item.perturbation != "identity"]
    assert kept and all("Jada Simmons" in item.text for item in kept)


def test_the_skip_line_of_a_review_counts_originals_that_gave_only_part_of_their_inputs():
    app = open_app("pages/corpus.py")
    app.radio(key="corpus_choice").set_value("Demo product reviews").run()
    app.switch_page("pages/audit.py").run()
    assert not app.exception, app.exception
    line = _check_line(app, "Originals skipped").replace("\\", "")
    assert line.startswith(":blue[") and line.endswith("3 originals gave only part of their inputs")


def test_a_sentiment_split_offers_no_names_to_leave_unswapped():
    from pages.parts.review import EXCLUDE_NAMES_KEY

    app = open_app("pages/corpus.py")
    app.radio(key="corpus_choice").set_value("Demo product reviews").run()
    app.switch_page("pages/audit.py").run()
    assert not app.exception, app.exception
    assert not [m for m in app.multiselect if m.key == EXCLUDE_NAMES_KEY]
    assert any(m.key == "review_exclude" for m in app.multiselect)  # excluding an original still works
