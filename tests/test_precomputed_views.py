"""What the result pages need first is computed when a run ends and kept with it (issue 31, Deliver 6): each kept
piece equals what the page computes, the pages open on the kept pieces without recomputing them, and a piece kept for
another state of the run is ignored."""

from __future__ import annotations

import json

import pytest

import bias_core.compare.diff as diff_module
import bias_core.measures.alignment as alignment_module
import bias_core.views.fightin_words_view as fw_view_module
from bias_core.compare.diff import rank_originals
from bias_core.measures.alignment import summary_person_spans
from bias_core.reference.demo import DEMO_VIEWS, demo_views, ensure_demo_run
from bias_core.runs.store import RunStore
from bias_core.views import precomputed
from bias_core.views.fightin_words_view import arm_comparison, arm_texts
from bias_core.views.precomputed import fingerprint, stored_piece, table_of, text_key
from tests.conftest import open_app


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    store = RunStore(tmp_path_factory.mktemp("views") / "runs.sqlite")
    run_id = ensure_demo_run(store)
    return store, run_id


def test_the_shipped_demo_views_are_current_and_kept_when_the_demo_run_is_imported(demo):
    store, run_id = demo
    assert demo_views() is not None, (f"{DEMO_VIEWS.name} is stale (the demo bundle or a module in "
                                      "demo.VIEWS_SOURCES changed): the pages compute what it holds on their first "
                                      "visit. Write it again with `.venv/bin/python -m bias_core.reference.demo`.")
    assert stored_piece(store, run_id, "ranking") is not None


def test_each_kept_piece_is_what_the_page_computes_from_the_records(demo):
    store, run_id = demo
    inputs, summaries = store.inputs(run_id), store.summaries(run_id)
    kept = store.views(run_id, fingerprint(*store.record_counts(run_id)))
    assert kept["flagged"] == [list(pair) for pair in sorted(precomputed.flagged_pairs(inputs, summaries))] != []
    assert kept["ranking"] == json.loads(json.dumps([vars(row) for row in rank_originals(inputs, summaries)]))
    texts = list(dict.fromkeys(s.text for s in summaries))[:40]
    assert [kept["person_spans"][text_key(text)] for text in texts] == \
        [[list(span) for span in spans] for spans in summary_person_spans(texts)]
    perturbation, summarizer = kept["fightin_words_view"]
    table = kept["fightin_words_table"]
    arm_a, arm_b = table["view"][2:]
    computed = arm_comparison(arm_texts(inputs, summaries, perturbation, summarizer), arm_a, arm_b,
                              label_a="A", label_b="B", seed=0)
    assert table_of(table, "A", "B") == computed


def test_a_piece_kept_for_another_state_of_the_run_is_ignored(demo):
    store, run_id = demo
    inputs, summaries, measures = store.record_counts(run_id)
    assert store.views(run_id, fingerprint(inputs, summaries + 1, measures)) is None  # a summary more since
    precomputed.keep_piece(store, run_id, "ranking", [])
    assert stored_piece(store, run_id, "ranking") == [] and stored_piece(store, run_id, "flagged") is not None
    store.set_views(run_id, fingerprint(inputs, summaries, measures), demo_views())  # as imported


def test_the_pages_open_on_the_kept_pieces_without_ranking_parsing_or_counting_again(monkeypatch):
    def refuse(*_, **__):
        raise AssertionError("recomputed a piece the run keeps")

    for module, name in ((diff_module, "rank_originals"), (alignment_module, "summary_person_spans"),
                         (precomputed, "flagged_pairs"), (fw_view_module, "best_view"),
                         (fw_view_module, "arm_comparison")):
        monkeypatch.setattr(module, name, refuse)
    ensure_demo_run(RunStore())  # the app's store (the tests start without the demo run): its views come with it
    app = open_app("pages/compare.py")
    assert not app.exception, app.exception
    assert app.dataframe and app.markdown  # the ranking and the side-by-side summaries with their alignment
    app.switch_page("pages/fightin_words.py").run()
    assert not app.exception, app.exception
    assert app.session_state["fw_perturbation"] and app.dataframe  # opened on the kept view, with its table


def test_an_audit_keeps_its_views_when_it_ends(tmp_path):
    from tests.test_cli import cli

    config = tmp_path / "audit.toml"
    config.write_text('[corpus]\npath = "data/demo/news.jsonl"\n[[perturbations]]\nkind = "gender-glob"\n'
                      'samples = 1\n[[summarizers]]\nname = "lead-3"\n[measures]\nnames = ["fightin_words"]\n'
                      'bootstrap = 100\n')
    result = cli("audit", "--config", str(config), "--store", str(tmp_path / "runs.sqlite"), "--cache",
                 str(tmp_path / "cache.sqlite"), "--quiet")
    assert result.returncode == 0, result.stderr
    store = RunStore(tmp_path / "runs.sqlite")
    (run,) = store.list_runs()
    kept = store.views(run.id, fingerprint(*store.record_counts(run.id)))
    assert kept is not None and set(kept) == set(precomputed.PIECES)
    assert kept == json.loads(json.dumps(precomputed.compute_views(
        store.inputs(run.id), store.summaries(run.id), store.measures(run.id), run.config)))
    assert kept["flagged"] == [] and kept["ranking"] and "views" in run.reports["seconds"]


def test_views_kept_by_an_older_version_of_the_code_are_told_apart_from_those_of_another_state(demo):
    store, run_id = demo
    counts = store.record_counts(run_id)
    kept = store.views(run_id, fingerprint(*counts))
    assert not precomputed.kept_for_older_code(store, run_id)  # kept by this code
    store.set_views(run_id, "0ldc0de0ldc0de00:" + fingerprint(*counts).split(":", 1)[1], kept)
    assert precomputed.kept_for_older_code(store, run_id)  # the same records, an upgrade since
    store.set_views(run_id, "0ldc0de0ldc0de00:" + fingerprint(counts[0], counts[1] - 1, counts[2]).split(":", 1)[1],
                    kept)
    assert not precomputed.kept_for_older_code(store, run_id)  # another state of the run: the pages keep pieces
    store.set_views(run_id, fingerprint(*counts), kept)


def test_a_run_whose_views_an_older_version_kept_has_them_computed_again_when_a_page_opens_it():
    import time

    store = RunStore()  # the app's store
    run_id = ensure_demo_run(store)
    now = fingerprint(*store.record_counts(run_id))
    store.set_views(run_id, "0ldc0de0ldc0de00:" + now.split(":", 1)[1], demo_views())  # as an upgrade leaves it
    app = open_app("pages/metrics.py")
    assert not app.exception, app.exception
    deadline = time.monotonic() + 240
    while set(store.views(run_id, now) or ()) != set(precomputed.PIECES) and time.monotonic() < deadline:
        time.sleep(0.5)  # the page keeps the pieces it computed itself meanwhile
    kept = store.views(run_id, now)
    assert kept is not None and set(kept) == set(precomputed.PIECES)
    assert kept == json.loads(json.dumps(precomputed.compute_views(
        store.inputs(run_id), store.summaries(run_id), store.measures(run_id), store.get_run(run_id).config)))
