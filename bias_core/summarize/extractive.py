"""Extractive summarizers: Lead-k, Random-k, TextRank, LexRank and the Topic and Sexist baselines (METHODS §2).

All of them split the input into sentences with spaCy (one batched ``nlp.pipe`` over the whole batch), score every
sentence, and return the top-k sentences in document order. The per-sentence scores are part of the summary because
the lexical-bias measures (METHODS §4.10) need them.

A perturbed input is cut where its original's sentences end (``split_inputs``): spaCy's parser would otherwise move
sentence boundaries when a name changes, and a summarizer that cannot see names (lead-k) would not be exactly
invariant to the swap (issue 19; METHODS §1.7, §2).
"""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bias_core.common import nlp
from bias_core.common.records import Input, RecordError, Substitution, Summary
from bias_core.common.wordlists import FAMILY_WORDS, GENDER_WORDS, SPORT_WORDS
from bias_core.safety.validation import SEED
from bias_core.summarize.base import Param, Summarizer, SummaryFailure, SummaryOutcome, register, text_seed


@dataclass
class SentenceSet:
    """An input's sentences with their lowercased content tokens (stop words and punctuation dropped)."""

    sentences: list[str]
    tokens: list[list[str]]
    all_tokens: list[list[str]]


@dataclass
class _Sentence:
    """One sentence of a parsed text: the characters from its start to the next sentence's start, and its tokens."""

    start: int
    stop: int
    text: str  # stripped; "" for a sentence of whitespace only
    all_tokens: list[str]
    tokens: list[str]


def _token_lists(tokens) -> tuple[list[str], list[str]]:
    """Every non-space token, and the content tokens (alphabetic, not a stop word), lowercased."""
    all_tokens: list[str] = []
    content: list[str] = []
    for token in tokens:  # one pass: making spaCy's Token objects is most of the cost
        if not token.is_space:
            all_tokens.append(token.lower_)
            if token.is_alpha and not token.is_stop:
                content.append(token.lower_)
    return all_tokens, content


def _sentences(doc) -> list[_Sentence]:
    """The sentences of a parsed text; each runs to the next one's start, so together they cover the text."""
    sents = list(doc.sents)
    stops = [sent.start_char for sent in sents[1:]] + [len(doc.text)]
    return [_Sentence(sent.start_char, stop, sent.text.strip(), *_token_lists(sent))
            for sent, stop in zip(sents, stops, strict=True)]


def _map_cuts(cuts: Sequence[int], substitutions: Sequence[Substitution]) -> list[int]:
    """Map positions of the original text (ascending sentence starts) onto the perturbed text.

    A position moves by the length changes of the substitutions before it. An insertion (an empty original) at a
    sentence start goes into that sentence. The substitutions must be valid (``Input.original_text`` checks them).
    """
    spans: list[tuple[int, int, int, int]] = []  # original start, original end, perturbed end, length change
    shift = 0
    for sub in sorted(substitutions, key=lambda s: (s.start, s.end)):
        start = sub.start - shift
        change = len(sub.replacement) - len(sub.original)
        spans.append((start, start + len(sub.original), sub.end, change))
        shift += change
    mapped: list[int] = []
    shift = 0
    index = 0
    for cut in cuts:
        while index < len(spans) and spans[index][0] < cut and spans[index][1] <= cut:
            shift += spans[index][3]
            index += 1
        if index < len(spans) and spans[index][0] < cut < spans[index][1]:
            # The original's sentence boundary falls inside a rewritten span (in practice every substitution lies
            # inside one sentence): the cut goes after the replacement, which stays whole in the earlier sentence.
            mapped.append(spans[index][2])
        else:
            mapped.append(cut + shift)
    return mapped


