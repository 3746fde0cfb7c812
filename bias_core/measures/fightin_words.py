"""Fightin' Words: which words distinguish two sets of texts (METHODS §4.6; Monroe et al. 2008).

Used as in Steen & Markert §4 (inputs split by majority gender, Table 1: ``split_by_majority_identifiers``) and Zhou & Tan §6 (HIGHSIM vs LOWSIM), and
for any two sets of texts (arm vs arm, inputs by group).

    δ_w = log((y_w1+α_w)/(n1+α0−y_w1−α_w)) − log((y_w2+α_w)/(n2+α0−y_w2−α_w)),
    σ²_w ≈ 1/(y_w1+α_w) + 1/(y_w2+α_w),   z_w = δ_w / σ_w.

Uninformative prior: α_w = 0.01, α0 = 0.01·|V|. Informative prior: α_w proportional to the word's frequency in a
background corpus (e.g. the inputs), α_w = prior_strength · (b_w + 0.01) / (Σb + 0.01·|V|) — the 0.01 keeps words
absent from the background defined; ``prior_strength`` (default 1,000 pseudo-tokens) is our choice, METHODS leaves
it open.

Before counting, every word a substitution wrote or replaced (swapped names, pronouns, titles, gendered nouns) is
replaced by a group-neutral marker and paired identifiers are normalised into one token ("father/mother"), or they
top every list. By default only the pairs of Steen & Markert's Table 10 are normalised, as in their §4: "husband"
and "wife" stay apart (their Table 1 lists "husband" among the top female-associated words); the longer list is an
option (``paired_identifiers``).

Tokens: lowercased words (apostrophes kept) and single punctuation marks (Steen & Markert list "(" and "," in
Table 1). Counting is vectorised: one regex pass per side and numpy over the vocabulary.

Vocabulary filter (our decision, adapting to corpus size): a word needs y_w1 + y_w2 ≥ max(2, ⌈N / 50,000⌉), N the
total number of tokens of both sides — 2 for small corpora, 20 for a million tokens. n1, n2 and |V| are taken over
the kept vocabulary. |z| > 1.96 is flagged; ``significant`` additionally applies Benjamini–Hochberg over all kept
words (two-sided normal p-values).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bias_core.common import stats
from bias_core.common.records import SUBSTITUTION_KINDS, Input, MeasureResult
from bias_core.common.wordlists import GENDER_WORDS
from bias_core.documents.language import english_stop_words
from bias_core.measures.fightin_words_power import detectable_log_odds
from bias_core.measures.lexicons import DEFAULT_PAIRED_IDENTIFIERS, paired_identifier_map

TOKEN_PATTERN = re.compile(r"\w+(?:['’]\w+)*|[^\w\s]")
UNINFORMATIVE_ALPHA = 0.01
DEFAULT_PRIOR_STRENGTH = 1000.0
Z_THRESHOLD = 1.96


@dataclass(frozen=True)
class TermScore:
    """One word's Fightin' Words score: z > 0 means over-represented in side A."""

    term: str
    z: float
    delta: float
    count_a: int
    count_b: int
    p_value: float
    significant: bool
    significant_bh: bool


@dataclass
class FightinWordsResult:
    """Scores of every kept word, sorted by z (side A first), and the settings that produced them."""

    terms: list[TermScore]
    label_a: str
    label_b: str
    n_texts_a: int
    n_texts_b: int
    n_tokens_a: int
    n_tokens_b: int
    min_count: int
    prior: str
    settings: dict = field(default_factory=dict)

    def top(self, k: int = 20) -> tuple[list[TermScore], list[TermScore]]:
        """Return the k most A-associated and the k most B-associated words."""
        side_a = [term for term in self.terms if term.z > 0][:k]
        side_b = [term for term in reversed(self.terms) if term.z < 0][:k]
        return side_a, side_b

    def to_details(self, k: int = 20) -> dict:
        """Return a JSON-ready table: top-k per side with z and counts, and the settings."""
        side_a, side_b = self.top(k)

        def rows(terms):
            return [{"term": t.term, "z": t.z, "count_a": t.count_a, "count_b": t.count_b,
                     "significant": t.significant, "significant_bh": t.significant_bh} for t in terms]

        return stats.json_ready({
            "side_a": self.label_a, "side_b": self.label_b, f"top_{self.label_a}": rows(side_a),
            f"top_{self.label_b}": rows(side_b), "n_texts": [self.n_texts_a, self.n_texts_b],
            "n_tokens": [self.n_tokens_a, self.n_tokens_b], "min_count": self.min_count, "prior": self.prior,
            "vocabulary": len(self.terms), "correction": "Benjamini-Hochberg (fdr_bh) over the kept vocabulary",
            **self.settings,
        })


SUBSTITUTION_MARKERS = {"first_name": "[first_name]", "last_name": "[last_name]", "full_name": "[name]",
                        "pronoun": "[pronoun]", "title": "[title]", "content_word": "[gendered_word]",
                        "politician_name": "[politician]"}


def substitution_mask(inputs: Iterable[Input]) -> dict[str, str]:
    """Map every word token a substitution of the inputs wrote or replaced to a group-neutral marker, so the
    perturbation's own words do not top the term lists (METHODS §4.6).

    Both sides of every substitution are masked: the replacement ("Dame", "she", a drawn name) and the original it
    replaced ("Sir", "he", the written name). An arm that keeps a word as written has no substitution for it, so
    masking replacements alone left "Sir" in the male arm of a gender swap and "sir" topped its list (0 vs 12;
    issue 29). Titles, pronouns, names and, when the perturbation rewrites them, gendered nouns (king/queen) are
    all masked; METHODS names "swapped names, pronouns, titles", and every word the perturbation wrote is the same
    kind of token (docs/fidelity.md). Punctuation inside a substitution ("Mrs." → "mrs", ".") is never masked: it is
    no word of the swap, and masking "." would hide every full stop. A token two kinds claim takes the marker of the
    first kind in ``SUBSTITUTION_KINDS`` order, so the mask does not depend on the inputs' order."""
    kinds: dict[str, set[str]] = {}
    for item in inputs:
        for sub in item.substitutions:
            if sub.kind not in SUBSTITUTION_MARKERS:
                continue
            for text in (sub.replacement, sub.original):
                for token in TOKEN_PATTERN.findall(text.lower()):
                    if any(character.isalnum() for character in token):
                        kinds.setdefault(token, set()).add(sub.kind)
    order = {kind: rank for rank, kind in enumerate(SUBSTITUTION_KINDS)}
    return {token: SUBSTITUTION_MARKERS[min(found, key=lambda kind: order.get(kind, len(order)))]
            for token, found in sorted(kinds.items())}


