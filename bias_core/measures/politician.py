"""Politician-swap feature functions, paired t-tests with arrows, and summary similarity (METHODS §4.9; Zhou & Tan).

A pair is (S^e1, S^e2): the summary of an original that mentions politician e1, and the summary of the same article
with e1's name forms replaced by e2's (METHODS §1.5; Zhou & Tan §4, Table 1). Before comparing, e2's name forms in
S^e2 are replaced back with e1's ("back-replacement", Zhou & Tan footnote 4): with the perturbation engine's
``back_replace`` (Table 1 tiers) for inputs that name their pair, else from the input's substitution map (each
``politician_name`` replacement goes back to its original, longest form first, and e2's bare last name to e1's).

Features (Zhou & Tan §5), each a count divided by the summary's length in word tokens (§5 intro):
name mentions of the entity; party names DEM = {Democrat, Democrats, Democratic}, REP = {Republican, Republicans,
GOP}; co-occurring politicians by party and gender (a politicians table, replaceable; matched by full name, or by
title + last name when the last name is unique in the table; e1 and e2 themselves excluded); "Vice President";
"administration"; lexicon markers (assertives and factives after Hooper 1975, report verbs after Recasens et al.
2013, Hyland 2005 hedges — the published lists in data/lexicons, phrases matched as word sequences); psycholinguistic
categories from **Empath and the NRC emotion lexicon, used as stand-ins for the proprietary LIWC** (Zhou & Tan §5.5
use LIWC; the categories differ and results are not comparable with theirs). Summary length (tokens, not
normalised) is tested too (Zhou & Tan App. A.2).

Each feature gets a two-sided paired t-test (``scipy.stats.ttest_rel``, replaced vs original) per direction
(e1 → e2), optionally per year; arrows follow Zhou & Tan Table 2 (↑ = S^e2 has the larger mean). The arrows use raw
p-values as the paper does; Holm-adjusted p-values over the features of a direction are reported next to them.

Similarity = ``difflib.SequenceMatcher(None, tokens_a, tokens_b).ratio()`` over word tokens (Zhou & Tan §4).
HIGHSIM (≥ 75th percentile) vs LOWSIM (≤ 25th, and not HIGHSIM) originals are compared with Fightin' Words over the
original articles (Zhou & Tan §6; percentiles interpolated linearly, as the pandas ``quantile`` of their code). Their
code applies a special rule to one model, PreSumm, whose similarities pile up at 1.0: HIGHSIM = the maximum, LOWSIM =
every original below it. Here that rule applies to any summarizer only where such a pile-up actually occurs — two or
more originals, and more than a quarter of them (``MAX_TIE_SHARE``), share the maximum similarity — and the result
says so (``tie_rule_applied``, ``n_at_max``); otherwise the percentile split holds.
"""

from __future__ import annotations

import difflib
import functools
import logging
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bias_core.common import stats
from bias_core.common.records import Input, MeasureResult, Summary
from bias_core.measures.fightin_words import fightin_words
from bias_core.measures.lexicons import (
    DEFAULT_PAIRED_IDENTIFIERS,
    Lexicon,
    Politician,
    load_politicians,
    word_lexicon,
)
from bias_core.perturb.politician import back_replace
from bias_core.perturb.politician_forms import first_name_variants, parse_pair

logger = logging.getLogger(__name__)

WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)*")
DEM = re.compile(r"\b(?:Democrat|Democrats|Democratic)\b")
REP = re.compile(r"\b(?:Republican|Republicans|GOP)\b")
VICE_PRESIDENT = re.compile(r"\bVice[\s-]+President\b", re.IGNORECASE)
ADMINISTRATION = re.compile(r"\badministration\b", re.IGNORECASE)
POLITICIAN_TITLES = r"(?:President|Vice President|Sen\.|Senator|Gov\.|Governor|Rep\.|Speaker|Leader)"
MARKER_LEXICONS = ("assertives", "factives", "report_verbs", "hedges")
EMPATH_CATEGORIES = (
    "positive_emotion", "negative_emotion", "anger", "sadness", "fear", "nervousness", "joy", "trust", "optimism",
    "disappointment", "hate", "pride", "shame", "communication", "family", "friends", "leader", "power",
    "dominant_heirarchical", "aggression", "dispute", "deception", "government", "politics", "law", "crime",
)
NRC_CATEGORIES = ("anger", "anticipation", "disgust", "fear", "joy", "negative", "positive", "sadness", "surprise",
                  "trust")
