"""The real spaCy pipeline and MiniLM encoder load offline, once, and work in batches."""

from __future__ import annotations

import numpy as np

from bias_core.common import nlp


def test_spacy_pipeline_loads_once_and_finds_people():
    assert nlp.spacy_pipeline() is nlp.spacy_pipeline()
    (doc,) = nlp.parse(["Mayor Robert Moore met Dr. Linda Chen in Springfield on Monday."])
    people = [ent.text for ent in doc.ents if ent.label_ == "PERSON"]
    assert "Robert Moore" in people and "Linda Chen" in people


def test_sentence_split_is_batched_and_keeps_titles_inside_sentences():
    texts = ["Mr. Smith went to Washington. He won.", "One sentence only", ""]
    assert nlp.split_sentences(texts) == [["Mr. Smith went to Washington.", "He won."], ["One sentence only"], []]


def test_minilm_encoder_loads_offline_once_and_gives_normalised_384_dim_vectors():
    assert nlp.sentence_encoder() is nlp.sentence_encoder()
    vectors = nlp.embed(["The council approved the budget.", "The budget was approved by the council.",
                         "A cat slept on the warm windowsill."])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similar, unrelated = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert similar > 0.8 > unrelated


def test_embedding_nothing_returns_an_empty_matrix():
    assert nlp.embed([]).shape == (0, 384)


def test_sentence_of_is_the_sentence_spacy_gives_every_token():
    doc = nlp.spacy_pipeline()("Ms. Lund arrived on Monday. She said the board met.\n\nThe vote, she added, was close. "
                               "Mr. Abel agreed.")
    assert len(list(doc.sents)) >= 3
    assert all(nlp.sentence_of(token) == token.sent for token in doc)
