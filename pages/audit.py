"""Audit: choose perturbations, summarizers and measures, see an estimate of the work, run it in the background
and follow its progress (read from the run store, so closing the tab does not stop it)."""

from __future__ import annotations

import hashlib
import re

import streamlit as st

from bias_core.common.words import counted, counted_parts
from bias_core.measures.applicable import applicable_measures, in_words
from bias_core.measures.perspective_scores import MATCHINGS, check_perspective_matching
from bias_core.perturb.politician_forms import TRUMP_BIDEN, PairError, parse_pair
from bias_core.perturb.politician_pairs import named_politicians, pair_coverage, suggest_pairs
from bias_core.perturb.race import NAME_SOURCE_CITATIONS
from bias_core.perturb.review import NAME_SWAP_KINDS
from bias_core.perturb.sentiment import SentimentConfig, corpus_values
from bias_core.runs.config import AuditConfig, ConfigError, CorpusSpec, StageSpec, default_run_name
from bias_core.runs.launch import launch_audit
from bias_core.safety.errors import BiasCoreError
from pages.common import INTERSECTIONAL_GENDER_NOTE, RACE_GENDER_NOTE, run_store, select_run
from pages.parts import access, workspace
from pages.parts.endpoints import endpoint_choice
from pages.parts.models import model_choice
from pages.parts.power import show_power
from pages.parts.progress import show_estimate, show_progress
from pages.parts.review import built_inputs, review_swaps
from pages.render import md_escape

access.through_app()  # a deep link served before app.py ever ran goes through it (sign-in, sidebar, cookie)

# Session state naming the run launched by this session's Run audit button (its progress is drawn by the button).
PROGRESS_BY_BUTTON = "progress_by_run_button"
EXTRACTIVE = ["lead-3", "random-3", "textrank", "lexrank", "topic", "sexist"]
# How perspective fairness matches summary tokens to values (bias_core.measures.perspective_scores.MATCHINGS).
MATCHING_LABELS = {"ngram": "spaCy lemmas (default)",
                   "fairsumm-ngram": "FairSumm authors' N-gram pipeline (NLTK; reproduces their Table 10)",
                   "embedding": "MiniLM embeddings"}
# The race perturbations' name sources (bias_core.perturb.race.NAME_SOURCES), BBQ first as the default.
NAME_SOURCE_LABELS = {"bbq": "BBQ proper names (Parrish et al. 2022, as Steen & Markert)",
                      "rosenman": "Rosenman et al. (2023) voter-file tables, frequency-matched"}
BBQ_ATTRIBUTION = ("Names from BBQ's proper-name vocabulary: Parrish, Chen, Nangia, Padmakumar, Phang, Thompson, Htut "
                   "& Bowman (2022), BBQ: A hand-built bias benchmark for question answering, Findings of ACL 2022; "
                   "nyu-mll/BBQ, licensed CC-BY-4.0 (creativecommons.org/licenses/by/4.0), used unchanged.")

# A paper's code for a measure ("BUR", "ΔI", "Acc_Diff", "I_across", "MBIC"): kept out of the Audit's labels (issue
# 29), shown in the measures' tooltip.
_CODE = re.compile(r"^(?:Δ\w+|[A-Z][A-Za-z]*_[A-Za-z]+|[A-Z]{2,})$")


def split_code(name: str) -> tuple[str, str | None]:
    """A measure in words without the paper's code, and the code: "counterfactual inconsistency (ΔI)" →
    ("counterfactual inconsistency", "ΔI"); "inconsistency across groups (I_across, a description)" →
    ("inconsistency across groups (a description)", "I_across"). ``in_words`` keeps the codes (Metrics)."""
    words = in_words(name)
    match = re.fullmatch(r"(?P<head>.*?) \((?P<code>[^,()]+)(?:, (?P<rest>[^()]+))?\)", words)
    if match is None or not _CODE.match(match["code"]):
        return words, None
    return match["head"] + (f" ({match['rest']})" if match["rest"] else ""), match["code"]


def plain_words(name: str) -> str:
    return split_code(name)[0]


def measure_codes(names) -> str:
    """The papers' codes of ``names`` for the tooltip: "BUR: binary unfair rate; ΔI: counterfactual inconsistency"."""
    return "; ".join(f"{code}: {plain}" for plain, code in map(split_code, names) if code)


