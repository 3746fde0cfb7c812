"""A perturbed input keeps its original's sentence boundaries (issue 19; METHODS §1.7, §2), and the Sexist baseline's
strength dial (the share of its decisions made by gender).

Real spaCy and real perturbations on the real-ish news texts (tests/fixtures/articles/*.txt, data/demo/news.jsonl and
the perturbation tests' own articles): lead-3 must select the same sentences of an original and of every perturbed
version of it, and those sentences must be the original's with the substitutions written into them.
"""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np
import pytest

from bias_core.common import nlp
from bias_core.common.records import Input, Substitution, Summary, Unit
from bias_core.common.wordlists import GENDER_WORDS
from bias_core.perturb import get_perturbation
from bias_core.safety.errors import SummarizerError
from bias_core.summarize import get_summarizer
from bias_core.summarize.base import check_summarizer
from bias_core.summarize.cache import cache_key
from bias_core.summarize.extractive import Sexist, _map_cuts, split_inputs
from tests.fixtures.perturb.corpus import document, news_templates

PERTURBATIONS = ("gender-loc", "gender-glob", "race")


@pytest.fixture(scope="module")
def perturbed() -> dict[str, list[Input]]:
    """The inputs of each perturbation (3 samples, within-group controls) on every real news text."""
    templates = news_templates()
    return {name: get_perturbation(name, samples=3, seed=5, controls=True).run_templates(templates).inputs
            for name in PERTURBATIONS}


@pytest.fixture(scope="module")
def identity_summaries(perturbed) -> dict[str, Summary]:
    originals = sorted({item.original_id for inputs in perturbed.values() for item in inputs})
    identity = [Input.from_document(document(original)) for original in originals]
    return {s.input_id.removesuffix("/identity"): s for s in get_summarizer("lead-3").summarize(identity)}


def _original_spans(substitutions: list[Substitution]) -> list[tuple[int, int, str]]:
    """(start, end, replacement) of every substitution in the original text's coordinates."""
    spans, shift = [], 0
    for sub in sorted(substitutions, key=lambda s: s.start):
        start = sub.start - shift
        spans.append((start, start + len(sub.original), sub.replacement))
        shift += len(sub.replacement) - len(sub.original)
    return spans


def _rewrite(original: str, spans: list[tuple[int, int, str]], start: int, end: int) -> str:
    """``original[start:end]`` with the substitutions inside it written in; none may cross its ends."""
    pieces, cursor = [], start
    for span_start, span_end, replacement in spans:
        if span_end <= start or span_start >= end:
            continue
        assert start <= span_start and span_end <= end, "a substitution crosses a sentence boundary"
        pieces += [original[cursor:span_start], replacement]
        cursor = span_end
    return "".join(pieces) + original[cursor:end]


@pytest.mark.parametrize("perturbation", PERTURBATIONS)
def test_lead_3_of_every_perturbed_input_is_its_originals_with_the_substitutions_written_in(
        perturbation, perturbed, identity_summaries):
    inputs = perturbed[perturbation]
    assert len({item.original_id for item in inputs}) >= 15 and all(item.substitutions for item in inputs)
    for item, summary in zip(inputs, get_summarizer("lead-3").summarize(inputs), strict=True):
        identity = identity_summaries[item.original_id]
        original = item.original_text()
        assert original == document(item.original_id).text
        spans = _original_spans(item.substitutions)
        assert _rewrite(original, spans, 0, len(original)) == item.text  # the oracle reads the map right
        expected, cursor = [], 0
        for sentence in identity.sentences:
            start = original.index(sentence, cursor)
            cursor = start + len(sentence)
            expected.append(_rewrite(original, spans, start, cursor))
        assert summary.sentences == expected, item.id
        assert summary.meta["selected"] == identity.meta["selected"], item.id
        assert summary.text == " ".join(expected[i] for i in identity.meta["selected"]), item.id


def test_every_original_of_a_batch_is_parsed_once(perturbed, monkeypatch):
    parsed: list[str] = []
    real_parse = nlp.parse

    def recording_parse(texts, **options):
        texts = list(texts)
        parsed.extend(texts)
        return real_parse(texts, **options)

    monkeypatch.setattr(nlp, "parse", recording_parse)
    inputs = perturbed["gender-glob"][:60]
    identity = [Input.from_document(document(inputs[0].original_id))]
    split_inputs(identity + inputs)
    assert sorted(parsed) == sorted({item.original_text() for item in inputs})


