"""One answer per summarizer a person reads without statistics (issue 29): on the demo run's findings and on a small
synthetic set, every answer and row line is free of "None", "nan", "undefined", nested parentheses and measure codes,
says no phrase twice, never calls a family with a significant item "no evidence", answers from a perturbation test
(a result on the unchanged articles is a line of its own), and a row with too little data states no value."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from bias_core.common.records import Input, MeasureResult, Summary
from bias_core.measures import MEASURES
from bias_core.reference.demo import DEMO_RUN
from bias_core.runs.store import RunStore
from bias_core.verdicts.findings import findings, summarizer_answers
from bias_core.verdicts.semantics import FAMILIES, FAMILY_WORDS
from bias_core.views.export import html_report

# Codes a stakeholder cannot read: they stay on Metrics and in tooltips.
CODES = ("MBIC", "ΔI", "Acc_Diff", "(d)", "(s)", "fightin words", "bias in counterfactual", "UER", "BUR", "AUC",
         "SOF", "SFPI", "VADER", "I_across", "I_within", "TVD")
BANNED = re.compile(r"\bNone\b|(?i:\bnan\b|\bundefined\b)|\(\(|\)\)")  # "none with a known gender" is words
SIGNIFICANT_ITEMS = re.compile(r"\b[1-9]\d* (?:word|feature)s? significant")


def repeated_phrase(line: str, size: int = 4) -> str | None:
    """The first run of ``size`` words that occurs twice in ``line`` (case and punctuation aside), else None."""
    words = re.findall(r"[\w'’×±.+−-]+", line.lower())
    seen = set()
    for i in range(len(words) - size + 1):
        gram = tuple(words[i:i + size])
        if gram in seen:
            return " ".join(gram)
        seen.add(gram)
    return None


def lines_of(rows) -> list[str]:
    """Every line a person reads about the rows: the answers, each row's sentence, effect, answer and context."""
    out = [answer.text for answer in summarizer_answers(rows)]
    for row in rows:
        out += [row.sentence, row.effect, row.answer, row.topic, *row.context]
    return out


def assert_plain(rows) -> None:
    for line in lines_of(rows):
        assert not BANNED.search(line), line
        assert not any(code in line for code in CODES), line
        assert not any(name in line for name in MEASURES), line
        assert line.count("(") == line.count(")") and "(" not in re.sub(r"\([^()]*\)", "", line), line
        assert repeated_phrase(line) is None, (repeated_phrase(line), line)


def assert_never_no_evidence_beside_a_significant_item(rows) -> None:
    for row in rows:
        for line in (row.answer, f"{row.sentence} {row.effect}"):
            if SIGNIFICANT_ITEMS.search(line):
                assert row.verdict.significant and "no evidence" not in line, line
        if row.verdict.significant:
            assert "no evidence" not in row.answer and "no evidence" not in row.sentence, row.answer


@pytest.fixture(scope="module")
def demo_rows():
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    results = [MeasureResult.from_dict(m) for m in bundle["measures"]]
    inputs = [Input.from_dict(i) for i in bundle["inputs"]]
    summaries = [Summary.from_dict(s) for s in bundle["summaries"]]
    return findings(results, inputs, summaries)


def politician(summarizer: str, p_holm: float) -> MeasureResult:
    """A politician-features result whose one feature changed with ``p_holm`` in the measure's own correction."""
    rows = [{"feature": "entity_mentions", "direction": "A → B", "p_holm": p_holm, "unchanged": "0 of 5 unchanged"},
            {"feature": "party_dem", "direction": "A → B", "p_holm": None, "unchanged": "5 of 5 unchanged"}]
    return MeasureResult("politician_features", 1.0 if p_holm < 0.05 else 0.0, 5, "politician", summarizer,
                         details={"rows": rows})


def inclusion(summarizer: str, perturbation: str, value: float, low: float, high: float, n: int = 30):
    signed = {"value": value, "ci_low": low, "ci_high": high}
    return MeasureResult("entity_inclusion", abs(value), n, perturbation, summarizer, abs(low), abs(high), "d",
                         details={"signed": signed, "groups": ["female", "male"]})


