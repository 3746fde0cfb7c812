"""Race perturbations with Black-/White-associated first and last names (METHODS §1.4; Steen & Markert §10, App. K):
BBQ's name vocabulary by default, the Rosenman tables frequency-matched as an option."""

from __future__ import annotations

import csv
import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest

from bias_core.perturb import Race, RaceIntersectional, get_perturbation
from bias_core.perturb.names import first_name_gender
from bias_core.perturb.race import (
    BBQ_NAMES_CSV,
    FREQUENCY_CALIPER,
    name_frequency,
    name_frequency_report,
    race_first_names,
    race_last_names,
    rosenman_pool,
)
from bias_core.perturb.rosenman import names_with_race
from bias_core.safety.errors import InputError
from tests.fixtures.perturb.corpus import news_templates, template

REFERENCE_BBQ = Path("/work/shared/reference/names/bbq_vocabulary_proper_names.csv")
# Largest difference in mean log10 census frequency between the Black and White names a rosenman run inserts: the
# lists are matched pair by pair within FREQUENCY_CALIPER (0.1), so only the random draws can move the means apart.
ROSENMAN_LOG_FREQUENCY_TOLERANCE = 0.15


@pytest.fixture(scope="module")
def race_result():
    return Race(samples=2, seed=3, controls=True, name_source="rosenman").run_templates(news_templates())


@pytest.fixture(scope="module")
def bbq_result():
    return Race(samples=2, seed=3).run_templates(news_templates())


