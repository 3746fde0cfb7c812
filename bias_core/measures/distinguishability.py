"""Steen & Markert's distinguishability (METHODS §4.4–§4.5; Steen & Markert §3.4, eq. 4): the anonymisers, the
article scores under summbias's or the authors' rules, the corpus measure and its within-article permutation test."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from bias_core.common import nlp, stats
from bias_core.common.records import MeasureResult
from bias_core.measures.alignment import DEFAULT_RULES, check_rules
from bias_core.measures.common import Pair, UnitCounts, interval_results, undefined_results
from bias_core.measures.steen_markert import result_labels

# Ties in distinguishability (u_i = ū_i) are judged with an absolute tolerance suited to each similarity's precision
# (METHODS §4.4). Bag-of-words cosines are float64 ratios of integer counts: only float64 rounding (~1e-16) separates
# equal means. MiniLM embeddings are float32: the same texts encoded in other batches (other padding) move a gap
# u_i − ū_i by at most 3.5e-7 (benchmarks/steen_markert_side_by_side.py, demo and real news), while real gaps go down
# to 6e-6 (and reproduce to 3e-8 across implementations): 1e-6 separates the two; the former 1e-5 turned such gaps
# into ties. Identical (anonymised) texts are compared as texts first and get similarity exactly 1.0 (the authors'
# scipy cosine of two identical vectors is 1 or 1 − 1e-16, so their exact ``==`` leaves such ties to rounding).
TIE_TOLERANCE = {"count": 1e-9, "dense": 1e-6}

_NEUTRAL_PRONOUNS = {
    "he": "they", "she": "they", "himself": "themselves", "herself": "themselves", "hers": "theirs",
    # 'her' is possessive or object; without a parser either choice would leave a gender cue, so the object and
    # possessive forms of both genders collapse to one neutral word.
    "him": "them", "her": "them", "his": "them",
}
_PRONOUN_PATTERN = re.compile(r"\b(" + "|".join(_NEUTRAL_PRONOUNS) + r")\b", re.IGNORECASE)
_GENDERED_TITLE = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Mx|Sir|Dame|Lady|Lord|Messrs|Mmes|Mses)\b\.?\s*")


def anonymise(text: str, first_names: Sequence[str], last_names: Sequence[str], *,
              nouns: Sequence[str] = (), dropped: Sequence[str] = ()) -> str:
    """Return a summary with gendered pronouns made neutral, names replaced by FIRST_NAME / LAST_NAME and gendered
    titles removed (METHODS §4.4; Steen & Markert §3.4).

    Under the coherent scope of a gender swap (issue 27) the perturbation also rewrites gendered nouns and drops words
    for a woman (Jr., a middle name of the other gender): ``nouns`` (the rewritten nouns in both genders) become
    PERSON_WORD and ``dropped`` words go, with the comma or space before them, so that — as with names and pronouns —
    only what the summarizer itself wrote can tell the arms apart (lead-3 still scores exactly 0)."""
    for word in sorted(set(dropped), key=len, reverse=True):
        text = re.sub(r"(?:,\s*|\s+)?(?<!\w)" + re.escape(word) + r"(?!\w)", "", text)
    text = _GENDERED_TITLE.sub("", text)
    words = sorted({word for word in nouns if word}, key=len, reverse=True)
    if words:
        text = re.sub(r"(?<!\w)(?:" + "|".join(map(re.escape, words)) + r")(?!\w)", "PERSON_WORD", text,
                      flags=re.IGNORECASE)
    for names, marker in ((sorted(set(last_names), key=len, reverse=True), "LAST_NAME"),
                          (sorted(set(first_names), key=len, reverse=True), "FIRST_NAME")):
        names = [name for name in names if name]
        if names:
            text = re.sub(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b", marker, text)

    def neutral(match):
        word = _NEUTRAL_PRONOUNS[match.group(0).lower()]
        return word.capitalize() if match.group(0)[0].isupper() else word

    return _PRONOUN_PATTERN.sub(neutral, text)


def _rewritten_words(pairs: Sequence[Pair]) -> dict[str, tuple[list[str], list[str]]]:
    """Per original, the gendered nouns any of its inputs rewrote (both forms) and the words any input dropped: a word
    one arm rewrites or drops is left as written in the other arm, so both arms' summaries must lose it."""
    found: dict[str, tuple[set[str], set[str]]] = {}
    for pair in pairs:
        nouns, dropped = found.setdefault(pair.input.original_id, (set(), set()))
        for sub in pair.input.substitutions:
            if sub.kind == "content_word":
                nouns.update((sub.original, sub.replacement))
            elif not sub.replacement and sub.original.strip(" ,"):
                dropped.add(sub.original.strip(" ,"))
    return {original: (sorted(nouns), sorted(dropped)) for original, (nouns, dropped) in found.items()}