@pytest.fixture(scope="module")
def synthetic_rows():
    """Five summarizers: "crowded" has one feature significant in politician features' own correction among ten
    other tests (it does not survive Holm over them); "alone" has the same feature as its only test (it does);
    "lexical" has a lexical-bias finding on the unchanged articles and no evidence on a name swap; "few" invented
    two names, both men's (too little data); "empty" has an undefined result and a summary similarity per swap
    direction."""
    results = [politician("crowded", 0.01),
               *(inclusion("crowded", f"swap-{i}", 0.05, -0.3, 0.4) for i in range(10)),
               politician("alone", 0.01),
               MeasureResult("mbic", 0.3, 40, "identity", "lexical", 0.2, 0.4, "d",
                             details={"label_source": "VADER |valence| >= 2"}),
               inclusion("lexical", "gender-loc", 0.02, -0.2, 0.25),
               MeasureResult("entity_hallucination", 0.5, 36, "gender-loc", "few", 0.5, 0.5, "d",
                             details={"groups": ["female", "male"], "counts": {"female": 0.0, "male": 2.0},
                                      "unknown": 1,
                                      "signed": {"value": -0.5, "ci_low": -0.5, "ci_high": -0.5}}),
               MeasureResult("entity_hallucination", float("nan"), 36, "gender-loc", "empty", reason="no hallucinated name"),
               politician("empty", 0.6),
               MeasureResult("summary_similarity", 0.5, 4, "politician", "empty", 0.3, 0.7, "d",
                             details={"direction": "A → B"}),
               MeasureResult("summary_similarity", 0.8, 1, "politician", "empty", 0.8, 0.8, "d",
                             details={"direction": "B → A"})]
    return findings(results)


def test_every_answer_and_row_of_the_demo_run_reads_without_statistics(demo_rows):
    assert_plain(demo_rows)


def test_every_answer_and_row_of_a_synthetic_run_reads_without_statistics(synthetic_rows):
    assert_plain(synthetic_rows)


def test_a_family_with_a_significant_item_is_never_no_evidence(demo_rows, synthetic_rows):
    assert_never_no_evidence_beside_a_significant_item(demo_rows)
    assert_never_no_evidence_beside_a_significant_item(synthetic_rows)
    by = {row.summarizer: row for row in synthetic_rows if row.family == "politician features"}
    crowded, alone = by["crowded"], by["alone"]
    # the feature does not survive the crowded summarizer's correction: no feature counts, and the line says why
    assert not crowded.verdict.significant and crowded.effect == "no feature significant after correction"
    assert "once all of its tests are taken into account" in crowded.answer
    # alone, it survives: a finding, with the count in the singular
    assert alone.verdict.significant and alone.effect == "1 feature significant after correction"
    assert alone.answer == "alone writes differently about the two politicians — 1 feature significant after correction"


def test_no_demo_politician_answer_contradicts_itself(demo_rows):
    # The demo on real news has one article naming a politician of the pair: every politician row is "not enough
    # data" there, which must say so and count no significant item.
    rows = [r for r in demo_rows if r.family == "politician features"]
    assert rows
    for row in rows:
        if not row.verdict.significant:
            assert not SIGNIFICANT_ITEMS.search(row.effect) and not SIGNIFICANT_ITEMS.search(row.answer)


