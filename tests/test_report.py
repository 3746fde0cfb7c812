"""The HTML report leads with the findings, shows the evidence pair's diff, explains every name and escapes every
text that came from a user or a model (issue 11)."""

from __future__ import annotations

from bias_core.common.records import Input, MeasureResult, Substitution, Summary
from bias_core.runs.store import RunStore
from bias_core.verdicts.findings import findings
from bias_core.views.export import html_report

SCRIPT = "<script>alert(1)</script>"


def hostile_run(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run({"note": SCRIPT}, "h", {"seed": 0}, name="audit")
    summarizer = f"model{SCRIPT}"
    inputs = [Input(f"d/{arm}", "d", f"{name} won the vote.", "gender-loc", 0, arm,
                    substitutions=[Substitution(0, len(name), "Anna" if arm == "a" else "Ben", name, "first_name")])
              for arm, name in (("a", "Ben"), ("b", "Anna"))]
    store.add_inputs(run_id, inputs)
    store.add_summaries(run_id, [Summary("d/a", summarizer, f"Ben won. {SCRIPT} A recount follows."),
                                 Summary("d/b", summarizer, "Anna won the vote narrowly.")])
    signed = {"value": -0.4, "ci_low": -0.8, "ci_high": -0.1, "meaning": "> 0: female favoured"}
    store.replace_measures(run_id, [
        MeasureResult("entity_inclusion", 0.4, 30, "gender-loc", summarizer, 0.1, 0.8, "d",
                      details={"signed": signed, "groups": ["female", "male"]}),
        MeasureResult("summary_similarity", 1.0, 30, "politician", summarizer, 0.98, 1.0, "d"),
    ])
    return store, run_id, summarizer


def test_the_report_leads_with_the_finding_sentence_and_its_evidence_diff(tmp_path):
    store, run_id, summarizer = hostile_run(tmp_path)
    report = html_report(store, run_id)
    (finding, similarity) = findings(store.measures(run_id), store.inputs(run_id), store.summaries(run_id))
    assert finding.verdict.significant and finding.verdict.favoured == "men"
    assert similarity.verdict.status == "description"  # similarity alone is context, never a finding
    escaped = finding.sentence.replace("<", "&lt;").replace(">", "&gt;")
    assert report.index(escaped) < report.index("id='evidence'") < report.index("id='details'")
    assert report.index("id='details'") < report.index("id='appendix'") < report.index("&quot;note&quot;")
    assert "odds 1.40× for men against women (95% interval 1.10–1.80)" in report
    assert "<del>narrowly.</del>" not in report and "<ins>narrowly.</ins>" in report  # model-made change marked
    assert "<del class=swap>Ben</del>" in report and "<ins class=swap>Anna</ins>" in report  # the swap greyed


def test_no_text_from_a_user_or_a_model_becomes_markup(tmp_path):
    store, run_id, _ = hostile_run(tmp_path)
    report = html_report(store, run_id)
    assert SCRIPT not in report and "<script" not in report
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in report


def test_every_summarizer_perturbation_and_measure_named_is_explained(tmp_path):
    store, run_id, summarizer = hostile_run(tmp_path)
    store.replace_measures(run_id, [*store.measures(run_id),
                                    MeasureResult("sfpi", 0.01, 18, summarizer="SFPI model (trained here)",
                                                  details={"feature": "position"})])
    report = html_report(store, run_id)
    glossary = report[report.index("id='glossary'"):report.index("id='details'")]
    for name in ("SFPI model (trained here)", "gender-loc", "politician", "entity inclusion", "summary similarity",
                 "feature importance for lexical bias (SFPI)"):
        assert f"<li><b>{name}</b>: " in glossary
    assert "trained inside summbias" in glossary and "model&lt;script&gt;" in glossary


def test_glossary_entries_read_alike_a_sentence_each_without_repeating_their_name(tmp_path):
    import html
    import re

    from bias_core.reference.demo import ensure_demo_run

    store = RunStore(tmp_path / "runs.sqlite")
    report = html_report(store, ensure_demo_run(store))
    glossary = report[report.index("id='glossary'"):report.index("id='details'")]
    entries = [(html.unescape(name), html.unescape(note))
               for name, note in re.findall(r"<li><b>(.*?)</b>: (.*?)</li>", glossary, re.S)]
    assert len(entries) >= 15
    for name, note in entries:
        assert note[:1].isupper() and note.endswith("."), (name, note)
        assert not note.lower().startswith((name.lower(), f"the {name.lower()}")), (name, note)


def test_the_findings_table_links_each_row_to_its_evidence_pair_shown_inline(tmp_path):
    import re

    from bias_core.reference.demo import ensure_demo_run

    store = RunStore(tmp_path / "runs.sqlite")
    report = html_report(store, ensure_demo_run(store))
    anchors = set(re.findall(r"<a href='#(evidence-\d+)'>", report))
    assert anchors and all(f"<h3 id='{anchor}'>" in report for anchor in anchors)


def test_review_evidence_shows_the_unit_each_sentence_comes_from_not_a_word_diff(tmp_path):
    from bias_core.reference.demo import ensure_demo_run
    from bias_core.views.export import _evidence_html, evidence_anchors

    store = RunStore(tmp_path / "runs.sqlite")
    run_id = ensure_demo_run(store)
    inputs = {item.id: item for item in store.inputs(run_id)}
    summaries = {(s.input_id, s.summarizer): s.text for s in store.summaries(run_id)}
    rows = [f for f in findings(store.measures(run_id), list(inputs.values()), store.summaries(run_id))
            if f.perturbation == "sentiment" and f.evidence is not None]
    assert rows
    anchors = {key: f"evidence-{i}" for i, key in enumerate(
        {(f.summarizer, f.evidence.input_a, f.evidence.input_b) for f in rows[:1]}, start=1)}
    [html_part] = _evidence_html(rows[:1], inputs, summaries, anchors)
    assert "the unit every sentence comes from" in html_part and "Value shares:" in html_part
    assert "<del>" not in html_part and "<ins>" not in html_part
    assert evidence_anchors(rows[:1]) == anchors