def test_unchanged_sentences_keep_the_parse_tokens_and_changed_ones_are_tokenized_again(perturbed):
    item = next(i for i in perturbed["gender-glob"] if any(s.kind == "pronoun" for s in i.substitutions))
    original = Input(id="o", original_id="o", text=item.original_text())
    mapped, own = split_inputs([item, original])
    reference = split_inputs([Input(id="p", original_id="p", text=item.text)])[0]
    assert len(mapped.sentences) == len(own.sentences) == len(mapped.tokens) == len(mapped.all_tokens)
    changed = 0
    for index, sentence in enumerate(mapped.sentences):
        if sentence == own.sentences[index]:
            assert mapped.tokens[index] == own.tokens[index] and mapped.all_tokens[index] == own.all_tokens[index]
        else:
            changed += 1
            words = {word.lower() for word in re.findall(r"[A-Za-z]+", sentence)}
            assert set(mapped.tokens[index]) <= words and set(mapped.tokens[index]) < set(mapped.all_tokens[index])
            if sentence in reference.sentences:  # where spaCy agrees on the perturbed text, the tokens agree too
                at = reference.sentences.index(sentence)
                assert mapped.all_tokens[index] == reference.all_tokens[at]
                assert mapped.tokens[index] == reference.tokens[at]
    assert changed
    for sub in item.substitutions:  # every replacement is a token of the sentence it went into
        if sub.replacement.isalpha():
            assert any(sub.replacement.lower() in tokens for tokens in mapped.all_tokens)


def _substitution(text: str, original: str, replacement: str) -> Substitution:
    start = text.index(replacement)
    return Substitution(start, start + len(replacement), original, replacement, "last_name")


def test_a_substitution_across_an_original_sentence_boundary_stays_whole_in_the_earlier_sentence():
    original = "The court heard from Mr. Smith. Then the jury left the room."
    assert len(split_inputs([Input(id="o", original_id="o", text=original)])[0].sentences) == 2
    # Rewrites "Smith. Then" (across spaCy's boundary before "Then") as "Jones. Later".
    text = original.replace("Smith. Then", "Jones. Later")
    item = Input(id="p", original_id="o", text=text,
                 substitutions=[_substitution(text, "Smith. Then", "Jones. Later")])
    assert item.original_text() == original
    sentences = split_inputs([item])[0].sentences
    assert sentences == ["The court heard from Mr. Jones. Later", "the jury left the room."]


def test_cut_positions_move_by_the_length_changes_before_them():
    # Original "Al ran. Bo sat. Cy hid." with sentence starts 0, 8, 16; "Al" → "Alice" (+3), "Bo" → "B" (−1).
    substitutions = [Substitution(0, 5, "Al", "Alice", "first_name"), Substitution(11, 12, "Bo", "B", "first_name")]
    assert _map_cuts([0, 8, 16], substitutions) == [0, 11, 18]
    # A cut inside a rewritten span goes after the replacement; an insertion at a sentence start stays in it.
    assert _map_cuts([0, 1, 8], [Substitution(0, 5, "Al", "Alice", "first_name")]) == [0, 5, 11]
    assert _map_cuts([0, 8], [Substitution(8, 11, "", "Mr ", "title")]) == [0, 8]
    assert _map_cuts([0, 8, 16], [Substitution(8, 11, "", "Mr ", "title")]) == [0, 8, 19]


def test_an_input_whose_substitutions_do_not_describe_its_text_is_split_as_it_stands():
    text = "Ms. Smith said the plan would work. She voted for it on Monday."
    broken = Input(id="b", original_id="o", text=text,
                   substitutions=[Substitution(0, 9, "Mr. Vinken", "Mr. Smith", "full_name")])  # text holds Ms.
    plain = Input(id="p", original_id="o", text=text)
    mapped, own = split_inputs([broken, plain])
    assert mapped == own and own.sentences == ["Ms. Smith said the plan would work.", "She voted for it on Monday."]


def test_perspective_inputs_keep_the_unit_by_unit_split_whatever_their_substitutions():
    units = [Unit("Great sound. Love it", "5"), Unit("Broke after a week", "1")]
    item = Input(id="r", original_id="r", text="Great sound. Love it || Broke after a week", units=units,
                 substitutions=[Substitution(0, 5, "Grand", "Great", "content_word")])
    assert split_inputs([item])[0].sentences == ["Great sound.", "Love it", "Broke after a week"]


# ---- the Sexist baseline's strength -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def glob_inputs(perturbed) -> list[Input]:
    originals = sorted({item.original_id for item in perturbed["gender-glob"]})
    return [Input.from_document(document(o)) for o in originals] + perturbed["gender-glob"]


def test_strength_1_is_the_plain_baseline_exactly(glob_inputs):
    plain, dialled = get_summarizer("sexist-female"), get_summarizer("sexist-female", strength=1.0)
    assert dialled.name == "sexist-female" and dialled.parameters() == plain.parameters()
    assert "strength" not in plain.parameters()
    assert cache_key(dialled, glob_inputs[0]) == cache_key(plain, glob_inputs[0])
    assert [s.to_dict() for s in _without_seconds(dialled.summarize(glob_inputs))] == \
        [s.to_dict() for s in _without_seconds(plain.summarize(glob_inputs))]


def _without_seconds(summaries):
    for summary in summaries:
        summary.meta.pop("seconds", None)
    return summaries


def _female_share(summary: Summary, sentence_set) -> tuple[float, float]:
    """Female identifiers per chosen sentence, and per sentence of the whole input."""
    female = set(GENDER_WORDS["female"])
    counts = [sum(token in female for token in tokens) for tokens in sentence_set.all_tokens]
    chosen = [counts[i] for i in summary.meta["selected"]]
    return float(np.mean(chosen)), float(np.mean(counts))