@st.cache_data(show_spinner="Looking for politicians in the corpus…", max_entries=4)
def politicians_of(corpus: tuple[tuple[str, str], ...]) -> tuple[list, list]:
    """The politicians the corpus names and the suggested pairs (``bias_core.perturb.politician_pairs``)."""
    from bias_core.common.records import Document

    documents = [Document(id=doc_id, text=text) for doc_id, text in corpus]
    named = named_politicians(documents)
    return named, suggest_pairs(documents, named=named)


def politician_pair_picker(documents) -> list[str]:
    """The pairs to swap: for each politician the corpus names, counterparts of the same office and the opposite
    party whether the corpus names them or not, the best-covered pair chosen when the corpus is new to the picker;
    plus any pair typed by hand; each with the originals it covers before the run."""
    news = [d for d in documents if not d.is_perspective]
    named, suggestions = politicians_of(tuple((d.id, d.text) for d in news))
    if named:
        st.caption("Politicians this corpus names by full name (originals): " + md_escape(", ".join(
            f"{person.name} {person.n_originals}" for person in named[:12]))
            + (f" and {len(named) - 12} more" if len(named) > 12 else "") + ".")
    else:
        st.caption("No politician of the politicians table is named by full name in this corpus, so no pair covers "
                   "an original; Zhou & Tan's pair is offered, or type one below.")
    options = [s.label for s in suggestions] or [TRUMP_BIDEN.label]
    described = {s.label: s.describe() for s in suggestions}
    # The choice starts at the best-covered pair for each corpus (a pair kept from another corpus, or from before
    # the suggestions changed, would cover nothing here); set through the state only, never also as a default.
    corpus_key = hashlib.sha256("\0".join(sorted(d.id for d in news)).encode()).hexdigest()
    if st.session_state.get("politician_pair_corpus") != corpus_key \
            or not set(st.session_state.get("politician_pair_choice") or []) <= set(options):
        st.session_state["politician_pair_choice"] = options[:1]
        st.session_state["politician_pair_corpus"] = corpus_key
    chosen = st.multiselect("Pairs (both directions are run)", options,
                            format_func=lambda label: described.get(label, label), key="politician_pair_choice",
                            help="Suggested: for each politician this corpus names, people of the same office "
                                 "(a president's counterpart may be a vice president) and the opposite party, "
                                 "whether the corpus names them or not, the pair covering the most originals first. "
                                 "An original is used when it names one of the two and not the other.")
    typed = st.text_area("Other pairs, one per line (First Last=First Last)", "", key="politician_pairs_free")
    pairs = list(dict.fromkeys([*chosen, *(line.strip() for line in typed.splitlines() if line.strip())]))
    for label in pairs:
        try:
            parse_pair(label)
        except PairError as error:
            st.error(md_escape(str(error)))
            continue
        only_a, only_b = pair_coverage(label, news)
        line = (f"{label.replace('=', ' = ')}: covers {counted(only_a + only_b, 'original')}"
                f" ({only_a} + {only_b}) before the swap's own checks.")
        (st.caption if only_a + only_b else st.warning)(md_escape(line if only_a + only_b else
                                                                  line + " It will give no input."))
    return pairs


@st.cache_data(show_spinner=False, max_entries=8)
def sentiment_values(units: tuple[tuple[str, str, tuple], ...], source: str) -> dict[str, int]:
    """The corpus's unit values under ``source`` with their counts (``perturb.sentiment.corpus_values``)."""
    from bias_core.common.records import Document, Unit

    if not units:  # articles only: no unit has a value to focus on
        return {}
    document = Document(id="corpus", units=[Unit(text, value or None, dict(extra)) for text, value, extra
                                                      in units])
    return corpus_values([document], SentimentConfig(value_source=source))


def _units_key(documents) -> list[tuple[str, str, tuple]]:
    return [(unit.text, "" if unit.value is None else str(unit.value), tuple(sorted((unit.extra or {}).items())))
            for document in documents for unit in (document.units or [])]


st.title("Audit")
st.caption("An audit perturbs every document, summarizes the original and every perturbed input with each "
           "summarizer, and computes the bias measures. The unchanged originals (identity) are always included: "
           "they give each measure's noise floor.")

try:
    run_store()