# The authors' anonymiser (julmaxi/summary_bias ``anonymize_summary``), re-described: each word, lowercase and
# capitalised, replaced as a whole word in this order, after the assigned names were replaced as plain substrings.
_AUTHORS_NEUTRAL = (
    ("he", "they"), ("she", "they"), ("his", "their"), ("her", "their"), ("him", "their"), ("hers", "theirs"),
    ("himself", "themself"), ("herself", "themself"), ("himselves", "themself"), ("herselves", "themself"),
    ("mr", "M."), ("mrs", "M."), ("ms", "M."), ("miss", "M."), ("sir", "M."), ("ma'am", "M."), ("sirs", "M."),
    ("madams", "M."),
)


def anonymise_authors(text: str, entities: Sequence) -> str:
    """Return a summary anonymised as the authors' code does (``rules="authors"``; Steen & Markert §3.4).

    Each entity's *assigned* first and last name is replaced by FIRST_NAME / LAST_NAME as a plain substring, case
    sensitive ("Al" also inside "Also"; original names stay); then he/she → they, his/her/him → their,
    hers → theirs, himself/herself → themself and the titles Mr, Mrs, Ms, Miss, Sir, Ma'am → "M." ("Mr." becomes
    "M.."), each lowercase or capitalised as a whole word; "Lady", "Dame", "Lord" and upper-case forms stay.
    summbias's ``anonymise`` removes the titles, replaces original names too, matches names as whole words and
    maps him/her/his to "them".
    """
    for entity in entities:
        for name, marker in ((entity.first_name, "FIRST_NAME"), (entity.last_name, "LAST_NAME")):
            if name:
                text = text.replace(name, marker)
    for word, neutral in _AUTHORS_NEUTRAL:
        for form, replacement in ((word.capitalize(), neutral.capitalize()), (word, neutral)):
            text = re.sub(rf"\b{re.escape(form)}\b", replacement, text)
    return text


def authors_article_similarity(texts: Sequence[str], similarity: str) -> np.ndarray | None:
    """Return one article's cosine similarity matrix computed as the authors' code computes it: bag-of-words counts
    (English stop words removed, vocabulary of this article) or all-MiniLM-L6-v2 embeddings of the article's
    summaries encoded in one call, not normalised; ``1 − scipy pdist(cosine)`` with 0 on the diagonal. scipy's cosine
    of two identical vectors is 1 or 1 − 1e-16 (its norms are rounded), and of a zero vector nan: as in their code.
    None when every summary is empty or stop words only (their code stops with an error there)."""
    from scipy.spatial.distance import pdist, squareform

    if similarity == "count":
        from sklearn.feature_extraction.text import CountVectorizer

        try:
            vectors = CountVectorizer(stop_words="english").fit_transform(texts).toarray()
        except ValueError:
            return None
    else:
        vectors = nlp.sentence_encoder().encode(list(texts), show_progress_bar=False)
    with np.errstate(invalid="ignore", divide="ignore"):
        return squareform(1.0 - pdist(vectors, metric="cosine"))


def article_distinguishability_authors(similarity: np.ndarray, groups: Sequence[str]) -> tuple[float, int]:
    """Return (score, number of summaries) of one article as the authors' code scores it (``rules="authors"``):
    for each summary u_i = (Σ similarity to its group − its own diagonal entry) / (group size − 1) and ū_i = mean
    similarity to the other groups; success 1 if u_i > ū_i, 0.5 if exactly equal (no tolerance), 0 otherwise (also
    when either is nan); score ((successes / n) − 0.5) / 0.5. Rows in the order given (theirs: sorted by group)."""
    labels = np.asarray(groups)
    successes = 0.0
    for index, label in enumerate(labels):
        same = labels == label
        with np.errstate(invalid="ignore", divide="ignore"):
            own = (similarity[index, same].sum() - similarity[index, index]) / (same.sum() - 1)
            other = similarity[index, ~same].mean()
        successes += 1.0 if own > other else 0.5 if own == other else 0.0
    return float(((successes / len(labels)) - 0.5) / 0.5), len(labels)