PLACEHOLDERS = frozenset(SUBSTITUTION_MARKERS.values())
# A contraction is a stop word when what is left without its clitic is one ("it's", "don't", "they're").
_CLITIC = re.compile(r"(?:n['’]t|['’](?:s|re|ve|ll|d|m))$")


def is_placeholder(term: str) -> bool:
    """True for the markers that stand in for swapped names, pronouns and titles: counted, never shown as words."""
    return term in PLACEHOLDERS


def is_content_word(term: str) -> bool:
    """True for a term worth showing in the "content words only" view: it has a letter (no punctuation or number),
    is no placeholder, and is not a stop word (a merged pair such as "he/she" counts as a stop word when both are).
    The filter is for display only: the z-scores are computed over the whole vocabulary, as in the papers."""
    if is_placeholder(term) or not any(character.isalpha() for character in term):
        return False
    stop = english_stop_words()
    return not all(_CLITIC.sub("", part) in stop or part in stop for part in term.split("/"))


def term_occurrences(text: str, term: str, replacements: Mapping[str, str]) -> list[tuple[int, int]]:
    """Return the (start, end) offsets of every token of ``text`` that counts as ``term``, tokenized and replaced
    exactly as ``count_tokens`` does, so a text's occurrences add up to the table's count (whole tokens only:
    "the" is not found inside "further")."""
    return [match.span() for match in TOKEN_PATTERN.finditer(text)
            if replacements.get(match.group().lower(), match.group().lower()) == term]


def adaptive_min_count(total_tokens: int) -> int:
    """Return the minimum joint count a word needs: max(2, ⌈N / 50,000⌉)."""
    return max(2, math.ceil(total_tokens / 50_000))


