"""Fightin' Words masks every word the perturbation wrote or replaced (issue 29, Why 4): titles (Sir/Dame, Lord/Lady,
Mr./Ms.), pronouns and names on both sides of each substitution, so "sir" kept as written in the male arm never
tops side B; and a name-blind summarizer, whose two arms differ only by those words, is "no difference", never a
summarizer that clears the noise floor."""

from __future__ import annotations

from bias_core.common.records import Input, Substitution, Summary
from bias_core.measures import compute_measures
from bias_core.measures import fightin_words as fw
from bias_core.verdicts.judge import IDENTICAL, judge

TOPICS = ["bridge", "harbour", "library", "stadium", "railway", "museum", "hospital", "school", "market", "airport",
          "theatre", "canal"]
# Each original: one knighted man, one peer, a pronoun for each; the female arm makes them all women.
PEOPLE = {"male": [("Sir", "Roger"), ("Lord", "Peter"), ("He", None), ("his", None), ("Mr.", None)],
          "female": [("Dame", "Mary"), ("Lady", "Anne"), ("She", None), ("her", None), ("Ms.", None)]}
MALE_NAMES = ["Gregory", "John", "Paul", "Mark"]


def build(pieces: list) -> tuple[str, list[Substitution]]:
    """The text of ``pieces`` (strings, or (original, replacement, kind) spans) and its substitutions (only spans
    whose text changes get one, as ``entity_template.fill`` writes them)."""
    text, substitutions = "", []
    for piece in pieces:
        if isinstance(piece, str):
            text += piece
            continue
        original, replacement, kind = piece
        if replacement != original:
            substitutions.append(Substitution(len(text), len(text) + len(replacement), original, replacement, kind))
        text += replacement
    return text, substitutions


def arm_pieces(index: int, arm: str) -> list:
    topic = TOPICS[index % len(TOPICS)]
    male_first = MALE_NAMES[index % len(MALE_NAMES)]
    if arm == "male":
        sir, roger, lord, peter, he, his, mr = "Sir", male_first, "Lord", "Peter", "He", "his", "Mr."
    else:
        sir, roger, lord, peter, he, his, mr = "Dame", "Mary", "Lady", "Anne", "She", "her", "Ms."
    return [("Sir", sir, "title"), " ", ("Roger", roger, "first_name"), f" Hale opened the new {topic} on Monday. ",
            ("He", he, "pronoun"), f" thanked the engineers of the {topic}. ", ("Lord", lord, "title"), " ",
            ("Peter", peter, "first_name"), " Ames said ", ("his", his, "pronoun"), f" town was proud of the {topic}. ",
            ("Mr.", mr, "title"), " Cole agreed."]


def audit(n_originals: int = 12) -> tuple[list[Input], list[Summary]]:
    """A gender-glob audit with a name-blind summarizer (the whole input, like lead-3 on a short article)."""
    inputs, summaries = [], []
    for index in range(n_originals):
        for arm in ("female", "male"):
            text, substitutions = build(arm_pieces(index, arm))
            item = Input(id=f"o{index}/{arm}", original_id=f"o{index}", text=text, perturbation="gender-glob",
                         sample_id=0, arm=arm, substitutions=substitutions)
            inputs.append(item)
            summaries.append(Summary(input_id=item.id, summarizer="lead-3", text=text))
    return inputs, summaries


SWAPPED = {"sir", "dame", "lord", "lady", "mr", "ms", "he", "she", "his", "her", "roger", "mary", "peter", "anne",
           "gregory", "john", "paul", "mark"}


def test_the_mask_covers_titles_pronouns_and_names_on_both_sides_of_every_substitution():
    inputs, _ = audit()
    mask = fw.substitution_mask(inputs)
    assert SWAPPED <= set(mask)
    assert mask["sir"] == mask["dame"] == mask["mr"] == "[title]"
    assert mask["he"] == mask["she"] == "[pronoun]"
    assert "." not in mask, "the period of 'Mr.' is punctuation, not a swapped word"
    assert "hale" not in mask and "cole" not in mask, "a surname no substitution touched stays a word"


def test_the_mask_does_not_depend_on_the_order_of_the_inputs():
    inputs, _ = audit()
    assert fw.substitution_mask(inputs) == fw.substitution_mask(reversed(inputs))


def test_gendered_nouns_a_perturbation_rewrote_are_masked():
    text, substitutions = build(["The ", ("king", "queen", "content_word"), " spoke."])
    mask = fw.substitution_mask([Input(id="o/f", original_id="o", text=text, arm="female",
                                       substitutions=substitutions)])
    assert mask["king"] == mask["queen"] and fw.is_placeholder(mask["king"])


def test_a_gender_swapped_audit_never_lists_a_swapped_title_or_pronoun():
    inputs, summaries = audit()
    # a summarizer that keeps the male arm whole but cuts the female arm's last sentence, so the table has words
    cut = [Summary(s.input_id, "cutting", s.text.rsplit(" Ms.", 1)[0] if s.input_id.endswith("female") else s.text)
           for s in summaries]
    result = next(r for r in compute_measures(inputs, summaries + cut, ["fightin_words"])
                  if r.summarizer == "cutting")
    shown = {row["term"] for key in ("top_female", "top_male") for row in result.details[key]}
    assert shown, "the table has words"
    assert not shown & SWAPPED, shown & SWAPPED
    arms = {arm: {f"o{i}": [s.text for s in cut if s.input_id == f"o{i}/{arm}"] for i in range(12)}
            for arm in ("female", "male")}
    scores = fw.arm_fightin_words(arms["female"], arms["male"], mask=fw.substitution_mask(inputs), n_permutations=0)
    assert not {t.term for t in scores.terms} & SWAPPED


def test_a_name_blind_summarizer_is_no_difference_and_never_clears_the_noise_floor():
    inputs, summaries = audit()
    results = compute_measures(inputs, summaries, ["fightin_words"])
    result = next(r for r in results if r.summarizer == "lead-3")
    assert result.details["test"]["identical"], "the arms differ only by the swapped words"
    assert result.details["test"]["observed"] == 0
    verdict = judge(result, results)
    assert verdict.status == IDENTICAL
    assert not verdict.significant and verdict.clears_floor is not True


def test_arms_that_differ_only_in_a_swapped_word_one_arm_leaves_out_are_identical():
    """A title only one arm leaves out ("Dame Mary Hale" → "Mary Hale") changes only a placeholder's count, and a
    placeholder is never counted as a word: the summaries are identical up to the perturbation's own words."""
    inputs, summaries = audit()
    dropped = [Summary(s.input_id, "lead-3", s.text.replace("Dame ", "")) for s in summaries]
    results = compute_measures(inputs, dropped, ["fightin_words"])
    result = results[0]
    assert result.details["test"]["identical"] and result.value == 0
    assert judge(result, results).status == IDENTICAL


def test_the_corrected_count_of_some_columns_equals_statsmodels_on_the_full_family():
    import numpy as np
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    p = rng.random((50, 40)) ** 3
    counted = rng.random(40) < 0.5
    expected = [int((multipletests(row, 0.05, "fdr_bh")[0] & counted).sum()) for row in p]
    assert fw.bh_reject_counts(p, counted=counted).tolist() == expected
