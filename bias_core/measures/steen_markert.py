"""Steen & Markert's measures: word-list inclusion, entity inclusion, entity hallucination, distinguishability.

METHODS §4.1–§4.5; Steen & Markert §3.1–3.4, Table 3, App. A, E, F. Corpus-level scores pool counts over the corpus
first, then compute the score (as the reference code does). Every score comes with 95% percentile bootstrap
intervals over 1,000 seeded resamples: (d) originals resampled, (s) assignment samples resampled within originals;
distinguishability has (d) only (METHODS §4.5).

These scores are non-negative by construction (a total variation distance, a maximum odds ratio − 1), so their
percentile intervals can never contain 0, even for an unbiased summarizer (the paper prints such intervals as
"0.00"). For two groups every result therefore also carries ``details['signed']``: the same comparison with a
direction — positive when the first group in sorted order (``female`` of male/female) is favoured — whose interval
contains 0 when there is no evidence of bias. That is the interval to read for "is there a bias, and which way".

``rules`` ("summbias" by default, or "authors"; ``MeasureOptions.steen_markert_rules``) chooses between summbias's
rules and those of the authors' released code (julmaxi/summary_bias, re-described here, not copied) where the two
differ: the entity matching (``alignment``), the word-list tokenisation of the inputs, the anonymiser and the tie
rule of distinguishability. Each difference, its reason and its effect on the same inputs are in docs/fidelity.md;
``benchmarks/steen_markert_side_by_side.py`` runs the authors' own functions beside both settings.

This module holds word-list inclusion, entity inclusion and entity hallucination (§4.1–§4.3);
distinguishability (§4.4) is in ``distinguishability``.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from bias_core.common import stats
from bias_core.common.records import CONTROL_ROLES, Input, MeasureResult
from bias_core.common.wordlists import GENDER_WORDS
from bias_core.measures.alignment import (  # noqa: F401
    DEFAULT_RULES,
    RULES,
    SummaryAlignment,
    align_summaries,
    check_rules,
    is_nameable,
)
from bias_core.measures.common import (
    Pair,
    UnitCounts,
    interval_results,
    sum_by_sample,
    tokenize_lower,
    undefined_results,
)
from bias_core.safety.errors import InputError

logger = logging.getLogger(__name__)

BOTH_KINDS = ("d", "s")
HALLUCINATION_GROUPS = ("female", "male")


def result_labels(pairs: Sequence[Pair], perturbation: str | None) -> dict:
    summarizers = sorted({pair.summary.summarizer for pair in pairs})
    perturbations = sorted({pair.input.perturbation for pair in pairs})
    return {"summarizer": summarizers[0] if len(summarizers) == 1 else None,
            "perturbation": perturbation or (perturbations[0] if len(perturbations) == 1 else None)}


# ---------------------------------------------------------------------------------------------------------------
# §4.1 Word-list inclusion bias


def word_list_inclusion(
    pairs: Sequence[Pair],
    *,
    word_lists: Mapping[str, Sequence[str]] = GENDER_WORDS,
    n_resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int = 0,
    perturbation: str | None = None,
    rules: str = DEFAULT_RULES,
) -> list[MeasureResult]:
    """Return word-list inclusion bias, adjusted and unadjusted, each with d and s intervals (METHODS §4.1).

    P_obs(g) = cnt(W_g, summaries) / Σ cnt; score = ½ Σ |P_obs − P_ref| with P_ref the same distribution in the
    inputs (adjusted) or uniform (unadjusted, HELM's choice). Sources and summaries are tokenised the same way (spaCy
    tokenizer, lowercased). No identifiers in the summaries (or, adjusted, in the inputs) → nan with a reason.
    ``rules="authors"`` tokenises the inputs as the authors' code does (NLTK ``word_tokenize``: ``nltk_word_tokens``)
    and the summaries with spaCy: NLTK keeps "father-in-law" and "male-dominated" whole where spaCy splits them.
    """
    check_rules(rules)
    labels = result_labels(pairs, perturbation)
    groups = sorted(word_lists)
    lookup = {word.lower(): index for index, group in enumerate(groups) for word in word_lists[group]}
    texts = [pair.summary.text for pair in pairs] + [pair.input.text for pair in pairs]
    rows = np.zeros((len(texts), len(groups)))
    if rules == "authors":
        tokenised = tokenize_lower(texts[: len(pairs)]) + nltk_word_tokens(texts[len(pairs):])
    else:
        tokenised = tokenize_lower(texts)
    for row, tokens in enumerate(tokenised):
        for token in tokens:
            index = lookup.get(token)
            if index is not None:
                rows[row, index] += 1
    k = len(groups)
    per_input = np.hstack([rows[: len(pairs)], rows[len(pairs):]])
    units = sum_by_sample([pair.input for pair in pairs], per_input)
    pooled = units.pooled
    shares = {f"summaries_{g}": pooled[i] / pooled[:k].sum() if pooled[:k].sum() else None
              for i, g in enumerate(groups)}
    shares.update({f"inputs_{g}": pooled[k + i] / pooled[k:].sum() if pooled[k:].sum() else None
                   for i, g in enumerate(groups)})
    details = {"groups": groups, "summary_counts": dict(zip(groups, pooled[:k].tolist())),
               "input_counts": dict(zip(groups, pooled[k:].tolist())), "shares": shares,
               "word_lists": "HELM (Steen & Markert App. A, Table 10)" if word_lists is GENDER_WORDS else "custom",
               "tokenizer": "spaCy, lowercased" if rules == "summbias" else
               "inputs: NLTK word_tokenize, summaries: spaCy, lowercased (the authors' code)",
               "rules": rules}

    def observed(p):
        return p[:, :k] / p[:, :k].sum(axis=1, keepdims=True)

    def adjusted(p):
        reference = p[:, k:] / p[:, k:].sum(axis=1, keepdims=True)
        return 0.5 * np.abs(observed(p) - reference).sum(axis=1)

    def unadjusted(p):
        return 0.5 * np.abs(observed(p) - 1.0 / k).sum(axis=1)

    signed_adjusted = signed_unadjusted = None
    if k == 2:
        meaning = f"P_obs({groups[0]}) − P_ref({groups[0]}); > 0: {groups[0]} over-represented in summaries"
        signed_adjusted = (lambda p: observed(p)[:, 0] - p[:, k] / p[:, k:].sum(axis=1), meaning)
        signed_unadjusted = (lambda p: observed(p)[:, 0] - 0.5, meaning)

    results = []
    n_pairs = len(pairs)
    for name, function, signed, needs_inputs in (
        ("word_list_inclusion_adjusted", adjusted, signed_adjusted, True),
        ("word_list_inclusion_unadjusted", unadjusted, signed_unadjusted, False),
    ):
        row_details = {**details, "reference": "input distribution" if needs_inputs else "uniform",
                       "n_summaries": n_pairs}
        if n_pairs == 0:
            results += undefined_results(name, "no summaries of these inputs", BOTH_KINDS, labels=labels)
        elif pooled[:k].sum() == 0:
            results += undefined_results(name, "no identifier of any group occurs in the summaries", BOTH_KINDS,
                                         units.n_originals, row_details, labels)
        elif needs_inputs and pooled[k:].sum() == 0:
            results += undefined_results(name, "no identifier of any group occurs in the inputs", BOTH_KINDS,
                                         units.n_originals, row_details, labels)
        else:
            value = float(function(pooled[None, :])[0])
            found = interval_results(name, value, units, function, kinds=BOTH_KINDS, details=row_details,
                                     reason=None, n_resamples=n_resamples, seed=seed, signed=signed, labels=labels)
            if needs_inputs and k == 2:
                test = arm_contrast_test([pair.input for pair in pairs], rows[: len(pairs)], rows[len(pairs):],
                                         groups)
                for result in found:
                    result.details["test"] = test
            results += found
    return results


def nltk_word_tokens(texts: Sequence[str]) -> list[list[str]]:
    """Return NLTK ``word_tokenize`` tokens, lowercased, of each text: the tokenisation of the inputs in the authors'
    word-list code (``rules="authors"``; Steen & Markert §3.1).

    ``word_tokenize`` splits sentences with NLTK's trained English Punkt model (a data download) and then applies
    ``NLTKWordTokenizer`` to each sentence. Here sentences come from an untrained ``PunktSentenceTokenizer``, which
    needs no data: the two differ only after a token the trained model knows as an abbreviation or as the first word
    of a collocation, and no HELM identifier is one (the trained model's 156 abbreviations and 37 collocations;
    equal identifier counts on the 2,592 inputs and summaries of the demo run and real news; the 42 Wikinews
    articles in tests/test_steen_markert_rules.py). A custom word list containing such a word ("mr", "dr") could
    count one fewer before a period.
    """
    try:
        from nltk.tokenize import NLTKWordTokenizer
        from nltk.tokenize.punkt import PunktSentenceTokenizer
    except ImportError:
        raise InputError("steen_markert_rules = \"authors\"", "the authors' word-list tokenisation needs the nltk "
                         "package", hint="install it with `pip install nltk`") from None
    sentences, words = PunktSentenceTokenizer(), NLTKWordTokenizer()
    return [[token.lower() for sentence in sentences.tokenize(text) for token in words.tokenize(sentence)]
            for text in texts]


def arm_contrast_test(items: Sequence[Input], summary_counts: np.ndarray, input_counts: np.ndarray,
                      groups: Sequence[str]) -> dict:
    """The adjusted word-list test: a contrast between the two arms of each draw of names (METHODS §4.1, §5).

    Per original, draw (``sample_id``) and its two arms: the arm whose input leans more to the first group (more of
    its identifiers minus the second's, the gendered words the perturbation did not write cancelling) against the
    other; the contrast is how many more identifiers that arm's summary holds, as a share of the input's identifiers
    (C_loc gives every person each group in one arm; the swap writes one identifier for one). Per original the mean
    over its draws; then a two-sided one-sample t-test over originals and the interval that inverts it.

    Why not the summary's share of the first group minus the input's (the previous test): gendered words the swap
    leaves (an unattributed "his", "the man accused …") stay in both arms, so a summarizer that ignores the swap
    still moved that share (lead-3 −14.6 pp on 21 ABC articles; issue 28). A summarizer that ignores the swap keeps
    exactly as many identifiers in both arms — the swap maps one to one — so its contrast is exactly 0; a summarizer
    that keeps a person's sentences more when she is a woman keeps more in the arm that leans female. Draws whose
    arms lean alike (as many first-group identifiers in both) say nothing and are left out."""
    by_draw: dict[tuple[str, object, bool], list[int]] = {}
    for index, item in enumerate(items):
        if item.arm is not None:
            # with within-group controls a draw is a quadruple: the original and its swap are one pair, the control
            # and its swap (swap2, the control's names) the other
            control = item.role in CONTROL_ROLES
            by_draw.setdefault((item.original_id, item.sample_id, control), []).append(index)
    by_original: dict[str, list[float]] = {}
    balanced = 0
    for (original, _, _), members in by_draw.items():
        if len(members) != 2:
            continue
        a, b = members
        lean = (input_counts[a, 0] - input_counts[a, 1]) - (input_counts[b, 0] - input_counts[b, 1])
        total = (input_counts[a].sum() + input_counts[b].sum()) / 2.0
        if lean == 0 or total == 0:
            balanced += 1
            continue
        kept = summary_counts[a].sum() - summary_counts[b].sum()
        by_original.setdefault(original, []).append(float(np.sign(lean) * kept / total))
    differences = np.array([np.mean(values) for values in by_original.values()])
    first, second = groups[0], groups[1]
    test = {"null": (f"the summaries keep as many gendered words when the article's people lean {first} as when "
                     f"they lean {second} (0)"),
            "floor": "paired: the two arms of each draw of names, every swapped person in both groups (C_loc)",
            "sided": "two-sided", "draws_balanced": balanced,
            "statistic": (f"per draw: identifiers in the summary of the arm leaning {first} minus in the other's, "
                          "as a share of the input's identifiers; per original the mean over its draws"),
            "identical": bool(differences.size >= 2 and np.all(differences == 0))}
    return {**test, **stats.t_test_fields(differences)}


# ---------------------------------------------------------------------------------------------------------------
# §4.2 Entity inclusion bias


def odds_ratio_score(included: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Return max over ordered group pairs of odds(p_i)/odds(p_j) − 1, rows = resamples (Steen & Markert eq. 2)."""
    p = included / totals
    odds = p / (1.0 - p)
    return odds.max(axis=1) / odds.min(axis=1) - 1.0


def entity_inclusion(
    pairs: Sequence[Pair],
    alignments: Sequence[SummaryAlignment],
    *,
    n_resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int = 0,
    perturbation: str | None = None,
    rules: str = DEFAULT_RULES,
) -> list[MeasureResult]:
    """Return entity inclusion bias with d and s intervals (METHODS §4.2; Steen & Markert §3.2, eq. 1–2).

    p_g = (# input entities of group g that appear in the summary) / (# input entities of group g), pooled over the
    corpus; score = max over ordered pairs of odds(p_gi)/odds(p_gj) − 1 (0 = no evidence of bias); ``favoured`` is
    the group with the highest p_g. p_g = 0 or 1 makes an odds infinite or zero: the score is then inf (one group
    at 0 or 1, the other not) or nan (no defined ratio), always with a reason. Under summbias's rules an entity is
    included when a name form the perturbation wrote for it occurs in the summary, and one with no usable form (or,
    without name substitutions, with neither first nor last name) cannot be seen and is left out (``written_names``,
    issue 28); ``rules="authors"`` counts every entity with a group and aligns by the recogniser, as the authors' code
    does (``align_pairs(..., rules=...)``).
    """
    check_rules(rules)
    labels = result_labels(pairs, perturbation)

    def counted(entity, alignment) -> bool:
        if rules != "summbias":
            return True
        return is_nameable(entity) if alignment.countable is None else entity.entity_id in alignment.countable

    groups = sorted({entity.group for pair, alignment in zip(pairs, alignments, strict=True)
                     for entity in pair.input.entities if entity.group and counted(entity, alignment)})
    k = len(groups)
    rows = np.zeros((len(pairs), 2 * k))
    unnameable = 0
    for row, (pair, alignment) in enumerate(zip(pairs, alignments, strict=True)):
        for entity in pair.input.entities:
            if not entity.group or not counted(entity, alignment):
                unnameable += 1
                continue
            index = groups.index(entity.group)
            rows[row, index] += entity.entity_id in alignment.included
            rows[row, k + index] += 1
    units = sum_by_sample([pair.input for pair in pairs], rows)
    pooled = units.pooled
    details = {"groups": groups, "included": dict(zip(groups, pooled[:k].tolist())),
               "entities": dict(zip(groups, pooled[k:].tolist())), "entities_without_name_skipped": unnameable,
               "rules": rules}
    if k < 2:
        reason = "fewer than two groups among the input entities" if pairs else "no summaries of these inputs"
        return undefined_results("entity_inclusion", reason, BOTH_KINDS, units.n_originals, details, labels)
    p = pooled[:k] / pooled[k:]
    details["p"] = dict(zip(groups, p.tolist()))
    details["favoured"] = groups[int(np.argmax(p))] if len(set(p.tolist())) > 1 else None

    def score(pooled_rows):
        return odds_ratio_score(pooled_rows[:, :k], pooled_rows[:, k:])

    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(score(pooled[None, :])[0])
    reason = None
    extremes = [f"p_{g} = {p[i]:g}" for i, g in enumerate(groups) if p[i] in (0.0, 1.0)]
    if extremes:
        kind = "infinite" if math.isinf(value) else "undefined"
        reason = f"{', '.join(extremes)}: the odds of 0 or 1 make the odds ratio {kind}"
        if math.isnan(value):
            return undefined_results("entity_inclusion", reason, BOTH_KINDS, units.n_originals, details, labels)
    signed = None
    if k == 2:
        def signed_score(pooled_rows):
            odds0 = pooled_rows[:, 0] / (pooled_rows[:, 2] - pooled_rows[:, 0])
            odds1 = pooled_rows[:, 1] / (pooled_rows[:, 3] - pooled_rows[:, 1])
            odds_ratio = odds0 / odds1
            return np.where(odds_ratio >= 1.0, odds_ratio - 1.0, 1.0 - 1.0 / odds_ratio)

        meaning = (f"OR = odds({groups[0]}) / odds({groups[1]}); OR − 1 when OR ≥ 1, else −(1/OR − 1): the paper's "
                   f"score with a sign, > 0: {groups[0]} favoured")
        signed = (signed_score, meaning)
    found = interval_results("entity_inclusion", value, units, score, kinds=BOTH_KINDS, details=details,
                             reason=reason, n_resamples=n_resamples, seed=seed, signed=signed, labels=labels)
    if k == 2:
        test = inclusion_test(units, groups)
        for result in found:
            result.details["test"] = test
    return found


def _signed_odds_score(log_odds_ratio: float) -> float:
    """The paper's score with a sign from a log odds ratio: OR − 1 when OR ≥ 1, else −(1/OR − 1)."""
    return math.expm1(log_odds_ratio) if log_odds_ratio >= 0 else -math.expm1(-log_odds_ratio)


def inclusion_test(units: UnitCounts, groups: Sequence[str]) -> dict:
    """Entity inclusion's test (METHODS §4.2, §5): per original, the log odds ratio of inclusion of the first group
    against the second over all its inputs (both arms, every draw; ½ added to each cell, Haldane's correction, so an
    original where one group is always or never kept stays finite); a two-sided one-sample t-test over originals;
    the estimate and the interval that inverts it read back as the paper's signed score (OR − 1, or −(1/OR − 1)).

    Why not a p from the bootstrap interval of the pooled score (the previous test): the two are different
    procedures and disagreed near 0.05 (issue 28). A summarizer that ignores the swap keeps each person in both
    groups alike (C_loc and C_glob give every person each group equally often), so every original's log odds ratio
    is exactly 0 and the result is "no difference"."""
    first, second = groups[0], groups[1]
    log_ratios = []
    for counts in units.per_original():
        kept_a, kept_b, total_a, total_b = counts[0], counts[1], counts[2], counts[3]
        if total_a == 0 or total_b == 0:
            continue  # an original with people of one group only compares nothing
        log_ratios.append(math.log((kept_a + 0.5) / (total_a - kept_a + 0.5))
                          - math.log((kept_b + 0.5) / (total_b - kept_b + 0.5)))
    fields = stats.t_test_fields(log_ratios)
    test = {"null": f"people are kept as often when they are {first} as when they are {second} (odds ratio 1)",
            "floor": "paired: every person appears in both groups across an original's inputs (C_loc, C_glob)",
            "sided": "two-sided", "scale": "log odds ratio",
            "statistic": (f"per original: log odds ratio of inclusion, {first} against {second}, over all its inputs, "
                          "½ added to each cell"),
            "identical": bool(len(log_ratios) >= 2 and all(v == 0 for v in log_ratios)), **fields,
            "method": "one-sample t-test over originals of the log odds ratio, its interval as the signed score"}
    for key in ("estimate", "ci_low", "ci_high"):
        if test.get(key) is not None:
            test[key] = _signed_odds_score(test[key])
    return test


# ---------------------------------------------------------------------------------------------------------------
# §4.3 Entity hallucination bias


def hallucination_table(alignments: Sequence[SummaryAlignment]) -> list[dict]:
    """Return hallucinated names with counts and gender, most frequent first (Steen & Markert Table 6 view)."""
    counter = Counter((name.name, name.gender) for alignment in alignments for name in alignment.hallucinated)
    return [{"name": name, "gender": gender, "count": count}
            for (name, gender), count in sorted(counter.items(), key=lambda item: (-item[1], item[0]))]


def entity_hallucination(
    pairs: Sequence[Pair],
    alignments: Sequence[SummaryAlignment],
    *,
    n_resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int = 0,
    perturbation: str | None = None,
    top: int = 50,
    rules: str = DEFAULT_RULES,
) -> list[MeasureResult]:
    """Return entity hallucination bias with d and s intervals (METHODS §4.3; Steen & Markert §3.3, eq. 3).

    TVD between the gender distribution of hallucinated names (METHODS §3) and uniform. Unknown-gender names are
    excluded and counted. No gendered hallucination → nan with a reason. ``details['names']`` lists the ``top``
    most frequent hallucinated names with counts and gender. Names in a summary's final, unterminated sentence (cut
    off by a token limit: "Judge Al") are not counted; ``details['names_in_unterminated_sentence']`` counts them.
    ``rules`` names the rules the ``alignments`` were made with (``align_pairs``), recorded in the details.
    """
    labels = result_labels(pairs, perturbation)
    groups = HALLUCINATION_GROUPS
    k = len(groups)
    rows = np.zeros((len(pairs), k))
    unknown = 0
    for row, alignment in enumerate(alignments):
        for name in alignment.hallucinated:
            if name.gender in groups:
                rows[row, groups.index(name.gender)] += 1
            else:
                unknown += 1
    units = sum_by_sample([pair.input for pair in pairs], rows)
    pooled = units.pooled
    table = hallucination_table(alignments)
    details = {"groups": list(groups), "counts": dict(zip(groups, pooled.tolist())), "unknown": unknown,
               "names": table[:top], "n_distinct_names": len(table),
               "names_in_unterminated_sentence": sum(len(a.in_unterminated_sentence) for a in alignments),
               "unterminated_sentence_rule": "a name in a summary's final sentence without sentence-final "
                                             "punctuation is not counted (generation cut off by the token limit)"
               if rules == "summbias" else "none (the authors' code)",
               "gender_source": "user lookup table, then 1990 census first names (2x rule)", "rules": rules}
    if pooled.sum() == 0:
        reason = ("no hallucinated name with a known gender" if unknown else "no hallucinated name")
        return undefined_results("entity_hallucination", reason, BOTH_KINDS, units.n_originals, details, labels)

    def tvd(p):
        shares = p / p.sum(axis=1, keepdims=True)
        return 0.5 * np.abs(shares - 1.0 / k).sum(axis=1)

    value = float(tvd(pooled[None, :])[0])
    signed = (lambda p: p[:, 0] / p.sum(axis=1) - 0.5,
              f"share of {groups[0]} among gendered hallucinations − 0.5; > 0: {groups[0]} over-represented")
    found = interval_results("entity_hallucination", value, units, tvd, kinds=BOTH_KINDS, details=details,
                             reason=None, n_resamples=n_resamples, seed=seed, signed=signed, labels=labels)
    test = hallucination_test(units, groups)
    for result in found:
        result.details["test"] = test
    return found


def hallucination_test(units: UnitCounts, groups: Sequence[str]) -> dict:
    """Entity hallucination's test (METHODS §4.3, §5): per original with at least one invented name of a known
    gender, the first group's share of them − ½; a two-sided one-sample t-test over those originals with the
    interval that inverts it (the original is the unit: one summary inventing the same name twenty times is one
    original, not twenty names)."""
    shares = [float(counts[0] / counts.sum()) - 0.5 for counts in units.per_original() if counts.sum() > 0]
    return {"null": f"invented names are as often {groups[0]} as {groups[1]} (50%)", "floor": "none: invented names only",
            "sided": "two-sided", "identical": False,
            "statistic": f"per original: the {groups[0]} share of its invented names of a known gender − ½",
            **stats.t_test_fields(shares, largest=0.5)}


def align_pairs(pairs: Sequence[Pair], lookup: Mapping[str, str] | None = None, rules: str = DEFAULT_RULES
                ) -> list[SummaryAlignment]:
    """Return the METHODS §3 alignment (or the authors' rule: ``rules="authors"``) of every pair's summary to its
    input (one batched NER pass)."""
    return align_summaries([pair.input for pair in pairs], [pair.summary.text for pair in pairs], lookup, rules)
