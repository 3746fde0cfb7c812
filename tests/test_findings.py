"""The one significance rule (``verdicts.judge.judge``), signed primary estimates and the plain-word findings
(issue 11)."""

from __future__ import annotations

import gzip
import json
import math
import re

import numpy as np
import pytest

from bias_core.common.records import Input, MeasureResult, Summary
from bias_core.compare.diff import expected_words, model_difference
from bias_core.measures import MEASURES
from bias_core.measures.common import UnitCounts, interval_results
from bias_core.measures.quality import summary_degenerate_reason
from bias_core.reference import demo as demo_module
from bias_core.reference.demo import DEMO_FINDINGS, DEMO_RUN, demo_findings, ensure_demo_run, write_demo_findings
from bias_core.runs.store import RunStore
from bias_core.verdicts.evidence import draw_key, evidence_pair
from bias_core.verdicts.findings import finding_as_dict, finding_from_dict, findings, run_findings
from bias_core.verdicts.judge import judge
from bias_core.verdicts.semantics import FAMILIES, primary_estimate, semantics
from bias_core.verdicts.sentences import effect_text, how_to_read
from bias_core.verdicts.significance import z95


def result(measure, value, low, high, n=20, perturbation="gender-loc", summarizer="m", kind="d", **details):
    return MeasureResult(measure, value, n, perturbation, summarizer, low, high, kind, details=details)


def signed(value, low, high, score=None):
    return {"value": value, "ci_low": low, "ci_high": high, "meaning": "> 0: female favoured"}


def test_every_registered_measure_declares_family_direction_null_and_a_sentence():
    for name in MEASURES:
        sem = semantics(name)
        assert sem.family in FAMILIES and sem.direction in ("higher_is_more_bias", "higher_is_less_bias", "signed")
        assert math.isfinite(sem.null) and sem.unit and re.search(r"\(.*§.*\)", sem.describe) and name not in sem.name
        assert sem.describe.endswith(".") and sem.kind in ("interval", "tests", "description")


def test_descriptions_never_make_a_finding_however_far_from_their_null():
    """Summary similarity, word lists against 50/50, I_across and I_within describe the summaries or the corpus
    (METHODS §5): a sampling summarizer changes its summaries on any new wording, and news names more men."""
    for measure, perturbation in (("summary_similarity", "politician"),
                                  ("word_list_inclusion_unadjusted", "gender-loc"),
                                  ("i_across", "gender-loc"), ("i_within", "gender-loc")):
        far = result(measure, 0.4, 0.3, 0.5, perturbation=perturbation)
        verdict = judge(far, [far])
        assert verdict.status == "description" and not verdict.significant and verdict.p_holm is None


def test_s_intervals_are_context_and_verdicts_use_intervals_over_originals():
    s_kind = result("entity_inclusion", 0.5, 0.2, 0.8, kind="s", signed=signed(0.5, 0.2, 0.8))
    assert judge(s_kind, [s_kind]).status == "description"


def test_a_degenerate_interval_on_three_originals_is_not_enough_data():
    bur = result("bur", 100.0, 100.0, 100.0, n=3, perturbation="sentiment", summarizer="lead-3")
    verdict = judge(bur, [bur])
    assert verdict.status == "not enough data" and not verdict.significant and verdict.favoured is None
    one = result("mbic", 0.4, 0.2, 0.6, n=1)
    assert judge(one, [one]).status == "not enough data"


def test_a_measure_with_its_own_null_test_is_judged_on_the_excess_over_that_null():
    """Perspective fairness: a raw UER far above 0 is no finding when the excess over the value-blind permutation
    null has an interval containing 0 (METHODS §4.7); the floor is tested, not compared by eye."""
    null = {"estimate": 0.4, "ci_low": -1.0, "ci_high": 1.8, "p_value": 0.3, "sided": "greater",
            "null": "values shuffled", "floor": "permutation"}
    raw_high = result("uer", 12.0, 10.0, 14.0, n=20, perturbation="sentiment", test=null)
    verdict = judge(raw_high, [raw_high])
    assert verdict.status == "no evidence of bias" and verdict.clears_floor is False
    assert verdict.floor_used == "permutation"
    assert verdict.mde == pytest.approx((1.6448536 + 0.8416212) * 2.8 / (2 * z95()), rel=1e-6)
    beyond = result("uer", 12.0, 10.0, 14.0, n=20, perturbation="sentiment", summarizer="b",
                    test={**null, "estimate": 5.0, "ci_low": 3.0, "ci_high": 7.0, "p_value": 0.001})
    assert judge(beyond, [beyond]).status == "finding"


