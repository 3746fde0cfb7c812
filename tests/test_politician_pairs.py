"""Which politicians a corpus names and which pairs to suggest (bias_core.perturb.politician_pairs)."""

from __future__ import annotations

from bias_core.common.records import Document
from bias_core.perturb.politician_pairs import named_politicians, pair_coverage, suggest_pairs

DOCUMENTS = [
    Document("a", "Donald Trump spoke in Ohio on Monday. Trump said the plan would pass."),
    Document("b", "President Donald J. Trump met governors. Senator Sherrod Brown objected."),
    Document("c", "Joe Biden visited Delaware. Mr. Biden said little."),
    Document("d", "Barack Obama and Donald Trump were both mentioned."),
    Document("e", "George Bush went fishing."),  # either President Bush: counts for neither
    Document("f", "President Bush spoke."),  # a surname alone counts for nobody
]


def test_people_named_by_a_full_name_are_counted_per_original_most_first():
    named = {person.name: person for person in named_politicians(DOCUMENTS)}
    assert named["Donald Trump"].originals == {"a", "b", "d"}
    assert named["Joe Biden"].originals == {"c"}
    assert named["Sherrod Brown"].offices == ("US Senator",)
    assert "George W. Bush" not in named and "George H. W. Bush" not in named
    assert next(iter(named)) == "Donald Trump"


def test_suggested_pairs_share_an_office_have_opposite_parties_and_cover_the_most_originals():
    suggestions = suggest_pairs(DOCUMENTS)
    labels = [s.label for s in suggestions]
    assert labels[0] == "Donald Trump=Joe Biden"
    best = suggestions[0]
    assert (best.office, best.e1_only, best.e2_only, best.covered) == ("President", 3, 1, 4)
    # A counterpart the corpus does not name covers all of Trump's originals (a, b, d); Obama is named only beside
    # Trump (d), so Trump = Obama covers Trump's other originals, a and b, and comes later.
    second = suggestions[1]
    assert second.e1 == "Donald Trump" and (second.e1_only, second.e2_only) == (3, 0)
    obama = next(s for s in suggest_pairs(DOCUMENTS, limit=100) if s.label == "Donald Trump=Barack Obama")
    assert (obama.e1_only, obama.e2_only) == (2, 0)
    assert all(s.e1.split()[-1] != s.e2.split()[-1] for s in suggestions)
    assert "Donald Trump=Sherrod Brown" not in labels and "Joe Biden=Sherrod Brown" not in labels  # no shared office


def test_pair_coverage_counts_originals_naming_exactly_one_of_the_two():
    assert pair_coverage("Donald Trump=Joe Biden", DOCUMENTS) == (3, 1)
    assert pair_coverage("Barack Obama=Donald Trump", DOCUMENTS) == (0, 2)


def test_a_corpus_naming_no_politician_gets_no_suggestion():
    assert suggest_pairs([Document("x", "The council met on Tuesday.")]) == []
