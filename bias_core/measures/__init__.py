"""Bias measures: one module per paper's family, pure functions over records returning MeasureResult (METHODS §3–§5).

``MEASURES`` is the registry of INTERFACES.md measure names (plus ``fightin_words``): each name says which
perturbation's inputs it reads and which family computes it. ``compute_measures`` runs the requested names over
inputs and summaries, per summarizer and perturbation, sharing the expensive steps (NER alignment, embeddings)
between the measures of a family, and Holm-corrects the p-values it produced within each summarizer (METHODS §5).

Degenerate summaries (empty, separator runs, repetition loops, prompt echoes; ``quality.degenerate_reason``) are
left out of every measure by default, where summaries are grouped per summarizer and perturbation, so every family (Fightin' Words,
politician pairs, perspective samples …) sees the same summaries; every result counts them in
``details['n_degenerate_excluded']`` with examples in ``details['degenerate_excluded']``.
``MeasureOptions(include_degenerate=True)`` keeps them (and counts them in ``n_degenerate_included``).

Options a user sets on the CLI (``measure``) and in an audit config (``[measures]``) are checked by
``check_paired_identifiers`` and ``check_lexicon_paths`` before any measure runs: ``paired_identifiers`` chooses the
Fightin' Words normalisation everywhere ``compute_measures`` runs it (arm vs arm, HIGHSIM vs LOWSIM; METHODS §4.6),
``lexicon_paths`` replaces marker lexicons of the politician features by the user's own files (METHODS §4.9).

| measures | inputs (perturbation) | module |
|---|---|---|
| word_list_inclusion_adjusted / _unadjusted, entity_inclusion, entity_hallucination | gender-loc (entity_inclusion also race, race-intersectional) | steen_markert, alignment |
| distinguishability_count / _dense, fightin_words | gender-glob | steen_markert, fightin_words |
| bur, uer, auc, sof | sentiment (and identity unit documents: the noise floor) | perspective |
| i_across, i_within, delta_i, acc_diff | any input with a quadruple role (``--controls``); outcome = entity included | quadruples |
| politician_features, summary_similarity | politician | politician |
| mbic | summaries with sentence scores: of the unchanged originals (identity) when the run has them, else of every input | lexical_bias |
| sfpi | the originals (the SFPI model, a random forest trained here) | lexical_bias |
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bias_core.common import nlp, stats
from bias_core.common.records import Input, MeasureResult, Summary
from bias_core.measures import (
    distinguishability,
    lexical_bias,
    perspective,
    politician,
    quadruples,
    quality,
    steen_markert,
)
from bias_core.measures import fightin_words as fw
from bias_core.measures.common import Pair, pair_summaries
from bias_core.measures.lexicons import (
    DEFAULT_PAIRED_IDENTIFIERS,
    MARKER_LEXICON_FILES,
    PAIRED_IDENTIFIER_CHOICES,
    load_politicians,
    paired_identifiers,
    read_lexicon_text,
)
from bias_core.safety.errors import InputError

logger = logging.getLogger(__name__)

C_LOC = ("gender-loc",)
NAME_SWAPS = ("gender-loc", "race", "race-intersectional")
# Perspective fairness is also computed on the unchanged unit documents (identity): the noise floor of a summarizer
# that under-represents some values whatever their mix (lead-3 keeps the first three reviews), METHODS §1.7.
PERSPECTIVE_INPUTS = ("sentiment", "identity")


@dataclass(frozen=True)
class MeasureSpec:
    """A registered measure: its family (what computes it) and the perturbations whose inputs it reads."""

    name: str
    family: str
    perturbations: tuple[str, ...] | None  # None: any perturbation


MEASURES: dict[str, MeasureSpec] = {spec.name: spec for spec in (
    MeasureSpec("word_list_inclusion_adjusted", "word_list", C_LOC),
    MeasureSpec("word_list_inclusion_unadjusted", "word_list", C_LOC),
    MeasureSpec("entity_inclusion", "entities", NAME_SWAPS),
    MeasureSpec("entity_hallucination", "entities", C_LOC),
    MeasureSpec("distinguishability_count", "distinguishability", ("gender-glob",)),
    MeasureSpec("distinguishability_dense", "distinguishability", ("gender-glob",)),
    MeasureSpec("fightin_words", "fightin_words", ("gender-glob",)),
    MeasureSpec("bur", "perspective", PERSPECTIVE_INPUTS),
    MeasureSpec("uer", "perspective", PERSPECTIVE_INPUTS),
    MeasureSpec("auc", "perspective", PERSPECTIVE_INPUTS),
    MeasureSpec("sof", "perspective", PERSPECTIVE_INPUTS),
    MeasureSpec("i_across", "quadruples", None),
    MeasureSpec("i_within", "quadruples", None),
    MeasureSpec("delta_i", "quadruples", None),
    MeasureSpec("acc_diff", "quadruples", None),
    MeasureSpec("politician_features", "politician", ("politician",)),
    MeasureSpec("summary_similarity", "politician", ("politician",)),
    MeasureSpec("mbic", "mbic", None),
    MeasureSpec("sfpi", "sfpi", None),
)}
MEASURE_NAMES = tuple(MEASURES)


@dataclass(frozen=True)
class MeasureOptions:
    """Settings shared by all measures (each documented in its module)."""

    n_resamples: int = stats.DEFAULT_RESAMPLES
    seed: int = 0
    hallucination_lookup: Mapping[str, str] = field(default_factory=dict)
    bias_labels: Mapping[str, lexical_bias.LabelledDocument] | None = None
    politicians_path: str | None = None
    perspective_target: str | Mapping[str, float] = "ratio"
    perspective_matching: tuple[str, ...] = ("ngram",)
    by_year: bool = False
    top_k: int = 20
    include_degenerate: bool = False
    paired_identifiers: str = DEFAULT_PAIRED_IDENTIFIERS
    lexicon_paths: Mapping[str, str] = field(default_factory=dict)
    # Steen & Markert's measures: summbias's rules or the authors' released code's (steen_markert module docstring).
    steen_markert_rules: str = steen_markert.DEFAULT_RULES


MARKER_LEXICON_NAMES = tuple(MARKER_LEXICON_FILES)


def check_paired_identifiers(value: object, where: str = "paired_identifiers") -> str:
    """Return ``value`` when it is a paired-identifier choice or a readable male<TAB>female file; else raise
    ``InputError`` naming the value and the choices (checked before any measure is computed)."""
    if not isinstance(value, str) or not value:
        raise InputError(where, f"{value!r} is not text; choose {', '.join(PAIRED_IDENTIFIER_CHOICES)} "
                                "or the path of a male<TAB>female file")
    if value in PAIRED_IDENTIFIER_CHOICES:
        return value
    path = Path(value)
    if not path.exists() or path.is_dir():  # a device or a pipe is refused by the bounded read (issue 30)
        raise InputError(where, f"'{value}' is neither {', '.join(PAIRED_IDENTIFIER_CHOICES)} nor an existing file",
                         hint="give one of the choices or the path of a male<TAB>female file")
    try:
        pairs = paired_identifiers(path)
    except UnicodeDecodeError:
        raise InputError(value, "is not UTF-8 text", hint="save the pairs file as UTF-8") from None
    if not pairs:
        raise InputError(value, "has no pairs", hint="write one male<TAB>female pair a line")
    return value


def check_steen_markert_rules(value: object, where: str = "steen_markert_rules") -> str:
    """Return ``value`` when it is one of ``steen_markert.RULES`` ("summbias", "authors"); else raise
    ``InputError`` naming the value and the choices (checked before any measure is computed)."""
    if value not in steen_markert.RULES:
        raise InputError(where, f"{value!r} is not one of {', '.join(steen_markert.RULES)}",
                         hint="summbias: the documented rules (default); authors: the authors' released code")
    return value


def check_lexicon_paths(paths: object, where: str = "lexicons") -> dict[str, str]:
    """Return ``paths`` (marker lexicon name → file) when every name is a marker lexicon and every file exists with
    at least one entry; else raise ``InputError`` naming the bad name or file."""
    if not isinstance(paths, Mapping):
        raise InputError(where, f"{paths!r} is not a table of lexicon = path",
                         hint=f"e.g. hedges = \"my_hedges.txt\"; names: {', '.join(MARKER_LEXICON_NAMES)}")
    checked: dict[str, str] = {}
    for name, value in paths.items():
        if name not in MARKER_LEXICON_NAMES:
            raise InputError(where, f"unknown lexicon '{name}'; choose from {', '.join(MARKER_LEXICON_NAMES)}")
        if not isinstance(value, str) or not value:
            raise InputError(f"{where}.{name}", f"{value!r} is not a file path")
        path = Path(value)
        if not path.exists() or path.is_dir():  # a device or a pipe is refused by the bounded read (issue 30)
            raise InputError(f"{where}.{name}", f"'{value}' is not an existing file",
                             hint="give a text file with one word or phrase a line")
        try:
            lines = read_lexicon_text(path).splitlines()
        except UnicodeDecodeError:
            raise InputError(value, "is not UTF-8 text", hint="save the lexicon as UTF-8") from None
        if not any(line.strip() and not line.strip().startswith("#") for line in lines):
            raise InputError(value, f"the {name} lexicon has no entries",
                             hint="write one word or phrase a line (lines starting with # are headers)")
        checked[name] = value
    return checked


def _group_pairs(inputs: Sequence[Input], summaries: Sequence[Summary]) -> dict[tuple[str, str], list[Pair]]:
    groups: dict[tuple[str, str], list[Pair]] = {}
    for pair in pair_summaries(inputs, summaries):
        groups.setdefault((pair.summary.summarizer, pair.input.perturbation), []).append(pair)
    return groups


def _wanted(names: Sequence[str], family: str) -> list[str]:
    return [name for name in names if MEASURES[name].family == family]


def _applies(name: str, perturbation: str) -> bool:
    allowed = MEASURES[name].perturbations
    return allowed is None or perturbation in allowed


def compute_measures(
    inputs: Sequence[Input],
    summaries: Sequence[Summary],
    names: Sequence[str] | None = None,
    options: MeasureOptions | None = None,
) -> list[MeasureResult]:
    """Return the requested measures (default: every measure the data supports) for every summarizer.

    A measure asked for by name that the data cannot support is returned as nan with a reason; unrequested
    measures are only computed where their inputs exist.
    """
    options = options or MeasureOptions()
    explicit = names is not None
    names = list(names) if names is not None else list(MEASURE_NAMES)
    unknown = [name for name in names if name not in MEASURES]
    if unknown:
        raise ValueError(f"unknown measure(s) {', '.join(unknown)}; choose from {', '.join(MEASURE_NAMES)}")
    results: list[MeasureResult] = []
    groups = _group_pairs(inputs, summaries)
    produced: set[str] = set()
    has_identity = any(perturbation == "identity" for _, perturbation in groups)
    for (summarizer, perturbation), pairs in sorted(groups.items()):
        applicable = [name for name in names if _applies(name, perturbation) and MEASURES[name].family != "sfpi"
                      and not (MEASURES[name].family == "mbic" and has_identity and perturbation != "identity")]
        if not applicable:
            continue
        kept, degenerate = _split_degenerate(pairs)
        if options.include_degenerate:
            kept = pairs
        if kept:
            found = _family_results(kept, applicable, perturbation, options)
        else:
            reason = (f"all {len(pairs)} summaries are degenerate (empty, separator runs, repetition loops or "
                      "prompt echoes)")
            found = [MeasureResult(name, math.nan, 0, summarizer=summarizer, perturbation=perturbation, reason=reason)
                     for name in applicable]
        for result in found:
            _record_degenerate(result, degenerate, options.include_degenerate)
        results += found
        produced |= {result.measure for result in found}
    if "sfpi" in names:
        results += _sfpi(inputs, options)
        produced.add("sfpi")
    if explicit:
        for name in names:
            if name not in produced:
                allowed = MEASURES[name].perturbations
                reason = ("no summaries of " + " or ".join(allowed) + " inputs") if allowed else \
                    "the inputs and summaries do not support this measure"
                results.append(MeasureResult(name, math.nan, 0, reason=reason))
    for result in results:
        result.details.setdefault("n_degenerate_excluded", 0)
    return results


def _split_degenerate(pairs: Sequence[Pair]) -> tuple[list[Pair], list[tuple[Pair, str]]]:
    """Return the pairs with a usable summary, and the (pair, reason) of those whose summary is degenerate."""
    kept, degenerate = [], []
    for pair in pairs:
        reason = quality.summary_degenerate_reason(pair.summary)
        if reason is None:
            kept.append(pair)
        else:
            degenerate.append((pair, reason))
    return kept, degenerate


def _record_degenerate(result: MeasureResult, degenerate: Sequence[tuple[Pair, str]], included: bool) -> None:
    """Count (and give up to five examples of) the degenerate summaries a result left out, or kept on request."""
    result.details["n_degenerate_excluded"] = 0 if included else len(degenerate)
    if included:
        result.details["n_degenerate_included"] = len(degenerate)
        result.details["include_degenerate"] = True
    if degenerate:
        key = "degenerate_included" if included else "degenerate_excluded"
        result.details[key] = [{"input_id": pair.input.id, "reason": reason} for pair, reason in degenerate[:5]]


def _family_results(pairs: list[Pair], names: list[str], perturbation: str, options: MeasureOptions
                    ) -> list[MeasureResult]:
    common = {"n_resamples": options.n_resamples, "seed": options.seed}
    out: list[MeasureResult] = []
    if _wanted(names, "word_list"):
        out += [r for r in steen_markert.word_list_inclusion(pairs, perturbation=perturbation,
                                                             rules=options.steen_markert_rules, **common)
                if r.measure in names]
    needs_alignment = _wanted(names, "entities") or (_wanted(names, "quadruples") and _quadruple_pairs(pairs))
    rules = options.steen_markert_rules
    alignments = steen_markert.align_pairs(pairs, options.hallucination_lookup, rules) if needs_alignment else None
    if "entity_inclusion" in names:
        out += steen_markert.entity_inclusion(pairs, alignments, perturbation=perturbation, rules=rules, **common)
    if "entity_hallucination" in names:
        out += steen_markert.entity_hallucination(pairs, alignments, perturbation=perturbation, rules=rules,
                                                  **common)
    for similarity in ("count", "dense"):
        if f"distinguishability_{similarity}" in names:
            out += distinguishability.distinguishability(pairs, similarity=similarity, perturbation=perturbation,
                                                         rules=rules, **common)
    if "fightin_words" in names:
        out.append(_fightin_words_by_arm(pairs, perturbation, options))
    perspective_names = _wanted(names, "perspective")
    # On identity only the documents made of units (reviews, turns) have perspectives; articles are left out.
    perspective_pairs = [pair for pair in pairs if pair.input.units] if perturbation == "identity" else pairs
    if perspective_names and perspective_pairs:
        for matching in options.perspective_matching:
            out += [r for r in perspective.perspective_fairness(
                perspective_pairs, matching=matching, target=options.perspective_target, perturbation=perturbation,
                **common) if r.measure in perspective_names]
    quadruple_names = _wanted(names, "quadruples")
    if quadruple_names and _quadruple_pairs(pairs):
        rows = quadruple_outcomes(pairs, alignments)
        out += [r for r in quadruples.quadruple_inconsistency(
            rows, perturbation=perturbation, summarizer=pairs[0].summary.summarizer, **common)
            if r.measure in quadruple_names]
    if _wanted(names, "politician"):
        summary_pairs = politician.politician_pairs([p.input for p in pairs], [p.summary for p in pairs])
        summarizer = pairs[0].summary.summarizer
        if "politician_features" in names:
            table = load_politicians(options.politicians_path) if options.politicians_path else None
            out.append(politician.politician_features(summary_pairs, politicians=table, by_year=options.by_year,
                                                      summarizer=summarizer,
                                                      lexicon_paths=dict(options.lexicon_paths) or None, **common))
        if "summary_similarity" in names:
            out += politician.summary_similarity(summary_pairs, summarizer=summarizer, top_k=options.top_k,
                                                 paired_identifiers=options.paired_identifiers, **common)
    if "mbic" in names:
        out += _mbic(pairs, perturbation, options)
    return out


def _quadruple_pairs(pairs: Sequence[Pair]) -> bool:
    return any(pair.input.quadruple_id and pair.input.role in quadruples.QUADRUPLE_ROLES for pair in pairs)


def quadruple_outcomes(pairs: Sequence[Pair], alignments) -> list[quadruples.Outcome]:
    """Return one outcome per (quadruple, entity, role): 1 when the entity appears in that input's summary.

    The quadruple is the input's ``quadruple_id`` joined with the entity id, so each entity of a sample is its own
    quadruple (Counter-GAP's quadruple is about one target entity); the group is the entity's group in that input.
    """
    rows = []
    for pair, alignment in zip(pairs, alignments, strict=True):
        item = pair.input
        if not item.quadruple_id or item.role not in quadruples.QUADRUPLE_ROLES:
            continue
        for entity in item.entities:
            if entity.group and (alignment.countable is None or entity.entity_id in alignment.countable):
                rows.append(quadruples.Outcome(f"{item.quadruple_id}/{entity.entity_id}", item.role, entity.group,
                                               int(entity.entity_id in alignment.included), item.original_id))
    return rows


def _fightin_words_by_arm(pairs: Sequence[Pair], perturbation: str, options: MeasureOptions) -> MeasureResult:
    """Fightin' Words between the summaries of two arms, perturbed tokens masked, pooled per original and tested
    against arm swaps within originals (METHODS §4.6, §5; ``fightin_words.arm_fightin_words``)."""
    arms = sorted({pair.input.arm for pair in pairs if pair.input.arm})
    summarizer = pairs[0].summary.summarizer
    if len(arms) != 2:
        return MeasureResult("fightin_words", math.nan, 0, perturbation=perturbation, summarizer=summarizer,
                             reason=f"needs summaries of exactly two arms, found {len(arms)}")
    result = fw.between_arms(((pair.input, pair.summary.text) for pair in pairs), arms[0], arms[1],
                             paired_identifiers=options.paired_identifiers, seed=options.seed)
    return fw.fightin_words_measure(result, top_k=options.top_k, perturbation=perturbation, summarizer=summarizer,
                                    n=result.settings["n_originals"])


def _mbic(pairs: Sequence[Pair], perturbation: str, options: MeasureOptions) -> list[MeasureResult]:
    """MBIC of one summarizer from its sentence scores and the user's labels, or the approximate lexicon labeller."""
    scored = [pair for pair in pairs if pair.summary.sentences is not None]
    summarizer = pairs[0].summary.summarizer
    if not scored:
        return [MeasureResult("mbic", math.nan, 0, summarizer=summarizer, perturbation=perturbation,
                              reason="the summaries carry no sentence scores (extractive summarizers only)")]
    documents = []
    unmatched = 0
    for pair in scored:
        sentences, scores = pair.summary.sentences, pair.summary.sentence_scores
        if options.bias_labels is not None:
            key = pair.input.id if pair.input.id in options.bias_labels else pair.input.original_id
            document = lexical_bias.attach_scores(options.bias_labels, key, sentences, scores)
            if document is None:
                unmatched += 1
                continue
            # each summarised input is its own document, even when several share the original's labels
            documents.append(lexical_bias.LabelledDocument(pair.input.id, document.sentences, document.labels,
                                                           document.scores))
        else:
            documents.append(lexical_bias.LabelledDocument(pair.input.id, tuple(sentences),
                                                           tuple(lexical_bias.lexicon_labels(sentences)),
                                                           tuple(scores)))
    source = "user labels" if options.bias_labels is not None else lexical_bias.LEXICON_LABELLER
    results = lexical_bias.mbic_result(documents, label_source=source, summarizer=summarizer,
                                       perturbation=perturbation, n_resamples=options.n_resamples,
                                       seed=options.seed)
    for result in results:
        result.details["summaries_without_matching_labels"] = unmatched
    return results


def _sfpi(inputs: Sequence[Input], options: MeasureOptions) -> list[MeasureResult]:
    """SFPI of the SFPI model (a random forest trained here) on the distinct originals (user labels or the lexicon labeller)."""
    if options.bias_labels is not None:
        documents = list(options.bias_labels.values())
        source = "user labels"
    else:
        originals: dict[str, str] = {}
        for item in inputs:
            if item.original_id not in originals:
                originals[item.original_id] = item.original_text()
        ids = list(originals)
        split = nlp.split_sentences([originals[i] for i in ids])
        documents = [lexical_bias.LabelledDocument(i, tuple(s), tuple(lexical_bias.lexicon_labels(s)))
                     for i, s in zip(ids, split) if s]
        source = lexical_bias.LEXICON_LABELLER
    return lexical_bias.random_forest_sfpi(documents, label_source=source, seed=options.seed,
                                           n_resamples=options.n_resamples)