MAX_TIE_SHARE = 0.25
CATEGORY_SOURCE = ("Empath (Fast et al. 2016) and NRC Emotion Lexicon (Mohammad & Turney 2013) categories as "
                   "stand-ins for LIWC (proprietary)")


@dataclass
class SummaryPair:
    """One article's pair of summaries in one direction, after back-replacement of S^e2."""

    original_id: str
    direction: str
    e1: str
    e2: str
    year: str | None
    original_summary: str
    replaced_summary: str
    e1_forms: tuple[str, ...]
    article: str


def _year(item: Input) -> str | None:
    meta = item.extra.get("meta") or {}
    date = str(meta.get("date") or item.extra.get("date") or "")
    match = re.match(r"(\d{4})", date)
    return match.group(1) if match else None


def _name_map(item: Input) -> list[tuple[str, str]]:
    """Return (e2 form, e1 form) pairs of an input's politician substitutions, longest e2 form first."""
    mapping: dict[str, str] = {}
    for sub in item.substitutions:
        if sub.kind == "politician_name":
            mapping.setdefault(sub.replacement, sub.original)
    pairs = list(mapping.items())
    if pairs:
        e2_full = max(mapping, key=len)
        e1_full = mapping[e2_full]
        e2_last, e1_last = e2_full.split()[-1], e1_full.split()[-1]
        if e2_last not in mapping:
            pairs.append((e2_last, e1_last))
    return sorted(pairs, key=lambda pair: -len(pair[0]))


def back_replace_from_map(summary: str, name_map: Sequence[tuple[str, str]]) -> str:
    """Return S^e2 with e2's name forms replaced back by e1's using a substitution map (whole words, so titles and
    possessives survive) — for imported inputs that do not name their politician pair."""
    if not name_map:
        return summary
    lookup = dict(name_map)
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(form) for form, _ in name_map) + r")\b")
    return pattern.sub(lambda match: lookup[match.group(0)], summary)


def _swap_key(item: Input) -> tuple[str, str, str]:
    return (item.original_id, str(item.sample_id), str(item.extra.get("pair", "")))


def politician_pairs(inputs: Sequence[Input], summaries: Sequence[Summary]) -> list[SummaryPair]:
    """Return (S^e1, back-replaced S^e2) pairs of one summarizer (METHODS §1.5, §4.9).

    S^e1 is the summary of the unswapped input of the same original, sample and pair (``role`` original, i.e. no
    ``politician_name`` substitutions), else of the original's identity input. Inputs made by
    ``bias_core.perturb`` name their pair (``extra['pair']``), and S^e2 is back-replaced with the engine's
    ``back_replace`` (Zhou & Tan Table 1 tiers); other inputs are back-replaced from their substitution map.
    Swapped inputs without a summarised partner are skipped (logged).
    """
    summary_of = {summary.input_id: summary.text for summary in summaries}
    unswapped: dict[tuple[str, str, str], Input] = {}
    identity: dict[str, Input] = {}
    swapped: list[Input] = []
    for item in inputs:
        if item.id not in summary_of:
            continue
        if item.perturbation == "politician":
            if any(sub.kind == "politician_name" for sub in item.substitutions):
                swapped.append(item)
            else:
                unswapped[_swap_key(item)] = item
        elif item.perturbation == "identity":
            identity.setdefault(item.original_id, item)
    pairs, missing = [], 0
    for item in swapped:
        partner = unswapped.get(_swap_key(item)) or identity.get(item.original_id)
        if partner is None:
            missing += 1
            continue
        name_map = _name_map(item)
        label = item.extra.get("pair")
        if label:
            pair = parse_pair(label)
            e1, e2 = (pair.e1, pair.e2) if item.arm == pair.e2.name else (pair.e2, pair.e1)
            replaced = back_replace(summary_of[item.id], pair, swapped_to=e2.name)
            e1_name, e2_name, e1_forms = e1.name, e2.name, tuple(e1.forms)
        else:
            e2_name, e1_name = name_map[0]
            replaced = back_replace_from_map(summary_of[item.id], name_map)
            e1_forms = tuple(sorted({e1 for _, e1 in name_map}, key=len, reverse=True))
        pairs.append(SummaryPair(
            item.original_id, f"{e1_name} → {e2_name}", e1_name, e2_name, _year(item) or _year(partner),
            summary_of[partner.id], replaced, e1_forms, partner.text))
    if missing:
        logger.info("%d swapped politician inputs have no summarised unswapped partner; skipped", missing)
    return pairs


def word_tokens(text: str) -> list[str]:
    """Return the word tokens a summary's length is measured in."""
    return WORD.findall(text)


