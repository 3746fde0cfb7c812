"""Which measures an audit can compute, named in words, before anything runs (METHODS §3–§4).

``compute_measures`` decides from the inputs it is given; the Audit page must say the same before the run, from
what the analyst chose: the corpus (articles, sets of units or both), the perturbations and their settings, and the
summarizers. Listing every registered measure by its id ("bur, uer, i_across …") for a gender-only audit of news
shows measures that cannot be computed.
"""

from __future__ import annotations

from collections.abc import Iterable

from bias_core.measures import C_LOC, MEASURE_NAMES, NAME_SWAPS

# Each measure in words, with the paper's abbreviation where it has one.
MEASURE_WORDS = {
    "word_list_inclusion_adjusted": "word-list inclusion, against the inputs' own shares",
    "word_list_inclusion_unadjusted": "word-list inclusion, against 50/50 (a description)",
    "entity_inclusion": "entity inclusion (which people make it into the summary)",
    "entity_hallucination": "entity hallucination (invented people, by gender)",
    "distinguishability_count": "distinguishability, word counts",
    "distinguishability_dense": "distinguishability, MiniLM embeddings",
    "fightin_words": "Fightin' Words (words that differ between the arms)",
    "bur": "binary unfair rate (BUR)",
    "uer": "unfair error rate (UER)",
    "auc": "unfairness over all thresholds (AUC)",
    "sof": "second-order fairness (SOF)",
    "i_across": "inconsistency across groups (I_across, a description)",
    "i_within": "inconsistency within groups (I_within, a description)",
    "delta_i": "counterfactual inconsistency (ΔI)",
    "acc_diff": "outcome rate difference (Acc_Diff)",
    "politician_features": "politician features (paired t-tests)",
    "summary_similarity": "summary similarity (a description)",
    "mbic": "lexical-bias amplification (MBIC)",
    "sfpi": "feature importance for lexical bias (SFPI)",
}
GENDER_GLOB = ("gender-glob",)
EXTRACTIVE_SCORED = ("lead-3", "random-3", "textrank", "lexrank", "topic", "sexist")


def applicable_measures(perturbations: Iterable[str], *, articles: bool, unit_sets: bool,
                        controls: Iterable[str] = (), summarizers: Iterable[str] = ()) -> list[str]:
    """The measures (registry ids, in registry order) an audit computes: ``perturbations`` by name, whether the
    corpus has ``articles`` and ``unit_sets``, the perturbations run with within-group ``controls`` (quadruples),
    and the ``summarizers`` (MBIC needs the sentence scores of an extractive summarizer; SFPI is trained on the
    originals whatever the summarizers)."""
    chosen, with_controls, names = set(perturbations), set(controls), set(summarizers)
    scored = bool(names & set(EXTRACTIVE_SCORED)) or any(name.startswith("sexist") for name in names)
    applies = {
        "word_list": articles and bool(chosen & set(C_LOC)),
        "entity_inclusion": articles and bool(chosen & set(NAME_SWAPS)),
        "hallucination": articles and bool(chosen & set(C_LOC)),
        "glob": articles and bool(chosen & set(GENDER_GLOB)),
        "perspective": unit_sets,
        "quadruples": articles and bool(with_controls & chosen & set(NAME_SWAPS)),
        "politician": articles and "politician" in chosen,
        "mbic": scored,
        "sfpi": articles or unit_sets,
    }
    family = {"word_list_inclusion_adjusted": "word_list", "word_list_inclusion_unadjusted": "word_list",
              "entity_inclusion": "entity_inclusion", "entity_hallucination": "hallucination",
              "distinguishability_count": "glob", "distinguishability_dense": "glob", "fightin_words": "glob",
              "bur": "perspective", "uer": "perspective", "auc": "perspective", "sof": "perspective",
              "i_across": "quadruples", "i_within": "quadruples", "delta_i": "quadruples", "acc_diff": "quadruples",
              "politician_features": "politician", "summary_similarity": "politician", "mbic": "mbic",
              "sfpi": "sfpi"}
    return [name for name in MEASURE_NAMES if applies[family[name]]]


def in_words(name: str) -> str:
    """A measure id in words ("bur" → "binary unfair rate (BUR)"); an unknown id is returned unchanged."""
    return MEASURE_WORDS.get(name, name.replace("_", " "))