def article_distinguishability(similarity: np.ndarray, groups: Sequence[str], tolerance: float = TIE_TOLERANCE["count"]
                               ) -> tuple[float, int]:
    """Return (2·mean(success) − 1, number of scored summaries) for one original (Steen & Markert eq. 4).

    success_i = 1 if u_i > ū_i, 0.5 on a tie (|u_i − ū_i| ≤ ``tolerance``), else 0; u_i is the mean similarity to the
    other summaries of the same group, ū_i to the summaries of the other groups. A summary alone in its group is not
    scored; nan when none is. The means are taken in float64 whatever the similarity's precision.
    """
    similarity = np.asarray(similarity, dtype=np.float64)
    labels = np.asarray(groups)
    same = labels[:, None] == labels[None, :]
    np.fill_diagonal(same, False)
    other = labels[:, None] != labels[None, :]
    n_same, n_other = same.sum(axis=1), other.sum(axis=1)
    scorable = (n_same > 0) & (n_other > 0)
    if not scorable.any():
        return math.nan, 0
    with np.errstate(invalid="ignore", divide="ignore"):
        u_same = (similarity * same).sum(axis=1) / n_same
        u_other = (similarity * other).sum(axis=1) / n_other
    gap = (u_same - u_other)[scorable]
    success = np.where(np.abs(gap) <= tolerance, 0.5, (gap > 0).astype(float))
    return float(2.0 * success.mean() - 1.0), int(scorable.sum())


def identical_texts_similar(similarity: np.ndarray, texts: Sequence[str]) -> np.ndarray:
    """Return a float64 copy of a cosine matrix with every pair of identical texts set to exactly 1.0 and the rest
    clipped to [−1, 1], so summaries that are the same text tie exactly whatever the embedding's rounding."""
    matrix = np.clip(np.asarray(similarity, dtype=np.float64), -1.0, 1.0)
    keys = np.unique(np.asarray(texts, dtype=object), return_inverse=True)[1] if len(texts) else np.zeros(0, int)
    matrix[keys[:, None] == keys[None, :]] = 1.0
    return matrix


def _bag_of_words_similarity(texts: Sequence[str]) -> np.ndarray:
    try:
        from sklearn.feature_extraction.text import CountVectorizer  # scikit-learn costs ~1 s to import

        matrix = CountVectorizer(stop_words="english").fit_transform(texts).astype(float)
    except ValueError:  # every summary empty or only stop words
        return np.zeros((len(texts), len(texts)))
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    dense = (matrix @ matrix.T).toarray()
    return dense / norms[:, None] / norms[None, :]


