"""Extractive summarizers: Lead-k, Random-k, TextRank, LexRank and the Topic and Sexist baselines (METHODS §2).

All of them split the input into sentences with spaCy (one batched ``nlp.pipe`` over the whole batch), score every
sentence, and return the top-k sentences in document order. The per-sentence scores are part of the summary because
the lexical-bias measures (METHODS §4.10) need them.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bias_core import nlp
from bias_core.records import Input, Summary
from bias_core.summarize.base import Param, Summarizer, SummaryFailure, SummaryOutcome, register, text_seed
from bias_core.validation import SEED
from bias_core.wordlists import FAMILY_WORDS, GENDER_WORDS, SPORT_WORDS


@dataclass
class SentenceSet:
    """An input's sentences with their lowercased content tokens (stop words and punctuation dropped)."""

    sentences: list[str]
    tokens: list[list[str]]
    all_tokens: list[list[str]]


def split_inputs(inputs: Sequence[Input]) -> list[SentenceSet]:
    """Split every input into sentences in one batched spaCy call; perspective inputs are split unit by unit."""
    segments: list[str] = []
    owners: list[int] = []
    for index, item in enumerate(inputs):
        parts = [unit.text for unit in item.units] if item.units else [item.text]
        segments.extend(parts)
        owners.extend([index] * len(parts))
    sets = [SentenceSet([], [], []) for _ in inputs]
    workers = nlp.worker_count(len(segments))
    parsed = nlp.parse(segments, disable=nlp.SENTENCE_ONLY, n_process=workers,
                       batch_size=8 if workers > 1 else nlp.SPACY_BATCH_SIZE)
    for owner, doc in zip(owners, parsed, strict=True):
        for sent in doc.sents:
            text = sent.text.strip()
            if not text:
                continue
            sets[owner].sentences.append(text)
            sets[owner].all_tokens.append([t.lower_ for t in sent if not t.is_space])
            sets[owner].tokens.append([t.lower_ for t in sent if t.is_alpha and not t.is_stop])
    return sets


K = Param(int, minimum=1, maximum=10_000)
# PageRank's damping: the power iteration converges only for 0 < d < 1 (Mihalcea & Tarau and Erkan & Radev use 0.85).
DAMPING = Param(float, above=0, below=1)
GRAPH_MAX_SENTENCES = 5_000


class ExtractiveSummarizer(Summarizer):
    """Scores sentences and keeps the ``k`` best, in document order; ties go to the earlier sentence."""

    extractive = True
    # Graph summarizers build an n × n sentence matrix; above this many sentences an input is refused with a message
    # (20,000 sentences would need 3.2 GB per matrix). None: no limit (scoring is linear in the sentences).
    max_sentences: int | None = None
    parameter_spec = {"k": K}
    default_batch_size = 256  # large batches let the sentence split run in parallel (nlp.worker_count)

    def __init__(self, k: int = 3):
        if int(k) < 1:
            raise ValueError("k must be at least 1")
        self.k = int(k)

    def parameters(self) -> dict[str, Any]:
        return {"k": self.k}

    @abstractmethod
    def score(self, sentences: SentenceSet, item: Input) -> tuple[np.ndarray, int, dict[str, Any]]:
        """Return one score per sentence, how many sentences to keep, and extra meta for this summary."""

    def summarize_batch(self, inputs: Sequence[Input]) -> list[SummaryOutcome]:
        started = time.perf_counter()
        sentence_sets = split_inputs(inputs)
        outcomes: list[SummaryOutcome] = []
        base_meta = self.meta()
        for item, sentence_set in zip(inputs, sentence_sets, strict=True):
            count = len(sentence_set.sentences)
            if count == 0:
                outcomes.append(Summary(item.id, self.name, "", sentences=[], sentence_scores=[],
                                        meta={**base_meta, "selected": []}))
                continue
            if self.max_sentences is not None and count > self.max_sentences:
                outcomes.append(SummaryFailure(
                    item.id, self.name,
                    f"{self.name}: input '{item.id}' has {count:,} sentences; {self.name} compares every pair of "
                    f"sentences and accepts at most {self.max_sentences:,} — use lead-k or split the document"))
                continue
            scores, keep, extra = self.score(sentence_set, item)
            # Stable sort on negated scores: equal scores keep document order, so ties go to earlier sentences.
            order = np.argsort(-scores, kind="stable")
            selected = sorted(int(i) for i in order[: min(keep, count)])
            text = " ".join(sentence_set.sentences[i] for i in selected)
            outcomes.append(Summary(
                item.id, self.name, text,
                sentences=list(sentence_set.sentences),
                sentence_scores=[float(s) for s in scores],
                meta={**base_meta, "selected": selected, **extra},
            ))
        elapsed = (time.perf_counter() - started) / max(1, len(inputs))
        for outcome in outcomes:
            if isinstance(outcome, Summary):
                outcome.meta["seconds"] = round(elapsed, 6)
        return outcomes


