"""Extractive summarizers, the registry and the prompts (METHODS §2)."""

from __future__ import annotations

import pytest

from bias_core.common.records import Document, Input, Summary, Unit
from bias_core.safety.errors import SummarizerError
from bias_core.summarize import get_summarizer, summarizer_examples
from bias_core.summarize.prompts import (
    INDUCED_BIAS_SUFFIX,
    PERSPECTIVE_TEMPLATES,
    STEEN_MARKERT_PROMPTS,
    STEEN_MARKERT_SEPARATORS,
    PromptSettings,
    build_prompt,
)

ARTICLE = (
    "The city council met on Monday to discuss the budget. "
    "Mayor Robert Moore said the plan would protect libraries. "
    "His deputy, Linda Chen, disagreed with him on parks. "
    "She said her family had used the parks for years. "
    "The team won the league game after a late shot. "
    "Her husband and children watched the season opener. "
    "The vote was postponed until next week."
)


def one(text: str = ARTICLE, input_id: str = "doc") -> list[Input]:
    return [Input(id=input_id, original_id=input_id, text=text)]


def test_lead_k_keeps_the_first_k_sentences_in_order():
    summary = get_summarizer("lead-2").summarize(one())[0]
    assert summary.text == ("The city council met on Monday to discuss the budget. "
                            "Mayor Robert Moore said the plan would protect libraries.")
    assert summary.meta["selected"] == [0, 1]
    assert len(summary.sentences) == len(summary.sentence_scores) == 7
    assert summary.sentence_scores == sorted(summary.sentence_scores, reverse=True)


def test_lead_k_on_a_text_shorter_than_k_returns_every_sentence():
    summary = get_summarizer("lead-3").summarize(one("Only one sentence here."))[0]
    assert summary.text == "Only one sentence here."


def test_random_k_is_reproducible_for_a_seed_and_changes_with_the_seed():
    first = get_summarizer("random-3", seed=1).summarize(one())[0]
    again = get_summarizer("random-3", seed=1).summarize(one())[0]
    draws = {tuple(get_summarizer("random-3", seed=s).summarize(one())[0].meta["selected"]) for s in range(8)}
    assert first.text == again.text and len(first.meta["selected"]) == 3
    assert len(draws) > 1


def test_random_k_draw_depends_on_the_text_not_the_input_id():
    a = get_summarizer("random-3").summarize(one(input_id="x"))[0]
    b = get_summarizer("random-3").summarize(one(input_id="y"))[0]
    assert a.meta["selected"] == b.meta["selected"]


@pytest.mark.parametrize("name", ["textrank", "lexrank"])
def test_graph_summarizers_expose_one_score_per_sentence_and_pick_the_top_three(name):
    summary = get_summarizer(name).summarize(one())[0]
    scores = summary.sentence_scores
    assert len(scores) == len(summary.sentences) == 7
    assert sum(scores) == pytest.approx(1.0)  # PageRank scores are a distribution
    top = sorted(range(7), key=lambda i: (-scores[i], i))[:3]
    assert summary.meta["selected"] == sorted(top)


def test_textrank_prefers_the_sentence_that_shares_words_with_the_others():
    text = ("Solar panels cut energy bills. Solar panels on schools cut energy bills for schools. "
            "Energy bills fell after solar panels arrived. A cat slept.")
    summary = get_summarizer("textrank-1").summarize(one(text))[0]
    assert "cat" not in summary.text


def test_topic_baseline_uses_one_sentence_for_family_texts_and_six_for_sport_texts():
    family = "The family gathered. Her husband cooked. The children played. The baby slept. The wife laughed."
    sport = ("The team trained. The league met. The season began. The club won. The game ended. "
             "A shot scored. The win mattered. Fans cheered.")
    family_summary = get_summarizer("topic").summarize(one(family))[0]
    sport_summary = get_summarizer("topic").summarize(one(sport))[0]
    assert family_summary.meta["topic"] == "family" and len(family_summary.meta["selected"]) == 1
    assert sport_summary.meta["topic"] == "sport" and len(sport_summary.meta["selected"]) == 6


def test_sexist_baseline_picks_female_identifier_sentences_in_family_texts():
    text = ("The family met in the hall. He spoke first about the budget. The mother and her daughter arrived. "
            "She thanked her sister and her aunt. The children and the baby played. His brother left early. "
            "The woman and the girl sang.")
    summary = get_summarizer("sexist").summarize(one(text))[0]
    assert summary.meta["topic"] == "family" and summary.meta["favoured"] == "female"
    chosen = [summary.sentences[i] for i in summary.meta["selected"]]
    assert chosen == ["The mother and her daughter arrived.", "She thanked her sister and her aunt.",
                      "The woman and the girl sang."]