except BiasCoreError as error:  # an audit is kept in the run store: without one, say why and where its path came from
    st.error(md_escape(f"The run store could not be opened. {error}"))
    st.stop()
documents = st.session_state.get("documents")
followed = st.session_state.get("launched_run") or st.query_params.get("following")
if followed and not (run_store().has_run(followed) and access.may_see_id(run_store(), followed)):
    followed = None  # gone, or (sign-in on) another's run this visitor may not see: a link is untrusted
if not documents and followed:
    # A session without the corpus (its tab's workspace was forgotten): the run launched from here is in the URL.
    st.info(md_escape(f"Following the run {followed} started from this page. Pick a corpus to start another."))
    show_progress(followed)
    st.page_link("pages/corpus.py", label="Go to Corpus", icon=":material/library_books:")
    st.stop()
try:
    following_running = bool(followed) and run_store().get_run(followed).status in ("created", "running")
except BiasCoreError as error:  # the followed run can no longer be read: say so, the page still starts audits
    st.error(md_escape(error))
    followed, following_running = None, False
# The run launched by Run audit in this session shows its progress next to that button, where the analyst is; a page
# opened (or refreshed) while a run it launched goes on shows it first (session only: not a remembered setting).
progress_by_button = bool(followed) and st.session_state.get(PROGRESS_BY_BUTTON) == followed
if following_running and not progress_by_button:
    # A refresh mid-run lands on the run's progress, above the settings it was started with.
    st.info(md_escape(f"Following the run {followed} started from this page; the settings below are the ones it was "
                      "started with, kept for this browser tab."))
    show_progress(followed)
if not documents:
    st.info("Pick a corpus first.")
    st.page_link("pages/corpus.py", label="Go to Corpus", icon=":material/library_books:")
    st.stop()
news = sum(not d.is_perspective for d in documents)
st.write(f"Corpus: **{md_escape(st.session_state.get('corpus_name', 'uploaded'))}** — "
         f"{counted_parts((news, 'article'), (len(documents) - news, 'set of units'))}.")

st.subheader("Perturbations")
perturbations: list[StageSpec] = [StageSpec("identity")]
seed = st.number_input("Seed (every random choice derives from it)", 0, 2**31 - 1, 0, key="audit_seed")
chosen = st.multiselect(
    "Perturbations", ["gender-loc", "gender-glob", "race", "race-intersectional", "politician", "sentiment"],
    default=["gender-glob"] if news else ["sentiment"], key="audit_perturbations",
    help="gender-loc: half the people of an input become women, half men, in inverted pairs (inclusion and "
         "hallucination bias). gender-glob: all people of an input get one gender (distinguishability). race: "
         "Black- or White-associated first and last names. politician: swap one politician for another. "
         "sentiment: sample units at controlled value ratios (perspective fairness).")