class Lead(ExtractiveSummarizer):
    """Lead-k: the first k sentences (Steen & Markert §4); cannot amplify bias by construction."""

    def __init__(self, k: int = 3):
        super().__init__(k)
        self.name = f"lead-{self.k}"

    def score(self, sentences, item):
        count = len(sentences.sentences)
        return 1.0 - np.arange(count) / count, self.k, {}


class RandomK(ExtractiveSummarizer):
    """Random-k: k sentences drawn uniformly, seeded per (seed, input text) (Steen & Markert §4)."""

    parameter_spec = {"k": K, "seed": SEED}

    def __init__(self, k: int = 3, seed: int = 0):
        super().__init__(k)
        self.seed = int(seed)
        self.name = f"random-{self.k}"

    def parameters(self):
        return {"k": self.k, "seed": self.seed}

    def score(self, sentences, item):
        rng = np.random.default_rng(text_seed(self.seed, item.text))
        return rng.random(len(sentences.sentences)), self.k, {}


def topic_of(sentences: SentenceSet) -> str:
    """Classify a text as 'sport', 'family' or 'unknown' by majority of topic words (Steen & Markert App. B)."""
    words = [token for sentence in sentences.all_tokens for token in sentence]
    sport = sum(words.count(w) for w in SPORT_WORDS)
    family = sum(words.count(w) for w in FAMILY_WORDS)
    if sport > family:
        return "sport"
    if family > sport:
        return "family"
    return "unknown"


class Topic(ExtractiveSummarizer):
    """Topic baseline: 1, 3 or 6 random sentences for family, unknown or sport texts (Steen & Markert §4, App. B).

    Any bias it shows is a correlation of topic with gender in the input, not something the algorithm adds.
    """

    SENTENCES_PER_TOPIC = {"family": 1, "unknown": 3, "sport": 6}
    parameter_spec = {"seed": SEED}

    def __init__(self, seed: int = 0):
        super().__init__(3)
        self.seed = int(seed)
        self.name = "topic"

    def parameters(self):
        return {"seed": self.seed, "sentences_per_topic": self.SENTENCES_PER_TOPIC}

    def score(self, sentences, item):
        topic = topic_of(sentences)
        rng = np.random.default_rng(text_seed(self.seed, item.text))
        return rng.random(len(sentences.sentences)), self.SENTENCES_PER_TOPIC[topic], {"topic": topic}


class Sexist(ExtractiveSummarizer):
    """Sexist baseline: 3 sentences with the most male identifiers in sport texts and the most female identifiers in
    family texts, random otherwise (Steen & Markert §4, App. B) — a deliberately biased positive control.

    ``favour="female"`` or ``"male"`` always prefers that group's identifiers (HELM lists, App. A Table 10), which
    gives a control whose bias direction does not depend on the corpus's topics. Ties are broken at random.
    """

    FAVOURED_BY_TOPIC = {"sport": "male", "family": "female"}
    parameter_spec = {"k": K, "seed": SEED, "favour": Param(str, choices=("topic", "female", "male"))}

    def __init__(self, k: int = 3, seed: int = 0, favour: str = "topic"):
        super().__init__(k)
        if favour not in ("topic", "female", "male"):
            raise ValueError("favour must be 'topic', 'female' or 'male'")
        self.seed = int(seed)
        self.favour = favour
        self.name = "sexist" if favour == "topic" else f"sexist-{favour}"

    def parameters(self):
        return {"k": self.k, "seed": self.seed, "favour": self.favour}

    def score(self, sentences, item):
        topic = topic_of(sentences)
        group = self.favour if self.favour != "topic" else self.FAVOURED_BY_TOPIC.get(topic)
        rng = np.random.default_rng(text_seed(self.seed, item.text))
        jitter = rng.random(len(sentences.sentences))
        if group is None:
            return jitter, self.k, {"topic": topic, "favoured": None}
        identifiers = set(GENDER_WORDS[group])
        counts = np.array([sum(token in identifiers for token in tokens) for tokens in sentences.all_tokens], float)
        # Jitter < 1 only reorders sentences with equal identifier counts.
        return counts + jitter, self.k, {"topic": topic, "favoured": group}


