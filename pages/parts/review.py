"""The Audit page's "Review the swaps" section (issue 14): before any model runs, per perturbation the checklist over
every input — the swaps of names it is not sure are people first, low confidence first, each with its sentence (issue
21) — a seeded sample of inputs with each substitution highlighted and listed, a switch for agreeing gendered nouns per
gender perturbation, the originals to exclude and the names to leave unswapped.

A view over ``bias_core.perturb.review``: ``python -m bias_core audit --config … --review`` prints the same checklist
and sample, and the launched run records them (``reports["review"]``) with the excluded originals and names in its
config.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pandas as pd
import streamlit as st

from bias_core.common.records import Document, Input
from bias_core.common.words import counted, plural
from bias_core.perturb.gender import AGREEMENT_SCOPES
from bias_core.perturb.review import NAME_SWAP_KINDS, REVIEW_SAMPLE_SIZE, review_inputs, sample_inputs
from bias_core.perturb.review_checklist import Check, Example
from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
from bias_core.runs.pipeline import build_inputs
from bias_core.runs.selection import check_counts
from bias_core.safety.errors import BiasCoreError
from pages.render import SUBSTITUTION_COLUMNS, highlighted_input, md_escape, substitution_rows

EXCLUDE_KEY = "review_exclude"
STRICT_SCOPE = AGREEMENT_SCOPES[1]  # names, pronouns and titles only (Steen & Markert)
EXCLUDE_NAMES_KEY = "review_exclude_names"
# Streamlit's own icon font (no emoji font needed in the browser) in Streamlit's colour directives.
PASSED, FOUND, INFO = ":green[:material/check_circle:]", ":orange[:material/warning:]", ":blue[:material/info:]"
EXAMPLE_COLUMNS = ("input", "span", "what", "context")
DOUBTFUL_COLUMNS = ("original", "name", "confidence", "why", "sentence")
AGREEMENT_HELP = ("On (the default): a swap also rewrites every gendered noun the parse ties to a swapped person — "
                  "son → daughter, \"both men\" → \"both women\", congressman → congresswoman (the word list and "
                  "its sources: data/perturb/gendered_words.tsv) — so the counterfactual reads as one consistent "
                  "world. Off: Steen & Markert's strict scope, names, pronouns and titles only (their validation "
                  "test 2 finds that adapting content words changes little). See docs/fidelity.md.")


def review_swaps(perturbations: list[StageSpec], documents: list[Document],
                 seed: int) -> tuple[list[StageSpec], list[str], dict[str, list[str]]]:
    """Show the review section; return the perturbations with each name swap's ``agreement`` as switched
    here, the originals the analyst excluded, and per original the names to leave unswapped."""
    st.subheader("Review the swaps")
    st.caption("Before any model runs: the checklist covers every input of each perturbation; the sample shows a few "
               "inputs with every swap highlighted (hover a swap to see what it replaced). Exclude an original to "
               "leave it out of every perturbation; the run records the checklist, the sample and what you "
               "excluded. Names the perturbation is not sure are people come first; leave one unswapped below.")
    perturbations = [dataclasses.replace(spec, params=dict(spec.params)) for spec in perturbations]
    for spec in perturbations:
        if spec.name in NAME_SWAP_KINDS:
            # The old content_words switch is folded into agreement (bias_core.perturb.gender): on means coherent.
            coherent = spec.params.pop("content_words", False) or spec.params.get("agreement") != STRICT_SCOPE
            coherent = st.toggle(f"{spec.name}: make gendered nouns agree with the swapped person (son → daughter, "
                                 "both men → both women …)", value=coherent, key=f"{spec.name}_agreement",
                                 help=AGREEMENT_HELP)
            spec.params["agreement"] = AGREEMENT_SCOPES[0] if coherent else STRICT_SCOPE
    if all(spec.name == "identity" for spec in perturbations):
        st.caption("Only the unchanged originals are chosen: nothing is swapped.")
        return perturbations, [], {}
    try:
        inputs, reports = built_inputs(perturbations, seed, documents)
    except (BiasCoreError, ValueError) as error:
        # Said once, here: the Audit page's own build of the same inputs would fail with the same line.
        st.error(md_escape(error))
        st.stop()
    unexcluded = review_inputs(inputs, reports)
    flags = unexcluded.original_flags()
    body = st.container()
    ids = [document.id for document in documents]
    st.session_state[EXCLUDE_KEY] = [original for original in st.session_state.get(EXCLUDE_KEY, []) if original in ids]
    excluded = st.multiselect(
        "Exclude originals (left out of every perturbation and of the run)", ids, key=EXCLUDE_KEY,
        format_func=lambda original: original + (f" — {'; '.join(flags[original])}" if original in flags else ""),
        help="Each original is listed with what the checks found in it and why a perturbation skipped it.")
    if len(excluded) == len(ids):
        st.error("Every original is excluded: keep at least one.")
        excluded = []
    # Only a perturbation that swaps names has names to leave unswapped: a sentiment split recomposes units.
    swaps_names = any(spec.name not in ("identity", "sentiment") for spec in perturbations)
    names = _exclude_names(unexcluded.doubtful_names(), excluded) if swaps_names else {}
    with body:
        _show_review(inputs, reports, excluded, seed, names)
    return perturbations, list(excluded), names


def _exclude_names(doubtful: list[Example], excluded: list[str]) -> dict[str, list[str]]:
    """The multiselect of doubtful names to leave unswapped (low confidence first, each with why); return them per
    original."""
    options = [(example.original_id, example.span) for example in doubtful if example.original_id not in excluded]
    why = {(example.original_id, example.span): example.note for example in doubtful}
    st.session_state[EXCLUDE_NAMES_KEY] = [option for option in st.session_state.get(EXCLUDE_NAMES_KEY, [])
                                           if option in options]
    chosen = st.multiselect(
        "Leave these names unswapped (low and medium confidence swaps, per original)", options,
        key=EXCLUDE_NAMES_KEY, format_func=lambda option: f"{option[0]} · {option[1]} — {why[option]}",
        help="The name keeps its text in every input of that original (its pronouns are left to the other people); "
             "the run records what you left out. To drop the whole original instead, exclude it above.")
    names: dict[str, list[str]] = {}
    for original, name in chosen:
        names.setdefault(original, []).append(name)
    return names


def _corpus_digest(documents: list[Document]) -> str:
    """A hash of the corpus, computed once per corpus object of the session (the cache key of the built inputs)."""
    kept = st.session_state.get("review_corpus_digest")
    if kept and kept[0] == id(documents):
        return kept[1]
    digest = hashlib.sha256("".join(json.dumps(d.to_dict(), sort_keys=True) for d in documents).encode()).hexdigest()
    st.session_state["review_corpus_digest"] = (id(documents), digest)
    return digest


def built_inputs(perturbations: list[StageSpec], seed: int, documents: list[Document],
                 excluded: list[str] | tuple[str, ...] = (),
                 summarizers: list[StageSpec] | tuple[StageSpec, ...] = ()) -> tuple[list[Input], dict]:
    """Every input of the chosen perturbations and the perturbations' reports, cached per corpus, perturbations, seed
    and excluded originals. The review builds with nothing excluded (so the reasons to exclude stay visible); the
    Audit page's count asks for the same build when nothing is excluded, so the inputs are built once.

    Nothing is built for an audit whose counts multiply past the limits (originals × samples, and with
    ``summarizers`` inputs × summarizers): a ``ConfigError`` gives the command line's line (``check_counts``)."""
    check_counts(AuditConfig(corpus=CorpusSpec("uploaded"), summarizers=list(summarizers), perturbations=perturbations,
                             seed=seed, exclude_originals=list(excluded)), documents)
    return _built(json.dumps([dataclasses.asdict(spec) for spec in perturbations], sort_keys=True), seed,
                  tuple(excluded), _corpus_digest(documents), documents)


