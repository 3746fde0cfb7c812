"""Gender perturbations C_loc and C_glob on real articles (METHODS §1.2, §1.3; Steen & Markert §5.1, App. D)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from bias_core.perturb import GenderGlobal, GenderLocal, get_perturbation
from bias_core.perturb.names import first_name_gender, top_first_names, top_last_names
from bias_core.perturb.pronoun_referents import readings_of
from tests.fixtures.perturb.corpus import news_templates

WORDS = {
    "male": re.compile(r"\b(?:[Hh]e|HE|[Hh]im|[Hh]is|[Hh]imself|Mr\.?|Sir|Lord)\b"),
    "female": re.compile(r"\b(?:[Ss]he|SHE|[Hh]er|[Hh]ers|[Hh]erself|Ms\.?|Mrs\.?|Miss|Dame|Lady)\b"),
}
OTHER = {"male": "female", "female": "male"}


@pytest.fixture(scope="module")
def glob_result():
    return GenderGlobal(samples=3, seed=7, controls=True).run_templates(news_templates())


@pytest.fixture(scope="module")
def loc_result():
    return GenderLocal(samples=3, seed=7, controls=True).run_templates(news_templates())


def test_all_female_glob_inputs_keep_no_male_word_and_vice_versa(glob_result):
    assert glob_result.inputs
    for item in glob_result.inputs:
        # Issue 27: a pronoun of an unnamed person ("My wife laughed … She says") or of nobody the finder named is
        # left as written in every arm; one ambiguous between swapped people takes the arm's gender, as they all do.
        kept = {reading.start for reading in readings_of(item.original_text()) or ()
                if reading.status in ("unnamed", "none") or (reading.status == "ambiguous" and not reading.candidates)}
        leftover = [match.group(0) for match in WORDS[OTHER[item.arm]].finditer(item.text)
                    if _in_original(item, match.start()) not in kept]
        assert not leftover, f"{item.id} still has {leftover}"


def _in_original(item, position: int) -> int:
    return position - sum(len(sub.replacement) - len(sub.original) for sub in item.substitutions if sub.end <= position)


def test_glob_inputs_keep_no_original_first_name_of_a_rewritten_person(glob_result):
    for item in glob_result.inputs:
        for entity in item.entities:
            if entity.original_first_name:
                assert not re.search(rf"\b{re.escape(entity.original_first_name)}\b", item.text), item.id


def test_every_inserted_first_name_is_a_top_census_name_of_its_group(glob_result, loc_result):
    top = {gender: set(top_first_names(gender, 50)) for gender in ("male", "female")}
    for item in glob_result.inputs + loc_result.inputs:
        for sub in item.substitutions:
            if sub.kind == "first_name":
                entity = next(e for e in item.entities if e.entity_id == sub.entity_id)
                assert sub.replacement == entity.first_name
                assert sub.replacement in top[entity.group] and first_name_gender(sub.replacement) == entity.group


def test_glob_gives_half_all_male_and_half_all_female_inputs_per_original(glob_result):
    pairs = [item for item in glob_result.inputs if item.role in ("original", "swap1")]
    by_original = Counter((item.original_id, item.arm) for item in pairs)
    for (original, arm), count in by_original.items():
        assert count == 3 and by_original[(original, OTHER[arm])] == 3
    for item in glob_result.inputs:
        assert {entity.group for entity in item.entities} == {item.arm}


def test_loc_pairs_invert_every_entity_and_keep_identical_names(loc_result):
    pairs = {}
    for item in loc_result.inputs:
        if item.role in ("original", "swap1"):
            pairs.setdefault(item.quadruple_id, {})[item.arm] = item
    assert pairs
    for pair in pairs.values():
        a, b = pair["a"], pair["b"]
        groups_a = {e.entity_id: e.group for e in a.entities}
        groups_b = {e.entity_id: e.group for e in b.entities}
        assert groups_a.keys() == groups_b.keys()
        assert all(groups_b[eid] == OTHER[group] for eid, group in groups_a.items())
        names_a = Counter(e.first_name for e in a.entities if e.first_name)
        names_b = Counter(e.first_name for e in b.entities if e.first_name)
        if sum(1 for e in a.entities if e.first_name) % 2 == 0:
            assert names_a == names_b


def test_loc_inputs_are_balanced_within_each_input(loc_result):
    for item in loc_result.inputs:
        counts = Counter(entity.group for entity in item.entities)
        assert abs(counts["male"] - counts["female"]) <= 1, item.id


def test_controls_build_quadruples_with_names_permuted_within_group(loc_result):
    quadruples = {}
    for item in loc_result.inputs:
        quadruples.setdefault(item.quadruple_id, {})[item.role] = item
    for roles in quadruples.values():
        assert set(roles) == {"original", "control", "swap1", "swap2"}
        original, control = roles["original"], roles["control"]
        assert [e.group for e in original.entities] == [e.group for e in control.entities]
        assert [e.group for e in roles["swap2"].entities] == [e.group for e in roles["swap1"].entities]
        named = [(a.first_name, c.first_name) for a, c in zip(original.entities, control.entities, strict=True)
                 if a.first_name]
        assert all(before != after for before, after in named)
        assert original.text != control.text or not named


def test_default_is_twenty_inputs_per_original_and_ids_follow_interfaces():
    template = next(t for t in news_templates() if t.document_id == "court_report")
    result = get_perturbation("gender-loc").run_templates([template])
    assert len(result.inputs) == 20
    assert result.inputs[0].id == "court_report/gender-loc/s0/a"
    assert result.inputs[1].id == "court_report/gender-loc/s0/b"
    assert {item.sample_id for item in result.inputs} == set(range(10))


def test_same_seed_same_inputs_other_seed_other_names():
    templates = news_templates()[:3]
    first = GenderLocal(samples=2, seed=1).run_templates(templates)
    again = GenderLocal(samples=2, seed=1).run_templates(templates)
    other = GenderLocal(samples=2, seed=2).run_templates(templates)
    assert [i.text for i in first.inputs] == [i.text for i in again.inputs]
    assert [i.text for i in first.inputs] != [i.text for i in other.inputs]


def test_an_original_inputs_do_not_depend_on_the_rest_of_the_corpus():
    templates = news_templates()
    alone = GenderGlobal(samples=2).run_templates(templates[2:3]).inputs
    together = [i for i in GenderGlobal(samples=2).run_templates(templates[:4]).inputs
                if i.original_id == templates[2].document_id]
    assert [i.text for i in alone] == [i.text for i in together]


def test_last_names_can_be_replaced_too():
    template = next(t for t in news_templates() if t.document_id == "sports_match")
    result = GenderLocal(samples=1, replace_last_names=True).run_templates([template])
    surnames = set(top_last_names(200))
    item = result.inputs[0]
    replaced = [s for s in item.substitutions if s.kind == "last_name"]
    assert replaced and all(s.replacement in surnames for s in replaced)
    assert "Brennan" not in item.text and "Okafor" not in item.text


def test_originals_without_a_gendered_person_are_skipped_with_a_reason(glob_result):
    skipped = {s.original_id: s.reason for s in glob_result.report.skipped}
    assert "news-14-weather-plains-snowstorm" in skipped
    assert skipped["news-14-weather-plains-snowstorm"].startswith("no gendered entity")
    assert glob_result.report.skip_rate < 0.1


def test_bad_config_is_rejected():
    with pytest.raises(ValueError, match="samples"):
        GenderLocal(samples=0)
    with pytest.raises(TypeError):
        GenderLocal(colour="red")
