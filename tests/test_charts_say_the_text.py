"""Charts say what the text says (issue 29, Why 5): the axis names the groups in the sentences' order, each point
sits on the side of the group its sentence favours and reads the sentence's number, the dotted line is where the
family intro says no bias sits, Metrics opens on the family with the most significant finding, and the Runs
leaderboard never shows None, nan or undefined."""

from __future__ import annotations

import re

import pytest

from bias_core.common.records import MeasureResult
from bias_core.common.words import minus_signs
from bias_core.measures import MEASURE_NAMES
from bias_core.verdicts.findings import findings
from bias_core.verdicts.judge import judge
from bias_core.verdicts.semantics import FAMILIES, group_words, semantics
from bias_core.verdicts.sentences import effect_text
from bias_core.views.charts import chart_data, measure_figure, measure_svg, ratio_ticks
from bias_core.views.families import family_intro, opening_family
from bias_core.views.leaderboard import MISSING, leaderboard
from bias_core.views.scales import NO_BIAS, no_bias
from bias_core.views.text_checks import reading_defects


def result(measure, value, low, high, *, groups=("female", "male"), perturbation="gender-loc", summarizer="m",
           n=30, signed=True, **details):
    """A result whose primary estimate is (value, low, high): the signed version where the measure has one."""
    if not signed:
        return MeasureResult(measure, value, n, perturbation, summarizer, low, high, "d",
                             details={"groups": list(groups), **details})
    details["signed"] = {"value": value, "ci_low": low, "ci_high": high}
    folded = sorted((abs(low), abs(high)))
    return MeasureResult(measure, abs(value), n, perturbation, summarizer, *folded, "d",
                         details={"groups": list(groups), **details})


# Every measure whose number has a group direction, with the groups its sentences name.
DIRECTED = [
    ("entity_inclusion", ("female", "male")),
    ("entity_inclusion", ("black", "white")),
    ("acc_diff", ("black", "white")),
    ("word_list_inclusion_adjusted", ("female", "male")),
    ("entity_hallucination", ("female", "male")),
]


@pytest.mark.parametrize(("measure", "groups"), DIRECTED)
@pytest.mark.parametrize("sign", [1, -1])
def test_the_point_sits_on_the_side_of_the_group_its_sentence_favours_and_the_axis_names_both(measure, groups,
                                                                                               sign):
    finding = result(measure, sign * 0.4, *sorted((sign * 0.3, sign * 0.5)), groups=groups,
                     signed=measure != "acc_diff")
    verdict = judge(finding, [finding])
    assert verdict.significant
    data = chart_data([finding], measure)
    (row,) = data.rows
    first, second = (group_words(g) for g in groups)
    assert first in data.axis and second in data.axis
    # the sentences' order: the side above no bias is the first group's, below it the second's
    assert data.axis.index(f"| {first}") > data.axis.index(f"← {second}")
    assert row.favours == verdict.favoured == (first if sign > 0 else second)
    assert (row.value > data.null) == (sign > 0)
    assert row.effect == effect_text(finding, verdict)
    figure = measure_figure([finding], measure)
    assert first in figure.layout.xaxis.title.text and second in figure.layout.xaxis.title.text
    assert row.effect in figure.data[0].customdata[0][1]


@pytest.mark.parametrize("sign", [1, -1])
def test_an_odds_ratio_point_reads_the_number_and_the_group_of_its_sentence(sign):
    finding = result("entity_inclusion", sign * 0.24, *sorted((sign * 0.1, sign * 0.4)))
    verdict = judge(finding, [finding])
    (row,) = chart_data([finding], "entity_inclusion").rows
    number, favoured = re.match(r"odds (\d\.\d\d)× for (\w+) against", effect_text(finding, verdict)).groups()
    # left of 1 the chart reads the ratio the other way round, as the sentence states it: 1/0.81 = 1.24× for men
    assert f"{max(row.value, 1 / row.value):.2f}" == number and row.favours == favoured
    ticks, labels = ratio_ticks(row.low, row.high)
    assert labels[ticks.index(1.0)] == "1"
    assert all(label == f"{max(t, 1 / t):g}×" for t, label in zip(ticks, labels) if t != 1.0)


def test_percentage_points_are_charted_in_percentage_points_as_the_sentence_states_them():
    finding = result("word_list_inclusion_adjusted", -0.113, -0.24, -0.05)
    verdict = judge(finding, [finding])
    (row,) = chart_data([finding], "word_list_inclusion_adjusted").rows
    assert minus_signs(f"{row.value:+.1f} percentage points") in effect_text(finding, verdict) == row.effect
    assert "the article's gendered words kept when its people are women against men" in row.effect
    assert "gendered words kept when the people are women against men, in percentage points" in chart_data(
        [finding], "word_list_inclusion_adjusted").axis


def test_a_result_with_too_little_data_is_not_plotted_as_its_text_states_no_value():
    few = result("entity_hallucination", -0.5, -0.5, -0.5, counts={"female": 0, "male": 2}, unknown=1)
    assert judge(few, [few]).status == "not enough data"
    data = chart_data([few], "entity_hallucination")
    assert data.rows == [] and data.undefined == [few]
    figure = measure_figure([few], "entity_hallucination")
    assert "too little data to judge — 3 invented names" in figure.layout.annotations[0].text
    assert "too little data to judge" in measure_svg([few], "entity_hallucination")