for kind in chosen:
    with st.expander(f"{kind} settings", expanded=False):
        params: dict[str, object] = {}
        if kind in ("gender-loc", "gender-glob", "race", "race-intersectional"):
            params["samples"] = st.number_input("Name draws per original (each gives one input per arm)", 1, 50,
                                                3, key=f"{kind}_samples")
            params["controls"] = st.checkbox(
                "Within-group controls (a second name draw from the same group, to tell a swap's effect from "
                "chance)", key=f"{kind}_controls",
                help="Each input gets a control made with other names of the same group; the quadruples measure "
                     "counterfactual inconsistency (ΔI) and the outcome rate difference (Acc_Diff), Counter-GAP §3.")
        if kind in NAME_SWAP_KINDS:
            st.caption("Content-word swapping (chairman → chairwoman …) is switched under Review the swaps below.")
        if kind == "race":
            st.caption(RACE_GENDER_NOTE)
        if kind == "race-intersectional":
            st.caption(INTERSECTIONAL_GENDER_NOTE)
        if kind.startswith("race"):
            source = st.radio("Name source", list(NAME_SOURCE_LABELS), format_func=NAME_SOURCE_LABELS.get,
                              key=f"{kind}_name_source",
                              help="BBQ's names are what Steen & Markert draw from. The Rosenman tables give many "
                                   "more names; each Black name is paired with a White name of similar census "
                                   "frequency, so the arms differ in race and not in name rarity.")
            params["name_source"] = source
            if source == "bbq":
                st.caption(BBQ_ATTRIBUTION)
            else:  # RaceConfig refuses thresholds other than the default under BBQ, which lists names by race
                params["first_name_threshold"] = st.slider("P(race | first name) at least", 0.5, 0.99, 0.8,
                                                           key=f"{kind}_first")
                params["last_name_threshold"] = st.slider("P(race | last name) at least", 0.5, 0.99, 0.8,
                                                          key=f"{kind}_last")
                st.caption(md_escape(NAME_SOURCE_CITATIONS["rosenman"]))
        if kind == "politician":
            params["pairs"] = politician_pair_picker(documents)
        if kind == "sentiment":
            source = st.selectbox("Value from", ["label", "stars", "vader", "vader-compound"], key="sent_source")
            params["value_source"] = source
            values = sentiment_values(tuple(_units_key(documents)), source)
            if values:
                params["focus_value"] = st.selectbox(
                    "Focus value (the ratios set its share of each input)", list(values),
                    format_func=lambda value, values=values: f"{value} ({counted(values[value], 'unit')})",
                    key="sent_focus",
                    help=f"Default: {next(iter(values))}, the first value in order (pos before neg and neu; stars "
                         "ascending). Perspective fairness compares how each value is represented; the focus value "
                         "is the one whose share the inputs vary.")
            ratios = st.text_input("Share of the focus value per input", "0.2,0.5,0.8", key="sent_ratios")
            try:
                params["ratios"] = [float(r) for r in ratios.split(",") if r.strip()]
            except ValueError:
                st.error("Ratios must be numbers between 0 and 1, separated by commas.")
            params["samples"] = st.number_input("Inputs per ratio", 1, 50, 3, key="sent_samples")
        perturbations.append(StageSpec(kind, params))
perturbations, excluded, excluded_names = review_swaps(perturbations, documents, int(seed))

st.subheader("Summarizers")
summarizer_names = st.multiselect("Summarizers", [*EXTRACTIVE, "smollm2"], default=["lead-3"],
                                  key="audit_summarizers",
                                  help="lead-3 and random-3 cannot amplify bias; topic picks random sentences "
                                       "(how many depends on the article's topic) and never reads names, so it is "
                                       "a neutral control under a swap; sexist is the deliberately biased control; "
                                       "smollm2 is a small offline language model.")
summarizers = [StageSpec(name) for name in summarizer_names]
with st.expander("Add a Hugging Face model or an OpenAI-compatible endpoint"):
    # Only a model the operator listed, loaded with its own token variable (pages.parts.models); the endpoint
    # choice below reports a broken endpoints file.
    hf_model = model_choice("audit_hf_model", optional=True, report_errors=False)
    if hf_model is not None:
        summarizers.append(StageSpec(*hf_model))
    # Only an endpoint the operator listed, with its own key variable (pages.parts.endpoints).
    endpoint = endpoint_choice("audit_openai")
    concurrency = st.number_input("Concurrent requests", 1, 64, 4, key="audit_openai_concurrency")
    timeout = st.number_input("Timeout per request (s)", 1, 600, 60, key="audit_openai_timeout")
    if endpoint is not None:
        endpoint_name, endpoint_params = endpoint
        summarizers.append(StageSpec(endpoint_name, {**endpoint_params, "concurrency": int(concurrency),
                                                     "timeout": float(timeout)}))
    budget_columns = st.columns(2)
    budget_requests = budget_columns[0].number_input(
        "Stop after this many requests (0: no limit)", 0, 10**9, 0, key="audit_budget_requests",
        help="A budget for each go of the run: once spent, the run stops cleanly, every answer kept; resume it on "
             "the Runs page (or run it again with a larger budget) to go on. Cached summaries cost nothing.")
    budget_tokens = budget_columns[1].number_input(
        "Stop after this many tokens (0: no limit)", 0, 10**12, 0, key="audit_budget_tokens",
        help="Prompt and completion tokens, as the endpoint reports them.")
budget = {key: int(value) for key, value in (("requests", budget_requests), ("tokens", budget_tokens)) if value}

st.subheader("Measures")
applicable = applicable_measures([p.name for p in perturbations], articles=news > 0, unit_sets=news < len(documents),
                                 controls=[p.name for p in perturbations if p.params.get("controls")],
                                 summarizers=[s.name for s in summarizers])
