"""NER alignment's fast paths (NER pipe alone, identical summaries once, forked workers) change no result (issue 13)."""

from __future__ import annotations

import pytest

from bias_core.common import nlp
from bias_core.measures import written_names
from bias_core.measures.alignment import align_summaries, align_summary, normalise_lookup
from bias_core.perturb import get_perturbation

# What alignment ran before issue 13: the whole pipeline but the tagger, parser and lemmatizer, every text parsed.
FULL_NER_DISABLE = ("tagger", "parser", "attribute_ruler", "lemmatizer")


def _reference_spans(texts):
    docs = nlp.spacy_pipeline().pipe(list(texts), disable=list(FULL_NER_DISABLE))
    return [[(ent.text, ent.start_char, ent.end_char) for ent in doc.ents if ent.label_ == "PERSON"] for doc in docs]


@pytest.fixture(scope="module")
def summaries_and_inputs(demo_news):
    """Gender-loc inputs of demo articles with lead-style summaries (their first two and three sentences), so many
    summaries repeat across inputs and several name people, as extractive summaries do."""
    inputs = get_perturbation("gender-loc", samples=2, seed=1).run(demo_news[:8]).inputs
    texts = []
    for position, item in enumerate(inputs):
        sentences = [sent.text for sent in nlp.parse([item.text])[0].sents]
        texts.append(" ".join(sentences[: 2 + position % 2]))
    texts += [text for text in texts[:5]]  # exact repeats
    return inputs + inputs[:5], texts


def test_only_the_ner_pipe_runs_and_it_finds_the_same_persons_as_the_fuller_pipeline(summaries_and_inputs):
    _, texts = summaries_and_inputs
    # the blank-line sentence starter (the perturbations' parse only) is skipped too
    assert nlp.pipes_for("ner") == ("tok2vec", "tagger", "blank_line_sentences", "parser", "attribute_ruler",
                                    "lemmatizer")
    found = nlp.entity_spans(texts, ("PERSON",))
    assert found == _reference_spans(texts)
    assert sum(map(len, found)) > len(texts) // 2  # the check compares real names, not empty lists


def test_identical_summaries_are_parsed_once(summaries_and_inputs, monkeypatch):
    _, texts = summaries_and_inputs
    parsed: list[str] = []
    real_parse = nlp.parse
    monkeypatch.setattr(nlp, "parse", lambda batch, **options: parsed.extend(batch) or real_parse(batch, **options))
    monkeypatch.setattr(nlp, "NER_PARALLEL_MIN_TEXTS", 10**9)  # this process, so the spy sees every parse
    nlp.entity_spans(texts, ("PERSON",))
    assert len(parsed) == len(set(texts)) < len(texts)


def test_forked_workers_return_the_same_spans_in_the_same_order(summaries_and_inputs, monkeypatch):
    _, texts = summaries_and_inputs
    monkeypatch.setattr(nlp, "NER_PARALLEL_MIN_TEXTS", 4)
    monkeypatch.setenv("SUMMBIAS_SPACY_PROCESSES", "2")
    assert nlp.entity_spans(texts, ("PERSON",)) == _reference_spans(texts)


def test_align_summaries_gives_the_alignments_of_the_unbatched_full_pipeline(summaries_and_inputs, monkeypatch):
    items, texts = summaries_and_inputs
    # Invented names: a finished sentence (hallucinated) and a cut-off one (set aside).
    texts = [text + (" Ms Quorra Vantablack agreed." if index % 7 == 0 else " Later, Judge Donna Sim" if index % 11 == 1
                     else "") for index, text in enumerate(texts)]
    monkeypatch.setattr(nlp, "NER_PARALLEL_MIN_TEXTS", 4)
    fast = align_summaries(items, texts, {"Quorra Vantablack": "female"})
    lookup = normalise_lookup({"Quorra Vantablack": "female"})
    reference = [align_summary(item, text, [p for p, _, _ in spans], lookup, [end for _, _, end in spans])
                 for item, text, spans in zip(items, texts, _reference_spans(texts), strict=True)]
    written_names.apply_name_forms(items, texts, reference)  # inclusion from the written names, as align_summaries
    assert fast == reference
    assert any(a.included for a in fast) and any(a.hallucinated for a in fast)
    assert any(a.in_unterminated_sentence for a in fast)
