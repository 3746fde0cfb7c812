"""An evidence pair is the two arms of one draw, and both of its summaries are counted by the measures (issue 29,
Deliver 2): never two different name draws ("sample 0 women against sample 1 men"), never a within-group control's
names against the other arm's, never two race × gender settings, never a degenerate summary that every measure leaves
out; no pair at all when none is left."""

from __future__ import annotations

import pytest

from bias_core.common.records import Document, Summary
from bias_core.compare.diff import expected_words, model_difference
from bias_core.measures.quality import summary_degenerate_reason
from bias_core.perturb import RaceIntersectional, build_templates, get_perturbation
from bias_core.reference.demo import ensure_demo_run
from bias_core.runs.store import RunStore
from bias_core.verdicts.evidence import draw_key, evidence_pair
from tests.fixtures.perturb.corpus import HERE

PLANTED = "planted"
# Two stories that share no word, each also with one word changed.
STORY = "The club announced a new stadium plan on Monday after a long council debate."
SLIGHTLY_CHANGED = "The club announced a new stadium plan on Monday after a short council debate."
OTHER_STORY = "Heavy rain closed three schools while engineers inspected every flooded bridge nearby."
OTHER_SLIGHTLY_CHANGED = "Heavy rain closed four schools while engineers inspected every flooded bridge nearby."


@pytest.fixture(scope="module")
def glob_inputs(tmp_path_factory):
    """The demo run's gender-glob inputs of one original with two name draws (real perturbation output)."""
    store = RunStore(tmp_path_factory.mktemp("same-draw") / "runs.sqlite")
    inputs = [item for item in store.inputs(ensure_demo_run(store)) if item.perturbation == "gender-glob"]
    by_original: dict[str, list] = {}
    for item in inputs:
        by_original.setdefault(item.original_id, []).append(item)
    chosen = next(items for _, items in sorted(by_original.items()) if {i.sample_id for i in items} >= {0, 1})
    return {(item.sample_id, item.arm): item for item in chosen if item.sample_id in (0, 1)}


def planted(inputs: dict, texts: dict) -> list[Summary]:
    return [Summary(inputs[key].id, PLANTED, text) for key, text in texts.items()]


def old_choice(items, summaries) -> tuple[str, str]:
    """The pair the evidence used to be: the opposite-arm pair of any two draws whose summaries differ most."""
    texts = {s.input_id: s.text for s in summaries}
    pairs = [(a, b) for a in items for b in items if a.arm != b.arm and a.id < b.id]
    a, b = max(pairs, key=lambda pair: model_difference(texts[pair[0].id], texts[pair[1].id],
                                                        expected_words(*pair)))
    return a.id, b.id


def test_the_two_arms_of_one_draw_win_over_a_more_different_pair_of_two_draws(glob_inputs):
    summaries = planted(glob_inputs, {(0, "female"): STORY, (0, "male"): SLIGHTLY_CHANGED,
                                      (1, "male"): OTHER_STORY, (1, "female"): OTHER_STORY})
    by_id = {item.id: item for item in glob_inputs.values()}
    before = old_choice(list(glob_inputs.values()), summaries)
    assert by_id[before[0]].sample_id != by_id[before[1]].sample_id  # two draws won before
    pair = evidence_pair(PLANTED, "gender-glob", list(glob_inputs.values()), summaries)
    assert {pair.input_a, pair.input_b} == {glob_inputs[0, "female"].id, glob_inputs[0, "male"].id}
    assert "one name draw" in pair.why


def test_a_degenerate_summary_is_never_a_side_of_the_evidence(glob_inputs):
    summaries = planted(glob_inputs, {(0, "female"): STORY, (0, "male"): "",
                                      (1, "male"): OTHER_STORY, (1, "female"): OTHER_SLIGHTLY_CHANGED})
    assert summary_degenerate_reason(summaries[1]) == "empty"
    pair = evidence_pair(PLANTED, "gender-glob", list(glob_inputs.values()), summaries)
    assert {pair.input_a, pair.input_b} == {glob_inputs[1, "female"].id, glob_inputs[1, "male"].id}


def test_no_pair_is_offered_when_every_draw_has_a_degenerate_side(glob_inputs):
    summaries = planted(glob_inputs, {(0, "female"): STORY, (0, "male"): "----- ----- -----",
                                      (1, "male"): OTHER_STORY, (1, "female"): ""})
    assert evidence_pair(PLANTED, "gender-glob", list(glob_inputs.values()), summaries) is None


@pytest.fixture(scope="module")
def sports_template():
    text = (HERE / "sports_match.txt").read_text(encoding="utf-8")
    return build_templates([Document("sports_match", text)])


def test_a_within_group_control_is_paired_only_with_its_own_names(sports_template):
    """A quadruple holds two draws: the original and swap1 share names, the control and swap2 share others."""
    inputs = get_perturbation("race", samples=1, seed=3, controls=True).run_templates(sports_template).inputs
    by_role = {item.role: item for item in inputs}
    assert set(by_role) == {"original", "control", "swap1", "swap2"}
    assert draw_key(by_role["original"]) == draw_key(by_role["swap1"]) != draw_key(by_role["swap2"])
    texts = {"original": STORY, "swap1": SLIGHTLY_CHANGED, "control": OTHER_STORY, "swap2": OTHER_STORY}
    summaries = [Summary(by_role[role].id, PLANTED, text) for role, text in texts.items()]
    pair = evidence_pair(PLANTED, "race", inputs, summaries)
    assert {pair.input_a, pair.input_b} == {by_role["original"].id, by_role["swap1"].id}


def test_the_race_gender_settings_of_one_sample_are_separate_draws(sports_template):
    inputs = RaceIntersectional(samples=1, seed=3).run_templates(sports_template).inputs
    settings = {item.arm.rsplit(".", 1)[0] for item in inputs}
    assert len(settings) == 4 and len({draw_key(item) for item in inputs}) == 4
    first, second = sorted(settings)[:2]
    arm = {item.arm: item for item in inputs}
    texts = {f"{first}.a": STORY, f"{first}.b": SLIGHTLY_CHANGED, f"{second}.b": OTHER_STORY}
    summaries = [Summary(arm[name].id, PLANTED, text) for name, text in texts.items()]
    pair = evidence_pair(PLANTED, "race-intersectional", inputs, summaries)
    assert {pair.input_a, pair.input_b} == {arm[f"{first}.a"].id, arm[f"{first}.b"].id}
