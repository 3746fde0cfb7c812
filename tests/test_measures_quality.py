"""Degenerate summaries (bias_core.measures.quality) are detected, left out of every measure and counted."""

from __future__ import annotations

import gzip
import json

import pytest

from bias_core.common.records import Entity, Input, Summary, Unit
from bias_core.measures import MeasureOptions, compute_measures
from bias_core.measures.quality import degenerate_reason, glitches, output_quality, summary_flags
from bias_core.reference.demo import DEMO_RUN

LOOP = "The review of a product is: || The left ear cup stopped working. " + "|| " * 40


@pytest.mark.parametrize(("text", "reason"), [
    ("", "empty"),
    ("   \n\t ", "empty"),
    ("?! ...", "no words"),
    (LOOP, "separator run"),
    ("Great sound ||||||||", "separator run"),
    ("the the the the the the the the", "repetition loop"),
    ("Linda Moore said. The product was not good. The product was not good. The product was not good.",
     "repetition loop"),
    ("He won. || The left ear cup clamped so hard. || The left ear cup clamped so hard. || The left ear cup clamped "
     "so hard. || The left", "repetition loop"),
])
def test_degenerate_outputs_are_detected_with_their_reason(text, reason):
    assert degenerate_reason(text) == reason


@pytest.mark.parametrize("text", [
    "Linda Moore, 52, was sentenced to four years. She had pleaded guilty in January.",
    "The best headphones I have owned. || Comfortable for long sessions. || The app insists on an account.",
    "No, no, no, he said. It was very, very, very cold -- and nobody came.",
    "Pros: cheap --- Cons: loud",
    "He said he would come. He said he would come.",  # twice is prose, three times a loop
])
def test_ordinary_summaries_are_not_degenerate(text):
    assert degenerate_reason(text) is None


@pytest.mark.parametrize(("text", "prompt_id"), [
    ("The review of a product is: || The left ear cup stopped working after three weeks.", "table11/amazon"),
    ("The review of a product is separated by ||: The pasta was the best I have eaten.", "table11/amazon"),
    ("The summary of the reviews is: good food, slow service.", "table11/yelp"),
    ("The text is: the council voted to close the library.", "table15/0/sep0"),
])
def test_a_summary_opening_with_the_prompts_own_frame_is_a_prompt_echo(text, prompt_id):
    assert degenerate_reason(text, prompt_id) == "prompt echo"


@pytest.mark.parametrize(("text", "prompt_id"), [
    ("The review of a restaurant is: the pasta was excellent.", "table11/amazon"),  # a word of its own
    ("Summary: the council voted to close the library.", "table11/yelp"),  # a heading, not a restated frame
    ("The main point is: the council voted.", "table15/0/sep0"),
    ("The text is: the council voted.", None),  # no recorded prompt, no check
    ("Reviews agree: the product is great.", "table11/amazon"),  # "agree" is not the prompt's
])
def test_a_label_with_words_of_its_own_or_without_a_recorded_prompt_is_kept(text, prompt_id):
    assert degenerate_reason(text, prompt_id) is None


def test_prompt_echoes_in_the_demo_run_are_smollm2_review_summaries():
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    echoes = [s for s in bundle["summaries"]
              if degenerate_reason(s["text"], s["meta"].get("prompt_id")) == "prompt echo"]
    assert echoes and {s["summarizer"] for s in echoes} == {"smollm2"}
    assert all(s["meta"]["prompt_id"].startswith("table11/") for s in echoes)


def test_no_input_or_extractive_summary_of_the_demo_run_is_degenerate():
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    assert not [item["id"] for item in bundle["inputs"] if degenerate_reason(item["text"])]
    flagged = [s for s in bundle["summaries"] if degenerate_reason(s["text"])]
    assert flagged and {s["summarizer"] for s in flagged} == {"smollm2"}


def glob_records(looping_text):
    inputs, summaries = [], []
    texts = {"female": ["They cooked dinner for the family.", "They cooked a family dinner at home.",
                        looping_text],
             "male": ["They won the league game.", "They won the game for the league.",
                      "They scored in the league game."]}
    for arm, arm_texts in texts.items():
        first = "Linda" if arm == "female" else "John"
        for index, text in enumerate(arm_texts):
            item = Input(id=f"o/{arm}{index}", original_id="o", sample_id=index, arm=arm, text="text",
                         perturbation="gender-glob", entities=[Entity("e1", group=arm, first_name=first,
                                                                      last_name="Moore")])
            inputs.append(item)
            summaries.append(Summary(item.id, "model", text))
    return inputs, summaries


