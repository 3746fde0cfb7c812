"""Fightin' Words that reads (issue 14): placeholders never shown, a content-words view, drill-down counts that
agree with the table, whole-word highlighting, sides labelled in words, and a demo that opens on a view with terms."""

from __future__ import annotations

import re

import pytest

from bias_core.common.records import Input, Substitution
from bias_core.measures import fightin_words as fw
from bias_core.reference.demo import ensure_demo_run
from bias_core.runs.store import RunStore
from bias_core.views import fightin_words_view as fwv
from bias_core.views.labels import arm_label, arm_labels
from pages.render import marked_spans
from tests.conftest import open_app


def test_stop_words_punctuation_numbers_and_placeholders_are_not_content_words():
    for term in ("the", "and", "it's", "don't", "he/she", ",", "(", "1990", "[title]", "[pronoun]", "[name]"):
        assert not fw.is_content_word(term), term
    for term in ("budget", "council", "mother's", "father/mother", "chairwoman"):
        assert fw.is_content_word(term), term
    assert fw.is_placeholder("[first_name]") and not fw.is_placeholder("first")


def test_occurrences_in_each_text_add_up_to_the_tables_counts():
    inputs = [Input(id="o/a", original_id="o", text="Mary Smith", arm="a",
                    substitutions=[Substitution(0, 4, "John", "Mary", "first_name")])]
    side_a = ["Mary said the further review was the plan. The mother agreed.", "The budget, the budget!"]
    side_b = ["He said the father had a plan for the budget.", "Their plan: further cuts."]
    mask = fw.substitution_mask(inputs)
    result = fw.fightin_words(side_a, side_b, mask=mask, min_count=1)
    replacements = fw.build_replacements(mask)
    assert any(t.term == "father/mother" for t in result.terms)
    for term in result.terms:
        assert sum(len(fw.term_occurrences(text, term.term, replacements)) for text in side_a) == term.count_a
        assert sum(len(fw.term_occurrences(text, term.term, replacements)) for text in side_b) == term.count_b


def test_highlighting_marks_whole_words_only_and_escapes_the_text():
    text = "Further, <b>the</b> theatre saw the end."
    spans = fw.term_occurrences(text, "the", fw.build_replacements({}))
    html = marked_spans(text, spans)
    assert len(spans) == 2  # "<b>the</b>" and "the end"; not inside "Further" or "theatre"
    assert html.count("<mark") == 2
    assert "<b>" not in html  # the article's own markup is shown as text, never rendered
    marked = re.findall(r"<mark[^>]*>(.*?)</mark>", html)
    assert marked == ["the", "the"]


@pytest.mark.parametrize("perturbation, arm, kind, words", [
    ("race", "a", None, "arm a: half Black-, half White-associated names"),
    ("race", "b", None, "arm b: every person's race inverted"),
    ("gender-glob", "female", None, "all people women"),
    ("gender-loc", "b", None, "arm b: every person's gender inverted"),
    ("sentiment", "1=0.2", "stars", "20% of the reviews rated 1 star"),
    ("sentiment", "positive=0.5", None, "50% of the units valued positive"),
    ("politician", "Joe Biden", None, "inputs naming Joe Biden"),
    ("race-intersectional", "bf_wm.b", None, "setting bf_wm, arm b (races inverted)"),
    ("something-new", "x", None, "x"),
])
def test_arms_are_described_in_words(perturbation, arm, kind, words):
    assert arm_label(perturbation, arm, kind) == words


def test_two_arms_never_read_the_same():
    labels = arm_labels("custom", ["a", "a "])
    assert len(set(labels.values())) == 2


@pytest.fixture(scope="module")
def demo_store_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("fwdemo") / "runs.sqlite"
    store = RunStore(path)
    ensure_demo_run(store)
    store.close()
    return path


def test_the_demo_opens_on_a_view_with_significant_content_words_labelled_in_words(demo_store_path, monkeypatch):
    monkeypatch.setenv("SUMMBIAS_STORE", str(demo_store_path))
    at = open_app("pages/fightin_words.py")
    assert not at.exception
    sides = [box for box in at.selectbox if box.label in ("Side A", "Side B")]
    assert len(sides) == 2
    shown = {box.label: box.format_func(box.value) for box in sides}
    assert all(not re.fullmatch(r"[ab]|\w+=0\.\d+|female|male", label) for label in shown.values()), shown
    tables = [frame.value for frame in at.dataframe]
    words = [word for table in tables[:2] for word in table["word"]]
    assert words, "the first view shows terms"
    store = RunStore(demo_store_path)
    run_id = store.list_runs()[0].id
    ranked = fwv.rank_views(store.inputs(run_id), store.summaries(run_id))
    store.close()
    if ranked and ranked[0].significant:  # the page opens on a view with a significant word whenever there is one
        assert any(flag for table in tables[:2] for flag in table["|z|>1.96"]), "and at least one is significant"
    else:  # and where none is, each side says so in a sentence
        said = [m.value.replace("\\", "") for m in at.markdown]
        assert sum("No content word is used significantly more in" in line for line in said) == 2, said
    assert not any(fw.is_placeholder(word) or not fw.is_content_word(word) for word in words)


