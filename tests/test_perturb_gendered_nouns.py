"""Gendered nouns tied to a swapped person (issue 27, Deliver 1) and the scope setting ``agreement`` (Deliver 7):
each construction on small sentences parsed by the real spaCy model, the nouns left alone, the word table as data,
and the setting in the config, the command line, the run record and the review."""

from __future__ import annotations

import csv
import json

import pytest

from bias_core.cli import main
from bias_core.common.records import Document
from bias_core.documents.corpus import load_documents
from bias_core.documents.record_files import read_inputs
from bias_core.perturb import GenderConfig, build_templates, get_perturbation
from bias_core.perturb.lexicon import (
    CONTENT_WORD_GENDER,
    CONTENT_WORD_KIND,
    CONTENT_WORD_SWAP,
    GENDERED_WORDS_PATH,
    TABLE_18_PAIRS,
)
from bias_core.perturb.review import review_inputs
from bias_core.runs.config import AuditConfig, ConfigError, CorpusSpec, StageSpec
from bias_core.runs.pipeline import build_inputs
from tests.conftest import REPO

STRICT = "names-pronouns-titles"
# One original per construction, each with the gendered noun the parse should tie (or leave) and its person.
TIED = {
    "compound": ("Eight-year-old schoolgirl Charlotte Baker won the spelling prize on Friday.", "schoolgirl",
                 "Charlotte Baker"),
    "apposition": ("Henrik Lund, the son of a physicist, studied law in Oslo.", "son", "Henrik Lund"),
    "fronted": ("The son of a physicist, Mr. Lund studied law in Oslo. He said it was hard.", "son", "Lund"),
    "amod-appos": ("A British man, Robert Okafor, was arrested in Leeds on Monday.", "man", "Robert Okafor"),
    "relative": ("A man who lost his job last year, John Smith, said the plant closed.", "man", "John Smith"),
    "copula": ("Karen Lund is a mother of two, and she works nights.", "mother", "Karen Lund"),
    "naming": ("A woman known as Jane Cole told Channel Ten she is sure the car was stolen.", "woman", "Jane Cole"),
    "coordinated-appos": ("Robert Okafor and James Sims, both men in their sixties, said no.", "men", "Robert Okafor"),
    "both-continued": ("Robert Okafor and James Sims met in May. Both men said the plan failed.", "men",
                       "Robert Okafor"),
    "continued": ("Rep. Dale Hughes spoke on Monday. The congressman said he would vote no.", "congressman",
                  "Dale Hughes"),
    "repeated": (("Ahmed Mohamed, a 14-year-old boy from Irving, was arrested. Police questioned the student. "
                  "Images of the boy spread quickly."), "boy", "Ahmed Mohamed"),
    # a predicate chain: the parser hangs each conjunct from the one before it
    "predicate-chain": ("Jenna Mourey is an American YouTube personality, vlogger, comedian and actress.", "actress",
                        "Jenna Mourey"),
    # a biography's bracketed aside between the name and its verb, where the parser finds the subject inside it
    "bracketed-aside": (("Jeanne Moreau (French pronunciation: [ʒan mɔʁo]; 23 January 1928 – 31 July 2017) was a "
                        "French actress, singer and director."), "actress", "Jeanne Moreau"),
    # a noun coordinated across an aside: the parser hangs it from a word inside the brackets
    "across-an-aside": (("Daniel Bernoulli was a son of Johann Bernoulli (one of the early developers of calculus) "
                         "and a nephew of Jacob Bernoulli. He studied medicine in Basel."), "nephew", "Daniel Bernoulli"),
    # a relative clause's predicate noun describes the relative pronoun's antecedent
    "relative-predicate": ("Texas placed Sam Houston, a former soldier who had been a congressman, in charge.",
                           "congressman", "Sam Houston"),
    # a gendered modifier of a predicate noun the parser coordinated with the verb
    "modifier-of-predicate": (("Mary Higuchi wrote stories. She was one of the first important writers to appear in "
                              "the Meiji period (1868 - 1912) and Japan's first prominent woman writer of modern "
                              "times."), "woman", "Mary Higuchi"),
}
UNTIED = {
    "unnamed": ("A spokesman for Acme said the plan failed. John Smith disagreed.", "spokesman"),
    "possessive": ("John Smith's wife also works there, Smith said.", "wife"),
    "relation-continued": ("Mary Smith died on Monday. The mother said she was devastated.", "mother"),
    "two-candidates": ("Rep. Dale Hughes met Rep. Tom Berg on Monday. The congressman said he would vote no.",
                       "congressman"),
    "comma-after-clause": ("After meeting the king, John Smith said he was pleased.", "king"),
    "other-gender": ("Jane Doe, the chairman of Acme, said she was pleased.", "chairman"),
    "plural-of-one": ("Robert Okafor met reporters in May. The men said the plan failed.", "men"),
}


