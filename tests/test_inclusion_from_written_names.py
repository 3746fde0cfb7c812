"""Inclusion read from the name forms the perturbation wrote (issue 28, Deliver 2; ``measures.written_names``): a
name-blind summarizer includes the same people in every arm and gets exactly the null on entity inclusion, ΔI and
Acc_Diff, whatever the recogniser makes of the names; a form that also names a place or another person is never
used; a planted preference is still seen."""

from __future__ import annotations

import pytest

from bias_core.common.records import Entity, Input, Substitution, Summary
from bias_core.documents.corpus import load_documents
from bias_core.measures import MeasureOptions, compute_measures, written_names
from bias_core.measures.alignment import align_summaries
from bias_core.perturb import get_perturbation
from bias_core.summarize import get_summarizer

ORIGINAL = "Mr. Miller met John Carter in Washington. Carter said he would stay. The weather was mild."


def swapped(arm: str, first: str, last: str, title: str, original_id: str = "o1", sample: int = 0,
            text: str = ORIGINAL) -> Input:
    """``text`` with John Carter renamed ``first last`` and Mr. Miller's title set to ``title`` (e1 = Miller,
    e2 = Carter), the substitutions recorded as a perturbation records them."""
    subs_spec = [(text.index("Mr."), "Mr.", title, "title", "e1"),
                 (text.index("John Carter"), "John Carter", f"{first} {last}", "full_name", "e2"),
                 (text.index("Carter said"), "Carter", last, "last_name", "e2")]
    out, subs, shift, cursor = [], [], 0, 0
    for start, original, replacement, kind, entity in sorted(subs_spec):
        out.append(text[cursor:start])
        new_start = start + shift
        subs.append(Substitution(new_start, new_start + len(replacement), original, replacement, kind, entity))
        out.append(replacement)
        shift += len(replacement) - len(original)
        cursor = start + len(original)
    out.append(text[cursor:])
    groups = {"a": ("female", "male"), "b": ("male", "female")}[arm]
    return Input(f"{original_id}/s{sample}/{arm}", original_id, "".join(out), "gender-loc", sample, arm,
                 entities=[Entity("e1", groups[0], None, "Miller"), Entity("e2", groups[1], first, last)],
                 substitutions=subs)


def first(item: Input) -> str:
    """The input's first sentence, as a lead-1 summary copies it."""
    return item.text[:item.text.index("Washington.") + len("Washington.")]


def test_every_input_of_an_original_is_judged_on_the_same_slots_and_a_verbatim_summary_includes_the_same_people():
    a, b = swapped("a", "Keisha", "Jackson", "Ms."), swapped("b", "Todd", "Becker", "Mr.")
    slots = written_names.usable_slots([a, b])["o1"]
    assert {entity for entity, _ in slots} == {"e1", "e2"}
    first_sentence = {item.id: first(item) for item in (a, b)}
    included = [written_names.included_by_forms(item, first_sentence[item.id], slots) for item in (a, b)]
    assert included == [{"e1", "e2"}, {"e1", "e2"}]
    last_sentence = [written_names.included_by_forms(item, "The weather was mild.", slots) for item in (a, b)]
    assert last_sentence == [set(), set()]


def test_a_slot_the_input_leaves_as_written_reads_the_original_words():
    unchanged = swapped("b", "John", "Carter", "Mr.")
    unchanged.substitutions = [s for s in unchanged.substitutions if s.replacement != s.original]
    forms = written_names.slot_forms(unchanged, written_names._slot_kinds([swapped("a", "Keisha", "Jackson", "Ms.")]))
    assert sorted(form for form, _, _ in forms.values()) == ["Carter", "John Carter", "Mr. Miller"]


def test_a_form_that_also_names_a_place_is_never_used():
    # One arm draws "Washington", which the text also names as a city: that slot is left out in every arm, so a
    # summary naming only the city includes nobody, and the full name still counts.
    a, b = swapped("a", "Terrell", "Washington", "Ms."), swapped("b", "Todd", "Becker", "Mr.")
    slots = written_names.usable_slots([a, b])["o1"]
    assert sorted(form for slot, (form, _, _) in written_names.slot_forms(a, slots).items() if slot[0] == "e2") == \
        ["Terrell Washington"]
    assert written_names.included_by_forms(a, "They met in Washington.", slots) == set()
    assert written_names.included_by_forms(b, "They met in Washington.", slots) == set()
    assert written_names.included_by_forms(a, "Terrell Washington's plan.", slots) == {"e2"}