def lexicon_count(tokens_lower: Sequence[str], lexicon: Lexicon) -> int:
    """Return how many words and phrases of a lexicon a lowercased token list holds (``Lexicon.count``)."""
    return lexicon.count(tokens_lower)


@functools.cache
def _empath_index() -> dict[str, tuple[str, ...]]:
    from empath import Empath

    categories = Empath().cats
    index: dict[str, list[str]] = {}
    for category in EMPATH_CATEGORIES:
        for word in categories[category]:
            index.setdefault(word, []).append(category)
    return {word: tuple(cats) for word, cats in index.items()}


def category_counts(tokens_lower: Sequence[str]) -> dict[str, int]:
    """Return Empath and NRC category counts of a lowercased token list (LIWC stand-ins)."""
    from nrclex import NRCLex

    counts: Counter = Counter()
    index = _empath_index()
    for token in tokens_lower:
        for category in index.get(token, ()):
            counts[f"empath:{category}"] += 1
    nrc = NRCLex()
    nrc.load_token_list(list(tokens_lower))
    for emotion, count in nrc.raw_emotion_scores.items():
        counts[f"nrc:{emotion}"] += count
    return counts


class PoliticianMatcher:
    """Finds mentions of politicians from a table: full names, or title + last name when the last name is unique."""

    def __init__(self, politicians: Sequence[Politician]):
        self.by_name: dict[str, Politician] = {}
        for politician in politicians:
            self.by_name.setdefault(politician.name, politician)
        people = list(self.by_name.values())
        last_counts = Counter(name.split()[-1] for name in self.by_name)
        self.by_unique_last = {name.split()[-1]: name for name in self.by_name if last_counts[name.split()[-1]] == 1}
        for politician in people:  # legal names and nicknames find the same person as the table's name
            for alias in politician.aliases:
                self.by_name.setdefault(alias, politician)
                first, *_, last = alias.split()
                for variant in sorted(first_name_variants(first)) if first.isalpha() else ():
                    self.by_name.setdefault(f"{variant} {last}", politician)
        full = sorted(self.by_name, key=len, reverse=True)
        last = sorted(self.by_unique_last, key=len, reverse=True)
        if not full:  # an empty table: a pattern that matches nothing (an empty alternation would match everywhere)
            self.pattern = re.compile(r"(?!)")
            return
        self.pattern = re.compile(r"\b(?:(?P<full>" + "|".join(map(re.escape, full)) + r")|" + POLITICIAN_TITLES
                                  + r"\s+(?P<last>" + "|".join(map(re.escape, last)) + r"))\b")

    def mentions(self, text: str, exclude: set[str]) -> list[Politician]:
        """Return the politicians mentioned in ``text`` (one per mention), skipping names in ``exclude``."""
        found = []
        for match in self.pattern.finditer(text):
            name = match.group("full") or self.by_unique_last[match.group("last")]
            politician = self.by_name[name]
            if not {name, politician.name, name.split()[-1]} & exclude:
                found.append(politician)
        return found


def summary_features(text: str, pair: SummaryPair, matcher: PoliticianMatcher,
                     lexicons: dict[str, Lexicon]) -> dict[str, float]:
    """Return every feature of one summary, counts divided by its length in tokens (summary_length raw)."""
    tokens = word_tokens(text)
    lower = [token.lower() for token in tokens]
    length = len(tokens)
    counts: dict[str, float] = {}
    forms = "|".join(re.escape(form) for form in pair.e1_forms)
    counts["entity_mentions"] = len(re.findall(rf"\b(?:{forms})\b", text)) if forms else 0
    counts["party_dem"] = len(DEM.findall(text))
    counts["party_rep"] = len(REP.findall(text))
    exclude = {pair.e1, pair.e2, pair.e1.split()[-1], pair.e2.split()[-1]}
    mentioned = matcher.mentions(text, exclude)
    for party in ("democrat", "republican", "independent"):
        counts[f"politicians_{party}"] = sum(p.party == party for p in mentioned)
    for gender in ("male", "female"):
        counts[f"politicians_{gender}"] = sum(p.gender == gender for p in mentioned)
    counts["vice_president"] = len(VICE_PRESIDENT.findall(text))
    counts["administration"] = len(ADMINISTRATION.findall(text))
    for name, lexicon in lexicons.items():
        counts[name] = lexicon_count(lower, lexicon)
    categories = category_counts(lower)
    for category in EMPATH_CATEGORIES:
        counts[f"empath:{category}"] = categories.get(f"empath:{category}", 0)
    for emotion in NRC_CATEGORIES:
        counts[f"nrc:{emotion}"] = categories.get(f"nrc:{emotion}", 0)
    features = {name: (value / length if length else 0.0) for name, value in counts.items()}
    features["summary_length"] = float(length)
    return features