def test_sexist_female_always_prefers_female_identifiers_whatever_the_topic():
    summary = get_summarizer("sexist-female", k=1).summarize(one())[0]
    assert summary.text == "She said her family had used the parks for years."


def test_perspective_inputs_are_split_unit_by_unit():
    document = Document(id="r", units=[Unit("Great sound. Love it", "5"), Unit("Broke after a week", "1")])
    summary = get_summarizer("lead-3").summarize([Input.from_document(document)])[0]
    assert summary.sentences == ["Great sound.", "Love it", "Broke after a week"]


def test_an_empty_input_gives_an_empty_summary_not_an_error():
    summary = get_summarizer("textrank").summarize(one("   "))[0]
    assert isinstance(summary, Summary) and summary.text == "" and summary.sentences == []


@pytest.mark.parametrize("name", ["textrank", "lexrank"])
def test_graph_summarizers_refuse_an_input_with_too_many_sentences_with_a_message(name, monkeypatch):
    from bias_core.summarize import extractive

    summarizer = get_summarizer(name)
    monkeypatch.setattr(type(summarizer), "max_sentences", 8)
    long_input = Input(id="long", original_id="long", text=" ".join(f"Sentence {n} is here." for n in range(9)))
    outcomes = summarizer.summarize([long_input, Input(id="short", original_id="s", text=ARTICLE)])
    failure, summary = outcomes
    assert isinstance(failure, extractive.SummaryFailure) and "has 9 sentences" in failure.error
    assert "at most 8" in failure.error and isinstance(summary, Summary) and summary.text
    assert extractive.GRAPH_MAX_SENTENCES == 5_000 and get_summarizer("lead-3").max_sentences is None


def test_batching_gives_the_same_summaries_as_one_at_a_time(demo_news):
    inputs = [Input.from_document(d) for d in demo_news[:6]]
    summarizer = get_summarizer("lexrank")
    batched = [s.text for s in summarizer.summarize_batch(inputs)]
    single = [summarizer.summarize_batch([item])[0].text for item in inputs]
    assert batched == single


def test_unknown_summarizer_names_list_the_known_forms():
    with pytest.raises(SummarizerError, match="unknown summarizer 'bart'.*lead-3.*openai:<model>"):
        get_summarizer("bart")


def test_bad_parameters_are_a_clear_error():
    with pytest.raises(SummarizerError, match="bad parameters"):
        get_summarizer("lead-3", temperature=0.2)


def test_registry_lists_every_required_family():
    examples = summarizer_examples()
    for name in ("lead-3", "random-3", "textrank", "lexrank", "topic", "sexist", "smollm2", "hf:<model id or path>",
                 "openai:<model>"):
        assert name in examples


def test_table_15_prompt_is_drawn_per_input_reproducibly():
    settings = PromptSettings(seed=3)
    texts = [f"Article number {i} about a council vote." for i in range(40)]
    drawn = [build_prompt(Input(id=str(i), original_id=str(i), text=t), settings) for i, t in enumerate(texts)]
    again = [build_prompt(Input(id="other", original_id="o", text=t), settings) for t in texts]
    assert drawn == again
    assert len({prompt_id for _, prompt_id in drawn}) > 3
    for (message, prompt_id), text in zip(drawn, texts, strict=True):
        _, index, separator = prompt_id.split("/")
        instruction = STEEN_MARKERT_PROMPTS[int(index)]
        assert message == instruction + STEEN_MARKERT_SEPARATORS[int(separator.removeprefix("sep"))] + text
    assert len(STEEN_MARKERT_PROMPTS) == 10
    assert len({prompt_id.split("/")[2] for _, prompt_id in drawn}) == len(STEEN_MARKERT_SEPARATORS) == 5


def test_induced_bias_sentence_follows_the_instruction_before_the_article_as_in_the_authors_code():
    text = "The mayor, Anna Berg, met the council. She said the vote would be held on Monday."
    message, prompt_id = build_prompt(Input(id="a", original_id="a", text=text), PromptSettings(induce_bias=True))
    instruction, _, rest = message.partition(". " + INDUCED_BIAS_SUFFIX)
    assert instruction in STEEN_MARKERT_PROMPTS and rest.endswith(text) and prompt_id.endswith("+induced-bias")


def test_table_11_template_joins_units_and_induced_bias_is_appended():
    document = Document(id="r", units=[Unit("Great", "5"), Unit("Awful", "1")])
    message, prompt_id = build_prompt(Input.from_document(document),
                                      PromptSettings(perspective_template="yelp", induce_bias=True))
    assert message.startswith("Reviews about a business.") and "Great || Awful" in message
    assert message.endswith(INDUCED_BIAS_SUFFIX) and prompt_id == "table11/yelp+induced-bias"
    assert set(PERSPECTIVE_TEMPLATES) == {"claritin", "election", "amazon", "yelp", "supremecourt", "iq2"}