@pytest.fixture(scope="module")
def templates():
    texts = {key: value[0] for key, value in {**TIED, **UNTIED}.items()}
    built = build_templates([Document(id=key, text=text) for key, text in texts.items()], n_process=1)
    return {template.document_id: template for template in built}


def _tied_words(template) -> dict[str, str]:
    """Each content-word slot's word → the label of the person it belongs to."""
    labels = {entity.entity_id: entity.label for entity in template.entities}
    return {slot.text.lower(): labels[slot.entity_id] for slot in template.slots if slot.kind == "content_word" and slot.entity_id is not None}


@pytest.mark.parametrize("construction", sorted(TIED))
def test_a_gendered_noun_the_parse_ties_to_a_person_belongs_to_that_person(templates, construction):
    _, word, person = TIED[construction]
    assert _tied_words(templates[construction]).get(word) == person


@pytest.mark.parametrize("construction", sorted(UNTIED))
def test_a_noun_for_someone_unnamed_else_or_ambiguous_belongs_to_nobody(templates, construction):
    _, word = UNTIED[construction]
    assert word not in _tied_words(templates[construction])


def _arms(text: str, **params) -> dict[str, str]:
    result = get_perturbation("gender-glob", samples=1, seed=0, **params).run([Document(id="d", text=text)])
    return {item.arm: item.text for item in result.inputs}


def test_coherent_scope_rewrites_the_tied_nouns_and_the_strict_scope_leaves_them():
    text = TIED["fronted"][0]
    coherent, strict = _arms(text), _arms(text, agreement=STRICT)
    assert coherent["female"].startswith("The daughter of a physicist, Ms. Lund studied law")
    assert strict["female"].startswith("The son of a physicist, Ms. Lund studied law")
    assert coherent["male"] == strict["male"] == text
    both = _arms(TIED["both-continued"][0])["female"]
    assert "Both women said" in both
    assert _arms(TIED["both-continued"][0], agreement=STRICT)["female"].endswith("Both men said the plan failed.")


def test_unnamed_and_possessed_nouns_stay_under_gender_loc_and_the_strict_scope():
    for construction in ("unnamed", "possessive"):
        text, word = UNTIED[construction]
        result = get_perturbation("gender-loc", samples=2, seed=0).run([Document(id="d", text=text)])
        assert result.inputs and all(word in item.text for item in result.inputs)
        assert all(word in arm for arm in _arms(text, agreement=STRICT).values())


def test_the_old_content_words_switch_turns_the_nouns_on_under_the_strict_scope():
    arms = _arms(TIED["compound"][0], agreement=STRICT, content_words=True)
    assert arms["male"].startswith("Eight-year-old schoolboy ")


