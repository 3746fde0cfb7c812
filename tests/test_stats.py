"""Statistics (METHODS §4.5, §5): resampling helpers, intervals, paired tests, effect sizes, corrections."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from bias_core.common import stats


def test_cluster_weights_draw_each_resample_with_replacement():
    weights = stats.cluster_weights(5, 300, np.random.default_rng(0))
    assert weights.shape == (300, 5)
    assert np.all(weights.sum(axis=1) == 5)


def test_stratified_weights_keep_every_stratum_size():
    strata = np.array([2, 0, 2, 1, 2, 0])
    weights = stats.stratified_weights(strata, 200, np.random.default_rng(1))
    for stratum in (0, 1, 2):
        members = strata == stratum
        assert np.all(weights[:, members].sum(axis=1) == members.sum())


def test_pooled_bootstrap_s_enumerates_within_original_resamples():
    # original A has units (1, 2) and (3, 4); original B has (5, 6). Resampling within A gives pooled ratios
    # (1+1+5)/(2+2+6) = .7, (1+3+5)/(2+4+6) = .75, (3+3+5)/(4+4+6) = 11/14 only.
    counts = np.array([[1, 2], [3, 4], [5, 6]])
    interval, distribution = stats.pooled_bootstrap(counts, ["A", "A", "B"], lambda p: p[:, 0] / p[:, 1],
                                                    kind="s", n_resamples=500, seed=3)
    assert set(np.round(distribution, 6)) <= {0.7, 0.75, round(11 / 14, 6)}
    assert interval.kind == "s" and interval.low == pytest.approx(0.7)


def test_pooled_bootstrap_d_keeps_all_units_of_an_original_together():
    counts = np.array([[1, 2], [3, 4], [5, 6]])
    _, distribution = stats.pooled_bootstrap(counts, ["A", "A", "B"], lambda p: p[:, 0] / p[:, 1],
                                             kind="d", n_resamples=500, seed=3)
    # clusters A = (4, 6), B = (5, 6): resamples AA = 8/12, AB = 9/12, BB = 10/12
    assert set(np.round(distribution, 6)) <= {round(8 / 12, 6), 0.75, round(10 / 12, 6)}


def test_percentile_interval_reports_undefined_resamples_and_handles_infinity():
    low, high, undefined = stats.percentile_interval(np.array([1.0, 2.0, np.nan, np.inf]))
    assert undefined == 1 and low == 1.0 and math.isinf(high)


def test_bootstrap_ci_of_constant_values_is_degenerate_and_says_so():
    interval = stats.bootstrap_ci([0.0] * 8)
    assert (interval.low, interval.high) == (0.0, 0.0)
    assert "all 8 values are equal" in interval.note


def test_bca_falls_back_to_percentile_when_it_degenerates():
    interval = stats.bootstrap_ci([0] * 15 + [1, 2, 3], statistic=np.median, method="BCa")
    assert interval.method == "percentile" and "BCa degenerated" in interval.note


def test_effect_size_dz_by_hand():
    # differences 1, 2, 3: mean 2, sd 1 -> d_z = 2
    assert stats.effect_size_dz([1, 2, 3]) == pytest.approx(2.0)
    assert math.isnan(stats.effect_size_dz([0, 0, 0]))
    assert stats.effect_size_dz([2, 2]) == math.inf


def test_paired_test_reports_t_p_dz_and_unchanged_count():
    treated, control = [1, 2, 3, 4], [1, 1, 2, 2]
    result = stats.paired_test(treated, control)
    # differences 0, 1, 1, 2: mean 1, sd sqrt(2/3); t = 1 / (sd / 2) = 2.449
    assert result.statistic == pytest.approx(2.449489743)
    assert result.p_value == pytest.approx(0.0917211, abs=1e-6)
    assert result.d_z == pytest.approx(1 / math.sqrt(2 / 3))
    assert result.unchanged == "1 of 4 unchanged"
    assert result.mean_difference == 1.0


def test_paired_test_with_every_pair_unchanged_is_undefined():
    result = stats.paired_test([1, 2, 3], [1, 2, 3])
    assert math.isnan(result.p_value) and "unchanged" in result.note
    assert stats.arrow(result.p_value, result.mean_difference) == "—"


def test_arrows_follow_zhou_and_tan_table_2():
    assert stats.arrow(1e-21, 0.1) == "↑↑↑↑"
    assert stats.arrow(0.0005, -0.1) == "↓↓↓"
    assert stats.arrow(0.005, 0.1) == "↑↑"
    assert stats.arrow(0.04, -0.1) == "↓"
    assert stats.arrow(0.05, 0.1) == "—"


def test_holm_and_bh_match_statsmodels_and_skip_undefined_p_values():
    p = [0.01, 0.04, math.nan, 0.03]
    holm = stats.adjust_pvalues(p, "holm")
    expected = multipletests([0.01, 0.04, 0.03], method="holm")[1]
    assert holm.adjusted[0] == pytest.approx(expected[0]) and math.isnan(holm.adjusted[2])
    assert holm.label == "Holm over 3 tests"
    bh = stats.adjust_pvalues(p, "fdr_bh")
    assert bh.adjusted[1] == pytest.approx(0.04) and bh.label.startswith("Benjamini-Hochberg")
    with pytest.raises(ValueError):
        stats.adjust_pvalues(p, "hs")


def test_our_holm_gives_statsmodels_adjusted_p_values_and_rejections_on_many_families(monkeypatch):
    import gc

    # statsmodels' Holm calls gc.collect() on every call: about 0.8 s each in a test worker that holds spaCy and
    # torch, 170 s for these 200 families. Collecting changes nothing it returns.
    monkeypatch.setattr(gc, "collect", lambda *args: 0)
    rng = np.random.default_rng(3)
    for size in (1, 2, 5, 17, 60):
        for _ in range(40):
            p = rng.uniform(0, 0.2, size) ** rng.uniform(0.5, 3)
            p[rng.random(size) < 0.2] = p[0]  # ties
            reject, adjusted, _, _ = multipletests(p, alpha=0.05, method="holm")
            ours = stats.adjust_pvalues(list(p), "holm")
            assert ours.adjusted == pytest.approx(list(adjusted), rel=1e-12, abs=1e-15)
            assert ours.reject == [bool(x) for x in reject]


def test_json_ready_turns_nan_and_numpy_into_plain_json():
    assert stats.json_ready({"a": np.float64("nan"), "b": [np.int64(2), np.inf], "c": np.bool_(True)}) == \
        {"a": None, "b": [2, None], "c": True}


def test_a_permutation_p_counts_the_observed_assignment_and_reads_both_tails_when_asked():
    null = np.array([0.0, 1.0, 2.0, 3.0])
    assert stats.permutation_p(3.0, null) == 2 / 5  # the null's own 3.0 counts
    assert stats.permutation_p(3.0 + 1e-14, null) == 2 / 5  # equal up to float noise counts too
    assert stats.permutation_p(-2.0, null, sided="two-sided") == 1 / 5  # mean 1.5: |−3.5| beyond every |x − 1.5|
    assert math.isnan(stats.permutation_p(math.nan, null)) and math.isnan(stats.permutation_p(1.0, np.zeros(0)))
