"""The Overview page, the evidence links into Compare, the Metrics family navigation and the cross-run leaderboard,
with AppTest on the real precomputed demo run (and a real audit run) in temporary stores."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from bias_core.measures.quality import output_quality
from bias_core.reference.demo import ensure_demo_run
from bias_core.runs.store import RunStore
from bias_core.verdicts.controls import controls
from bias_core.verdicts.findings import run_findings, summarizer_answers
from bias_core.verdicts.judge import judge
from bias_core.verdicts.semantics import primary_estimate, semantics
from bias_core.verdicts.sentences import verdict_words
from bias_core.views.families import opening_family
from bias_core.views.text_checks import reading_defects
from pages.render import FINDING_COLUMNS, effect_and_interval
from tests.conftest import open_app
from tests.test_app_compare import open_page

VERDICTS = {"finding", "no evidence of bias", "not enough data", "undefined", "description",
            "no difference: the summaries are identical", "not significant after correction"}


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    """A store holding the imported demo run, and the run's findings as bias_core states them."""
    path = tmp_path_factory.mktemp("demo") / "runs.sqlite"
    store = RunStore(path)
    run_id = ensure_demo_run(store)
    found = run_findings(store, run_id)
    summarizers = {s.summarizer for s in store.summaries(run_id)}
    results = store.measures(run_id)
    store.close()
    return path, run_id, found, summarizers, results


@pytest.fixture(scope="module")
def overview(demo_store):
    """The app opened as a newcomer opens it (no page chosen), on the demo store. Shared by the tests that come
    before any test opening another app (``open_app`` clears the cached run store)."""
    path = demo_store[0]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SUMMBIAS_STORE", str(path))
        yield open_app()


def plain(text: str) -> str:
    """Markdown written by ``md_escape`` back to the characters it shows."""
    return text.replace("\\", "").replace("&#58;", ":")


def row_captions(at) -> list[str]:
    """The first cell's caption of every findings row: summarizer · perturbation · family."""
    return [plain(c.value) for c in at.caption if c.value.count(" · ") == 2 and not c.value.startswith("Run ")]


def test_the_app_opens_on_the_overview_of_the_demo_run_with_its_controls_first(overview, demo_store):
    _, run_id, found, _, _ = demo_store
    assert overview.title[0].value == "Overview"
    assert overview.session_state["run_id"] == run_id
    checked = controls(found)
    alerts = [*overview.success, *overview.warning]
    assert checked is not None and plain(alerts[0].value) == checked.line and checked.line.startswith("Controls: ")
    assert overview.expander[0].label == "How to read these findings"
    assert any(m.value.startswith("Each row is one summarizer on one kind of perturbation") for m in overview.markdown)


def test_the_first_screen_gives_one_answer_for_every_summarizer_of_the_demo_run(overview, demo_store):
    _, _, found, summarizers, _ = demo_store
    assert overview.subheader[0].value == "In short: one answer per summarizer"
    short = next(plain(m.value) for m in overview.markdown if m.value.startswith("- ")).splitlines()
    answers = summarizer_answers(found)
    assert short == [f"- {answer.text}" for answer in answers if not answer.unchanged]
    assert sorted(line[2:].split(":")[0].split(" ")[0] for line in short) == sorted(summarizers)
    # not the SFPI model, which only explains lexical bias; lexical bias on the unchanged articles is its own list
    unchanged = [plain(m.value) for m in overview.markdown if m.value.startswith("- ")][1].splitlines()
    assert unchanged == [f"- {answer.text}" for answer in answers if answer.unchanged]
    assert all("'s summaries of the unchanged articles: " in line for line in unchanged)


def test_the_overview_says_how_many_outputs_were_cut_or_degenerate_per_summarizer(overview, demo_store):
    path, run_id, _, _, _ = demo_store
    store = RunStore(path)
    lines = [q.line() for q in output_quality(store.summaries(run_id)).values() if q.line()]
    store.close()
    assert lines and any(line.startswith("smollm2: ") and "cut at the token limit" in line for line in lines)
    shown = next(plain(c.value) for c in overview.caption if c.value.startswith("How the outputs came out"))
    assert all(line in shown for line in lines)


def test_the_findings_table_has_its_headers_and_one_row_per_finding_strongest_first(overview, demo_store):
    _, _, found, _, _ = demo_store
    headers = [m.value for m in overview.markdown if m.value.startswith("**") and m.value.endswith("**")]
    assert headers == [f"**{label}**" for label in FINDING_COLUMNS]
    assert FINDING_COLUMNS == ("Finding", "Effect", "95% interval", "Survives correction", "Verdict", "Evidence")
    ordered = sorted(found, key=lambda f: f.strength, reverse=True)
    assert row_captions(overview) == [f"{f.summarizer} · {f.perturbation} · {f.topic}" for f in ordered]
    shown = [plain(m.value) for m in overview.markdown]
    for finding in ordered:
        effect, interval = effect_and_interval(finding)
        assert finding.sentence in shown and effect in shown and interval in shown
        assert finding.verdict.status in VERDICTS and verdict_words(finding.verdict.status) in shown
    strengths = [f.strength for f in ordered]
    assert strengths == sorted(strengths, reverse=True)