def test_one_answer_per_summarizer_from_a_perturbation_test_and_unchanged_articles_on_their_own_line(demo_rows,
                                                                                                    synthetic_rows):
    for rows in (demo_rows, synthetic_rows):
        answers = summarizer_answers(rows)
        main = [a for a in answers if not a.unchanged]
        summarizers = {r.summarizer for r in rows if r.perturbation not in ("—", None, "identity")}
        assert sorted(a.summarizer for a in main) == sorted(summarizers)
        for answer in main:
            assert answer.finding.perturbation != "identity" and answer.text.startswith(f"{answer.summarizer}")
            own = [r for r in rows if r.summarizer == answer.summarizer and r.perturbation != "identity"]
            if any(r.verdict.significant for r in own):
                assert answer.finding.verdict.significant  # a finding first
        for answer in answers:
            if answer.unchanged:
                assert answer.finding.perturbation == "identity"
                assert answer.text.startswith(f"{answer.summarizer}'s summaries of the unchanged articles: ")
    lexical = {a.summarizer: a for a in summarizer_answers(synthetic_rows) if not a.unchanged}
    assert lexical["lexical"].finding.family == "inclusion"  # not the lexical-bias finding on unchanged articles
    unchanged = [a for a in summarizer_answers(synthetic_rows) if a.unchanged]
    assert [a.summarizer for a in unchanged] == ["lexical"] and unchanged[0].finding.verdict.significant
    assert "loaded sentences are kept more often than neutral ones" in unchanged[0].text
    textrank = next(a for a in summarizer_answers(demo_rows) if a.summarizer == "textrank" and not a.unchanged)
    assert textrank.finding.family != "lexical bias"


def test_the_family_is_named_in_words_from_one_table(demo_rows):
    assert set(FAMILY_WORDS) == set(FAMILIES)
    inclusion_row = next(r for r in demo_rows if r.family == "inclusion" and r.perturbation == "gender-loc")
    assert inclusion_row.topic == "how often women and men are included"
    words = next(r for r in demo_rows if r.family == "fightin words")
    assert words.topic == "words used more for one group"


def test_too_little_data_states_what_was_measured_and_no_value(demo_rows, synthetic_rows):
    for rows in (demo_rows, synthetic_rows):
        for row in rows:
            if row.verdict.status in ("not enough data", "undefined"):
                assert row.effect == "—" and row.estimate is None and row.ci_low is None, row
                assert "percentage points" not in row.answer and "—" not in row.answer
    (few,) = [r for r in synthetic_rows if r.summarizer == "few"]
    assert few.verdict.status == "not enough data"
    assert few.sentence == ("few: too little data to judge whether the names it invents favour women or men: "
                            "3 invented names, 2 with a known gender: 0 women's and 2 men's")
    empty = next(r for r in synthetic_rows if r.summarizer == "empty" and r.family == "hallucination")
    assert empty.sentence.endswith(": it invented no name")


def test_two_values_of_one_measure_get_two_labels(demo_rows, synthetic_rows):
    for rows in (demo_rows, synthetic_rows):
        for row in rows:
            labels = [item.split(": ", 1)[0] for item in row.context]
            assert len(labels) == len(set(labels)), row.context
    (empty,) = [r for r in synthetic_rows if r.summarizer == "empty" and r.family == "politician features"]
    assert "summary similarity, A → B: 0.50 on a scale from 0 to 1 (95% interval 0.30 to 0.70)" in empty.context
    assert "summary similarity, B → A: 0.80 on a scale from 0 to 1 (one article: no interval)" in empty.context


def test_the_report_gives_the_overviews_answers_and_no_none(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({}, "h", {"seed": 0}, name="plain")
    store.replace_measures(run_id, [inclusion("m", "gender-loc", -0.4, -0.8, -0.1),
                                    MeasureResult("mbic", 0.02, 40, "identity", "m", -0.05, 0.09, "d"),
                                    MeasureResult("sfpi", 0.01, 18, summarizer="SFPI model (trained here)",
                                                  details={"feature": "position"})])
    report = html_report(store, run_id)
    rows = findings(store.measures(run_id))
    answers = summarizer_answers(rows)
    assert [a.summarizer for a in answers] == ["m", "m"] and answers[1].unchanged
    start = report.index("id='answers'")
    for answer in answers:
        assert report.index(answer.text.replace("'", "&#x27;")) > start
    shown = re.sub(r"<[^>]+>", " ", report)  # the text and tooltips a reader sees (tags and their data aside)
    assert not BANNED.search(shown.replace("&quot;None&quot;", ""))
    assert "<td>none · position</td>" in report