def _bbq_rows() -> list[dict[str, str]]:
    with BBQ_NAMES_CSV.open(newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


def _inserted(result):
    """(input, entity, substitution) for every inserted first name or surname."""
    for item in result.inputs:
        entities = {e.entity_id: e for e in item.entities}
        for sub in item.substitutions:
            if sub.kind in ("first_name", "last_name"):
                yield item, entities[sub.entity_id], sub


def test_bbq_is_the_default_name_source():
    assert Race().config.name_source == "bbq"
    assert get_perturbation("race").run_info()["name_source"] == "bbq"


@pytest.mark.skipif(not REFERENCE_BBQ.is_file(), reason="the reference names are only on the project's machines")
def test_shipped_bbq_vocabulary_is_the_published_file():
    assert BBQ_NAMES_CSV.read_bytes() == REFERENCE_BBQ.read_bytes()


def test_every_race_swap_name_comes_from_bbq_for_its_race_and_gender(bbq_result):
    rows = _bbq_rows()
    first = {(r["ethnicity"].lower(), {"F": "female", "M": "male"}[r["gender"]]): set() for r in rows
             if r["First_last"] == "first"}
    for r in rows:
        if r["First_last"] == "first":
            first[r["ethnicity"].lower(), {"F": "female", "M": "male"}[r["gender"]]].add(r["Name"])
    last = {}
    for r in rows:
        if r["First_last"] == "last":
            last.setdefault(r["ethnicity"].lower(), set()).add(r["Name"])
    inserted = list(_inserted(bbq_result))
    assert len(inserted) > 100
    kinds = Counter()
    for item, entity, sub in inserted:
        if sub.kind == "first_name":
            assert sub.replacement in first[entity.group, entity.extra["gender"]], (item.id, sub.replacement)
        else:
            assert sub.replacement in last[entity.group], (item.id, sub.replacement)
        kinds[sub.kind, entity.group] += 1
    assert set(kinds) == {("first_name", "black"), ("first_name", "white"), ("last_name", "black"),
                          ("last_name", "white")}


def test_bbq_run_records_the_source_and_each_race_mean_name_frequency(bbq_result):
    info = bbq_result.run_info
    assert info["name_source"] == "bbq" and "Parrish" in info["name_source_citation"]
    assert info["frequency_matched"] is False
    frequencies = info["mean_name_frequency"]
    assert set(frequencies) == {"black", "white"} and all(set(v) == {"first", "last"} for v in frequencies.values())
    # BBQ's White first names are among the most common in the census, its Black ones rare: the record shows it.
    assert frequencies["white"]["first"] > 10 * frequencies["black"]["first"]
    assert info["names"]["first/black-female"][0] == "Ebony" and len(info["names"]["last/white"]) == 20
    json.dumps(info)  # stored with the run


def test_bbq_options_that_belong_to_rosenman_are_refused():
    with pytest.raises(ValueError, match="applies only to name_source = 'rosenman'"):
        Race(first_name_threshold=0.9)
    with pytest.raises(ValueError, match="name_source must be one of"):
        Race(name_source="census")


def test_the_strict_scope_draws_each_entity_gender_at_random():
    # Steen & Markert §10: gender is drawn per entity, not taken from the original text.
    strict = Race(samples=2, seed=3, agreement="names-pronouns-titles").run_templates(news_templates())
    genders = Counter(e.extra["gender"] for item in strict.inputs for e in item.entities)
    assert genders["male"] > 0 and genders["female"] > 0
    changed = sum(1 for item in strict.inputs for e in item.entities
                  if e.original_first_name and first_name_gender(e.original_first_name)
                  and first_name_gender(e.original_first_name) != e.extra["gender"])
    assert changed > 0


def test_the_coherent_default_keeps_the_gender_the_text_gives_and_draws_only_the_unknown(bbq_result):
    # Issue 27: a drawn gender leaves every pronoun the parse cannot tie to its person contradicting the new name.
    known = {(t.document_id, e.entity_id): e.gender for t in news_templates() for e in t.entities}
    kept = drawn = 0
    for item in bbq_result.inputs:
        for entity in item.entities:
            original = known[(item.original_id, entity.entity_id)]
            if original in ("male", "female"):
                assert entity.extra["gender"] == original, (item.id, entity.entity_id)
                kept += 1
            else:
                drawn += 1
    assert kept > 0
    assert Counter(e.extra["gender"] for item in bbq_result.inputs for e in item.entities)["female"] > 0


def test_rosenman_lists_are_frequency_matched_pair_by_pair():
    pool = rosenman_pool(0.8, 0.8, 50, 20)
    for gender in ("male", "female"):
        black, white = pool.first[_cell("black", gender)], pool.first[_cell("white", gender)]
        assert len(black) == len(white) >= 20
        for b, w in zip(black, white, strict=True):
            gap = abs(math.log10(name_frequency(b, gender)) - math.log10(name_frequency(w, gender)))
            assert gap <= FREQUENCY_CALIPER + 1e-9
    black, white = pool.last["black"], pool.last["white"]
    assert len(black) == len(white) >= 20
    for b, w in zip(black, white, strict=True):
        assert abs(math.log10(name_frequency(b, "last")) - math.log10(name_frequency(w, "last"))) <= 0.1 + 1e-9


def test_rosenman_arms_insert_names_of_the_same_mean_log_frequency(race_result):
    assert race_result.run_info["name_source"] == "rosenman" and race_result.run_info["frequency_matched"]
    realised = name_frequency_report(race_result.inputs)["mean_log10_name_frequency"]
    for part in ("first", "last"):
        gap = abs(realised["black"][part] - realised["white"][part])
        assert gap < ROSENMAN_LOG_FREQUENCY_TOLERANCE, (part, realised)
    pool = race_result.run_info["mean_log10_name_frequency"]
    for part in ("first", "last"):
        assert abs(pool["black"][part] - pool["white"][part]) < 0.01


def _cell(race, gender):
    from bias_core.perturb.assignment import Cell

    return Cell(race, gender)


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
    alvarez = next(e for e in item.entities if e.original_first_name == "Rebecca")
    assert alvarez.first_name not in (None, "Rebecca") and alvarez.last_name != "Alvarez"
    assert "Rebecca" not in item.text and "Alvarez" not in item.text
    assert item.original_text() == template("court_report").text


def test_a_surname_a_family_shares_stays_so_the_couple_keeps_one_name(race_result):
    # "Daniel Whitaker … Whitaker's wife, Linda Whitaker": each gets a new first name, the family keeps its surname
    # (issue 27: one person, one name; two different new surnames would split the couple).
    for item in (i for i in race_result.inputs if i.original_id == "court_report"):
        couple = [e for e in item.entities if e.original_first_name in ("Daniel", "Linda")]
        assert len(couple) == 2 and all(e.first_name not in ("Daniel", "Linda") for e in couple)
        assert {e.last_name for e in couple} == {"Whitaker"}
        assert "Whitaker's wife," in item.text or "Whitaker's husband," in item.text  # follows the drawn gender
        assert not re.search(r"\b(?:Daniel|Linda)\b", item.text)


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
    assert "Rosenman" in race_result.run_info["name_source_citation"]


@pytest.mark.parametrize("source", ["bbq", "rosenman"])
def test_intersectional_gives_the_four_race_gender_settings(source):
    result = RaceIntersectional(samples=1, name_source=source).run_templates([template("sports_match")])
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
        Race(name_source="rosenman", first_name_threshold=0.99,
             min_names_per_cell=20).run_templates([template("court_report")])


def test_cli_takes_the_name_source_and_writes_it_with_the_frequencies(tmp_path):
    from bias_core.cli import main
    from tests.fixtures.perturb.corpus import DEMO_NEWS

    out = tmp_path / "race.jsonl"
    assert main(["perturb", "--kind", "race", "--name-source", "rosenman", "--documents", str(DEMO_NEWS),
                 "--out", str(out), "--samples", "1"]) == 0
    record = json.loads((tmp_path / "race.jsonl.run.json").read_text())
    assert record["name_source"] == "rosenman" and record["config"]["name_source"] == "rosenman"
    assert set(record["mean_name_frequency"]) == {"black", "white"}


def test_audit_config_passes_the_name_source_to_the_race_perturbation():
    from bias_core.documents.corpus import load_documents
    from bias_core.runs.config import AuditConfig
    from bias_core.runs.pipeline import build_inputs
    from tests.fixtures.perturb.corpus import DEMO_NEWS

    config = AuditConfig.from_dict({"corpus": {"path": str(DEMO_NEWS)}, "summarizers": [{"name": "lead-3"}],
                                    "perturbations": [{"kind": "race", "samples": 1, "name_source": "rosenman"}]})
    _, reports = build_inputs(load_documents(DEMO_NEWS)[:3], config)
    info = reports["race"]["run_info"]
    assert info["name_source"] == "rosenman" and info["frequency_matched"] is True
    assert info["mean_log10_name_frequency"]["black"]["last"] is not None
