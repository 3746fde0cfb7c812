"""Every input's substitution map has offsets into its own text and undoing it gives the original exactly
(INTERFACES.md "inputs.jsonl"; METHODS §0) — a property over real articles and generated text."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bias_core.common.records import Document
from bias_core.documents.record_files import read_inputs, write_jsonl
from bias_core.perturb import build_templates, get_perturbation
from tests.fixtures.perturb.corpus import news_templates

NAME_KINDS = ("gender-loc", "gender-glob", "race", "race-intersectional")
FIRST = ["James", "Mary", "Robert", "Linda", "Tyrone", "Latoya", "José", "Zoë", "Jean-Luc", "Ngozi", "Maple"]
LAST = ["Smith", "O'Brien", "Nguyen", "Smith-Jones", "McDonald", "Okafor", "Müller", "Young", "Trump", "Biden"]
TITLES = ["Mr.", "Mrs.", "Ms", "Miss", "Dr.", "Sir", "Dame", "Lady", "Lord", "President", "coach"]
PRONOUNS = ["he", "she", "him", "her", "his", "hers", "himself", "herself", "He", "She", "HER", "His", "Hers"]
WORDS = ["said", "the", "book", "was", "gave", "to", "chairman", "wife", "actress", "and", "in", "Virginia",
         "May", "won", "team", "'s", "—", "«quoted»", "😀", "東京", "\n\n", "  ", "Jr.", "III", ",", ".", "?", "\t"]


def _check(item, original: str) -> None:
    ordered = sorted(item.substitutions, key=lambda sub: sub.start)
    for before, after in zip(ordered, ordered[1:], strict=False):
        assert before.end <= after.start
    for sub in item.substitutions:
        assert item.text[sub.start:sub.end] == sub.replacement != sub.original
    assert item.original_text() == original


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    index=st.integers(min_value=0, max_value=10_000),
    kind=st.sampled_from(NAME_KINDS),
    seed=st.integers(min_value=0, max_value=2**31),
    content_words=st.booleans(),
    controls=st.booleans(),
)
def test_real_articles_round_trip_through_every_substitution_map(index, kind, seed, content_words, controls):
    templates = news_templates()
    template = templates[index % len(templates)]
    perturbation = get_perturbation(kind, samples=1, seed=seed, content_words=content_words, controls=controls)
    for item in perturbation.run_templates([template]).inputs:
        _check(item, template.text)


@settings(max_examples=25, deadline=None)
@given(index=st.integers(min_value=0, max_value=10_000), seed=st.integers(min_value=0, max_value=2**31))
def test_last_name_replacement_and_politician_swaps_round_trip(index, seed):
    templates = news_templates()
    template = templates[index % len(templates)]
    results = [get_perturbation("gender-loc", samples=1, seed=seed, replace_last_names=True).run_templates([template]),
               get_perturbation("politician").run_templates([template])]
    for result in results:
        for item in result.inputs:
            _check(item, template.text)


sentence = st.lists(
    st.one_of(
        st.builds("{} {}".format, st.sampled_from(FIRST), st.sampled_from(LAST)),
        st.builds("{} {}".format, st.sampled_from(TITLES), st.sampled_from(LAST + FIRST)),
        st.sampled_from(FIRST + LAST + PRONOUNS + WORDS),
        st.text(min_size=1, max_size=6),
    ),
    min_size=1,
    max_size=25,
).map(" ".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(sentence, min_size=1, max_size=4).map(". ".join), kind=st.sampled_from(NAME_KINDS),
       seed=st.integers(min_value=0, max_value=1000))
def test_generated_text_round_trips(text, kind, seed):
    [template] = build_templates([Document(id="generated", text=text)])
    assert template.text == text
    result = get_perturbation(kind, samples=1, seed=seed, controls=True, content_words=True).run_templates([template])
    for item in result.inputs:
        _check(item, text)


def test_substitution_maps_survive_writing_and_reading_inputs_jsonl(tmp_path):
    templates = news_templates()[:4]
    inputs = get_perturbation("gender-glob", samples=1, controls=True).run_templates(templates).inputs
    path = tmp_path / "inputs.jsonl"
    write_jsonl(path, inputs)
    again = read_inputs(path)
    assert [item.to_dict() for item in again] == [item.to_dict() for item in inputs]
    originals = {t.document_id: t.text for t in templates}
    for item in again:
        _check(item, originals[item.original_id])


def test_a_substitution_keeps_its_confidence_through_json_and_an_older_record_loads_without_one():
    from bias_core.common.records import Substitution

    sub = Substitution(0, 4, "Tora", "Mary", "first_name", "e1", entity_label="PERSON", evidence="first-name+surname",
                       swap_confidence="low", swap_confidence_reason="a rare first name ('Tora')")
    assert Substitution.from_dict(sub.to_dict()) == sub
    older = {key: value for key, value in sub.to_dict().items() if not key.startswith("swap_confidence")}
    loaded = Substitution.from_dict(older)
    assert loaded.swap_confidence is None and loaded.swap_confidence_reason is None and not loaded.extra
