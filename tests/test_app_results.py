"""Fightin' Words and Metrics pages with AppTest on a real audit run."""

from __future__ import annotations

import json
import re

import pytest

from tests.test_app_compare import open_page


def test_fightin_words_compares_the_two_arms_of_a_biased_summarizer(audited_store, tmp_path, monkeypatch):
    at = open_page("pages/fightin_words.py", audited_store, tmp_path, monkeypatch)
    at.selectbox(key="fw_perturbation").set_value("gender-glob").run()
    at.selectbox(key="fw_summarizer").set_value("sexist-female").run()
    assert not at.exception
    female, male = at.dataframe[0].value, at.dataframe[1].value
    assert list(female.columns) == ["word", "z", "count A", "count B", "|z|>1.96", "BH"]
    assert any("A = all people women; B = all people men" in c.value for c in at.caption)
    assert len(female) + len(male) > 0
    assert (female["z"] > 0).all() and (male["z"] < 0).all()
    assert not set(female["word"]) & {"robert", "linda", "she", "he"}  # swapped tokens are masked
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["data"][0]["mode"] == "markers" and len(spec["data"][0]["x"]) > 10


def test_fightin_words_page_counts_the_words_the_overview_counts(audited_store, tmp_path, monkeypatch):
    """The page's arm table is the Overview's test's table (each original pooled, the same mask), so its
    Benjamini–Hochberg words are the stored measure's and the page quotes the Overview's answer (issue 29)."""
    from bias_core.measures import fightin_words as fw
    from bias_core.runs.store import RunStore
    from bias_core.verdicts.findings import run_findings
    from bias_core.views import fightin_words_view as fwv

    store = RunStore(audited_store, read_only=True)
    run_id = store.list_runs()[0].id
    inputs, summaries, results = store.inputs(run_id), store.summaries(run_id), store.measures(run_id)
    answers = {f.summarizer: f.answer for f in run_findings(store, run_id) if f.family == "fightin words"}
    store.close()
    for summarizer in ("lead-3", "sexist-female"):
        stored = next(r for r in results if r.measure == "fightin_words" and r.summarizer == summarizer
                      and r.perturbation == "gender-glob")
        page = fwv.arm_comparison(fwv.arm_texts(inputs, summaries, "gender-glob", summarizer), "female", "male")
        assert sum(t.significant_bh and not fw.is_placeholder(t.term) for t in page.terms) == stored.value
        assert page.settings["test"]["p_value"] == stored.details["test"]["p_value"]
        assert [row["term"] for row in stored.details["top_female"]] == [t.term for t in page.top(20)[0]]
        assert [row["term"] for row in stored.details["top_male"]] == [t.term for t in page.top(20)[1]]
    at = open_page("pages/fightin_words.py", audited_store, tmp_path, monkeypatch)
    at.selectbox(key="fw_perturbation").set_value("gender-glob").run()
    at.selectbox(key="fw_summarizer").set_value("sexist-female").run()
    said = [m.value.replace("\\", "") for m in at.markdown]
    assert f"The Overview's answer for this view: {answers['sexist-female']}." in said, said


def test_fightin_words_on_originals_splits_them_by_majority_identifiers(audited_store, tmp_path, monkeypatch):
    at = open_page("pages/fightin_words.py", audited_store, tmp_path, monkeypatch)
    at.radio(key="fw_comparison").set_value("Originals: more female vs more male identifiers").run()
    assert not at.exception
    assert any(re.search(r"\d+ originals? mentions? female identifiers more", c.value) for c in at.caption)


def test_metrics_page_charts_every_measure_family_with_its_interval_and_help(audited_store, tmp_path, monkeypatch):
    at = open_page("pages/metrics.py", audited_store, tmp_path, monkeypatch)
    families = [label.lower() for label in at.radio(key="metrics_family").options]  # shown capitalised
    assert families[:4] == ["inclusion", "hallucination", "distinguishability", "word lists"]
    shown = []
    for family in families:
        at.radio(key="metrics_family").set_value(family).run()
        assert not at.exception
        shown += [h.value for h in at.subheader]
        charts = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
        assert all(chart["data"] or chart["layout"].get("annotations") for chart in charts)
        if family == "inclusion":
            assert charts and any("How to read entity inclusion" in expander.label for expander in at.expander)
            table = at.dataframe[0].value
            assert {"estimate", "95% CI", "n", "verdict", "significant", "favoured"} <= set(table.columns)
    assert "entity inclusion" in shown and "distinguishability dense" in shown
    assert "word list inclusion adjusted" in shown


