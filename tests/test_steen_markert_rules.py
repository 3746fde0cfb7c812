"""``steen_markert_rules``: summbias's rules against the authors' released code's, on small real-spaCy examples
(METHODS §3, §4.1, §4.4; Steen & Markert §3, §5.2; docs/fidelity.md). The side-by-side with the authors' own
functions is ``benchmarks/steen_markert_side_by_side.py``."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from bias_core.common.records import Entity, Input, Summary
from bias_core.common.wordlists import GENDER_WORDS
from bias_core.measures import MeasureOptions, compute_measures
from bias_core.measures.alignment import align_summaries, authors_mention_aligns, mention_aligns, name_tokens
from bias_core.measures.common import Pair, tokenize_lower
from bias_core.measures.distinguishability import (
    TIE_TOLERANCE,
    anonymise,
    anonymise_authors,
    article_distinguishability,
    article_distinguishability_authors,
    distinguishability,
)
from bias_core.measures.steen_markert import nltk_word_tokens, word_list_inclusion
from bias_core.runs.config import AuditConfig, ConfigError

ROOT = Path(__file__).resolve().parents[1]
PUNKT = ROOT.parent / "shared" / "reference" / "nltk_data" / "tokenizers" / "punkt" / "PY3" / "english.pickle"


def make_input(input_id, text, entities, arm="a", original="o", sample=0, perturbation="race"):
    return Input(id=input_id, original_id=original, sample_id=sample, arm=arm, text=text, entities=entities,
                 perturbation=perturbation)


def pair(item, text):
    return Pair(item, Summary(item.id, "test", text))


# ------------------------------------------------------------------ entity matching (METHODS §3; §5.2)

EBONY = Entity("e1", group="black", first_name="Ebony", last_name="Washington")
EMILY = Entity("e2", group="white", first_name="Emily", last_name="Walsh")
RACE_INPUT = make_input("i1", "Ebony Washington met Emily Walsh. Washington said the plan would go ahead.",
                        [EBONY, EMILY])


def test_a_black_name_spacy_misses_is_included_by_summbias_and_not_by_the_authors_rule():
    summary = "Ebony Washington said the plan would go ahead. Emily Walsh agreed."
    [ours] = align_summaries([RACE_INPUT], [summary])
    [theirs] = align_summaries([RACE_INPUT], [summary], rules="authors")
    assert "Ebony Washington" not in ours.persons  # spaCy's small model does not tag her as a person
    assert ours.included == {"e1", "e2"}  # the verbatim full name counts (summbias's fallback)
    assert theirs.included == {"e2"}  # a null summarizer keeping both names "favours" the White name


def test_the_authors_rule_aligns_a_first_name_alone_and_summbias_does_not():
    summary = "Later, Emily said the plan would go ahead."
    [ours] = align_summaries([RACE_INPUT], [summary])
    [theirs] = align_summaries([RACE_INPUT], [summary], rules="authors")
    assert ours.persons == theirs.persons == ["Emily"]
    assert ours.included == set()  # METHODS §3 and the paper (§5.2): the last name is required
    assert theirs.included == {"e2"}


def test_the_authors_rule_knows_only_their_four_titles():
    # their titles are "mr." / "mrs." / "ms." / "sir", compared with alphabetic tokens only: "Mr" without its period
    # is alphabetic and not on the list, "Mr." is never looked at; summbias accepts any title of its list
    assert not authors_mention_aligns("Mr Walsh", ["Mr", "Walsh"], EMILY)
    assert authors_mention_aligns("Mr. Walsh", ["Mr.", "Walsh"], EMILY)
    assert not authors_mention_aligns("President Walsh", ["President", "Walsh"], EMILY)
    assert mention_aligns(name_tokens("Mr Walsh"), EMILY) and mention_aligns(name_tokens("President Walsh"), EMILY)


def test_unknown_rules_are_refused():
    with pytest.raises(ValueError, match="summbias, authors"):
        align_summaries([RACE_INPUT], ["x"], rules="paper")


# ------------------------------------------------------------------ word-list tokenisation (METHODS §4.1)

def test_nltk_keeps_hyphenated_identifiers_whole_where_spacy_splits_them():
    text = "Her father-in-law praised the male-dominated board. His father agreed."
    assert nltk_word_tokens([text])[0] == ["her", "father-in-law", "praised", "the", "male-dominated", "board", ".",
                                           "his", "father", "agreed", "."]
    spacy_tokens = tokenize_lower([text])[0]
    assert spacy_tokens.count("father") == 2 and "male" in spacy_tokens


def test_authors_word_lists_tokenise_inputs_with_nltk_and_summaries_with_spacy():
    item = make_input("i1", "Her father-in-law left. She stayed.", [], perturbation="gender-loc")
    pairs = [pair(item, "Her father-in-law left.")]
    ours = word_list_inclusion(pairs, n_resamples=20)[0].details
    theirs = word_list_inclusion(pairs, n_resamples=20, rules="authors")[0].details
    assert ours["input_counts"] == {"female": 2.0, "male": 1.0} and ours["summary_counts"] == {"female": 1.0,
                                                                                               "male": 1.0}
    # the authors count "father" in the summary (spaCy) but not in the input (NLTK): asymmetric
    assert theirs["input_counts"] == {"female": 2.0, "male": 0.0} and theirs["summary_counts"] == ours[
        "summary_counts"]


@pytest.mark.skipif(not PUNKT.is_file(), reason="needs ../shared/reference/nltk_data (validation data)")
def test_untrained_punkt_counts_identifiers_as_nltk_word_tokenize_with_its_trained_model():
    from nltk.tokenize import NLTKWordTokenizer

    with PUNKT.open("rb") as stream:
        trained = pickle.load(stream)  # validation data from ../shared/reference
    words = {word for group in GENDER_WORDS.values() for word in group}
    assert not words & set(trained._params.abbrev_types)
    assert not {first for first, _ in trained._params.collocations} & words
    texts = [json.loads(line)["text"] for line in (ROOT / "data" / "news_real" / "wikinews.jsonl").open()]
    tokenizer = NLTKWordTokenizer()
    for text, ours in zip(texts, nltk_word_tokens(texts), strict=True):
        reference = [t.lower() for s in trained.tokenize(text) for t in tokenizer.tokenize(s)]
        assert sorted(t for t in ours if t in words) == sorted(t for t in reference if t in words)


# ------------------------------------------------------------------ anonymiser and ties (METHODS §4.4; §3.4)

def test_the_authors_anonymiser_keeps_their_titles_and_substrings():
    entities = [Entity("e1", group="female", first_name="Al", last_name="Moore", original_first_name="Tom")]
    text = "Mr. Moore told Lady Moore and Tom that Al Moore saw her. Also HE left."
    assert anonymise_authors(text, entities) == \
        "M.. LAST_NAME told Lady LAST_NAME and Tom that FIRST_NAME LAST_NAME saw their. FIRST_NAMEso HE left."
    assert anonymise(text, ["Al", "Tom"], ["Moore"]) == \
        "LAST_NAME told LAST_NAME and FIRST_NAME that FIRST_NAME LAST_NAME saw them. Also They left."


def real_gap_of(gap):
    """Four summaries, two per group, all similarities 0.5 except the first group's pair at 0.5 + gap: the first
    group's summaries have u_i − ū_i = gap, the second group's tie exactly."""
    similarity = np.full((4, 4), 0.5)
    np.fill_diagonal(similarity, 0.0)
    similarity[0, 1] = similarity[1, 0] = 0.5 + gap
    return similarity


def test_a_real_gap_of_six_millionths_is_a_success_not_a_tie():
    # 6e-6 is a gap both implementations reproduce to 3e-8 on real news (issue 20); the batching noise of the dense
    # cosines is at most 3.5e-7 (benchmarks/steen_markert_side_by_side.py), the tolerance above it
    groups = ["f", "f", "m", "m"]
    assert article_distinguishability(real_gap_of(6e-6), groups, TIE_TOLERANCE["dense"]) == (0.5, 4)
    assert article_distinguishability(real_gap_of(6e-6), groups, 1e-5) == (0.0, 4)  # the former tolerance
    assert article_distinguishability(real_gap_of(2e-7), groups, TIE_TOLERANCE["dense"]) == (0.0, 4)  # noise
    assert article_distinguishability_authors(real_gap_of(6e-6), groups) == (0.5, 4)
    assert article_distinguishability_authors(real_gap_of(2e-7), groups) == (0.5, 4)  # exact: noise decides


def test_distinguishability_records_its_rules():
    items = [make_input(f"{arm}{i}", f"t{i}", [Entity("e1", group=arm, first_name="Linda", last_name="Moore")],
                        arm=arm, sample=i, perturbation="gender-glob") for arm in ("female", "male") for i in range(2)]
    pairs = [pair(item, f"Linda Moore said {'she' if item.arm == 'female' else 'he'} won.") for item in items]
    [ours] = distinguishability(pairs, similarity="count", n_resamples=20)
    [theirs] = distinguishability(pairs, similarity="count", n_resamples=20, rules="authors")
    assert ours.details["rules"] == "summbias" and theirs.details["rules"] == "authors"
    assert ours.details["tie_tolerance"] == TIE_TOLERANCE["count"] and theirs.details["tie_tolerance"] == 0.0
    assert ours.value == 0.0 and theirs.value == 0.0


# ------------------------------------------------------------------ the option (MeasureOptions, [measures], CLI)

def test_compute_measures_passes_the_rules_to_every_steen_markert_measure():
    items = [make_input(f"i{arm}", RACE_INPUT.text, [EBONY, EMILY], arm=arm) for arm in ("a", "b")]
    summaries = [Summary(item.id, "lead-3", "Ebony Washington met Emily Walsh.") for item in items]
    options = MeasureOptions(n_resamples=20, steen_markert_rules="authors")
    [result] = [r for r in compute_measures(items, summaries, ["entity_inclusion"], options) if r.ci_kind == "d"]
    assert result.details["rules"] == "authors"
    assert result.details["p"] == {"black": 0.0, "white": 1.0}
    [default] = [r for r in compute_measures(items, summaries, ["entity_inclusion"], MeasureOptions(n_resamples=20))
                 if r.ci_kind == "d"]
    assert default.details["p"] == {"black": 1.0, "white": 1.0}


def config(**measures):
    return {"corpus": {"path": "news.jsonl"}, "summarizers": [{"name": "lead-3"}],
            "measures": {"names": ["entity_inclusion"], **measures}}


def test_the_audit_config_reads_the_rules_and_keeps_the_default_out_of_the_hash():
    assert "steen_markert_rules" not in AuditConfig.from_dict(config()).to_dict()
    chosen = AuditConfig.from_dict(config(steen_markert_rules="authors"))
    assert chosen.to_dict()["steen_markert_rules"] == "authors"
    assert chosen.measure_options()["steen_markert_rules"] == "authors"
    assert AuditConfig.from_stored(chosen.to_dict()).steen_markert_rules == "authors"


def test_the_audit_config_refuses_unknown_rules_in_one_line():
    bad = AuditConfig.from_dict(config(steen_markert_rules="paper"))
    with pytest.raises(ConfigError) as error:
        bad._validate_measure_options()
    assert "measures.steen_markert_rules" in str(error.value) and "\n" not in str(error.value)


def test_the_measure_command_takes_the_rules(tmp_path):
    from bias_core.cli import main
    from bias_core.documents.record_files import write_jsonl

    items = [make_input(f"i{arm}", RACE_INPUT.text, [EBONY, EMILY], arm=arm) for arm in ("a", "b")]
    write_jsonl(tmp_path / "inputs.jsonl", items)
    write_jsonl(tmp_path / "summaries.jsonl", [Summary(i.id, "lead-3", "Ebony Washington met Emily Walsh.")
                                               for i in items])
    out = tmp_path / "m.json"
    args = ["measure", "--inputs", str(tmp_path / "inputs.jsonl"), "--summaries", str(tmp_path / "summaries.jsonl"),
            "--out", str(out), "--measure", "entity_inclusion", "--bootstrap", "20"]
    assert main(args + ["--steen-markert-rules", "authors"]) == 0
    [result, _] = json.loads(out.read_text())["results"]
    assert result["details"]["rules"] == "authors" and result["details"]["p"] == {"black": 0.0, "white": 1.0}
