"""The politician picker follows the corpus (issue 29, Why 8): a name the corpus holds gets counterparts of the same
office and the opposite party even when the corpus never names them, each pair covers the originals naming either
side, and the Audit page preselects the best-covered pair, never one covering nothing while another covers more."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from bias_core.common.records import Document
from bias_core.perturb.politician_pairs import pair_coverage, suggest_pairs
from tests.conftest import REPO

BUSH = [Document(f"bush-{k}", f"President George W. Bush visited town number {k} on Monday. Bush said the economy "
                               "was strong and thanked the mayor.", meta={"title": f"Visit {k}"}) for k in range(8)]
NOBODY = [Document(f"council-{k}", f"The council met on day {k} and approved the budget.") for k in range(3)]


def test_a_corpus_naming_only_bush_gets_his_opposite_party_counterparts_each_covering_all_eight():
    suggestions = suggest_pairs(BUSH, limit=10)
    counterparts = [s.e2 for s in suggestions]
    assert {"Al Gore", "Bill Clinton", "Barack Obama"} <= set(counterparts[:5])
    assert all(s.e1 == "George W. Bush" and (s.e1_only, s.e2_only) == (8, 0) for s in suggestions)
    assert "Donald Trump" not in counterparts and "Joe Biden=Donald Trump" not in [s.label for s in suggestions]
    gore = next(s for s in suggestions if s.e2 == "Al Gore")
    assert gore.office == "President or Vice President"
    assert gore.describe() == ("George W. Bush = Al Gore (President or Vice President, 2001–2009 and 1993–2001): "
                               "8 originals naming Bush, none naming Gore")


def test_counterparts_share_an_office_have_the_opposite_party_and_the_nearest_years_come_first():
    suggestions = suggest_pairs(BUSH, limit=10)
    assert all(s.office in ("President", "President or Vice President") for s in suggestions)
    # Clinton and Obama held the office right before and after Bush; Carter twenty years before him.
    order = [s.e2 for s in suggestions]
    assert order.index("Bill Clinton") < order.index("Jimmy Carter")
    assert order.index("Barack Obama") < order.index("Jimmy Carter")
    assert "Dick Cheney" not in order and "Ronald Reagan" not in order  # Republicans, like Bush


def test_coverage_is_the_originals_naming_one_side_as_the_swap_uses_them():
    for suggestion in suggest_pairs(BUSH):
        assert pair_coverage(suggestion.label, BUSH) == (suggestion.e1_only, suggestion.e2_only)


def open_audit(documents, state=None) -> AppTest:
    import streamlit as st

    st.cache_data.clear()
    at = AppTest.from_file(str(REPO / "pages" / "audit.py"), default_timeout=120)
    at.session_state["documents"] = documents
    at.session_state["corpus_name"] = "test corpus"
    for key, value in (state or {}).items():
        at.session_state[key] = value
    at.run()
    at.multiselect(key="audit_perturbations").set_value(["politician"]).run()
    assert not at.exception, at.exception
    return at


def test_the_audit_page_preselects_the_best_covered_pair_of_a_bush_corpus_and_lists_the_others():
    at = open_audit(BUSH)
    picker = at.multiselect(key="politician_pair_choice")
    best = suggest_pairs(BUSH)[0]
    assert picker.value == [best.label] and best.covered == 8
    assert len(picker.options) == 5 and all("George W. Bush = " in option for option in picker.options)
    captions = [c.value for c in at.caption]
    assert any("covers 8 originals" in c for c in captions)
    assert not any("Donald Trump" in w.value for w in at.warning)


def test_a_pair_kept_from_another_corpus_gives_way_to_the_best_covered_pair_of_this_one():
    at = open_audit(BUSH, {"politician_pair_choice": ["Donald Trump=Joe Biden"],
                           "politician_pair_corpus": "another corpus"})
    assert at.multiselect(key="politician_pair_choice").value == [suggest_pairs(BUSH)[0].label]


@pytest.mark.parametrize("keep", [True, False])
def test_the_analysts_own_choice_for_this_corpus_stays(keep):
    at = open_audit(BUSH)
    labels = [s.label for s in suggest_pairs(BUSH)]
    chosen = [labels[2]] if keep else []
    at.multiselect(key="politician_pair_choice").set_value(chosen).run()
    at.number_input(key="audit_seed").set_value(3).run()
    assert at.multiselect(key="politician_pair_choice").value == chosen


def test_a_corpus_naming_no_politician_says_so_and_no_pair_covers_anything():
    at = open_audit(NOBODY)
    assert suggest_pairs(NOBODY) == []
    captions = [c.value for c in at.caption]
    assert any(c.startswith("No politician of the politicians table is named") for c in captions)
    assert any("It will give no input" in w.value for w in at.warning)