def test_metrics_s_intervals_can_be_chosen(audited_store, tmp_path, monkeypatch):
    at = open_page("pages/metrics.py", audited_store, tmp_path, monkeypatch)
    at.radio(key="metrics_ci_kind").set_value("s").run()
    assert not at.exception


def test_resuming_a_stopped_run_whose_stored_config_is_invalid_shows_one_line_and_marks_it_failed(tmp_path,
                                                                                                   monkeypatch):
    from bias_core.runs.store import RunStore
    from tests.conftest import open_app

    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    config = {"name": "stopped", "seed": 0, "bootstrap": 10, "corpus": {"path": "demo"},
              "summarizers": [{"name": "textrank", "params": {"damping": 5}}],
              "perturbations": [{"name": "identity", "params": {}}]}
    run_id = store.create_run(config, "hash", {}, name="stopped")
    store.update_run(run_id, status="running", worker_pid=2 ** 22 + 12345)  # a pid that is not alive
    monkeypatch.setenv("SUMMBIAS_STORE", str(path))
    at = open_app("pages/runs.py")
    assert "stopped" in at.dataframe[0].value["status"].tolist()
    at.button(key=f"resume_{run_id}").click().run()
    assert not at.exception
    assert any("damping" in error.value for error in at.error)
    assert RunStore(path).get_run(run_id).status == "failed"


@pytest.fixture(scope="module")
def race_store(tmp_path_factory, demo_news):
    """A store with one real audit of three demo articles: identity and race (BBQ names, one draw), lead-3, entity
    inclusion only (50 resamples)."""
    from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
    from bias_core.runs.pipeline import run_audit
    from bias_core.runs.store import RunStore
    from bias_core.summarize import SummaryCache

    folder = tmp_path_factory.mktemp("race")
    store = RunStore(folder / "runs.sqlite")
    config = AuditConfig(corpus=CorpusSpec("demo"), summarizers=[StageSpec("lead-3")],
                         perturbations=[StageSpec("identity"), StageSpec("race", {"samples": 1})],
                         measures=["entity_inclusion"], bootstrap=50, name="race app test")
    run_audit(config, store=store, cache=SummaryCache(folder / "c.sqlite"), documents=demo_news[:3])
    store.close()
    return folder / "runs.sqlite"


def test_metrics_shows_each_race_arms_name_source_and_name_frequency_next_to_race_results(race_store, tmp_path,
                                                                                            monkeypatch):
    from bias_core.runs.store import RunStore

    at = open_page("pages/metrics.py", race_store, tmp_path, monkeypatch)
    at.radio(key="metrics_family").set_value("inclusion").run()
    assert not at.exception
    (table,) = [frame.value for frame in at.dataframe if "mean surname frequency (%)" in frame.value.columns]
    info = RunStore().list_runs()[0].reports["perturbations"]["race"]["run_info"]
    assert list(table["race"]) == ["black", "white"] and set(table["name source"]) == {"bbq"}
    for _, row in table.iterrows():
        assert row["mean first-name frequency (%)"] == pytest.approx(info["mean_name_frequency"][row["race"]]["first"])
        assert row["mean surname frequency (%)"] == pytest.approx(info["mean_name_frequency"][row["race"]]["last"])
        assert row["names without a census frequency"] == info["names_without_frequency"][row["race"]]
    assert not table["frequency-matched"].any()
    assert any("treats rare names differently" in caption.value for caption in at.caption)
    assert any("Parrish et al. 2022" in caption.value for caption in at.caption)


def test_metrics_shows_no_name_frequency_table_for_a_run_without_race(audited_store, tmp_path, monkeypatch):
    at = open_page("pages/metrics.py", audited_store, tmp_path, monkeypatch)
    at.radio(key="metrics_family").set_value("inclusion").run()
    assert not [frame for frame in at.dataframe if "mean surname frequency (%)" in frame.value.columns]
