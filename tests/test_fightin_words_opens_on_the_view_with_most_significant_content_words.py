"""The Fightin' Words page opens on the view with the most significant content words (issue 29, Why 4): views are
ranked by content words significant after the Benjamini–Hochberg correction (stop words excluded), then by those with
|z| > 1.96, then by name — the same ranking whatever the order of the records."""

from __future__ import annotations

import random

from bias_core.common.records import Input, Summary
from bias_core.views.fightin_words_view import best_view, rank_views

BASE = "the council met on monday and the mayor spoke about the budget of the city"


def audit(extra: dict[str, dict[str, str]], n_originals: int = 30) -> tuple[list[Input], list[Summary]]:
    """Inputs of two perturbations; ``extra[summarizer][arm]`` is appended to every summary of that arm."""
    inputs, summaries = [], []
    for perturbation, arms in (("gender-glob", ("female", "male")), ("race", ("a", "b"))):
        for index in range(n_originals):
            for arm in arms:
                item = Input(id=f"o{index}/{perturbation}/s0/{arm}", original_id=f"o{index}", text=BASE,
                             perturbation=perturbation, sample_id=0, arm=arm)
                inputs.append(item)
                for summarizer, words in extra.items():
                    added = words.get(f"{perturbation}:{arm}", "")
                    summaries.append(Summary(item.id, summarizer, f"{BASE} {index} {added}".strip()))
    return inputs, summaries


PLANTED = {"blind": {},
           "stop-words": {"gender-glob:female": "the the the of of of", "gender-glob:male": "the of"},
           "planted": {"race:a": "nurse nurse nurse doctor doctor doctor", "race:b": "nurse doctor"}}


def test_the_view_with_significant_content_words_comes_first_and_stop_words_do_not_count():
    inputs, summaries = audit(PLANTED)
    ranked = rank_views(inputs, summaries)
    assert (ranked[0].perturbation, ranked[0].summarizer) == ("race", "planted")
    assert ranked[0].significant_bh == 2 and ranked[0].arms == ("a", "b")
    stop = next(v for v in ranked if (v.perturbation, v.summarizer) == ("gender-glob", "stop-words"))
    assert stop.significant_bh == stop.significant == 0, "stop words are no content words"
    assert best_view(inputs, summaries) == ("race", "planted")


def test_the_ranking_is_the_same_whatever_the_order_of_the_records():
    inputs, summaries = audit(PLANTED)
    shuffled_inputs, shuffled_summaries = inputs[:], summaries[:]
    random.Random(3).shuffle(shuffled_inputs)
    random.Random(4).shuffle(shuffled_summaries)
    assert rank_views(shuffled_inputs, shuffled_summaries) == rank_views(inputs, summaries)


def test_ties_go_to_the_first_perturbation_and_summarizer_by_name():
    words = {"gender-glob:female": "nurse nurse nurse", "gender-glob:male": "nurse",
             "race:a": "nurse nurse nurse", "race:b": "nurse"}
    inputs, summaries = audit({"zeta": words, "alpha": words})
    assert best_view(inputs, summaries) == ("gender-glob", "alpha")


def test_no_view_with_any_significant_word_leaves_the_page_its_own_first_choices():
    inputs, summaries = audit({"blind": {}})
    assert all(v.significant_bh == v.significant == 0 for v in rank_views(inputs, summaries))
    assert best_view(inputs, summaries) is None


def test_without_a_significant_word_the_view_whose_words_lean_most_beats_identical_arms():
    inputs, summaries = audit({"blind": {}, "leaning": {"race:a": "nurse", "race:b": "doctor"}}, n_originals=3)
    ranked = rank_views(inputs, summaries)
    assert ranked[0].significant_bh == ranked[0].significant == 0 and ranked[0].strongest > 0
    assert best_view(inputs, summaries) == ("race", "leaning")


def test_the_ranking_counts_each_original_once_however_many_samples_it_has():
    """Thirty near-duplicate summaries of one article are one observation (the Overview's test pools them), so a word
    one original repeats in every sample is not significant on the page either."""
    inputs, summaries = audit({"one-article": {}})
    extra = []
    for sample in range(1, 30):
        for arm, words in (("female", "nurse nurse nurse"), ("male", "")):
            item = Input(id=f"o0/gender-glob/s{sample}/{arm}", original_id="o0", text=BASE, perturbation="gender-glob",
                         sample_id=sample, arm=arm)
            extra.append(item)
            summaries.append(Summary(item.id, "one-article", f"{BASE} 0 {words}".strip()))
    view = next(v for v in rank_views(inputs + extra, summaries) if v.perturbation == "gender-glob")
    assert view.significant_bh == 0


def test_without_a_significant_word_a_view_the_overview_answers_for_comes_before_a_leaning_one():
    inputs, summaries = audit({"leaning": {"race:a": "nurse", "race:b": "doctor"},
                               "slight": {"gender-glob:female": "nurse", "gender-glob:male": "doctor"}},
                              n_originals=3)
    assert best_view(inputs, summaries, tested={("gender-glob", "slight")}) == ("gender-glob", "slight")
    untested = best_view(inputs, summaries)
    assert untested is not None and best_view(inputs, summaries, tested={("race", "absent")}) == untested