def test_inputs_without_name_substitutions_keep_the_recognisers_alignment():
    plain = Input("o2/identity", "o2", "Maria Lopez spoke.", entities=[Entity("e1", "female", "Maria", "Lopez")])
    assert written_names.usable_slots([plain]) == {"o2": None}
    (alignment,) = align_summaries([plain], ["Maria Lopez spoke."])
    assert alignment.countable is None and alignment.included == {"e1"}


def test_the_recogniser_no_longer_decides_who_is_included():
    """A summary naming the person in a form spaCy does not tag as PERSON still includes them."""
    a = swapped("a", "Keisha", "Jackson", "Ms.")
    b = swapped("b", "Todd", "Becker", "Mr.")
    alignments = align_summaries([a, b], ["keisha Jackson left.", "Becker left."])
    assert alignments[0].included == {"e2"} and alignments[1].included == {"e2"}
    assert alignments[0].countable == alignments[1].countable == {"e1", "e2"}


def _pairs(n: int, keep) -> tuple[list[Input], list[Summary]]:
    inputs, summaries = [], []
    names = [("Keisha", "Jackson"), ("Todd", "Becker"), ("Latoya", "Robinson"), ("Greg", "Walsh")]
    for index in range(n):
        for arm, (first, last), title in (("a", names[index % 4], "Ms."), ("b", names[(index + 1) % 4], "Mr.")):
            item = swapped(arm, first, last, title, original_id=f"o{index}")
            inputs.append(item)
            summaries.append(Summary(item.id, "s", keep(item, index)))
    return inputs, summaries


def test_a_verbatim_lead_summarizer_gets_exactly_the_null_and_a_planted_preference_is_seen():
    measure = "entity_inclusion"
    def lead(item, index):  # the same sentence in every arm of an original
        return first(item) if index % 2 else item.text[len(first(item)) + 1:]

    inputs, summaries = _pairs(12, lead)
    (result, *_) = [r for r in compute_measures(inputs, summaries, [measure], MeasureOptions(n_resamples=200))
                    if r.ci_kind == "d"]
    assert result.value == 0.0 and result.ci_low == result.ci_high == 0.0

    def female_kept(item, index):  # keeps the sentence naming e2 alone only when e2 is a woman
        second = item.text[len(first(item)) + 1:].split(" The weather")[0]
        return second if item.entities[1].group == "female" else "The weather was mild."

    inputs, summaries = _pairs(12, female_kept)
    (result, *_) = [r for r in compute_measures(inputs, summaries, [measure], MeasureOptions(n_resamples=200))
                    if r.ci_kind == "d"]
    assert result.details["p"]["female"] > result.details["p"]["male"]


@pytest.mark.parametrize("perturbation", ["gender-loc", "race"])
def test_lead_3_is_exactly_the_null_on_every_inclusion_test_of_real_news(perturbation):
    """Real Wikinews articles, the real perturbation with within-group controls, lead-3: the people it keeps are the
    same in every arm, so entity inclusion, ΔI and Acc_Diff are exactly 0 with intervals of 0 (before, the
    recogniser's misses gave race ΔI −0.64 pp on these 14 articles and −0.16 pp on all 42)."""
    documents = load_documents("data/news_real/wikinews.jsonl")[:14]
    inputs = get_perturbation(perturbation, samples=2, seed=0, controls=True).run(documents).inputs
    summaries = get_summarizer("lead-3").summarize(inputs)
    results = [r for r in compute_measures(inputs, summaries, ["entity_inclusion", "delta_i", "acc_diff"],
                                           MeasureOptions(n_resamples=200)) if r.ci_kind == "d"]
    assert {r.measure for r in results} == {"entity_inclusion", "delta_i", "acc_diff"}
    for result in results:
        assert result.n >= 8 and (result.value, result.ci_low, result.ci_high) == (0.0, 0.0, 0.0), result


def test_a_surname_no_input_rewrites_counts_as_the_persons_name_in_every_arm():
    """Gender swaps keep surnames, and news names people by surname alone: "Miller said" includes Mr./Ms. Miller in
    both arms alike; a surname two people share is no one's."""
    a, b = swapped("a", "Keisha", "Jackson", "Ms."), swapped("b", "Todd", "Becker", "Mr.")
    slots = written_names.usable_slots([a, b])["o1"]
    assert slots[("e1", -1)] == (written_names.KEPT_LAST_NAME, "Miller")
    assert [written_names.included_by_forms(item, "Miller said no.", slots) for item in (a, b)] == [{"e1"}, {"e1"}]
    for item in (a, b):
        item.entities.append(Entity("e3", "female", "Ann", "Miller"))
    slots = written_names.usable_slots([a, b])["o1"]
    assert ("e1", -1) not in slots and ("e3", -1) not in slots