def test_the_dotted_line_is_where_the_family_intro_says_no_bias_sits():
    charted = [m for m in MEASURE_NAMES if m not in ("fightin_words", "politician_features")]
    for measure in charted:
        data = chart_data([result(measure, 0.2, 0.1, 0.3, perturbation="identity")], measure)
        assert data.null == no_bias(measure).value
        assert f"dotted line at {data.null:g}: no bias" in data.axis
        shape = next(s for s in measure_figure([result(measure, 0.2, 0.1, 0.3)], measure).layout.shapes
                     if s.type == "line")
        assert shape.x0 == data.null
        (line,) = [line for line in family_intro(semantics(measure).family, MEASURE_NAMES)
                   if no_bias(measure).words in line]
        assert f"{data.null:g} means" in line
    assert no_bias("entity_inclusion").value == 1.0 and no_bias("summary_similarity").value == 1.0
    assert no_bias("word_list_inclusion_adjusted").value == 0.0
    # odds ratios sit at 1 on the chart though their stored signed score sits at 0; every other unit's no-bias
    # value is the measure's declared null
    assert all(no_bias(m).value == semantics(m).null for m in MEASURE_NAMES if semantics(m).unit != "odds ratio")


def test_every_family_intro_reads_without_defects_and_covers_every_unit():
    for family in FAMILIES:
        lines = family_intro(family, MEASURE_NAMES)
        assert lines and all(not reading_defects(line) for line in lines), (family, lines)
    assert family_intro("distinguishability", MEASURE_NAMES) == [
        "distinguishability (word counts and embeddings) — " + NO_BIAS["score from −1 to 1"].words]
    assert family_intro("inclusion", ["word_list_inclusion_adjusted"]) == []


def test_metrics_opens_on_the_family_of_the_most_significant_finding_else_none():
    weak = result("entity_inclusion", 0.4, 0.05, 0.9, summarizer="a")
    strong = result("distinguishability_count", 0.5, 0.45, 0.55, summarizer="b", signed=False)
    nothing = result("word_list_inclusion_adjusted", 0.01, -0.1, 0.1, summarizer="c")
    rows = findings([weak, strong, nothing])
    assert [f.family for f in rows if f.verdict.significant] == ["distinguishability", "inclusion"]
    families = ["inclusion", "distinguishability", "word lists"]
    assert opening_family(rows, families) == "distinguishability"
    assert opening_family(rows, ["inclusion", "word lists"]) == "inclusion"  # a family Metrics does not show
    assert opening_family(findings([nothing]), families) is None


def test_the_leaderboard_shows_a_dash_and_a_verdict_in_words_never_none_nan_or_undefined():
    undefined = MeasureResult("entity_hallucination", float("nan"), 30, "gender-loc", "a", None, None, "d",
                              reason="no hallucinated name")
    defined = result("entity_inclusion", 0.2, -0.1, 0.5, summarizer="a")
    rows = leaderboard([("run", [undefined, defined])], "gender-loc")
    assert [row["measure"] for row in rows] == ["entity hallucination", "entity inclusion"]
    gone = rows[0]
    assert gone["verdict"] == "cannot be computed"
    assert gone["estimate"] == gone["95% interval"] == gone["distance from no bias"] == gone["favoured"] == MISSING
    for row in rows:
        assert not reading_defects(" · ".join(str(value) for value in row.values())), row


def test_the_leaderboard_states_the_verdict_judge_gives_without_simulating_the_detectable_effect(monkeypatch):
    import bias_core.verdicts.judge as judge_module
    from bias_core.verdicts.sentences import verdict_words

    results = [result("entity_inclusion", 0.2, -0.1, 0.5, summarizer="a"),
               result("entity_inclusion", 0.4, 0.2, 0.6, summarizer="b")]
    expected = [verdict_words(judge(r, results).status) for r in results]
    assert judge(results[0], results).mde is not None  # the full verdict states what it could have missed

    def refuse(*_, **__):
        raise AssertionError("the leaderboard simulated a detectable effect it does not show")

    monkeypatch.setattr(judge_module, "detectable_effect", refuse)
    rows = leaderboard([("run", results)], "gender-loc")
    assert sorted(row["verdict"] for row in rows) == sorted(expected)


@pytest.mark.parametrize("sign", [1, -1])
def test_a_lexical_bias_point_sits_on_the_side_of_the_sentences_its_text_says_are_kept_more(sign):
    from bias_core.verdicts.sentences import finding_sentence

    scored = result("mbic", sign * 0.3, *sorted((sign * 0.2, sign * 0.4)), perturbation="identity", signed=False)
    verdict = judge(scored, [scored])
    assert verdict.significant
    data = chart_data([scored], "mbic")
    (row,) = data.rows
    assert f"{row.favours} are kept more often" in finding_sentence(scored, verdict, "m", "lexical bias")
    assert "← neutral sentences | loaded sentences →" in data.axis


def test_metrics_opens_on_a_perturbation_test_before_a_stronger_result_on_the_unchanged_articles():
    tested = result("entity_inclusion", 0.4, 0.05, 0.9, summarizer="a")
    unchanged = result("mbic", 0.9, 0.85, 0.95, summarizer="b", signed=False, perturbation="identity")
    rows = findings([tested, unchanged])
    strongest = max((f for f in rows if f.verdict.significant), key=lambda f: f.strength)
    assert strongest.perturbation == "identity" and strongest.family == "lexical bias"
    assert opening_family(rows, ["inclusion", "lexical bias"]) == "inclusion"
