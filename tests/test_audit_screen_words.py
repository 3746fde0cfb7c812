"""The Audit page in words (issue 29, Why 9): measures and controls named without the papers' codes (kept in the
tooltip), topic called what it is, the run's progress next to the Run audit button, no documentation path in an
expander's title, the politician-swap view of Fightin' Words only on runs with a politician swap, and the progress
line's counts and words agreeing."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from bias_core.common.records import Document, Summary
from bias_core.reference.demo import DEMO_RUN
from bias_core.runs.store import RunStore
from tests.conftest import open_app
from tests.test_app_progress import running_copy_of_the_demo_run

CODES = re.compile(r"ΔI|Acc_Diff|I_across|I_within|\(d\)|\bBUR\b|\bUER\b|\bAUC\b|\bSOF\b|\bMBIC\b|\bSFPI\b")


def audit(perturbations: list[str], corpus: str = "Invented news articles"):
    app = open_app("pages/corpus.py")
    app.radio(key="corpus_choice").set_value(corpus).run()
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value(perturbations).run()
    assert not app.exception, app.exception
    return app


@pytest.mark.parametrize("perturbations, corpus", [(["gender-loc", "race"], "Invented news articles"),
                                                   (["sentiment"], "Demo product reviews")])
def test_measures_and_controls_are_named_in_words_with_the_codes_kept_in_the_tooltip(perturbations, corpus):
    app = audit(perturbations, corpus)
    for kind in ("gender-loc", "race"):
        if kind in perturbations:
            app.checkbox(key=f"{kind}_controls").check().run()
    picker = app.multiselect(key="audit_measures")
    computes = next(c.value for c in app.caption if c.value.startswith("This audit computes"))
    labels = [*picker.options, computes, *(app.checkbox(key=f"{k}_controls").label for k in perturbations
                                           if k in ("gender-loc", "race"))]
    assert [label for label in labels if CODES.search(label)] == []
    if "gender-loc" in perturbations:
        assert "counterfactual inconsistency" in picker.options
        assert "ΔI: counterfactual inconsistency" in picker.help and "Acc_Diff" in picker.help
    else:
        assert "binary unfair rate" in picker.options and "BUR: binary unfair rate" in picker.help


def test_topic_is_described_as_the_neutral_control_it_is_and_sexist_as_the_biased_one():
    app = audit(["gender-glob"])
    help_text = app.multiselect(key="audit_summarizers").help
    assert "topic and sexist are deliberately biased" not in help_text
    assert "topic picks random sentences" in help_text and "neutral control" in help_text
    assert "sexist is the deliberately biased control" in help_text


def main_elements(app) -> list[str]:
    """The main area's elements in page order, each as its type and, for a button, its key."""
    order: list[str] = []

    def walk(node) -> None:
        kind = getattr(node, "type", "")
        if kind == "button":
            order.append(f"button:{node.key}")
        elif kind in ("progress", "info", "success", "warning", "error"):
            order.append(f"{kind}:{getattr(node, 'value', '')}"[:80])
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(app.main)
    return order


def test_a_run_launched_by_the_button_shows_its_progress_right_under_the_button():
    run_id = running_copy_of_the_demo_run()
    app = audit(["gender-glob"])
    app.session_state["launched_run"] = run_id
    app.session_state["progress_by_run_button"] = run_id  # what Run audit sets when it launched the run
    app.run()
    order = main_elements(app)
    button = order.index("button:audit_run")
    progress = next(i for i, element in enumerate(order) if element.startswith("progress"))
    assert progress == button + 1, order
    assert not any("Following the run" in element for element in order)


def test_a_page_opened_while_its_run_goes_on_shows_the_progress_first():
    run_id = running_copy_of_the_demo_run()
    app = audit(["gender-glob"])
    app.session_state["launched_run"] = run_id  # a refresh: the workspace brings back the run, not the button
    app.run()
    order = main_elements(app)
    progress = next(i for i, element in enumerate(order) if element.startswith("progress"))
    assert progress < order.index("button:audit_run")
    assert any("Following the run" in element for element in order[:progress])


def demo_run(without: str | None = None) -> str:
    """The demo run imported into the test's store, less the inputs, summaries and results of ``without``."""
    with gzip.open(DEMO_RUN, "rt", encoding="utf-8") as stream:
        bundle = json.load(stream)
    if without:
        dropped = {item["id"] for item in bundle["inputs"] if item["perturbation"] == without}
        bundle["inputs"] = [item for item in bundle["inputs"] if item["id"] not in dropped]
        bundle["summaries"] = [s for s in bundle["summaries"] if s["input_id"] not in dropped]
        bundle["measures"] = [m for m in bundle["measures"] if m.get("perturbation") != without]
        bundle["run"] |= {"id": "20990101-000000-nopol0", "name": "no politician"}
    return RunStore().import_run(bundle)


@pytest.mark.parametrize("without, shown", [("politician", False), (None, True)])
def test_fightin_words_offers_the_politician_view_only_on_a_run_with_a_politician_swap(without, shown):
    demo_run(without)
    app = open_app("pages/fightin_words.py")
    options = app.radio(key="fw_comparison").options
    assert any("HIGHSIM" in option for option in options) == shown
    titles = [e.label for e in app.expander]
    assert titles and not any("docs/" in title or ".md" in title for title in titles), titles


def test_a_summary_count_and_its_basis_agree_while_a_batch_is_being_saved(tmp_path, monkeypatch):
    """An engine that reports a whole batch is heard before the batch is saved: the progress written then says how
    many more are made than saved, so "0 of 10 summaries" never sits beside "from 4 summaries so far" alone."""
    from bias_core.runs import progress
    from bias_core.runs.config import AuditConfig, CorpusSpec, StageSpec
    from bias_core.runs.pipeline import run_audit
    from bias_core.summarize import SummaryCache
    from bias_core.summarize.base import Summarizer, register

    class WholeBatch(Summarizer):
        def __init__(self):
            self.name, self.default_batch_size = "whole-batch-29", 4

        def parameters(self):
            return {}

        def summarize_batch(self, inputs):
            return [Summary(item.id, self.name, item.text.split()[0]) for item in inputs]

    register(r"whole-batch-29", "whole-batch-29")(lambda match, params: WholeBatch())
    monkeypatch.setattr(progress, "PROGRESS_WRITE_SECONDS", 0)
    written: list[tuple[int, str]] = []
    original = RunStore.set_progress

    def spy(self, run_id, done, record):
        written.append((done, record.get("basis", "")))
        return original(self, run_id, done, record)

    monkeypatch.setattr(RunStore, "set_progress", spy)
    documents = [Document(id=f"d{k}", text=f"Robert Moore spoke on day {k}. He said it went well.") for k in range(10)]
    config = AuditConfig(corpus=CorpusSpec("inline"), summarizers=[StageSpec("whole-batch-29")],
                         measures=["summary_similarity"], bootstrap=200)
    run_audit(config, store=RunStore(tmp_path / "runs.sqlite"), cache=SummaryCache(tmp_path / "c.sqlite"),
              documents=documents)
    for done, basis in written:
        so_far = re.search(r"from (\d+) summar(?:y|ies) so far", basis)
        if so_far and int(so_far[1]) > done:
            unsaved = re.match(r"(\d+) more summar(?:y|ies) made, saved when their batch ends; ", basis)
            assert unsaved and done + int(unsaved[1]) == int(so_far[1]), (done, basis)
    assert written[1][0] == 0 and written[1][1].startswith("4 more summaries made, saved when their batch ends")
    assert progress.unsaved_note(5, 5) == "" and progress.unsaved_note(1, 0).startswith("1 more summary made")