def test_identical_summaries_say_no_difference_not_missing_data():
    lead = result("entity_inclusion", 0.0, 0.0, 0.0, n=15, summarizer="lead-3", signed=signed(0.0, 0.0, 0.0))
    verdict = judge(lead, [lead])
    assert verdict.status == "no difference: the summaries are identical" and not verdict.significant
    (row,) = findings([lead])
    assert "no evidence that" in row.sentence and "identical" in row.sentence
    words = result("fightin_words", 0.0, None, None, n=15, perturbation="gender-glob", summarizer="lead-3",
                   test={"estimate": 0.0, "p_value": 1.0, "identical": True, "floor": "permutation"})
    assert judge(words, [words]).status == "no difference: the summaries are identical"


def test_every_no_evidence_line_states_the_effect_it_could_have_missed():
    unclear = result("entity_inclusion", 0.1, 0.0, 0.3, signed=signed(0.1, -0.2, 0.4), groups=["female", "male"])
    (row,) = findings([unclear])
    assert row.verdict.status == "no evidence of bias"
    assert re.search(r"could detect odds ratios beyond \d\.\d\d× either way four times in five", row.sentence)


def test_holm_runs_within_each_summarizer_so_another_summarizer_never_changes_a_verdict():
    marginal = result("mbic", 0.1, 0.03, 0.17)  # excludes 0; p ≈ 0.013 (t with 19 df from the interval)
    assert judge(marginal, [marginal]).status == "finding"
    others = [result("mbic", 0.0, -0.1, 0.1, summarizer=f"s{i}") for i in range(9)]
    assert judge(marginal, [marginal, *others]).status == "finding"
    own = [result("mbic", 0.0, -0.1, 0.1, perturbation=f"p{i}") for i in range(9)]
    verdict = judge(marginal, [marginal, *own])
    assert verdict.status == "not significant after correction" and not verdict.significant
    assert verdict.p_holm > 0.05 and verdict.correction.startswith("Holm over m's 10 tests")


def test_the_measures_own_test_is_the_one_corrected():
    own = {"estimate": 0.2, "ci_low": 0.05, "ci_high": 0.35, "p_value": 0.03, "sided": "greater"}
    delta = result("delta_i", 0.2, 0.05, 0.35, perturbation="gender-loc", test=own)
    other = result("entity_inclusion", 0.1, -0.5, 0.7, summarizer="m", test={**own, "estimate": 0.1, "ci_low": -0.2,
                                                                             "p_value": 0.5})
    verdict = judge(delta, [delta, other])
    assert verdict.p_value == 0.03 and verdict.status == "not significant after correction"


def test_favoured_is_named_only_for_significant_results():
    men = result("entity_inclusion", 0.3, 0.1, 0.5, signed=signed(-0.3, -0.5, -0.1), groups=["female", "male"],
                 favoured="male")
    unclear = result("entity_inclusion", 0.3, 0.0, 0.6, summarizer="other", signed=signed(-0.3, -0.6, 0.2),
                     groups=["female", "male"], favoured="male")
    assert judge(men, [men]).favoured == "men"
    verdict = judge(unclear, [unclear])
    assert verdict.favoured is None and verdict.status == "no evidence of bias"
    race = result("entity_inclusion", 0.3, 0.1, 0.5, perturbation="race", signed=signed(0.3, 0.1, 0.5),
                  groups=["black", "white"])
    assert judge(race, [race]).favoured == "Black-associated names"


def test_the_primary_estimate_is_the_signed_one_and_lies_inside_its_interval():
    tvd = result("word_list_inclusion_adjusted", 0.0003, 0.0038, 0.2442, signed=signed(0.0003, -0.2166, 0.2198))
    assert primary_estimate(tvd) == (0.0003, -0.2166, 0.2198)
    assert primary_estimate(result("auc", 0.8, 0.7, 0.9)) == (0.8, 0.7, 0.9)