def test_strength_0_draws_like_random_k_and_shows_no_gender_preference(glob_inputs):
    none = get_summarizer("sexist-female", strength=0.0).summarize(glob_inputs)
    full = get_summarizer("sexist-female").summarize(glob_inputs)
    random = get_summarizer("random-3").summarize(glob_inputs)
    assert [s.meta["selected"] for s in none] == [s.meta["selected"] for s in random]
    assert all(s.meta["by_gender"] is False and s.meta["favoured"] is None for s in none)
    sets = split_inputs(glob_inputs)
    excess_none = np.mean([np.subtract(*_female_share(s, t)) for s, t in zip(none, sets, strict=True)])
    excess_full = np.mean([np.subtract(*_female_share(s, t)) for s, t in zip(full, sets, strict=True)])
    # Chosen at random, the summary holds as many female identifiers per sentence as the input, on average.
    assert abs(excess_none) < 0.1 < excess_full


def test_the_coin_is_shared_by_every_input_of_an_original_and_decides_the_rule(glob_inputs):
    half = get_summarizer("sexist-female", strength=0.5)
    summaries = half.summarize(glob_inputs)
    coins = defaultdict(set)
    for item, summary in zip(glob_inputs, summaries, strict=True):
        coins[item.original_id].add(summary.meta["by_gender"])
        arms = {i.arm for i in glob_inputs if i.original_id == item.original_id}
        assert {"male", "female"} <= arms  # both arms of every original are here
    assert all(len(coin) == 1 for coin in coins.values())
    assert {coin.pop() for coin in coins.values()} == {True, False}
    full = get_summarizer("sexist-female").summarize(glob_inputs)
    random = get_summarizer("random-3").summarize(glob_inputs)
    for summary, biased, drawn in zip(summaries, full, random, strict=True):
        expected = biased if summary.meta["by_gender"] else drawn
        assert summary.meta["selected"] == expected.meta["selected"]


def test_the_share_of_gender_decisions_follows_the_strength():
    inputs = [Input(id=str(n), original_id=str(n), text=f"Report {n}. She spoke. He left.") for n in range(400)]
    for strength in (0.25, 0.75):
        share = np.mean([Sexist(strength=strength).by_gender(item) for item in inputs])
        assert abs(share - strength) < 0.07
    assert not any(Sexist(strength=0).by_gender(item) for item in inputs)
    assert all(Sexist(strength=1).by_gender(item) for item in inputs)


def test_strength_names_round_trip_and_are_checked():
    dialled = get_summarizer("sexist", strength=0.25)
    assert dialled.name == "sexist@0.25" and dialled.parameters()["strength"] == 0.25
    again = get_summarizer(dialled.name)
    assert again.name == dialled.name and again.parameters() == dialled.parameters()
    female = get_summarizer("sexist-female@0.5", k=2)
    assert (female.name, female.favour, female.strength, female.k) == ("sexist-female@0.5", "female", 0.5, 2)
    for strength in (0, 1e-05, 0.123456789):
        name = get_summarizer("sexist-male", strength=strength).name
        assert get_summarizer(name).strength == strength and get_summarizer(name).name == name
    assert get_summarizer("sexist@0").name == "sexist@0" and get_summarizer("sexist@1").name == "sexist"
    assert cache_key(get_summarizer("sexist@0.25"), Input(id="a", original_id="a", text="x")) != \
        cache_key(get_summarizer("sexist"), Input(id="a", original_id="a", text="x"))
    for name, params, message in (("sexist", {"strength": 1.5}, "strength = 1.5 is out of range"),
                                  ("sexist@2", {}, "strength = 2.0 is out of range"),
                                  ("sexist", {"strength": "high"}, "strength = 'high' is not a number"),
                                  ("sexist@0.5", {"strength": 0.5}, "strength is set by the name")):
        with pytest.raises(SummarizerError, match=message):
            check_summarizer(name, **params)
        with pytest.raises(SummarizerError, match=message):
            get_summarizer(name, **params)
    with pytest.raises(ValueError, match="strength"):
        Sexist(strength=float("nan"))


def test_the_cache_key_of_an_extractive_summary_includes_the_original_its_sentences_come_from():
    """Two inputs with the same text but different originals are cut differently, so they never share a cached
    extractive summary; a summarizer that reads only the text keeps one key."""
    from bias_core.summarize.cache import cache_key

    text = "Ms. Smith won. She left."
    plain = Input("a/identity", "a", text)
    swapped = Input("b/x", "b", text, perturbation="gender-loc",
                    substitutions=[Substitution(0, 9, "Mr. Jones", "Ms. Smith", "full_name")])
    lead = get_summarizer("lead-3")
    assert cache_key(lead, plain) != cache_key(lead, swapped)

    class TextOnly(type(lead)):
        reads_original = False

    assert cache_key(TextOnly(), plain) == cache_key(TextOnly(), swapped)