def test_a_looping_summary_does_not_top_fightin_words_and_is_counted():
    inputs, summaries = glob_records("They cooked. " + "|| " * 40)
    names = ["fightin_words", "distinguishability_count"]
    results = {r.measure: r for r in compute_measures(inputs, summaries, names, MeasureOptions(n_resamples=20))}
    table = results["fightin_words"].details
    assert "||" not in {row["term"] for row in table["top_female"] + table["top_male"]}
    assert "|" not in {row["term"] for row in table["top_female"] + table["top_male"]}
    assert table["n_texts"] == [2, 3]
    for result in results.values():
        assert result.details["n_degenerate_excluded"] == 1
        assert result.details["degenerate_excluded"] == [{"input_id": "o/female2", "reason": "separator run"}]

    kept = {r.measure: r for r in compute_measures(inputs, summaries, names,
                                                   MeasureOptions(n_resamples=20, include_degenerate=True))}
    top_female = [row["term"] for row in kept["fightin_words"].details["top_female"]]
    assert top_female[0] in {"|", "||"}
    assert kept["fightin_words"].details["n_degenerate_excluded"] == 0
    assert kept["fightin_words"].details["n_degenerate_included"] == 1


def test_every_result_counts_degenerate_summaries_even_when_none_or_all_are():
    units = [Unit("The food was delicious.", "pos"), Unit("The service was terrible.", "neg")]
    review = Input(id="r/s0", original_id="r", sample_id=0, arm="0.5", text="x || y", units=units,
                   perturbation="sentiment")
    inputs, summaries = glob_records("They cooked dinner again.")
    inputs.append(review)
    summaries += [Summary(review.id, "model", "Delicious food."), Summary(review.id, "looper", "")]
    results = compute_measures(inputs, summaries,
                               ["bur", "sof", "fightin_words", "entity_inclusion"], MeasureOptions(n_resamples=20))
    assert results and all("n_degenerate_excluded" in r.details for r in results)
    looper = [r for r in results if r.summarizer == "looper"]
    assert {r.measure for r in looper} == {"bur", "sof"}
    assert all(r.value != r.value and "all 1 summaries are degenerate" in r.reason for r in looper)
    assert all(r.details["n_degenerate_excluded"] == 1 for r in looper)
    assert all(r.details["n_degenerate_excluded"] == 0 for r in results if r.summarizer == "model")


def test_output_quality_counts_cut_and_degenerate_outputs_per_summarizer_in_one_sentence():
    summaries = [Summary("a", "m", "Linda won the race.", meta={"truncated": True}),
                 Summary("b", "m", "Linda won.", meta={"truncated": False}),
                 Summary("c", "m", "", meta={"truncated": True}),
                 Summary("d", "m", "The review of a product is: great", meta={"prompt_id": "table11/amazon"}),
                 Summary("a", "lead-3", "Linda won the race.")]
    quality = output_quality(summaries)
    assert quality["lead-3"].line() is None
    assert quality["m"].line() == ("m: 2 of 4 summaries were cut at the token limit; 2 of 4 are degenerate and left "
                                   "out of every measure (1 empty, 1 prompt echo).")


@pytest.mark.parametrize("text, note", [
    ("He is the former former president of Chile.", "doubled word 'former former'"),
    ("The the minister resigned.", "doubled word 'The the'"),
    ("The minister said the budget would be cut by ten percent. Later the minister said the budget would be cut by "
     "ten percent.", "repeats the phrase 'the minister said the budget would be cut…'"),
])
def test_a_doubled_word_or_a_phrase_said_twice_is_a_glitch_shown_but_not_degenerate(text, note):
    assert glitches(text) == [note]
    assert degenerate_reason(text) is None
    assert summary_flags(Summary("i", "model", text)) == [note]


@pytest.mark.parametrize("text", ["By then he had had enough.", "She said that that was all.", "Duran Duran played.",
                                  "It was very very good.", "Scores rose 10 10 times."])
def test_doublings_english_allows_and_repeated_names_are_not_glitches(text):
    assert glitches(text) == []


def test_a_doubling_the_input_itself_holds_is_not_the_models_glitch():
    source = "He came first FIRST in the race, the first first-timer to do so."
    assert glitches("He came first FIRST in the race.") == ["doubled word 'first FIRST'"]
    assert glitches("He came first FIRST in the race.", source) == []


def test_only_the_generative_demo_summarizer_has_glitches():
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    source = {item["id"]: item["text"] for item in bundle["inputs"]}
    glitchy = {s["summarizer"] for s in bundle["summaries"] if glitches(s["text"], source[s["input_id"]])}
    assert glitchy == {"smollm2"}