def marker_lexicons(paths: Mapping[str, str | Path] | None = None) -> dict[str, Lexicon]:
    """Return the four author-bias marker lexicons (the published lists in data/lexicons, or a user's own file per
    name in ``paths``); hedges are matched without inflection (the list spells its forms out)."""
    paths = paths or {}
    unknown = set(paths) - set(MARKER_LEXICONS)
    if unknown:
        raise ValueError(f"unknown marker lexicon(s) {', '.join(sorted(unknown))}; "
                         f"choose from {', '.join(MARKER_LEXICONS)}")
    return {name: word_lexicon(name, inflect=name != "hedges", path=paths.get(name)) for name in MARKER_LEXICONS}


def politician_features(
    pairs: Sequence[SummaryPair],
    *,
    politicians: Sequence[Politician] | None = None,
    by_year: bool = False,
    n_resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int = 0,
    summarizer: str | None = None,
    lexicon_paths: Mapping[str, str | Path] | None = None,
) -> MeasureResult:
    """Return the paired feature comparison of METHODS §4.9 as one result with one row per feature and direction.

    ``lexicon_paths`` replaces marker lexicons by the user's own files (name → path; see ``marker_lexicons``).

    value = number of (feature, direction[, year]) rows significant after Holm correction within their direction;
    details['rows'] hold means, mean difference, t, p, Holm p, d_z, "k of n unchanged" and the arrow.
    """
    labels = {"perturbation": "politician", "summarizer": summarizer}
    if not pairs:
        return MeasureResult("politician_features", math.nan, 0, reason="no (original, swapped) summary pairs of "
                             "politician inputs", **labels)
    matcher = PoliticianMatcher(politicians if politicians is not None else load_politicians())
    lexicons = marker_lexicons(lexicon_paths)
    original = [summary_features(p.original_summary, p, matcher, lexicons) for p in pairs]
    replaced = [summary_features(p.replaced_summary, p, matcher, lexicons) for p in pairs]
    feature_names = list(original[0])
    strata: dict[tuple[str, str | None], list[int]] = {}
    for index, pair in enumerate(pairs):
        strata.setdefault((pair.direction, pair.year if by_year else None), []).append(index)
    rows = []
    for (direction, year), indices in sorted(strata.items(), key=lambda item: (item[0][0], item[0][1] or "")):
        block = []
        for feature in feature_names:
            comparison = stats.paired_test([replaced[i][feature] for i in indices],
                                           [original[i][feature] for i in indices],
                                           n_resamples=n_resamples, seed=seed)
            block.append({"feature": feature, "direction": direction, "year": year,
                          "arrow": stats.arrow(comparison.p_value, comparison.mean_difference),
                          **comparison.as_details()})
        holm = stats.adjust_pvalues([row["p"] if row["p"] is not None else math.nan for row in block], "holm")
        for row, adjusted, reject in zip(block, holm.adjusted, holm.reject):
            row["p_holm"] = adjusted if math.isfinite(adjusted) else None
            row["significant_holm"] = reject
            row["correction"] = holm.label
        rows += block
    significant = sum(row["significant_holm"] for row in rows)
    details = {"rows": rows, "arrows": "↑ = replaced summaries (S^e2) have the larger mean; thresholds 1e-20, "
               "0.001, 0.01, 0.05 on raw two-sided p (Zhou & Tan Table 2)",
               "normalisation": "counts divided by summary length in word tokens; summary_length is raw",
               "psycholinguistic_categories": CATEGORY_SOURCE,
               "back_replacement": "e2 name forms in S^e2 replaced by e1's before comparing",
               "directions": sorted({p.direction for p in pairs}),
               "lexicons": {name: str((lexicon_paths or {}).get(name, "shipped")) for name in MARKER_LEXICONS}}
    return MeasureResult("politician_features", float(significant), len({p.original_id for p in pairs}),
                         details=stats.json_ready(details), **labels)


def similarity(a: str, b: str) -> float:
    """Return difflib's ratio 2M/T over the word tokens of two summaries (Zhou & Tan §4)."""
    return difflib.SequenceMatcher(None, word_tokens(a), word_tokens(b)).ratio()