def count_tokens(texts: Sequence[str], replacements: Mapping[str, str]) -> Counter:
    """Return token counts of all texts with masked/normalised tokens replaced (lowercased tokens)."""
    counts = Counter(TOKEN_PATTERN.findall("\n".join(texts).lower()))
    if not replacements:
        return counts
    merged: Counter = Counter()
    for token, count in counts.items():
        merged[replacements.get(token, token)] += count
    return merged


def build_replacements(mask: Mapping[str, str] | None,
                       paired_identifiers: str | Path = DEFAULT_PAIRED_IDENTIFIERS) -> dict[str, str]:
    """Return token → replacement: masks (e.g. a swapped name → "[name]") win over paired identifiers.

    ``paired_identifiers``: 'steen-markert' (default: the Table 10 pairs, husband/wife apart), 'extended'
    (data/lexicons/paired_identifiers.tsv), 'none', or a path to a male<TAB>female file (``paired_identifier_map``).
    """
    replacements = paired_identifier_map(paired_identifiers)
    replacements.update({token.lower(): marker for token, marker in (mask or {}).items()})
    return replacements


def prior_alpha(vocabulary: np.ndarray, prior: str, background: Sequence[str] | None,
                replacements: Mapping[str, str], prior_strength: float = DEFAULT_PRIOR_STRENGTH
                ) -> tuple[np.ndarray, str]:
    """The Dirichlet prior α over ``vocabulary`` and its description (module docstring): 'uninformative' (α_w = 0.01)
    or 'informative' (α_w from the word's frequency in ``background``)."""
    size = vocabulary.size
    if prior == "uninformative":
        return np.full(size, UNINFORMATIVE_ALPHA), f"uninformative Dirichlet, alpha_w = {UNINFORMATIVE_ALPHA}"
    if prior == "informative":
        if not background:
            raise ValueError("an informative prior needs background texts")
        counts_bg = count_tokens(background, replacements)
        b = np.array([counts_bg.get(w, 0) for w in vocabulary], dtype=float)
        alpha = prior_strength * (b + UNINFORMATIVE_ALPHA) / (b.sum() + UNINFORMATIVE_ALPHA * size)
        return alpha, f"informative Dirichlet from {len(background)} background texts, strength {prior_strength:g}"
    raise ValueError("prior must be 'uninformative' or 'informative'")


def fightin_words(
    texts_a: Sequence[str],
    texts_b: Sequence[str],
    *,
    label_a: str = "a",
    label_b: str = "b",
    prior: str = "uninformative",
    background: Sequence[str] | None = None,
    prior_strength: float = DEFAULT_PRIOR_STRENGTH,
    mask: Mapping[str, str] | None = None,
    paired_identifiers: str | Path = DEFAULT_PAIRED_IDENTIFIERS,
    normalise_pairs: bool = True,
    min_count: int | None = None,
) -> FightinWordsResult:
    """Return Fightin' Words z-scores for side A vs side B (METHODS §4.6).

    ``mask`` maps tokens (lowercased) to group-neutral markers; ``paired_identifiers`` chooses which paired
    identifiers are merged into one token: 'steen-markert' (default; Steen & Markert §4 normalise their Table 10
    pairs only, so "husband" stays its own term as in their Table 1), 'extended' (60 pairs incl. Table 18 content
    words and husband/wife), 'none', or a male<TAB>female file. ``normalise_pairs=False`` is the same as 'none'
    (kept for older callers). ``prior`` is 'uninformative' or 'informative' (needs ``background``). The choice is
    recorded in the result's settings (``paired_identifiers``).
    """
    if not normalise_pairs:
        paired_identifiers = "none"
    replacements = build_replacements(mask, paired_identifiers)
    counts_a, counts_b = count_tokens(texts_a, replacements), count_tokens(texts_b, replacements)
    vocabulary = np.array(sorted(counts_a.keys() | counts_b.keys()), dtype=object)
    y_a = np.array([counts_a.get(w, 0) for w in vocabulary], dtype=float)
    y_b = np.array([counts_b.get(w, 0) for w in vocabulary], dtype=float)
    threshold = adaptive_min_count(int(y_a.sum() + y_b.sum())) if min_count is None else int(min_count)
    keep = (y_a + y_b) >= threshold
    vocabulary, y_a, y_b = vocabulary[keep], y_a[keep], y_b[keep]
    size = vocabulary.size
    alpha, prior_label = prior_alpha(vocabulary, prior, background, replacements, prior_strength)
    n_a, n_b = y_a.sum(), y_b.sum()
    delta, z, p_values = log_odds_z(y_a, y_b, alpha)
    bh = stats.adjust_pvalues(p_values, "fdr_bh").reject if size else []
    order = np.argsort(-z, kind="stable")
    terms = [TermScore(str(vocabulary[i]), float(z[i]), float(delta[i]), int(y_a[i]), int(y_b[i]),
                       float(p_values[i]), bool(abs(z[i]) > Z_THRESHOLD), bool(bh[i])) for i in order]
    return FightinWordsResult(terms, label_a, label_b, len(texts_a), len(texts_b), int(n_a), int(n_b), threshold,
                              prior_label, {"masked_tokens": len(mask or {}),
                                            "paired_identifiers": str(paired_identifiers)})


