"""Compare page logic with AppTest, on a real audit run (see ``audited_store`` in conftest) in a temporary store."""

from __future__ import annotations

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
    compare.selectbox(key="compare_a/xss-article").set_value("xss-article/identity").run()
    html = " ".join(block.value for block in compare.markdown)
    assert "swapped by the perturbation" in html  # the legend
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
