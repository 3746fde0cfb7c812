"""Word diffs mark the perturbation's swaps apart from the model's own changes."""

from __future__ import annotations

from bias_core.common.records import Input, Substitution
from bias_core.compare.diff import change_counts, expected_words, model_difference, normalise, word_diff


def swapped_input() -> Input:
    text = "Linda Moore said she would resign."
    return Input(id="d/a", original_id="d", text=text, perturbation="gender-glob", substitutions=[
        Substitution(0, 5, "Robert", "Linda", "first_name", "e1"),
        Substitution(17, 20, "he", "she", "pronoun", "e1"),
    ])


def test_normalise_strips_punctuation_case_and_possessives():
    assert [normalise(t) for t in ["Moore's,", "(She)", "U.S.", "—"]] == ["moore", "she", "u.s", ""]


def test_swapped_names_and_pronouns_are_expected_changes_and_other_edits_are_the_models():
    expected = expected_words(swapped_input())
    assert expected == {"robert", "linda", "he", "she"}
    tokens = word_diff("Robert Moore said he would resign on Friday.",
                       "Linda Moore said she would resign after the vote.", expected)
    changed = [(t.text, t.op, t.expected) for t in tokens if t.op != "equal"]
    assert ("Robert", "delete", True) in changed and ("Linda", "insert", True) in changed
    assert ("he", "delete", True) in changed and ("she", "insert", True) in changed
    assert ("Friday.", "delete", False) in changed and ("vote.", "insert", False) in changed
    assert change_counts(tokens) == {"model_inserted": 3, "model_deleted": 2, "swapped": 4}


def test_identical_summaries_have_no_changes():
    tokens = word_diff("Same text here.", "Same text here.")
    assert all(t.op == "equal" for t in tokens) and " ".join(t.text for t in tokens) == "Same text here."


def test_model_difference_ignores_the_perturbations_own_swaps():
    expected = expected_words(swapped_input())
    assert model_difference("Robert Moore said he would resign.", "Linda Moore said she would resign.",
                            expected) == 0.0
    assert model_difference("Robert Moore said he would resign.", "Linda Moore left.", expected) > 0.3
    assert model_difference("", "") == 0.0 and model_difference("a b", "") == 1.0


def test_originals_are_ranked_by_model_made_difference_most_different_first():
    from bias_core.common.records import Summary
    from bias_core.compare.diff import rank_originals

    inputs = [Input(id=f"{d}/identity", original_id=d, text="x", role="identity") for d in ("calm", "wild")]
    for d in ("calm", "wild"):
        inputs.append(Input(id=f"{d}/g/s0/a", original_id=d, text="x", perturbation="gender-glob",
                            substitutions=swapped_input().substitutions[:0]))
    summaries = [
        Summary("calm/identity", "m", "Robert Moore said he would resign."),
        Summary("calm/g/s0/a", "m", "Robert Moore said he would resign."),
        Summary("wild/identity", "m", "The council approved the budget on Monday."),
        Summary("wild/g/s0/a", "m", "A storm closed every school in the county."),
        Summary("wild/g/s0/a", "other", "ignored: no identity summary for this summarizer"),
    ]
    ranked = rank_originals(inputs, summaries)
    assert [(r.original_id, r.summarizer) for r in ranked] == [("wild", "m"), ("calm", "m")]
    assert ranked[0].mean_difference > 0.8 and ranked[1].mean_difference == 0.0
    assert ranked[0].most_different_input == "wild/g/s0/a" and ranked[0].n_inputs == 1