# A choice kept from another corpus or setup may name a measure that no longer applies; the widget needs its options.
if "audit_measures" in st.session_state:
    st.session_state["audit_measures"] = [m for m in st.session_state["audit_measures"] if m in applicable]
codes = measure_codes(applicable)
measures = st.multiselect("Measures (none chosen: every measure listed here)", applicable,
                          format_func=plain_words, key="audit_measures",
                          help="Only the measures this corpus, these perturbations and summarizers can compute. "
                               "Each measure's formula and paper are under How to read on the Metrics page."
                               + (f" The papers' names: {codes}." if codes else ""))
if applicable:
    st.caption("This audit computes: " + md_escape("; ".join(plain_words(name) for name in applicable)) + ".")
else:
    st.warning("No measure applies to this setup: choose a perturbation (or a summarizer) that fits the corpus.")
perspective_matching = "ngram"
if "sentiment" in chosen:
    perspective_matching = st.radio(
        "Perspective matching", MATCHINGS, format_func=MATCHING_LABELS.get, key="audit_perspective_matching",
        help="How a summary's words are matched to the values of the units for BUR, UER, AUC and SOF. spaCy lemmas "
             "is summbias's own matching. The FairSumm pipeline repeats the authors' released code exactly (NLTK "
             "tokens, stop words of all languages, WordNet lemma and Porter stem, empty value slots kept, ≤ "
             "instead of <) and needs NLTK data. See How to read on the Metrics page.")
    if perspective_matching == "fairsumm-ngram":
        try:
            check_perspective_matching(perspective_matching, "Perspective matching")
        except BiasCoreError as error:
            st.error(md_escape(error))
bootstrap = st.select_slider("Bootstrap resamples for confidence intervals", [200, 500, 1000, 2000], 1000,
                             key="audit_bootstrap")
# The name follows the corpus and perturbations until the analyst types one of their own.
default_name = default_run_name(st.session_state.get("corpus_name", "uploaded corpus"), [p.name for p in perturbations])
if st.session_state.get("audit_name") in (None, "", st.session_state.get("audit_default_name")):
    st.session_state["audit_name"] = default_name
st.session_state["audit_default_name"] = default_name
name = st.text_input("Name of this run", key="audit_name")

config = AuditConfig(corpus=CorpusSpec("uploaded"), summarizers=summarizers, perturbations=perturbations,
                     measures=measures, seed=int(seed), bootstrap=int(bootstrap), name=name or None,
                     exclude_originals=excluded, exclude_entities=excluded_names,
                     perspective_matching=perspective_matching, budget=budget)


if not summarizers:
    st.warning("Choose at least one summarizer.")
    st.stop()
try:
    # Keyed only by what the inputs depend on: typing a run name or choosing a summarizer rebuilds nothing, and with
    # nothing excluded this is the review's own build.
    all_inputs, reports = built_inputs(perturbations, int(seed), documents, excluded, summarizers)
except (BiasCoreError, ValueError) as error:
    st.error(md_escape(error))
    st.stop()
show_estimate(summarizers, all_inputs, measures, int(bootstrap))
show_power(documents, excluded, applicable)
for kind, report in reports.items():
    if kind != "identity":
        st.caption(md_escape(f"{kind}: " + report["summary"].replace("\n", " · ")))

# One slot whether or not the note shows: the progress block below keeps its place on the page when the run ends, so
# the browser replaces the running bar instead of keeping it beside the finished one (a stale "· measure" bar).
running_note = st.empty()
if following_running:
    running_note.caption("The run started from this page is still going; Run audit is available again when it ends.")
if st.button("Run audit", type="primary", key="audit_run", disabled=following_running):
    try:
        st.session_state["launched_run"] = followed = launch_audit(
            config, documents, run_store(), owner=access.current()[1])
        st.session_state[PROGRESS_BY_BUTTON] = followed
        following_running = False
        select_run(followed)
        st.query_params["following"] = followed
        workspace.remember_context()
    except (BiasCoreError, ConfigError) as error:
        st.error(md_escape(error))
    else:
        # Read the page again at once: it then follows the run under this button and shows Run audit disabled until
        # the run ends (without this, the button drawn above stayed clickable for the whole run).
        st.rerun()

if followed and (progress_by_button or not following_running):
    show_progress(followed)  # right under the button: the bar, the counts, the time left, then the result links
