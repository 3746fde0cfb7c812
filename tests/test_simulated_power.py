"""The effect an audit could have detected, by simulation of the rule that decides (issue 28, Deliver 4;
``bias_core.verdicts.simulated_power``)."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.power import TTestPower

from bias_core.common import stats
from bias_core.common.records import MeasureResult
from bias_core.verdicts.judge import judge
from bias_core.verdicts.simulated_power import detectable_effect, detection_rate


def normal_values(n: int, seed: int = 1) -> np.ndarray:
    values = np.random.default_rng(seed).normal(0.0, 1.0, n)
    return (values - values.mean()) / values.std(ddof=1)  # sd exactly 1: the effect reads in standard deviations


@pytest.mark.parametrize("n", [10, 40, 150])
def test_one_test_on_normal_values_matches_the_noncentral_t_power_of_statsmodels(n):
    simulated = detectable_effect(normal_values(n), "two-sided")
    analytic = TTestPower().solve_power(nobs=n, alpha=0.05, power=0.8, alternative="two-sided")
    assert simulated == pytest.approx(analytic, rel=0.08)


def test_holm_over_a_family_of_fourteen_asks_for_a_larger_effect_than_one_test():
    values = normal_values(40)
    alone = detectable_effect(values, "two-sided")
    among = detectable_effect(values, "two-sided", other_p_values=[0.5] * 13)
    analytic = TTestPower().solve_power(nobs=40, alpha=0.05 / 14, power=0.8, alternative="two-sided")
    assert among == pytest.approx(analytic, rel=0.08) and among > 1.25 * alone
    # before a run the other tests are drawn without an effect: nearly always none of them is rejected
    assert detectable_effect(values, "two-sided", family_size=14) == pytest.approx(among, rel=0.05)


def test_a_family_with_a_finding_relaxes_holm_for_the_rest():
    values = normal_values(40)
    strict = detectable_effect(values, "two-sided", other_p_values=[0.5] * 13)
    relaxed = detectable_effect(values, "two-sided", other_p_values=[1e-9] * 13)
    assert relaxed < strict


def test_the_effect_it_states_is_found_four_times_in_five_and_half_of_it_rarely():
    values = np.random.default_rng(3).exponential(1.0, 30)  # skewed, as shares of a few names are
    effect = detectable_effect(values, "greater", other_p_values=[0.3, 0.8])
    assert detection_rate(values, "greater", effect, other_p_values=[0.3, 0.8]) >= 0.8
    assert detection_rate(values, "greater", effect / 2, other_p_values=[0.3, 0.8]) < 0.5


def test_values_without_spread_have_no_detectable_effect():
    assert detectable_effect([0.0, 0.0, 0.0], "two-sided") is None
    assert detectable_effect([0.4], "greater") is None


def test_a_no_evidence_verdict_states_the_simulated_effect_and_a_finding_none():
    rng = np.random.default_rng(5)
    noise, shifted = rng.normal(0, 0.1, 30), rng.normal(0.3, 0.1, 30)

    def result(values, measure):
        test = {"sided": "two-sided", "null": "0", "floor": "paired", **stats.t_test_fields(values)}
        return MeasureResult(measure, 0.0, len(values), "gender-loc", "m", test["ci_low"], test["ci_high"], "d",
                             details={"test": test, "groups": ["female", "male"]})

    silent, found = result(noise, "word_list_inclusion_adjusted"), result(shifted, "entity_hallucination")
    family = [silent, found]
    quiet, loud = judge(silent, family), judge(found, family)
    assert quiet.status == "no evidence of bias" and quiet.mde_method == "simulated"
    expected = detectable_effect(noise, "two-sided", other_p_values=[loud.p_value])
    assert quiet.mde == pytest.approx(expected)
    assert loud.status == "finding" and loud.mde is None


def test_the_simulated_holm_and_benjamini_hochberg_steps_agree_with_statsmodels(monkeypatch):
    import gc

    from statsmodels.stats.multitest import multipletests

    # multipletests calls gc.collect() on every call: seconds each in a test worker's large heap
    monkeypatch.setattr(gc, "collect", lambda *args: 0)

    from bias_core.measures.fightin_words_power import bh_rejects_planted
    from bias_core.verdicts.simulated_power import holm_rejects

    rng = np.random.default_rng(0)
    for _ in range(300):
        others = np.sort(rng.random(rng.integers(1, 20)) ** rng.uniform(1, 6))
        planted = rng.random() ** rng.uniform(1, 8)
        family = np.append(others, planted)
        assert holm_rejects(np.array([planted]), others[None, :], 0.05)[0] == multipletests(family, 0.05, "holm")[0][-1]
        assert bh_rejects_planted(np.array([planted]), others)[0] == multipletests(family, 0.05, "fdr_bh")[0][-1]


def test_fightin_words_states_the_odds_a_word_needs_and_a_word_planted_at_them_is_found():
    from bias_core.measures import fightin_words as fw

    rng = np.random.default_rng(2)
    vocabulary = [f"w{i}" for i in range(300)]

    def text(extra=""):
        return " ".join(rng.choice(vocabulary, 80, p=np.arange(300, 0, -1) / np.arange(300, 0, -1).sum())) + extra

    blind = fw.arm_fightin_words({str(o): [text()] for o in range(40)}, {str(o): [text()] for o in range(40)},
                                 n_permutations=300)
    test = blind.settings["test"]
    odds, count = test["detectable_log_odds"], test["typical_word_count"]
    assert odds is not None and 0 < odds < 16 and count > 0 and test["p_one_more_word"] < 0.05
    # a word used that often, planted at 1.5 times those log-odds, is significant; at a third of them it is not
    def plant(log_odds):
        in_b = max(1, round(count / (1 + np.exp(log_odds))))
        in_a = count - in_b

        def spread(total, o):  # the word's uses spread over the 40 originals
            return " nurse" * (total // 40 + (o < total % 40))

        found = fw.arm_fightin_words({str(o): [text(spread(in_a, o))] for o in range(40)},
                                     {str(o): [text(spread(in_b, o))] for o in range(40)}, n_permutations=300)
        return any(term.term == "nurse" and term.significant_bh for term in found.terms)

    assert plant(1.5 * odds) and not plant(odds / 3)


def test_politician_features_state_a_standardised_change_that_grows_with_their_correction():
    from bias_core.verdicts.significance import _count_test_detectable

    few = _count_test_detectable({"n": 30, "tests": 2}, [0.5, 0.7])
    many = _count_test_detectable({"n": 30, "tests": 60}, [0.5, 0.7])
    analytic = TTestPower().solve_power(nobs=30, alpha=0.05 / 2 / 3, power=0.8, alternative="two-sided")
    assert few == pytest.approx(analytic, rel=0.1) and many > few


def test_the_planning_table_and_the_verdict_say_the_same_of_an_audit_too_small_for_any_effect():
    """A bounded measure (hallucination: a share − ½, at most ½) on a few widely spread originals: not even the
    largest possible effect is found four times in five. The verdict after the run and the planning table before it
    read the simulation back through one conversion and say so in the same words' sense (issue 28: every screen tells
    the same story)."""
    from bias_core.verdicts.power import NOTHING_DETECTABLE, planning_table
    from bias_core.verdicts.sentences import detectable_text

    values = [0.5, -0.5, 0.5, -0.5]
    test = {"sided": "two-sided", "null": "0", "floor": "paired", **stats.t_test_fields(values, largest=0.5)}
    few = MeasureResult("entity_hallucination", 0.0, len(values), "gender-loc", "m", test["ci_low"], test["ci_high"],
                        "d", details={"test": test, "groups": ["female", "male"]})
    verdict = judge(few, [few])
    assert verdict.status == "no evidence of bias" and verdict.mde == np.inf
    assert detectable_text(few, verdict).startswith("too few articles")
    [row] = planning_table(len(values), [few])
    assert row.mde == np.inf and row.detects == NOTHING_DETECTABLE
    # with many originals of the same spread the same measure detects a finite effect within its bound
    [wide] = planning_table(400, [few])
    assert 0 < wide.mde < 0.5