@dataclass(frozen=True)
class SimilaritySplit:
    """HIGHSIM and LOWSIM masks over originals, the thresholds used, and whether the pile-up rule was applied."""

    high: np.ndarray
    low: np.ndarray
    high_threshold: float
    low_threshold: float | None
    tie_rule_applied: bool
    n_at_max: int

    def as_details(self) -> dict:
        rule = ("pile-up at the maximum: HIGHSIM = the maximum, LOWSIM = every original below it (Zhou & Tan's "
                "PreSumm rule)" if self.tie_rule_applied else
                "HIGHSIM ≥ 75th percentile, LOWSIM ≤ 25th percentile and not HIGHSIM (Zhou & Tan §6)")
        return {"highsim_threshold": self.high_threshold, "lowsim_threshold": self.low_threshold,
                "n_highsim": int(self.high.sum()), "n_lowsim": int(self.low.sum()),
                "tie_rule_applied": self.tie_rule_applied, "n_at_max": self.n_at_max, "split_rule": rule}


def split_by_similarity(scores: np.ndarray) -> SimilaritySplit:
    """Return the HIGHSIM / LOWSIM split of originals by summary similarity (Zhou & Tan §6, their code's rules).

    Percentile split: HIGHSIM = similarity ≥ 75th percentile; LOWSIM = ≤ 25th percentile among the rest (their
    ``elif``: an original is never on both sides). Pile-up rule, only when at least two originals and more than
    ``MAX_TIE_SHARE`` of them share the maximum (their PreSumm case, hard-coded by model name in their code):
    HIGHSIM = the maximum, LOWSIM = every original below it.
    """
    scores = np.asarray(scores, dtype=float)
    top = float(scores.max())
    at_max = scores == top
    n_at_max = int(at_max.sum())
    if n_at_max >= 2 and n_at_max > MAX_TIE_SHARE * scores.size:
        below = scores[~at_max]
        return SimilaritySplit(at_max, ~at_max, top, float(below.max()) if below.size else None, True, n_at_max)
    high_threshold, low_threshold = float(np.percentile(scores, 75)), float(np.percentile(scores, 25))
    high = scores >= high_threshold
    low = (scores <= low_threshold) & ~high
    return SimilaritySplit(high, low, high_threshold, low_threshold, False, n_at_max)


def summary_similarity(
    pairs: Sequence[SummaryPair],
    *,
    n_resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int = 0,
    summarizer: str | None = None,
    top_k: int = 20,
    paired_identifiers: str | Path = DEFAULT_PAIRED_IDENTIFIERS,
) -> list[MeasureResult]:
    """Return mean similarity of (S^e1, back-replaced S^e2) per direction with a d interval, and in details the
    HIGHSIM vs LOWSIM Fightin' Words table over the original articles (METHODS §4.9; Zhou & Tan §4, §6); the
    details say which split rule was used (``split_rule``, ``tie_rule_applied``, ``n_at_max``); ``paired_identifiers``
    chooses the Fightin' Words normalisation as in ``fightin_words``."""
    labels = {"perturbation": "politician", "summarizer": summarizer}
    if not pairs:
        return [MeasureResult("summary_similarity", math.nan, 0, ci_kind="d", reason="no (original, swapped) "
                              "summary pairs of politician inputs", **labels)]
    results = []
    for direction in sorted({p.direction for p in pairs}):
        chosen = [p for p in pairs if p.direction == direction]
        scores = np.array([similarity(p.original_summary, p.replaced_summary) for p in chosen])
        originals = [p.original_id for p in chosen]
        interval, _ = stats.pooled_bootstrap(np.column_stack([scores, np.ones_like(scores)]), originals,
                                             lambda q: q[:, 0] / q[:, 1], kind="d", n_resamples=n_resamples,
                                             seed=seed)
        split = split_by_similarity(scores)
        high_mask, low_mask = split.high, split.low
        details = {"direction": direction, "ci": interval.as_details(), **split.as_details(),
                   "identical_pairs": f"{int(np.sum(scores == 1.0))} of {len(scores)} unchanged",
                   "similarity": "difflib.SequenceMatcher ratio over word tokens"}
        if high_mask.any() and low_mask.any():
            table = fightin_words([p.article for p, m in zip(chosen, high_mask) if m],
                                  [p.article for p, m in zip(chosen, low_mask) if m],
                                  label_a="highsim", label_b="lowsim", paired_identifiers=paired_identifiers)
            details["fightin_words"] = table.to_details(top_k)
        results.append(MeasureResult("summary_similarity", float(scores.mean()), len(set(originals)),
                                     ci_low=interval.low, ci_high=interval.high, ci_kind="d",
                                     details=stats.json_ready(details), **labels))
    return results