@st.cache_data(show_spinner="Building every input…", max_entries=8)
def _built(perturbations_json: str, seed: int, excluded: tuple[str, ...], corpus_digest: str,
           _documents: list[Document]) -> tuple[list[Input], dict]:
    perturbations = [StageSpec(**spec) for spec in json.loads(perturbations_json)]
    config = AuditConfig(corpus=CorpusSpec("uploaded"), summarizers=[], perturbations=perturbations, seed=seed,
                         exclude_originals=list(excluded))
    return build_inputs(_documents, config)


def _show_review(inputs: list[Input], reports: dict, excluded: list[str], seed: int,
                 names: dict[str, list[str]]) -> None:
    review = review_inputs(inputs, reports, excluded, names)
    sample = sample_inputs(inputs, REVIEW_SAMPLE_SIZE, seed, excluded)
    if excluded:
        st.caption(md_escape(f"Excluded: {', '.join(excluded)}"))
    if names:
        st.caption(md_escape("Left unswapped: " + "; ".join(f"{original}: {', '.join(found)}"
                                                             for original, found in names.items())))
    tabs = st.tabs([md_escape(review.perturbation) for review in review.perturbations])
    for tab, perturbation in zip(tabs, review.perturbations, strict=True):
        with tab:
            words = "" if perturbation.content_words is None else \
                f"; gendered nouns {'agree with the swapped people' if perturbation.content_words else 'kept'}"
            st.markdown(md_escape(f"{counted(perturbation.n_inputs, 'input')} from "
                                  f"{counted(perturbation.n_originals, 'original')}{words}."))
            for check in perturbation.checks:
                _show_check(perturbation.perturbation, check)
            st.markdown(f"**Sample** ({md_escape(len(sample.get(perturbation.perturbation, [])))} inputs, seed "
                        f"{md_escape(seed)})")
            for index, item in enumerate(sample.get(perturbation.perturbation, [])):
                _show_input(item, expanded=index == 0)