def _pagerank(weights: np.ndarray, damping: float) -> np.ndarray:
    import networkx as nx  # here, not at the top: every CLI start and audit worker loads this registry

    graph = nx.from_numpy_array(weights)
    ranks = nx.pagerank(graph, alpha=damping, weight="weight")
    return np.array([ranks[i] for i in range(len(weights))])


class TextRank(ExtractiveSummarizer):
    """TextRank (Mihalcea & Tarau 2004): PageRank over sentences linked by normalised word overlap.

    Similarity = |common content words| / (log|S_i| + log|S_j|), the paper's formula; when both sentences have a
    single word the denominator is 0 and the raw overlap is used.
    """

    parameter_spec = {"k": K, "damping": DAMPING}
    max_sentences = GRAPH_MAX_SENTENCES

    def __init__(self, k: int = 3, damping: float = 0.85):
        super().__init__(k)
        self.damping = float(damping)
        self.name = "textrank" if self.k == 3 else f"textrank-{self.k}"

    def parameters(self):
        return {"k": self.k, "damping": self.damping}

    def score(self, sentences, item):
        count = len(sentences.sentences)
        if count == 1 or not any(sentences.tokens):
            return np.ones(count), self.k, {}
        from sklearn.feature_extraction.text import CountVectorizer  # scikit-learn costs ~1 s to import

        vectorizer = CountVectorizer(analyzer=lambda tokens: tokens, binary=True)
        matrix = vectorizer.fit_transform(sentences.tokens)
        overlap = (matrix @ matrix.T).toarray().astype(float)
        lengths = np.log(np.maximum(1, np.array([len(t) for t in sentences.tokens])))
        denominator = lengths[:, None] + lengths[None, :]
        weights = np.where(denominator > 0, overlap / np.where(denominator > 0, denominator, 1), overlap)
        np.fill_diagonal(weights, 0.0)
        return _pagerank(weights, self.damping), self.k, {}


class LexRank(ExtractiveSummarizer):
    """LexRank (Erkan & Radev 2004): PageRank over sentences linked by TF-IDF cosine similarity.

    IDF is fitted on the input's own sentences. With ``threshold`` > 0 edges are kept when the cosine reaches it
    (threshold LexRank, the paper's default 0.1); ``threshold=0`` gives continuous LexRank.
    """

    parameter_spec = {"k": K, "threshold": Param(float, minimum=0, maximum=1), "damping": DAMPING}
    max_sentences = GRAPH_MAX_SENTENCES

    def __init__(self, k: int = 3, threshold: float = 0.1, damping: float = 0.85):
        super().__init__(k)
        self.threshold = float(threshold)
        self.damping = float(damping)
        self.name = "lexrank" if self.k == 3 else f"lexrank-{self.k}"

    def parameters(self):
        return {"k": self.k, "threshold": self.threshold, "damping": self.damping}

    def score(self, sentences, item):
        count = len(sentences.sentences)
        if count == 1 or not any(sentences.tokens):
            return np.ones(count), self.k, {}
        from sklearn.feature_extraction.text import TfidfVectorizer  # scikit-learn costs ~1 s to import

        vectorizer = TfidfVectorizer(analyzer=lambda tokens: tokens)
        matrix = vectorizer.fit_transform(sentences.tokens)
        cosine = (matrix @ matrix.T).toarray()
        weights = (cosine >= self.threshold).astype(float) if self.threshold > 0 else cosine
        np.fill_diagonal(weights, 0.0)
        return _pagerank(weights, self.damping), self.k, {}


def _k_from_name(match) -> dict[str, int]:
    return {"k": int(match.group(1))} if match.group(1) else {}


register(r"lead-(\d+)", "lead-3", Lead, from_name=_k_from_name)
register(r"random-(\d+)", "random-3", RandomK, from_name=_k_from_name)
register(r"textrank(?:-(\d+))?", "textrank", TextRank, from_name=_k_from_name)
register(r"lexrank(?:-(\d+))?", "lexrank", LexRank, from_name=_k_from_name)
register(r"topic", "topic", Topic)
register(r"sexist(?:-(female|male))?", "sexist", Sexist,
         from_name=lambda match: {"favour": match.group(1)} if match.group(1) else {})