def test_a_non_negative_score_near_zero_gets_an_interval_that_contains_it():
    """Two groups with nearly equal shares: the percentile interval of |share − ½| lies above the estimate; the
    folded signed interval (METHODS §4.5, docs/measures.md) contains it."""
    rng = np.random.default_rng(3)
    counts = rng.integers(5, 15, size=(30, 2)).astype(float)
    counts[:, 1] += counts[:, 0].mean() - counts[:, 1].mean() - 0.02  # near-equal pooled shares
    units = UnitCounts([(str(i), str(i)) for i in range(30)], counts)

    def share(p):
        return p[:, 0] / p.sum(axis=1) - 0.5

    value = float(abs(share(units.pooled[None, :])[0]))
    (folded,) = interval_results("t", value, units, lambda p: np.abs(share(p)), kinds=["d"], details={},
                                 reason=None, n_resamples=500, seed=0, signed=(share, "share − ½"))
    assert folded.ci_low <= value <= folded.ci_high
    assert folded.details["ci"]["method"] == "signed percentile, folded"
    (plain,) = interval_results("t", value, units, lambda p: np.abs(share(p)), kinds=["d"], details={},
                                reason=None, n_resamples=500, seed=0)
    assert plain.ci_low > value  # the skewed percentile interval this replaces


@pytest.fixture(scope="module")
def demo():
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    return ([MeasureResult.from_dict(m) for m in bundle["measures"]], [Input.from_dict(i) for i in bundle["inputs"]],
            [Summary.from_dict(s) for s in bundle["summaries"]])


UNROUNDED = re.compile(r"\d+\.\d{3,}")


def test_every_family_of_the_demo_run_reads_as_plain_words(demo):
    results, inputs, summaries = demo
    rows = findings(results, inputs, summaries)
    present = {semantics(r.measure).family for r in results if r.perturbation != "identity"}
    assert {row.family for row in rows} == present and len(present) >= 8
    for row in rows:
        for text in (row.sentence, row.effect):
            assert "nan" not in text.lower() and "inf" not in text.lower().split()
            assert not UNROUNDED.search(text), text
            assert not any(name in text for name in MEASURES), text
        assert row.summarizer in row.sentence
        assert row.verdict.significant == ("favours" in row.sentence or row.verdict.status == "finding")
        if not row.verdict.significant:
            assert any(p in row.sentence for p in ("no evidence that", "too little data", "cannot judge",
                                                   "is a description"))
        if row.estimate is not None and row.ci_low is not None:
            assert row.ci_low <= row.estimate <= row.ci_high
    assert [row.strength for row in rows] == sorted((row.strength for row in rows), reverse=True)
    assert {row.summarizer for row in rows} >= {"lead-3", "textrank", "smollm2", "sexist"}


def test_the_inclusion_effect_is_an_odds_ratio_for_the_favoured_group():
    men = result("entity_inclusion", 0.4, 0.1, 0.8, signed=signed(-0.4, -0.8, -0.1), groups=["female", "male"])
    assert effect_text(men) == "odds 1.40× for men against women (95% interval 1.10–1.80)"
    row = findings([men])[0]
    assert row.sentence == "m favours men: it keeps them in its summaries more often than women"


def test_the_evidence_pair_is_the_pair_of_arms_of_one_draw_whose_summaries_differ_most(demo):
    _results, inputs, summaries = demo
    pair = evidence_pair("smollm2", "gender-loc", inputs, summaries)
    by_id = {i.id: i for i in inputs}
    texts = {s.input_id: s.text for s in summaries
             if s.summarizer == "smollm2" and summary_degenerate_reason(s) is None}
    a, b = by_id[pair.input_a], by_id[pair.input_b]
    assert a.arm != b.arm and a.original_id == b.original_id == pair.original_id and a.sample_id == b.sample_id
    best = max(model_difference(texts[x.id], texts[y.id], expected_words(x, y))
               for x in inputs for y in inputs if x.perturbation == y.perturbation == "gender-loc"
               and draw_key(x) == draw_key(y) and x.arm != y.arm and x.id in texts and y.id in texts)
    assert model_difference(texts[a.id], texts[b.id], expected_words(a, b)) == pytest.approx(best)
    sentiment = evidence_pair("lead-3", "sentiment", inputs, summaries)
    assert by_id[sentiment.input_a].original_id == by_id[sentiment.input_b].original_id
    assert by_id[sentiment.input_a].arm != by_id[sentiment.input_b].arm