def _show_check(perturbation: str, check: Check) -> None:
    """One checklist line; "none" only where the check found nothing. The doubtful swaps are counted per confidence
    and listed open, with their sentences."""
    levels = [example.note.split(":", 1)[0] for example in check.examples] if check.key == "doubtful_swaps" else []
    if check.key == "skipped":
        # The examples also list originals that gave only part of their inputs: those are no "none" either.
        partial = len(check.examples) - check.originals
        parts = [counted(check.originals, "original") + " skipped" if check.originals else "",
                 counted(partial, "original") + f" gave only part of {plural(partial, 'its')} inputs" if partial else ""]
        shown = "; ".join(part for part in parts if part)
        icon, counts = (INFO, shown) if shown else (PASSED, "none")
    elif check.passed:
        icon, counts = PASSED, "none"
    elif levels:
        icon = FOUND
        counts = (f"{levels.count('low')} low and {levels.count('medium')} medium confidence names, "
                  f"{check.occurrences} swaps in {check.inputs} inputs of {check.originals} originals")
    else:
        icon, counts = FOUND, (f"{check.occurrences:,} in {counted(check.inputs, 'input')} of "
                               f"{counted(check.originals, 'original')}")
    st.markdown(f"{icon} **{md_escape(check.title)}**: {md_escape(counts)}")
    st.caption(md_escape(check.how))
    if check.examples:
        with st.expander(md_escape(f"{perturbation}: {check.title} — {len(check.examples)} distinct"),
                         expanded=bool(levels)):
            if check.key == "skipped":
                rows = [{"original": e.original_id, "reason": e.note} for e in check.examples]
            elif levels:
                rows = [dict(zip(DOUBTFUL_COLUMNS, (e.original_id, e.span, *e.note.split(": ", 1), e.context)))
                        for e in check.examples]
            else:
                rows = [dict(zip(EXAMPLE_COLUMNS, (e.input_id, e.span, e.note, e.context))) for e in check.examples]
            wide = {"input": st.column_config.TextColumn(width="medium"),
                    "span": st.column_config.TextColumn(width="small"),
                    **{column: st.column_config.TextColumn(width="large")
                       for column in ("what", "context", "reason", "why", "sentence")}}
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", column_config=wide)


def _show_input(item: Input, expanded: bool) -> None:
    rows = substitution_rows(item)
    label = " · ".join(part for part in (item.id, f"arm {item.arm}" if item.arm else "",
                                         counted(len(rows), "substitution")) if part)
    with st.expander(md_escape(label), expanded=expanded):
        st.markdown(highlighted_input(item), unsafe_allow_html=True)
        if rows:
            st.dataframe(pd.DataFrame(rows, columns=list(SUBSTITUTION_COLUMNS)), hide_index=True, width="stretch")
        else:
            st.caption("No substitutions: this perturbation changes which units the input holds, not its words.")