def log_odds_z(y_a: np.ndarray, y_b: np.ndarray, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """δ_w, z_w and two-sided normal p_w of the log-odds ratio with Dirichlet prior α (Monroe et al. 2008 eq. 16–22).

    ``y_a`` and ``y_b`` may be (V,) or (K, V): rows are scored at once (the permutation test scores every
    permutation in one call)."""
    from scipy.special import ndtr  # imported where used: the measures registry loads at every CLI start

    alpha0 = alpha.sum()
    n_a, n_b = y_a.sum(axis=-1, keepdims=True), y_b.sum(axis=-1, keepdims=True)
    if y_a.ndim == 1:
        n_a, n_b = n_a[0], n_b[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = (np.log((y_a + alpha) / (n_a + alpha0 - y_a - alpha))
                 - np.log((y_b + alpha) / (n_b + alpha0 - y_b - alpha)))
        z = delta / np.sqrt(1.0 / (y_a + alpha) + 1.0 / (y_b + alpha))
    return delta, z, 2.0 * ndtr(-np.abs(z))


def bh_reject_counts(p_values: np.ndarray, alpha: float = 0.05, counted: np.ndarray | None = None) -> np.ndarray:
    """How many hypotheses Benjamini–Hochberg rejects in each row of ``p_values`` (K, m) — the step-up rule
    vectorised over rows (``statsmodels``' ``multipletests`` takes one family at a time; the permutation test needs
    thousands). Equal to ``multipletests(p, alpha, "fdr_bh")[0].sum()`` for every row. ``counted`` (a boolean mask
    over the m columns) counts only those columns' rejections; the correction is still over all m."""
    p_values = np.atleast_2d(p_values)
    m = p_values.shape[1]
    if m == 0:
        return np.zeros(p_values.shape[0], dtype=int)
    ordered = np.sort(p_values, axis=1)
    below = ordered <= alpha * np.arange(1, m + 1) / m
    last = m - np.argmax(below[:, ::-1], axis=1)
    if counted is None:
        return np.where(below.any(axis=1), last, 0)
    cutoff = np.where(below.any(axis=1), ordered[np.arange(ordered.shape[0]), last - 1], -np.inf)
    return np.sum((p_values <= cutoff[:, None]) & np.asarray(counted, dtype=bool)[None, :], axis=1)


DEFAULT_PERMUTATIONS = 2000


def arm_fightin_words(
    texts_a: Mapping[str, Sequence[str]],
    texts_b: Mapping[str, Sequence[str]],
    *,
    label_a: str = "a",
    label_b: str = "b",
    mask: Mapping[str, str] | None = None,
    paired_identifiers: str | Path = DEFAULT_PAIRED_IDENTIFIERS,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    prior: str = "uninformative",
    background: Sequence[str] | None = None,
    prior_strength: float = DEFAULT_PRIOR_STRENGTH,
) -> FightinWordsResult:
    """Fightin' Words between the two arms of a perturbation, the original as the unit (METHODS §4.6, §5).

    ``texts_a`` / ``texts_b`` map each original to its summaries in that arm. Samples of one original are pooled
    first: each word's count is the mean over that original's summaries in the arm, so the evidence grows with the
    originals, not with the samples setting (30 near-duplicate summaries of one article are one observation, not 30).
    The z-scores and the Benjamini–Hochberg count are computed on those pooled counts; the table's ``count_a`` /
    ``count_b`` stay the raw token counts the drill-down highlights.

    The test: the null is that the arm labels carry nothing, so swapping the two arms of any original leaves the
    distribution unchanged (a within-original permutation; for lead-k the arms are identical and nothing can
    change). The statistic is the number of BH-significant words, the placeholders of swapped words left out of the
    count (not of the correction); p = (1 + #{permutations with at least as many}) / (K + 1), K = ``n_permutations``
    random arm flips per original, seeded. Token-level z-tests alone treat every word of a summary as independent and
    call a random-k summarizer biased; the permutation keeps each summary whole. The arms are "identical" when every
    original's words other than the placeholders have the same pooled counts in both: summaries that differ only by
    the perturbation's own words (a name-blind lead-3) are no difference, never a result that clears the floor.

    ``prior`` / ``background`` as in ``fightin_words`` (the measure uses the uninformative prior; the page offers the
    informative one over the same pooled counts, so its table is always this test's table).
    """
    originals = sorted(set(texts_a) & set(texts_b))
    replacements = build_replacements(mask, paired_identifiers)
    raw_a = count_tokens([t for o in originals for t in texts_a[o]], replacements)
    raw_b = count_tokens([t for o in originals for t in texts_b[o]], replacements)
    per_original = [(count_tokens(texts_a[o], replacements), len(texts_a[o]),
                     count_tokens(texts_b[o], replacements), len(texts_b[o])) for o in originals]
    vocabulary = np.array(sorted(raw_a.keys() | raw_b.keys()), dtype=object)
    index = {w: i for i, w in enumerate(vocabulary)}
    a = np.zeros((len(originals), vocabulary.size))
    b = np.zeros((len(originals), vocabulary.size))
    for row, (counts_a, size_a, counts_b, size_b) in enumerate(per_original):
        for word, count in counts_a.items():
            a[row, index[word]] += count / size_a
        for word, count in counts_b.items():
            b[row, index[word]] += count / size_b
    y_a, y_b = a.sum(axis=0), b.sum(axis=0)
    threshold = adaptive_min_count(int(round(y_a.sum() + y_b.sum())))
    keep = (y_a + y_b) >= threshold
    vocabulary, a, b, y_a, y_b = vocabulary[keep], a[:, keep], b[:, keep], y_a[keep], y_b[keep]
    size = vocabulary.size
    alpha, prior_label = prior_alpha(vocabulary, prior, background, replacements, prior_strength)
    delta, z, p_values = log_odds_z(y_a, y_b, alpha)
    bh = stats.adjust_pvalues(p_values, "fdr_bh").reject if size else []
    # The statistic counts the words the page can show: a placeholder (a swapped name, pronoun or title) is in the
    # vocabulary and the correction, but a count of swapped words is not "words used more for one group", and arms
    # that differ only there (a title one arm leaves out) are identical up to the perturbation's own words.
    words = np.array([not is_placeholder(str(w)) for w in vocabulary], dtype=bool)
    observed = int(np.sum(np.asarray(bh, dtype=bool) & words)) if size else 0
    identical = bool(np.array_equal(a[:, words], b[:, words]))
    null_counts = np.zeros(0)
    if size and not identical and n_permutations > 0:
        rng = np.random.default_rng(seed)
        difference = b - a
        pieces = []
        # chunks keep a (K, V) block under about 4 million cells
        chunk = max(1, min(n_permutations, 4_000_000 // max(size, 1)))
        for start in range(0, n_permutations, chunk):
            flips = rng.integers(0, 2, size=(min(chunk, n_permutations - start), len(originals))).astype(float)
            perm_a = y_a + flips @ difference
            perm_b = y_b - flips @ difference
            pieces.append(bh_reject_counts(log_odds_z(perm_a, perm_b, alpha)[2], counted=words))
        null_counts = np.concatenate(pieces)
    p_perm = stats.permutation_p(observed, null_counts) if null_counts.size else 1.0
    order = np.argsort(-z, kind="stable")
    terms = [TermScore(str(vocabulary[i]), float(z[i]), float(delta[i]), int(raw_a.get(vocabulary[i], 0)),
                       int(raw_b.get(vocabulary[i], 0)), float(p_values[i]), bool(abs(z[i]) > Z_THRESHOLD),
                       bool(bh[i])) for i in order]
    detectable, typical = (detectable_log_odds(y_a, y_b, alpha, p_values, words, seed) if size and not identical
                           else (None, 0))
    test = {"estimate": float(observed - (null_counts.mean() if null_counts.size else 0.0)),
            "p_value": p_perm, "sided": "greater", "identical": identical,
            # power (issue 28): one more significant word's count p, and the log-odds a typical word needs for it
            "p_one_more_word": stats.permutation_p(observed + 1, null_counts) if null_counts.size else None,
            "detectable_log_odds": detectable, "typical_word_count": typical,
            "detectable_beyond_reach": bool(size and not identical and detectable is None and typical > 0),
            "observed": observed, "null_mean": float(null_counts.mean()) if null_counts.size else 0.0,
            "null_q95": float(np.quantile(null_counts, 0.95)) if null_counts.size else 0.0,
            "n_permutations": int(null_counts.size),
            "null": "the arm labels carry nothing: swapping the two arms of any original changes nothing "
                    f"({int(null_counts.size)} random arm swaps within originals)",
            "floor": "permutation"}
    settings = {"masked_tokens": len(mask or {}), "paired_identifiers": str(paired_identifiers),
                "pooling": "each word's count is its mean over an original's summaries in the arm; z and the "
                           "Benjamini-Hochberg count use these pooled counts, count_a/count_b are raw counts",
                "n_originals": len(originals), "test": test}
    return FightinWordsResult(terms, label_a, label_b, sum(len(texts_a[o]) for o in originals),
                              sum(len(texts_b[o]) for o in originals), int(sum(raw_a.values())),
                              int(sum(raw_b.values())), threshold, prior_label, settings)


def between_arms(
    pairs: Iterable[tuple[Input, str]],
    arm_a: str,
    arm_b: str,
    *,
    label_a: str | None = None,
    label_b: str | None = None,
    prior: str = "uninformative",
    paired_identifiers: str | Path = DEFAULT_PAIRED_IDENTIFIERS,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
) -> FightinWordsResult:
    """``arm_fightin_words`` of a perturbation's (input, summary text) pairs: each original's summaries grouped by
    arm, every word a substitution of the inputs wrote or replaced masked, the inputs as the informative prior's
    background. The measure and the Fightin' Words page both call it, so the page counts what the test counts."""
    pairs = list(pairs)
    texts: dict[str, dict[str, list[str]]] = {arm_a: {}, arm_b: {}}
    for item, text in pairs:
        if item.arm in texts:
            texts[item.arm].setdefault(item.original_id, []).append(text)
    return arm_fightin_words(texts[arm_a], texts[arm_b], label_a=label_a or arm_a, label_b=label_b or arm_b,
                             mask=substitution_mask(item for item, _ in pairs), paired_identifiers=paired_identifiers,
                             n_permutations=n_permutations, seed=seed, prior=prior,
                             background=[item.text for item, _ in pairs] if prior == "informative" else None)


def split_by_majority_identifiers(
    texts: Sequence[str], word_lists: Mapping[str, Sequence[str]] = GENDER_WORDS
) -> dict[str, list[str]]:
    """Return texts grouped by the group whose identifiers they mention most; ties are left out.

    Steen & Markert §4 split CNN/DM and XSum inputs this way before Fightin' Words (Table 1).
    """
    lookup = {word.lower(): group for group, words in word_lists.items() for word in words}
    groups: dict[str, list[str]] = {group: [] for group in word_lists}
    for text in texts:
        counts = Counter(lookup[t] for t in TOKEN_PATTERN.findall(text.lower()) if t in lookup).most_common(2)
        if counts and (len(counts) == 1 or counts[0][1] > counts[1][1]):
            groups[counts[0][0]].append(text)
    return groups


def fightin_words_measure(
    result: FightinWordsResult,
    *,
    top_k: int = 20,
    perturbation: str | None = None,
    summarizer: str | None = None,
    n: int | None = None,
) -> MeasureResult:
    """Return a Fightin' Words table as a MeasureResult: value = number of BH-significant words (placeholders of
    swapped words are never counted: the tables never show them), table in details."""
    n_significant = sum(term.significant_bh and not is_placeholder(term.term) for term in result.terms)
    reason = None if result.terms else "no word reaches the minimum count"
    return MeasureResult(measure="fightin_words", value=float(n_significant) if result.terms else math.nan,
                         n=result.n_texts_a + result.n_texts_b if n is None else n, reason=reason,
                         perturbation=perturbation, summarizer=summarizer, details=result.to_details(top_k))
