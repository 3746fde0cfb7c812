"""The coherence check after every perturbation (issue 27, item 5), on short texts of our own with spaCy's real parse:
a flag is stored with its input and lowers that person's swap confidence by one level ("coherence: …") there and to
medium at most in the original's other inputs, a clean swap carries none, the title, suffix and two-names flags read an
input through its substitution map, and the swap review lists the flags first with the share of inputs carrying any."""

from __future__ import annotations

from bias_core.common.records import Document, Entity, Input, Substitution
from bias_core.perturb import get_perturbation
from bias_core.perturb.agreement import CONFIDENCE_DOWN, coherence_flags, stored_flags
from bias_core.perturb.review import review_inputs
from bias_core.perturb.review_checks import coherence_share

KNOWN_AS = Document(id="known-as", text="A woman known as Jane Cole told Channel Ten she is sure the car was stolen.")
CLEAN = Document(id="clean", text="Jane Cole told Channel Ten she is sure the car was stolen.")


def _strict_loc(*documents: Document):
    # Steen & Markert's strict scope leaves "woman" as written, so the check has something it cannot fix.
    return get_perturbation("gender-loc", samples=1, seed=0, agreement="names-pronouns-titles").run(list(documents))


def test_a_gendered_noun_left_for_a_swapped_person_is_flagged_and_lowers_that_persons_confidence():
    result = _strict_loc(KNOWN_AS)
    male = next(item for item in result.inputs if item.entities[0].group == "male")
    [flag] = stored_flags(male)
    assert flag.kind == "gender" and flag.span == "woman" and male.text[flag.start:flag.end] == "woman"
    assert "who is male in this input" in flag.note
    names = [sub for sub in male.substitutions if sub.kind == "first_name"]
    assert names and all(sub.swap_confidence_reason.startswith("coherence: ") for sub in names)
    female = next(item for item in result.inputs if item.entities[0].group == "female")
    assert stored_flags(female) is None  # "woman" agrees with her: nothing to flag in this input
    # one level down from the evidence's "high" where flagged, and at most medium in the original's other inputs
    assert {sub.swap_confidence for sub in names} == {CONFIDENCE_DOWN["high"]}
    others = [sub for sub in female.substitutions if sub.kind == "first_name"]
    assert {sub.swap_confidence for sub in others} == {"medium"}
    assert all("flagged in another input" in sub.swap_confidence_reason for sub in others)


def test_a_clean_swap_carries_no_coherence_flag():
    for kind in ("gender-loc", "gender-glob", "race"):
        for item in get_perturbation(kind, samples=2, seed=0).run([CLEAN]).inputs:
            assert stored_flags(item) is None, (kind, item.text)


def test_a_title_and_suffix_of_the_other_gender_and_a_second_name_are_flagged_through_the_substitution_map():
    original = "Mr. Brian Lund Jr. spoke first. Later Brian Lund said the plan was sound."
    text = "Mr. Karen Lund Jr. spoke first. Later Brian Lund said the plan was sound."
    item = Input(id="x/gender-glob/s0/female", original_id="x", text=text, perturbation="gender-glob", arm="female",
                 entities=[Entity("e1", "female", "Karen", "Lund", "Brian", "Lund")],
                 substitutions=[Substitution(4, 9, "Brian", "Karen", "first_name", "e1", swap_confidence="high")])
    assert item.original_text() == original
    flags = coherence_flags(item, (), original)
    assert [(flag.kind, flag.span) for flag in flags] == [("title", "Mr"), ("title", "Jr"), ("name", "Brian")]
    assert all(text[flag.start:flag.end] == flag.span for flag in flags)


def test_the_review_lists_the_coherence_flags_first_with_the_share_of_inputs_carrying_any():
    result = _strict_loc(KNOWN_AS, CLEAN)
    flagged = sum(1 for item in result.inputs if stored_flags(item))
    assert flagged == 1 and len(result.inputs) == 4
    review = review_inputs(result.inputs, {"gender-loc": {"run_info": result.run_info}}).get("gender-loc")
    check = review.checks[0]
    assert check.key == "coherence" and check.occurrences == 1 and check.inputs == 1
    assert check.title.endswith("1 of 4 inputs (25%) carry a coherence flag")
    assert check.examples[0].note.startswith("gender: 'woman'")
    # the lowered confidence makes the swap a doubtful one, listed next
    doubtful = review.checks[1]
    assert doubtful.key == "doubtful_swaps" and any("coherence: " in e.note for e in doubtful.examples)
    assert coherence_share(7, 40) == "7 of 40 inputs (18%) carry a coherence flag"