def test_effect_and_interval_are_split_into_their_own_columns_in_the_effect_unit(demo_store):
    _, _, found, _, _ = demo_store
    inclusion = next(f for f in found if f.measure == "entity_inclusion" and f.ci_low is not None
                     and f.ci_low < f.ci_high)
    effect, interval = effect_and_interval(inclusion)
    assert effect.startswith("odds ") and "95%" not in effect and "–" in interval  # odds ratios, not OR − 1
    for finding in found:
        effect, interval = effect_and_interval(finding)
        assert "95% interval" not in effect and effect.count("(") == effect.count(")")
        assert finding.effect.startswith(effect.rstrip(")"))


def test_every_measure_family_of_the_demo_run_has_a_row_in_plain_words(overview, demo_store):
    _, _, found, _, results = demo_store
    families = {semantics(r.measure).family for r in results if r.perturbation != "identity"}
    assert families >= {"inclusion", "hallucination", "distinguishability", "word lists", "perspective fairness",
                        "politician features", "lexical bias"}
    captions = row_captions(overview)
    for family in families:  # named in words, the family's code in the tooltip
        topic = next(f.topic for f in found if f.family == family)
        assert any(caption.endswith(f" · {topic}") for caption in captions), family
    texts = " ".join(m.value for m in overview.markdown)
    for word in ("no evidence that", "percentage points", "odds", "could detect"):
        assert word in texts, word
    assert "entity_inclusion" not in texts and "word_list_inclusion" not in texts  # no raw measure ids


def test_see_the_evidence_opens_compare_on_that_original_and_pair(overview, demo_store):
    path, run_id, found, _, _ = demo_store
    links = overview.get("page_link")
    with_evidence = [f for f in sorted(found, key=lambda f: f.strength, reverse=True) if f.evidence is not None]
    assert len(links) == len(with_evidence) and all(link.value == "See the evidence" for link in links)
    finding, link = with_evidence[0], links[0]
    assert link.proto.page.endswith("compare")
    params = {key: values[0] for key, values in parse_qs(link.proto.query_string).items()}
    assert params == {"run": run_id, "compare_original": finding.evidence.original_id,
                      "compare_perturbation": finding.perturbation, "compare_summarizers": finding.summarizer,
                      "evidence_a": finding.evidence.input_a, "evidence_b": finding.evidence.input_b}
    overview.query_params.update(params)
    overview.switch_page("pages/compare.py").run()
    assert not overview.exception
    original = finding.evidence.original_id
    assert overview.selectbox(key="compare_original").value == original
    assert overview.selectbox(key="compare_a").value == finding.evidence.input_a
    assert overview.selectbox(key="compare_b").value == finding.evidence.input_b
    assert overview.selectbox(key="compare_perturbation").value == finding.perturbation
    assert "evidence_a" not in overview.query_params  # the pair is chosen once; later choices stick
    assert overview.multiselect(key="compare_summarizers").value == [finding.summarizer]
    assert [h.value for h in overview.subheader] == [finding.summarizer]


def test_metrics_shows_one_family_at_a_time_with_its_findings_and_marks_from_judge(overview, demo_store):
    _, run_id, found, _, results = demo_store
    overview.switch_page("pages/metrics.py").run()
    assert not overview.exception
    family = overview.radio(key="metrics_family")
    assert family.value == opening_family(found, [f.lower() for f in family.options])
    # the family of the Overview's first finding of a perturbation test, not the first family
    tested = next(f for f in found if f.verdict.significant and f.family != "fightin words"
                  and f.perturbation not in ("identity", "—", None))
    assert family.value == tested.family
    overview.radio(key="metrics_family").set_value("perspective fairness").run()
    assert [h.value for h in overview.subheader] == ["bur", "uer", "auc", "sof"]
    lines = [plain(m.value) for m in overview.markdown]
    for finding in found:
        if finding.family == "perspective fairness":
            assert any(finding.answer in line for line in lines)
    assert all("Table: " in e.label or "How to read" in e.label or "docs/fidelity.md" in e.label
               for e in overview.expander)
    table = overview.dataframe[0].value
    assert list(table.columns[:8]) == ["perturbation", "summarizer", "estimate", "95% CI", "n", "verdict",
                                       "significant", "favoured"]
    bur = [r for r in results if r.measure == "bur" and r.ci_kind in ("d", None)]
    for row, result in zip(table.itertuples(), bur):
        verdict = judge(result, results)
        assert (row.summarizer, row.verdict, row.significant) == (result.summarizer, verdict_words(verdict.status),
                                                                 verdict.significant)
        # an empty cell shows a dash (pages.render.for_display), never the word None
        assert row.favoured == (verdict.favoured if verdict.significant and verdict.favoured else "—")
    significant = any(judge(result, results).significant for result in bur)
    assert any(value != "—" for value in table["favoured"]) == significant