def test_switching_content_words_off_shows_stop_words_but_never_placeholders(demo_store_path, monkeypatch):
    monkeypatch.setenv("SUMMBIAS_STORE", str(demo_store_path))
    at = open_app("pages/fightin_words.py")
    at.selectbox(key="fw_perturbation").set_value("gender-glob").run()
    at.toggle(key="fw_content_only").set_value(False).run()
    at.slider(key="fw_top_k").set_value(50).run()
    words = [word for frame in at.dataframe[:2] for word in frame.value["word"]]
    assert any(not fw.is_content_word(word) for word in words), "stop words or punctuation appear when asked for"
    assert not any(fw.is_placeholder(word) for word in words)


def test_the_drill_down_finds_a_word_as_often_as_the_table_counts_it(demo_store_path, monkeypatch):
    monkeypatch.setenv("SUMMBIAS_STORE", str(demo_store_path))
    at = open_app("pages/fightin_words.py")
    at.selectbox(key="fw_perturbation").set_value("gender-glob").run()
    table_a, table_b = at.dataframe[0].value, at.dataframe[1].value
    for table in (table_a, table_b):
        for _, row in table.head(3).iterrows():
            at.selectbox(key="fw_word").set_value(row["word"]).run()
            lines = [m.value.replace("\\", "") for m in at.markdown if "texts contain" in m.value]
            counts = [int(re.search(r"\((\d+) times?\)$", line).group(1)) for line in lines]
            assert counts == [row["count A"], row["count B"]], (row["word"], lines)
            # the examples below are whole draws: their occurrences add up to at most the table's counts
            examples = [e.label.replace("\\", "") for e in at.expander if " in A, " in e.label]
            assert examples, row["word"]
            shown = [re.search(r"(\d+) times? in A, (\d+) times? in B$", label).groups() for label in examples]
            assert sum(int(a) for a, _ in shown) <= row["count A"] and sum(int(b) for _, b in shown) <= row["count B"]


@pytest.fixture(scope="module")
def politician_store_path(tmp_path_factory):
    """A real politician-swap audit (lead-3) of the invented Trump and Biden articles, with one HIGHSIM against LOWSIM
    table built by ``fw.fightin_words`` from two of them each: the real-news demo names a politician of the pair in
    one article only, and an extractive summarizer keeps every pair identical, so no run here splits them itself."""
    from bias_core.common.records import MeasureResult
    from bias_core.documents.corpus import load_documents
    from bias_core.reference.demo import DEMO_NEWS
    from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
    from bias_core.runs.pipeline import run_audit
    from bias_core.summarize import SummaryCache

    folder = tmp_path_factory.mktemp("fwpolitician")
    store = RunStore(folder / "runs.sqlite")
    documents = [d for d in load_documents(DEMO_NEWS) if "politics" in d.id]
    config = AuditConfig(corpus=CorpusSpec("invented politics articles"), summarizers=[StageSpec("lead-3")],
                         perturbations=[StageSpec("identity"), StageSpec("politician")], bootstrap=50,
                         name="politician swap")
    run_id = run_audit(config, store=store, cache=SummaryCache(folder / "c.sqlite"), documents=documents)
    texts = [d.text for d in documents]
    table = fw.fightin_words(texts[:2], texts[2:], label_a="highsim", label_b="lowsim").to_details(20)
    split = MeasureResult("summary_similarity", 0.9, len(texts), "politician", "lead-3", 0.8, 1.0, "d",
                          details={"direction": "Donald Trump → Joe Biden", "highsim_threshold": 0.95,
                                   "fightin_words": table})
    store.replace_measures(run_id, [r for r in store.measures(run_id) if r.measure != "summary_similarity"] + [split])
    store.close()
    return folder / "runs.sqlite"


def test_the_highsim_view_says_what_survives_the_correction_and_shows_no_placeholder(politician_store_path,
                                                                                    monkeypatch):
    monkeypatch.setenv("SUMMBIAS_STORE", str(politician_store_path))
    monkeypatch.setenv("SUMMBIAS_NO_DEMO", "1")  # the page then shows this run, not the demo run
    at = open_app("pages/fightin_words.py")
    at.radio(key="fw_comparison").set_value("Politician swap: HIGHSIM vs LOWSIM originals").run()
    assert not at.exception
    sentences = [m.value for m in at.markdown if "after correcting for multiple comparisons" in m.value]
    assert len(sentences) == 2, [m.value for m in [*at.markdown, *at.info, *at.warning, *at.caption]]
    words = [word for frame in at.dataframe for word in frame.value.get("term", [])]
    assert not any(fw.is_placeholder(word) for word in words)
