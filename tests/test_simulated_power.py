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