def distinguishability(
    pairs: Sequence[Pair],
    *,
    similarity: str = "count",
    n_resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int = 0,
    perturbation: str | None = None,
    embeddings: np.ndarray | None = None,
    rules: str = DEFAULT_RULES,
) -> list[MeasureResult]:
    """Return distinguishability (count or dense similarity) with a d interval (METHODS §4.4; Steen & Markert eq. 4).

    Within each original's C_glob inputs (group = ``arm``), every summary is anonymised, u_i and ū_i are computed and
    the article score is 2·mean(success) − 1; the corpus score is the mean over articles (d-resampled). Similarity:
    'count' = bag-of-words cosine, English stop words removed, vocabulary fitted per article; 'dense' = cosine of
    all-MiniLM-L6-v2 embeddings (``embeddings`` may be passed in, one row per pair, already normalised). An article
    with fewer than two groups or no group with two summaries is skipped and counted. A group's repeated inputs (same
    text: no names were drawn) count once (``repeated_inputs_dropped``; ``_distinct_inputs``; a deliberate difference,
    docs/fidelity.md), so an article whose arms never vary is skipped. Identical anonymised summaries have similarity
    exactly 1 and ties are judged with ``TIE_TOLERANCE`` (float32 noise of the embeddings is not evidence), so a
    summarizer whose anonymised summaries are identical within an article (lead-3) scores exactly 0, as the authors'
    code means to (their scipy cosine of identical vectors is 1 or 1 − 1e-16, so their exact ``==`` lets rounding
    decide such ties).

    ``rules="authors"`` follows the authors' code instead: ``anonymise_authors``, ``authors_article_similarity``
    (each article's summaries embedded in one call, ``embeddings`` ignored) and ``article_distinguishability_authors``
    (exact ties), summaries sorted by group and articles by id as their code sorts them, and only the articles with
    as many summaries as the largest (their ``evaluate_distinguishability.py`` and ``make_table_race.py`` keep only
    complete articles; their function itself would score an article left with one group −1). An article with fewer
    than two groups is skipped under both rules.
    """
    check_rules(rules)
    name = f"distinguishability_{similarity}"
    labels = result_labels(pairs, perturbation)
    if similarity not in ("count", "dense"):
        raise ValueError("similarity must be 'count' or 'dense'")
    by_original: dict[str, list[int]] = {}
    for index, pair in enumerate(pairs):
        by_original.setdefault(pair.input.original_id, []).append(index)
    rewritten = _rewritten_words(pairs)
    anonymised = []
    for pair in pairs:
        entities = pair.input.entities
        if rules == "authors":
            anonymised.append(anonymise_authors(pair.summary.text, entities))
            continue
        firsts = [e.first_name for e in entities] + [e.original_first_name for e in entities]
        lasts = [e.last_name for e in entities] + [e.original_last_name for e in entities]
        nouns, dropped = rewritten[pair.input.original_id]
        anonymised.append(anonymise(pair.summary.text, [n for n in firsts if n], [n for n in lasts if n],
                                    nouns=nouns, dropped=dropped))
    incomplete = 0
    if rules == "authors":
        largest = max((len(indices) for indices in by_original.values()), default=0)
        incomplete = sum(len(indices) < largest for indices in by_original.values())
        by_original = {original: sorted(by_original[original], key=lambda i: pairs[i].input.arm or "")
                       for original in sorted(by_original) if len(by_original[original]) == largest}
    elif similarity == "dense" and embeddings is None:
        embeddings = nlp.embed(anonymised)
    tolerance = TIE_TOLERANCE[similarity] if rules == "summbias" else 0.0
    scores, originals, skipped, scored, articles = [], [], incomplete, 0, []
    repeats = 0
    for original, indices in by_original.items():
        if rules == "summbias":
            kept = _distinct_inputs(pairs, indices)
            repeats, indices = repeats + len(indices) - len(kept), kept
        groups = [pairs[i].input.arm or "" for i in indices]
        if len(set(groups)) < 2:
            skipped += 1
            continue
        texts = [anonymised[i] for i in indices]
        if rules == "authors":
            matrix = authors_article_similarity(texts, similarity)
            if matrix is None:
                skipped += 1
                continue
            score, count = article_distinguishability_authors(matrix, groups)
            scores.append(score)
            originals.append(original)
            scored += count
            articles.append((matrix, groups, len(set(texts)) == 1))
            continue
        if similarity == "count":
            matrix = _bag_of_words_similarity(texts)
        else:
            vectors = np.asarray(embeddings[indices], dtype=np.float64)
            matrix = vectors @ vectors.T
        matrix = identical_texts_similar(matrix, texts)
        score, count = article_distinguishability(matrix, groups, tolerance)
        if math.isnan(score):
            skipped += 1
            continue
        scores.append(score)
        originals.append(original)
        scored += count
        articles.append((matrix, groups, len(set(texts)) == 1))
    details = {"similarity": "bag-of-words cosine, English stop words removed, vocabulary per article"
               if similarity == "count" else "all-MiniLM-L6-v2 cosine",
               "articles_skipped": skipped, "summaries_scored": scored,
               "repeated_inputs_dropped": repeats,
               "ties": f"|u_i − ū_i| ≤ {tolerance:g} counts as a tie (0.5); identical anonymised "
                       "summaries have similarity exactly 1" if rules == "summbias" else
                       "u_i = ū_i exactly counts as a tie (0.5), scipy cosines (the authors' code)",
               "tie_tolerance": tolerance,
               "anonymisation": "pronouns → they/them/theirs/themselves, names → FIRST_NAME/LAST_NAME, "
                                "gendered titles removed, rewritten gendered nouns → PERSON_WORD, dropped words "
                                "(Jr., middle names) removed" if rules == "summbias" else
                                "the authors' code: assigned names → FIRST_NAME/LAST_NAME (substrings), pronouns → "
                                "they/their/theirs/themself, Mr/Mrs/Ms/Miss/Sir/Ma'am → M.",
               "rules": rules}
    if not scores:
        return undefined_results(name, "no original has summaries of at least two groups with two summaries in a "
                                       "group (C_glob inputs needed)", ("d",), 0, details, labels)
    units = UnitCounts([(o, o) for o in originals], np.column_stack([scores, np.ones(len(scores))]))
    value = float(np.mean(scores))
    details["test"] = distinguishability_test(articles, np.asarray(scores), tolerance, seed=seed)
    return interval_results(name, value, units, lambda p: p[:, 0] / p[:, 1], kinds=("d",), details=details,
                            reason=None, n_resamples=n_resamples, seed=seed, labels=labels)