def test_the_word_table_is_data_with_a_source_on_every_row_and_pairs_both_ways_unless_marked():
    with GENDERED_WORDS_PATH.open(encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert rows and all(row["female"] and row["male"] and row["source"] for row in rows)
    assert {row["kind"] for row in rows} == {"relation", "person", "marked"}
    assert {"summbias authors"} < {row["source"] for row in rows}
    assert any("HELM" in row["source"] for row in rows)
    for female, male in TABLE_18_PAIRS:  # Steen & Markert's Table 18 is part of it
        assert CONTENT_WORD_SWAP[female] == male and CONTENT_WORD_SWAP[male] == female
    marked = {row["male"] for row in rows if row["kind"] == "marked"}
    for word, other in CONTENT_WORD_SWAP.items():
        if other in marked:  # a marked female word maps to a neutral one, which is not read as male
            assert CONTENT_WORD_GENDER[word] == "female" and other not in CONTENT_WORD_GENDER
        else:
            assert CONTENT_WORD_GENDER[word] != CONTENT_WORD_GENDER[other]
    for neutral in ("lover", "master", "mistress", "host", "hero", "guy"):  # excluded: a neutral reading
        assert neutral not in CONTENT_WORD_GENDER
    assert CONTENT_WORD_KIND["son"] == "relation" and CONTENT_WORD_KIND["congressman"] == "person"


def test_agreement_is_validated_with_a_clear_message():
    assert GenderConfig().agreement == "coherent"
    with pytest.raises(ValueError, match="agreement = 'strict' must be one of coherent, names-pronouns-titles"):
        GenderConfig(agreement="strict")
    config = AuditConfig(corpus=CorpusSpec("x"), summarizers=[StageSpec("lead-3")],
                         perturbations=[StageSpec("gender-glob", {"agreement": "loose"})])
    with pytest.raises(ConfigError, match="perturbation 'gender-glob': agreement = 'loose' must be one of"):
        config.validate()


def test_the_run_records_the_scope_and_the_review_says_the_nouns_agree():
    documents = [Document(id="d", text=TIED["apposition"][0] + " He said so.")]
    for agreement, swapped in (("coherent", True), (STRICT, False)):
        config = AuditConfig(corpus=CorpusSpec("x"), summarizers=[StageSpec("lead-3")],
                             perturbations=[StageSpec("identity"), StageSpec("gender-glob", {
                                 "samples": 1, "agreement": agreement})])
        inputs, reports = build_inputs(documents, config)
        assert reports["gender-glob"]["run_info"]["config"]["agreement"] == agreement
        assert review_inputs(inputs, reports).get("gender-glob").content_words is swapped


def test_the_command_line_takes_the_scope_for_name_swaps_and_refuses_it_elsewhere(tmp_path, capsys):
    documents = tmp_path / "docs.jsonl"
    documents.write_text(json.dumps({"id": "d", "text": TIED["fronted"][0]}) + "\n", encoding="utf-8")
    out = tmp_path / "inputs.jsonl"
    assert main(["perturb", "--kind", "gender-glob", "--documents", str(documents), "--out", str(out),
                 "--samples", "1", "--agreement", STRICT, "--quiet"]) == 0
    assert json.loads((tmp_path / "inputs.jsonl.run.json").read_text())["config"]["agreement"] == STRICT
    assert {item.arm: item.text for item in read_inputs(out)}["female"].startswith("The son of a physicist, Ms.")
    # Race draws each person's gender too (Steen & Markert §10), so it takes the same scope (issue 27).
    assert main(["perturb", "--kind", "race", "--documents", str(documents), "--out", str(out),
                 "--agreement", STRICT, "--quiet"]) == 0
    assert json.loads((tmp_path / "inputs.jsonl.run.json").read_text())["config"]["agreement"] == STRICT
    assert main(["perturb", "--kind", "identity", "--documents", str(documents), "--out", str(out),
                 "--agreement", "coherent", "--quiet"]) != 0
    assert "--agreement does not apply to --kind identity" in capsys.readouterr().err


def test_real_articles_rewrite_tied_nouns_to_each_arms_gender():
    wanted = {"wikinews-clock", "wikinews-messina", "wikinews-flag", "wikinews-imprisoned"}
    documents = [d for d in load_documents(REPO / "data" / "news_real" / "wikinews.jsonl") if d.id in wanted]
    result = get_perturbation("gender-glob", samples=1, seed=0).run(documents)
    rewritten = [(item.arm, sub) for item in result.inputs for sub in item.substitutions if sub.kind == "content_word"]
    assert len(rewritten) >= 4
    assert all(CONTENT_WORD_GENDER[sub.replacement.lower()] == arm for arm, sub in rewritten)
    clock = next(item.text for item in result.inputs if item.original_id == "wikinews-clock" and item.arm == "female")
    assert ", a 14-year-old girl from Irving" in clock and "Images of the girl" in clock