def test_a_link_to_a_run_that_is_not_stored_says_so_and_shows_the_current_run(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite"
    ensure_demo_run(RunStore(path))
    monkeypatch.setenv("SUMMBIAS_STORE", str(path))
    at = open_app()
    at.query_params.update({"run": "no-such-run", "compare_original": "x", "evidence_a": "x/1"})
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert "The run no-such-run named in the link is not in the run store" in at.warning[0].value
    notes = [c.value for c in at.caption]
    assert any("The link names the original x, which this run does not have" in note for note in notes)
    assert any("The link's input x/1 is not in this run" in note for note in notes)


def test_metrics_choices_reset_to_all_when_another_run_is_opened(audited_store, tmp_path, monkeypatch):
    at = open_page("pages/metrics.py", audited_store, tmp_path, monkeypatch)
    at.radio(key="metrics_family").set_value("word lists").run()
    at.multiselect(key="metrics_measures/word lists").set_value(["word_list_inclusion_adjusted"]).run()
    assert [h.value for h in at.subheader] == ["word list inclusion adjusted"]
    first = at.session_state["run_id"]
    store = RunStore()
    demo = ensure_demo_run(store)
    found = run_findings(store, demo)
    store.close()
    opening = opening_family(found, [family for family in {f.family for f in found} if family != "fightin words"])
    at.run()  # the sidebar lists the new run
    at.selectbox(key="sidebar_run").set_value(demo).run()
    assert at.session_state["run_id"] == demo != first
    assert at.radio(key="metrics_family").value == opening  # the demo's finding, not the choice made before
    at.radio(key="metrics_family").set_value("word lists").run()
    assert at.multiselect(key="metrics_measures/word lists").value == ["word_list_inclusion_adjusted",
                                                                       "word_list_inclusion_unadjusted"]
    assert [h.value for h in at.subheader] == ["word list inclusion adjusted", "word list inclusion unadjusted"]


def test_runs_leaderboard_puts_the_summarizers_of_runs_on_one_corpus_side_by_side(audited_store, tmp_path,
                                                                                   monkeypatch):
    at = open_page("pages/runs.py", audited_store, tmp_path, monkeypatch)
    at.selectbox(key="runs_board_perturbation").set_value("gender-loc").run()
    assert not at.exception
    board = at.dataframe[1].value  # [0] is the run history
    assert set(board["summarizer"]) == {"lead-3", "sexist-female"} and "run" not in board.columns
    store = RunStore()
    results = store.measures(store.list_runs()[0].id)
    inclusion = next(r for r in results if r.measure == "entity_inclusion" and r.summarizer == "sexist-female"
                     and r.perturbation == "gender-loc" and r.ci_kind == "d")
    row = board[(board["measure"] == "entity inclusion") & (board["summarizer"] == "sexist-female")].iloc[0]
    verdict = judge(inclusion, results)
    value, low, high = primary_estimate(inclusion)  # the test's estimate and interval (issue 28: its t-test)
    assert value == inclusion.details["test"]["estimate"]
    assert row["estimate"] == f"{value:.3f}" and row["n"] == inclusion.n
    assert row["95% interval"] == f"[{low:.3f}, {high:.3f}]"
    assert row["verdict"] == verdict_words(verdict.status)
    # "favoured" is named only for significant results; the others show a dash, never the word None.
    assert row["favoured"] == (verdict.favoured if verdict.significant else "—")
    assert board["favoured"].notna().all()
    for measure, group in board.groupby("measure", sort=False):
        distances = [float(d) for d in group["distance from no bias"] if d != "—"]
        assert distances == sorted(distances), measure
        shown = list(group["distance from no bias"])
        assert shown == [d for d in shown if d != "—"] + [d for d in shown if d == "—"]  # no value: last


def test_runs_leaderboard_of_the_demo_run_judges_every_cell_and_tells_swap_directions_apart(demo_store,
                                                                                            monkeypatch):
    path, _, _, summarizers, _ = demo_store
    monkeypatch.setenv("SUMMBIAS_STORE", str(path))
    overview = open_app("pages/runs.py")
    assert not overview.exception
    for perturbation in overview.selectbox(key="runs_board_perturbation").options:
        overview.selectbox(key="runs_board_perturbation").set_value(perturbation).run()
        assert not overview.exception, perturbation
        board = overview.dataframe[1].value
        assert set(board["summarizer"]) <= summarizers
        assert set(board["verdict"]) <= {verdict_words(status) for status in VERDICTS}
        for column in board.columns:  # every cell reads: a dash for a missing value, never None, nan or undefined
            assert not [cell for cell in board[column].astype(str) if reading_defects(cell)], column
        assert (board[board["verdict"] != "finding"]["favoured"] == "—").all()  # a dash, never None
    overview.selectbox(key="runs_board_perturbation").set_value("politician").run()
    rows = list(overview.dataframe[1].value["measure"])
    # The demo's one politician article names Donald Trump only: its rows name that direction, so a run with both
    # directions shows them apart.
    assert "summary similarity (Donald Trump → Joe Biden)" in rows
    assert all("→" in row for row in rows if row.startswith("summary similarity"))