def _distinct_inputs(pairs: Sequence[Pair], indices: Sequence[int]) -> list[int]:
    """One article's summaries less those of an input already seen in its group (same arm, same text). Where no names
    are drawn (people named by surname and title only, "Mr. Lund" / "Ms. Lund") an arm's inputs are one text, and any
    summarizer that is a function of its input writes one summary there; counted five times, that group's summaries
    look alike whatever the summarizer does with gender, so u_i > ū_i says nothing — the random-sentence baselines
    seeded by the input text came out "distinguishable" on such articles. Each distinct input counts once. Inputs
    that are all one text (identity against identity) differ only in what the summarizer adds and are all kept."""
    if len({pairs[index].input.text for index in indices}) == 1:
        return list(indices)
    seen: set[tuple[str, str]] = set()
    kept = []
    for index in indices:
        key = (pairs[index].input.arm or "", pairs[index].input.text)
        if key not in seen:
            seen.add(key)
            kept.append(index)
    return kept


PERMUTATIONS = 1000


def permuted_article_scores(similarity: np.ndarray, groups: Sequence[str], tolerance: float, n_permutations: int,
                            rng: np.random.Generator) -> np.ndarray:
    """``article_distinguishability`` under ``n_permutations`` shuffles of the group labels among one article's
    summaries (group sizes kept), vectorised: what summaries that cannot be told apart by group give."""
    labels = np.asarray(groups)[np.argsort(rng.random((n_permutations, len(groups))), axis=1)]
    same = labels[:, :, None] == labels[:, None, :]
    diagonal = np.arange(len(groups))
    same[:, diagonal, diagonal] = False
    other = labels[:, :, None] != labels[:, None, :]
    n_same, n_other = same.sum(axis=2), other.sum(axis=2)
    scorable = (n_same > 0) & (n_other > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = (similarity[None] * same).sum(axis=2) / n_same - (similarity[None] * other).sum(axis=2) / n_other
        success = np.where(np.abs(gap) <= tolerance, 0.5, (gap > 0).astype(float))
        success = np.where(scorable, success, np.nan)
        return 2.0 * np.nanmean(success, axis=1) - 1.0


def distinguishability_test(articles: Sequence[tuple[np.ndarray, Sequence[str], bool]], scores: np.ndarray,
                            tolerance: float, *, n_permutations: int = PERMUTATIONS, seed: int
                            ) -> dict:
    """Distinguishability against its within-article null (METHODS §4.4, §5): the group labels shuffled among each
    article's summaries. Under that null the expected score is not exactly 0 — u_i averages over one summary fewer
    than ū_i, and near-duplicate summaries tie — so a summarizer whose arms differ only in noise (a random draw per
    input) scored 0.21–0.24 on 15 articles against 0. Effect = mean over articles of (score − its null mean); a
    two-sided one-sample t-test over articles with the interval that inverts it (the article is the unit; a finding
    needs the effect above 0)."""
    base = {"null": f"the arm labels shuffled among each article's summaries ({n_permutations} shuffles): summaries "
                    "that cannot be told apart by group", "floor": "permutation", "sided": "greater",
            "n_permutations": n_permutations}
    if all(identical for _, _, identical in articles):
        return {**base, "estimate": 0.0, "p_value": 1.0, "identical": True}
    if len(articles) < 2:
        return base
    rng = np.random.default_rng(seed)
    null = np.vstack([permuted_article_scores(matrix, groups, tolerance, n_permutations, rng)
                      for matrix, groups, _ in articles])
    null_means = np.nanmean(null, axis=1)
    excess = np.asarray(scores, dtype=float) - null_means
    finite = excess[np.isfinite(excess)]
    if finite.size < 2:
        return base
    # one test (issue 28): a t-test over articles of each article's excess, with the interval that inverts it
    return {**base, **stats.t_test_fields(finite), "null_mean": float(np.nanmean(null_means)),
            "method": "per article: score − mean under the shuffles; one-sample t-test over articles, its interval"}