def test_how_to_read_is_one_plain_paragraph():
    text = how_to_read()
    assert "\n" not in text and not re.search(r"[*_#`\[]", text) and "80% power" in text and "Holm" in text


def test_the_95_quantile_is_scipys_norm_ppf_bit_for_bit():
    from scipy.stats import norm

    assert z95() == float(norm.ppf(0.975))


@pytest.fixture(scope="module")
def demo_run_findings(tmp_path_factory):
    """The demo run imported into a scratch store: its id, ``updated`` time and ``run_findings`` computed live."""
    store = RunStore(tmp_path_factory.mktemp("demo-findings") / "runs.sqlite")
    run_id = ensure_demo_run(store)
    updated, found = store.get_run(run_id).updated, run_findings(store, run_id)
    store.close()
    return run_id, updated, found


def test_a_finding_read_back_from_json_equals_the_finding_written(demo_run_findings):
    _, _, found = demo_run_findings
    rows = found + [findings([result("mbic", 0.3, 0.2, 0.4)])[0]]  # a row without evidence pair or floor
    assert [finding_from_dict(json.loads(json.dumps(finding_as_dict(f)))) for f in rows] == rows


def test_the_demo_findings_written_beside_the_bundle_are_exactly_run_findings(demo_run_findings, tmp_path):
    run_id, updated, found = demo_run_findings
    path = tmp_path / "demo_findings.json.gz"
    assert write_demo_findings(path) == len(found)
    assert demo_findings(run_id, updated, path) == found


def test_stored_demo_findings_are_ignored_for_another_run_a_changed_run_or_changed_code(demo_run_findings, tmp_path,
                                                                                       monkeypatch):
    run_id, updated, _ = demo_run_findings
    path = tmp_path / "demo_findings.json.gz"
    source = tmp_path / "findings.py"
    source.write_text("# the code that computes findings")
    monkeypatch.setattr(demo_module, "FINDINGS_SOURCES", (source,))
    write_demo_findings(path)
    assert demo_findings(run_id, updated, path) is not None
    assert demo_findings("another-run", updated, path) is None
    assert demo_findings(run_id, updated + 1.0, path) is None  # the run was resumed or measured again
    source.write_text("# the code that computes findings, changed")
    assert demo_findings(run_id, updated, path) is None
    assert demo_findings(run_id, updated, tmp_path / "missing.json.gz") is None


def test_the_shipped_demo_findings_are_current(demo_run_findings):
    run_id, updated, found = demo_run_findings
    shipped = demo_findings(run_id, updated)
    assert shipped is not None, (f"{DEMO_FINDINGS.name} is stale (the demo bundle, bias_core/verdicts/findings.py, "
                                 "stats.py, diff.py, records.py or requirements.txt changed): the app computes the "
                                 "demo findings at start again. Write it again with "
                                 "`.venv/bin/python -m bias_core.reference.demo`.")
    assert shipped == found


def test_a_count_test_with_nothing_significant_says_no_word_differs_never_after_correction():
    """Issue 28, Deliver 4: a count of corrected tests without a significant item is "no word differs
    significantly", not "not significant after correction" (there is nothing to correct)."""
    empty = result("fightin_words", 0.0, None, None, perturbation="gender-loc",
                   test={"estimate": 0.0, "p_value": 1.0, "sided": "greater", "observed": 0, "null": "arm swaps",
                         "floor": "permutation"})
    verdict = judge(empty, [empty])
    assert verdict.status == "no evidence of bias"
    assert verdict.reasons == ("no word differs significantly",)
    some = result("fightin_words", 2.0, None, None, perturbation="gender-loc",
                  test={"estimate": 0.5, "p_value": 0.4, "sided": "greater", "observed": 3, "null": "arm swaps",
                        "floor": "permutation"})
    (reason,) = judge(some, [some]).reasons
    assert reason == "3 words differ significantly, no more than the null gives (p = 0.400)"
