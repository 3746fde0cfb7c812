"""Compare page logic with AppTest, on a real audit run (see ``audited_store`` in conftest) in a temporary store."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import open_app


@pytest.fixture
def compare(audited_store, tmp_path, monkeypatch):
    return open_page("pages/compare.py", audited_store, tmp_path, monkeypatch)


def open_page(page: str, audited_store: Path, tmp_path: Path, monkeypatch) -> AppTest:
    """The app on a copy of the audited store, switched to ``page``."""
    path = tmp_path / "runs.sqlite"
    shutil.copy(audited_store, path)
    monkeypatch.setenv("SUMMBIAS_STORE", str(path))
    return open_app(page)


def test_compare_ranks_originals_most_different_first(compare):
    ranking = compare.dataframe[0].value
    assert list(ranking.columns[:4]) == ["original", "perturbation", "summarizer", "mean difference"]
    assert list(ranking["mean difference"]) == sorted(ranking["mean difference"], reverse=True)
    assert set(ranking["summarizer"]) == {"lead-3", "sexist-female"}
    assert compare.selectbox(key="compare_original").value == ranking.iloc[0]["original"]


def test_compare_shows_swaps_and_a_word_diff_for_each_summarizer(compare):
    compare.selectbox(key="compare_original").set_value("xss-article").run()
    compare.selectbox(key="compare_a").set_value("xss-article/identity").run()
    html = " ".join(block.value for block in compare.markdown)
    assert "the perturbation swapped" in html  # the legend
    assert "title=\"first_name&#58; was &#39;Robert&#39;\"" in html or "title=\"pronoun&#58; was &#39;he&#39;\"" in html
    assert [h.value for h in compare.subheader] == ["lead-3", "sexist-female"]
    assert any("Model-made difference" in caption.value for caption in compare.caption)


def test_article_script_is_escaped_in_every_html_block(compare):
    compare.selectbox(key="compare_original").set_value("xss-article").run()
    for block in compare.markdown:
        assert "<script>" not in block.value
    assert any("&#60;script&#62;" in block.value for block in compare.markdown)


def test_filtering_by_summarizer_limits_the_ranking(compare):
    compare.multiselect(key="compare_summarizers").set_value(["sexist-female"]).run()
    assert set(compare.dataframe[0].value["summarizer"]) == {"sexist-female"}


def test_compare_says_what_to_do_when_a_run_has_summaries_but_no_inputs():
    from tests.test_app import stored_run

    stored_run()
    at = open_app("pages/compare.py")
    assert not at.exception
    assert "no stored inputs" in at.info[0].value


def substitution_tables(at: AppTest) -> list:
    return [frame.value for frame in at.dataframe if "original → replacement" in frame.value.columns]


def test_compare_lists_every_substitution_of_each_variant_with_its_entity_label_and_evidence(compare):
    compare.selectbox(key="compare_original").set_value("xss-article").run()
    compare.selectbox(key="compare_a").set_value("xss-article/identity").run()
    item_b = compare.selectbox(key="compare_b").value
    assert item_b != "xss-article/identity"
    labels = [expander.label for expander in compare.expander]
    assert "Substitutions (0) in A" in labels
    from bias_core.runs.store import RunStore

    store = RunStore()
    stored = next(item for item in store.inputs(store.list_runs()[0].id) if item.id == item_b)
    assert f"Substitutions ({len(stored.substitutions)}) in B" in labels and stored.substitutions
    (table,) = substitution_tables(compare)
    assert list(table.columns) == ["original → replacement", "kind", "confidence", "entity_label", "evidence",
                                   "ner_label"]
    assert len(table) == len(stored.substitutions)
    assert "Robert → " in " ".join(table["original → replacement"])
    names = table[table["kind"] == "first_name"]
    assert set(names["entity_label"]) == {"PERSON"} and "—" not in set(names["evidence"])


def test_substitutions_written_before_entity_types_existed_show_a_dash():
    from bias_core.common.records import Input, Substitution
    from pages.render import substitution_rows

    item = Input(id="d/x", original_id="d", text="Linda said", perturbation="gender-glob",
                 substitutions=[Substitution(0, 5, "Robert", "Linda", "first_name")])
    assert substitution_rows(item) == [{"original → replacement": "Robert → Linda", "kind": "first_name",
                                        "confidence": "—", "entity_label": "—", "evidence": "—", "ner_label": "—"}]


def test_a_low_confidence_swap_has_its_own_colour_its_reason_on_hover_and_its_confidence_in_the_table():
    from bias_core.common.records import Input, Substitution
    from pages.render import DOUBTFUL_SWAP_STYLE, SWAP_STYLE, highlighted_input, substitution_rows

    reason = "a cue against it: 'Tora Bora' described as 'mountain' <b>"
    item = Input(id="d/x", original_id="d", text="near Mary Bora mountain, Linda said", perturbation="race",
                 substitutions=[Substitution(5, 9, "Tora", "Mary", "first_name", "e1", swap_confidence="low",
                                             swap_confidence_reason=reason),
                                Substitution(25, 30, "Karen", "Linda", "first_name", "e2", swap_confidence="high",
                                             swap_confidence_reason="a title")])
    html = highlighted_input(item)
    doubtful, plain = html.split("</span>")[:2]
    assert DOUBTFUL_SWAP_STYLE in doubtful and "low confidence it is a person" in doubtful
    assert "&#60;b&#62;" in doubtful and "<b>" not in html  # the reason is untrusted text: escaped
    assert SWAP_STYLE in plain and "low confidence" not in plain
    rows = substitution_rows(item)
    assert rows[0]["confidence"] == f"low: {reason}" and rows[1]["confidence"] == "high: a title"


def test_compare_flags_cut_and_degenerate_summaries_and_filters_them_in_one_click(tmp_path, monkeypatch):
    from bias_core.reference.demo import ensure_demo_run
    from bias_core.runs.store import RunStore

    monkeypatch.setenv("SUMMBIAS_STORE", str(tmp_path / "runs.sqlite"))
    store = RunStore(tmp_path / "runs.sqlite")
    ensure_demo_run(store)
    store.close()
    at = open_app("pages/compare.py")
    toggle = at.toggle(key="compare_clean")
    # The demo's summaries cut at the token limit or degenerate, and smollm2's with a glitch (a doubled word, a phrase
    # said twice): 223 on the real-news demo.
    assert re.match(r"Leave out the [1-9][\d,]* summaries cut at the token limit, degenerate or with a glitch",
                    toggle.label)
    at.multiselect(key="compare_summarizers").set_value(["smollm2"]).run()
    assert any("cut at the token limit" in c.value for c in at.caption)
    before = len(at.dataframe[0].value)
    at.toggle(key="compare_clean").set_value(True).run()
    assert not at.exception
    assert len(at.dataframe[0].value) < before
    # 411 of smollm2's 425 summaries are flagged: the pair shown has one, and the filter leaves it out.
    assert any(c.value == "Left out by the filter above." for c in at.caption)