def _perturbed_sentences(text: str, original: str, substitutions: Sequence[Substitution],
                         sentences: list[_Sentence], tokenized: dict[str, tuple[list[str], list[str]]]) -> SentenceSet:
    """Cut a perturbed text where its original's sentences start; a sentence the substitutions changed is
    tokenized again (tokenizer only, once per distinct sentence in ``tokenized``), an unchanged one keeps the
    original's tokens."""
    cuts = _map_cuts([sentence.start for sentence in sentences], substitutions) + [len(text)]
    tokenizer = nlp.spacy_pipeline().tokenizer
    result = SentenceSet([], [], [])
    for sentence, start, stop in zip(sentences, cuts[:-1], cuts[1:], strict=True):
        piece = text[start:stop]
        if piece == original[sentence.start : sentence.stop]:
            stripped, all_tokens, tokens = sentence.text, sentence.all_tokens, sentence.tokens
        else:
            stripped = piece.strip()
            if stripped not in tokenized:
                tokenized[stripped] = _token_lists(tokenizer(stripped))
            all_tokens, tokens = tokenized[stripped]
        if stripped:
            result.sentences.append(stripped)
            result.all_tokens.append(all_tokens)
            result.tokens.append(tokens)
    return result


def split_inputs(inputs: Sequence[Input]) -> list[SentenceSet]:
    """Split every input into sentences in one batched spaCy call that parses each distinct text once.

    Perspective inputs are split unit by unit. An input with substitutions is cut where its original's sentences
    start (the original text is parsed, once for all the inputs made from it, and its sentence starts are moved
    through the substitutions), so the original and every perturbed version of it have the same sentences, differing
    only in the rewritten spans (issue 19). Without substitutions, or with a map that does not describe the text
    (``RecordError``), the input's own text is split.
    """
    distinct: dict[str, int] = {}  # text → its place among the parsed texts
    # Per input: the parsed texts to take sentences from, and (original text, substitutions) to map them through.
    plans: list[tuple[list[int], tuple[str, list[Substitution]] | None]] = []
    for item in inputs:
        mapping = None
        if item.units:
            parts = [unit.text for unit in item.units]
        elif item.substitutions:
            try:
                original = item.original_text()
                parts, mapping = [original], (original, item.substitutions)
            except RecordError:
                parts = [item.text]
        else:
            parts = [item.text]
        plans.append(([distinct.setdefault(part, len(distinct)) for part in parts], mapping))
    texts = list(distinct)
    workers = nlp.worker_count(len(texts))
    parsed = nlp.parse(texts, disable=nlp.SENTENCE_ONLY, n_process=workers,
                       batch_size=8 if workers > 1 else nlp.SPACY_BATCH_SIZE)
    sentences = [_sentences(doc) for doc in parsed]
    tokenized: dict[str, tuple[list[str], list[str]]] = {}  # rewritten sentence → its tokens (pronoun swaps repeat)
    sets: list[SentenceSet] = []
    for item, (indices, mapping) in zip(inputs, plans, strict=True):
        if mapping is not None:
            original, substitutions = mapping
            sets.append(_perturbed_sentences(item.text, original, substitutions, sentences[indices[0]], tokenized))
            continue
        kept = [sentence for index in indices for sentence in sentences[index] if sentence.text]
        sets.append(SentenceSet([s.text for s in kept], [s.tokens for s in kept], [s.all_tokens for s in kept]))
    return sets


K = Param(int, minimum=1, maximum=10_000)
# PageRank's damping: the power iteration converges only for 0 < d < 1 (Mihalcea & Tarau and Erkan & Radev use 0.85).
DAMPING = Param(float, above=0, below=1)
GRAPH_MAX_SENTENCES = 5_000


