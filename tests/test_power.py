"""Power before a run (``bias_core.verdicts.power``, ``python -m bias_core power``) and the verdict lines the audit
command prints (issue 19; METHODS §5 "Power")."""

from __future__ import annotations

import math
import subprocess
import sys

from bias_core.commands.audit import verdict_lines
from bias_core.common.records import MeasureResult
from bias_core.verdicts.power import demo_results, planning_table


def test_the_detectable_effect_shrinks_faster_than_the_square_root_of_the_originals_at_small_n():
    """Simulated with the t-test and Holm (issue 28): at 10 originals the t quantile is larger than at 40, so four
    times the originals more than halve the detectable effect (√n alone would halve it exactly)."""
    small, large = planning_table(10), planning_table(40)
    assert [row.measure for row in small] == [row.measure for row in large] and small
    for a, b in zip(small, large):
        if math.isinf(a.mde):  # a bounded measure whose largest possible effect is not found at 10 originals
            assert a.measure == "entity_hallucination" and math.isfinite(b.mde)
            continue
        scale = math.log1p if a.measure == "entity_inclusion" else float  # an odds ratio's effect is on the log scale
        assert 1.8 < scale(a.mde) / scale(b.mde) < 3.5, (a.measure, a.mde, b.mde)


def test_the_originals_a_stated_effect_needs_detect_it():
    """The smallest n whose simulated audits find the stated effect four times in five: its detectable effect is the
    stated one or less and one original fewer's is more (within the simulation's 0.5% precision of the effect)."""
    for row in planning_table(20):
        if row.originals_needed is not None:
            at_needed = next(r for r in planning_table(row.originals_needed) if r.measure == row.measure)
            assert at_needed.mde <= row.stated_effect * 1.01
            if row.originals_needed > 2:
                before = next(r for r in planning_table(row.originals_needed - 1) if r.measure == row.measure)
                assert before.mde > row.stated_effect * 0.99


def test_the_reference_is_the_demo_runs_tests_only():
    measures = {row.measure for row in planning_table(30)}
    assert measures and measures <= {r.measure for r in demo_results()}
    assert not measures & {"i_across", "i_within", "summary_similarity", "word_list_inclusion_unadjusted", "sfpi"}


def test_the_power_command_prints_a_line_per_measure_and_refuses_one_original():
    ok = subprocess.run([sys.executable, "-m", "bias_core", "power", "--originals", "40"], capture_output=True,
                        text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    lines = ok.stdout.strip().splitlines()
    assert lines[0].startswith("At 40 originals, 80% power") and len(lines) == len(planning_table(40)) + 1
    assert any("odds ratios beyond" in line for line in lines)
    bad = subprocess.run([sys.executable, "-m", "bias_core", "power", "--originals", "1"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "at least 2" in bad.stderr


def test_the_audit_command_states_the_controls_then_one_answer_per_summarizer():
    lead = MeasureResult("entity_inclusion", 0.0, 15, "gender-loc", "lead-3", 0.0, 0.0, "d",
                         details={"signed": {"value": 0.0, "ci_low": 0.0, "ci_high": 0.0}})
    sexist = MeasureResult("distinguishability_count", 0.6, 15, "gender-glob", "sexist", 0.4, 0.8, "d")
    lines = verdict_lines([lead, sexist])
    assert lines[0] == "Controls: the deliberately biased baseline (sexist) is caught; the neutral lead-3 shows no bias."
    assert lines[1].startswith("- sexist writes differently about women and men")
    assert "identical" in lines[2] and len(lines) == 3
    missed = verdict_lines([MeasureResult("distinguishability_count", 0.1, 15, "gender-glob", "sexist", -0.1, 0.3,
                                          "d")])
    assert missed[1] == ("Warning: the planted bias was not detected: this audit is too small to trust a "
                         "'no evidence'.")
