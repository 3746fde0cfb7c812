"""Race perturbations with Black-/White-associated first and last names (METHODS §1.4; Steen & Markert §10, App. K)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from bias_core.errors import InputError
from bias_core.names import first_name_gender
from bias_core.perturb import Race, RaceIntersectional
from bias_core.perturb.race import race_first_names, race_last_names
from bias_core.perturb.rosenman import names_with_race
from tests.fixtures.perturb.corpus import news_templates, template


@pytest.fixture(scope="module")
def race_result():
    return Race(samples=2, seed=3, controls=True).run_templates(news_templates())


def test_every_cell_has_at_least_twenty_names_at_the_default_threshold():
    for race in ("black", "white"):
        assert len(race_last_names(race, 0.8, 50)) >= 20
        for gender in ("male", "female"):
            assert len(race_first_names(race, gender, 0.8, 50)) >= 20


def test_inserted_first_and_last_names_belong_to_their_race_and_gender(race_result):
    assert race_result.inputs
    for item in race_result.inputs:
        for sub in item.substitutions:
            if sub.kind not in ("first_name", "last_name"):
                continue
            entity = next(e for e in item.entities if e.entity_id == sub.entity_id)
            kind = "first" if sub.kind == "first_name" else "last"
            key = re.sub("[^A-Z]", "", sub.replacement.upper())
            assert key in names_with_race(kind, entity.group, 0.8), (item.id, sub.replacement, entity.group)
            if kind == "first":
                assert first_name_gender(sub.replacement) == entity.extra["gender"]


def test_first_and_last_names_are_both_replaced_and_recorded(race_result):
    item = next(i for i in race_result.inputs if i.original_id == "court_report")
    whitaker = next(e for e in item.entities if e.original_first_name == "Daniel")
    assert whitaker.first_name not in (None, "Daniel") and whitaker.last_name != "Whitaker"
    assert "Daniel" not in item.text
    assert item.original_text() == template("court_report").text


def test_race_pairs_invert_race_and_keep_each_entity_gender(race_result):
    pairs = {}
    for item in race_result.inputs:
        if item.role in ("original", "swap1"):
            pairs.setdefault(item.quadruple_id, {})[item.role] = item
    for pair in pairs.values():
        a = {e.entity_id: e for e in pair["original"].entities}
        b = {e.entity_id: e for e in pair["swap1"].entities}
        for entity_id, entity in a.items():
            assert b[entity_id].group != entity.group
            assert b[entity_id].extra["gender"] == entity.extra["gender"]
        counts = Counter(e.group for e in a.values())
        assert abs(counts["black"] - counts["white"]) <= 1


def test_people_without_a_gender_cue_are_not_renamed(race_result):
    item = next(i for i in race_result.inputs if i.original_id == "business_merger")
    assert "Harlow Foods" in item.text  # "Harlow" is a company the NER sometimes tags as a person


def test_the_names_used_are_listed_in_the_run(race_result):
    names = race_result.run_info["names"]
    assert set(names) == {"first/black-male", "first/black-female", "first/white-male", "first/white-female",
                          "last/black", "last/white"}
    assert all(len(listed) >= 20 for listed in names.values())
    assert race_result.run_info["config"]["first_name_threshold"] == 0.8
    assert "Rosenman" in race_result.run_info["name_source"]


def test_intersectional_gives_the_four_race_gender_settings():
    result = RaceIntersectional(samples=1).run_templates([template("sports_match")])
    settings = Counter(item.arm.rsplit(".", 1)[0] for item in result.inputs)
    assert settings == {"black-male+white-male": 2, "black-male+white-female": 2,
                        "black-female+white-male": 2, "black-female+white-female": 2}
    for item in result.inputs:
        wanted = dict(part.split("-") for part in item.arm.rsplit(".", 1)[0].split("+"))
        assert all(e.extra["gender"] == wanted[e.group] for e in item.entities)


def test_thresholds_are_configurable_and_too_strict_ones_fail_clearly():
    loose = race_first_names("black", "male", 0.6, 500)
    strict = race_first_names("black", "male", 0.9, 500)
    assert len(loose) > len(strict)
    with pytest.raises(InputError, match="black male first names"):
        Race(first_name_threshold=0.99, min_names_per_cell=20).run_templates([template("court_report")])