class ExtractiveSummarizer(Summarizer):
    """Scores sentences and keeps the ``k`` best, in document order; ties go to the earlier sentence."""

    extractive = True
    # Part of the cache key. 1.1: perturbed inputs are cut at their original's sentence boundaries (issue 19), so
    # summaries of perturbed inputs cached before may have other sentences.
    code_version = "1.1"
    reads_original = True
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

    ``strength`` (0 to 1) dials the planted bias: the share of inputs on which the gender rule decides; on the others
    k sentences are drawn at random, exactly as random-k draws them. The coin is seeded by the original's text, so
    every input made from one original (both arms, every sample) gets the same coin and the bias stays paired within
    originals; the share realised in a corpus therefore varies with its number of originals. At strength 1 (the
    default) name, parameters and output are those of the plain baseline.
    """

    FAVOURED_BY_TOPIC = {"sport": "male", "family": "female"}
    parameter_spec = {"k": K, "seed": SEED, "favour": Param(str, choices=("topic", "female", "male")),
                      "strength": Param(float, minimum=0, maximum=1)}

    def __init__(self, k: int = 3, seed: int = 0, favour: str = "topic", strength: float = 1.0):
        super().__init__(k)
        if favour not in ("topic", "female", "male"):
            raise ValueError("favour must be 'topic', 'female' or 'male'")
        strength = float(strength)
        if not 0 <= strength <= 1:
            raise ValueError("strength must be between 0 and 1")
        self.seed = int(seed)
        self.favour = favour
        self.strength = strength
        name = "sexist" if favour == "topic" else f"sexist-{favour}"
        # The name carries a strength below 1 (``sexist@0.25``), so runs at different strengths are told apart;
        # repr is the shortest text that reads back as the same float.
        self.name = name if strength == 1 else f"{name}@{repr(strength).removesuffix('.0')}"

    def parameters(self):
        parameters = {"k": self.k, "seed": self.seed, "favour": self.favour}
        if self.strength != 1:  # absent at 1, so names and cache keys of the plain baseline stay as they were
            parameters["strength"] = self.strength
        return parameters

    def by_gender(self, item: Input) -> bool:
        """Whether the gender rule decides this input's summary: a coin of probability ``strength`` seeded by the
        seed and the original's text (the input's own text when its substitution map does not describe it)."""
        if self.strength == 1:
            return True
        try:
            original = item.original_text()
        except RecordError:
            original = item.text
        # A stream of its own ([seed, 1]): text_seed(seed, text) alone also seeds the jitter of the identity input,
        # whose first draw would then be this coin and tie the random choice to the coin's outcome.
        return bool(np.random.default_rng([text_seed(self.seed, original), 1]).random() < self.strength)

    def score(self, sentences, item):
        topic = topic_of(sentences)
        rng = np.random.default_rng(text_seed(self.seed, item.text))
        jitter = rng.random(len(sentences.sentences))
        decided = self.by_gender(item)
        extra = {} if self.strength == 1 else {"by_gender": decided}  # the plain baseline's meta stays as it was
        group = None
        if decided:
            group = self.favour if self.favour != "topic" else self.FAVOURED_BY_TOPIC.get(topic)
        if group is None:
            return jitter, self.k, {"topic": topic, "favoured": None, **extra}
        identifiers = set(GENDER_WORDS[group])
        counts = np.array([sum(token in identifiers for token in tokens) for tokens in sentences.all_tokens], float)
        # Jitter < 1 only reorders sentences with equal identifier counts.
        return counts + jitter, self.k, {"topic": topic, "favoured": group, **extra}


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


def _sexist_from_name(match) -> dict[str, Any]:
    fixed: dict[str, Any] = {}
    if match.group(1):
        fixed["favour"] = match.group(1)
    if match.group(2):
        fixed["strength"] = float(match.group(2))  # the pattern admits only what float() reads
    return fixed


register(r"lead-(\d+)", "lead-3", Lead, from_name=_k_from_name)
register(r"random-(\d+)", "random-3", RandomK, from_name=_k_from_name)
register(r"textrank(?:-(\d+))?", "textrank", TextRank, from_name=_k_from_name)
register(r"lexrank(?:-(\d+))?", "lexrank", LexRank, from_name=_k_from_name)
register(r"topic", "topic", Topic)
register(r"sexist(?:-(female|male))?(?:@(\d+(?:\.\d*)?(?:e[-+]?\d+)?))?", "sexist", Sexist,
         from_name=_sexist_from_name)
