"""Fightin' Words and Metrics pages with AppTest on a real audit run."""

from __future__ import annotations

import json

from tests.test_app_compare import open_page


def test_fightin_words_compares_the_two_arms_of_a_biased_summarizer(audited_store, tmp_path, monkeypatch):
    at = open_page("pages/fightin_words.py", audited_store, tmp_path, monkeypatch)
    at.selectbox(key="fw_perturbation").set_value("gender-glob").run()
    at.selectbox(key="fw_summarizer").set_value("sexist-female").run()
    assert not at.exception
    female, male = at.dataframe[0].value, at.dataframe[1].value
    assert list(female.columns) == ["word", "z", "count female", "count male", "|z|>1.96", "BH"]
    assert len(female) + len(male) > 0
    assert (female["z"] > 0).all() and (male["z"] < 0).all()
    assert not set(female["word"]) & {"robert", "linda", "she", "he"}  # swapped tokens are masked
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["data"][0]["mode"] == "markers" and len(spec["data"][0]["x"]) > 10


def test_fightin_words_on_originals_splits_them_by_majority_identifiers(audited_store, tmp_path, monkeypatch):
    at = open_page("pages/fightin_words.py", audited_store, tmp_path, monkeypatch)
    at.radio(key="fw_comparison").set_value("Originals: more female vs more male identifiers").run()
    assert not at.exception
    assert any("originals mention female identifiers more" in c.value for c in at.caption)


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
    from bias_core.store import RunStore
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
